// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffSystem
import SystemPackage

/// Enter on the controlling terminal, waited for beside something else (a security key's wait
/// for a touch): the person's way to say "I will type the passcode instead". Echo is off while
/// it waits, so a passcode typed too early does not show; the line read is thrown away.
final class EnterKey: Sendable {
    private let terminal: Int32
    private let stopRead: Int32
    private let stopWrite: Int32

    /// Opens `/dev/tty`; nil when the process has no controlling terminal.
    init?() {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard terminal >= 0 else { return nil }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(terminal)
            return nil
        }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.terminal = terminal
        (stopRead, stopWrite) = (ends[0], ends[1])
    }

    deinit {
        for fd in [terminal, stopRead, stopWrite] { close(fd) }
    }

    /// Returns true once Enter was pressed, false once ``stop()`` was called first. Waits on a
    /// thread of its own (`poll`), not on the cooperative pool.
    func wait() async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let pressed =
                    (try? TerminalEcho.withEchoOff(self.terminal) { () throws(ClientError) -> Bool in
                        self.readLine()
                    }) ?? false
                continuation.resume(returning: pressed)
            }
        }
    }

    /// Ends ``wait()`` with false (harmless when it already ended).
    func stop() {
        var byte: UInt8 = 0
        _ = write(stopWrite, &byte, 1)
    }

    /// Reads the terminal up to a newline; false when the stop pipe speaks first.
    private func readLine() -> Bool {
        var fds = [
            pollfd(fd: terminal, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
        ]
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            guard let ready = try? SystemCalls.poll(&fds, timeout: -1), ready > 0, fds[1].revents == 0 else {
                return false
            }
            guard fds[0].revents & Int16(POLLIN) != 0 else { return false }
            let count =
                buffer.withUnsafeMutableBytes { try? FileDescriptor(rawValue: terminal).readSome(into: $0) } ?? 0
            guard count > 0 else { return false }
            // What was typed is nobody's business: dropped with the buffer.
            let pressed = buffer[..<count].contains(UInt8(ascii: "\n"))
            for index in buffer.indices { buffer[index] = 0 }
            if pressed { return true }
        }
    }
}
