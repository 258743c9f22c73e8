// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import Synchronization
import SystemPackage

/// The terminal `puffctl agent` asks in: shows a question and reads a passcode with echo off,
/// byte by byte into locked memory, polling so that the question ends when puffd closes the
/// answer pipe's read end (the prompt ended) or sends `Cancel`.
final class AgentTerminal: Sendable {
    /// Why a question got no passcode.
    enum Outcome: Error {
        /// The person pressed Enter on an empty line or ended the input.
        case declined
        /// puffd said the prompt ended.
        case cancelled
    }

    private let fd: Int32
    private let cancelled = Atomic<Bool>(false)

    /// Opens the terminal at `path` (`/dev/tty`).
    ///
    /// - Throws: ``ClientError/noPasscodeSource`` when there is none.
    init(path: String = "/dev/tty") throws(ClientError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .noPasscodeSource }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Ends the question being read now, if any.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Shows `text` as it is.
    func show(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(fd, bytes.baseAddress, bytes.count) }
    }

    /// Shows `prompt` and reads one line with echo off, until puffd closes the other end of
    /// `answer` (-1: no pipe to watch).
    func readPasscode(prompt: String, answer: Int32 = -1) throws(Outcome) -> SecureBytes {
        cancelled.store(false, ordering: .relaxed)
        let result = Result { () throws(ClientError) -> Result<SecureBytes, Outcome> in
            try TerminalEcho.withEchoOff(fd) { () throws(ClientError) -> Result<SecureBytes, Outcome> in
                show(prompt + " ")
                defer { show("\n") }
                return Result { () throws(Outcome) in try readLine(answer: answer) }
            }
        }
        switch result {
        case .success(.success(let passcode)): return passcode
        case .success(.failure(let outcome)): throw outcome
        case .failure: throw .declined
        }
    }

    /// Shows `prompt` and reads one short answer with echo on, lower-cased and trimmed; an empty
    /// line is ``Outcome/declined``; puffd closing the other end of `answer` ends it.
    func readAnswer(prompt: String, answer: Int32 = -1) throws(Outcome) -> String {
        cancelled.store(false, ordering: .relaxed)
        show(prompt + " ")
        let line = try readLine(answer: answer)
        return String(decoding: line.unprotectedArray(), as: UTF8.self).filter { !$0.isWhitespace }.lowercased()
    }

    private func readLine(answer: Int32) throws(Outcome) -> SecureBytes {
        var length = 0
        let line = try SecureBytes(count: PasscodeReader.maximumLength + 1) {
            (buffer: UnsafeMutableRawBufferPointer) throws(Outcome) in
            while length <= PasscodeReader.maximumLength {
                guard !cancelled.load(ordering: .relaxed) else { throw .cancelled }
                // A pipe's write end reports POLLERR once no reader is left: the prompt ended.
                var pollers = [
                    pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: answer, events: 0, revents: 0),
                ]
                guard let ready = try? SystemCalls.poll(&pollers, timeout: 200) else { throw .declined }
                if pollers[1].revents & Int16(POLLERR | POLLHUP) != 0 { throw .cancelled }
                if ready == 0 || pollers[0].revents == 0 { continue }
                let count: Int
                do throws(Errno) {
                    count = try FileDescriptor(rawValue: fd).readSome(
                        into: UnsafeMutableRawBufferPointer(rebasing: buffer[length..<length + 1]))
                } catch .wouldBlock {
                    continue
                } catch {
                    throw .declined
                }
                guard count == 1 else { throw .declined }
                if buffer[length] == UInt8(ascii: "\n") { return }
                length += 1
            }
            throw .declined
        }
        guard length > 0 else { throw .declined }
        return line.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}
