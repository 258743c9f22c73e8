// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto

/// Somewhere passcode lines come from: the terminal, which asks, or a descriptor, which does not.
protocol PasscodeChannel: AnyObject {
    /// Whether a person answers prompts, so a new passcode is asked twice.
    var isInteractive: Bool { get }

    /// Reads one passcode, showing `prompt` first where someone can see it.
    func readPasscode(prompt: String) throws(ClientError) -> SecureBytes

    /// Shows one line to the person typing; ignored where nobody is.
    func tell(_ line: String)
}

/// Lines from a pipe or file: standard input (`--stdin`) or `--passcode-fd N`.
final class DescriptorChannel: PasscodeChannel {
    /// The descriptor read from; the channel does not close it.
    let fd: Int32

    var isInteractive: Bool { false }

    /// Reads lines from `fd`.
    init(fd: Int32) {
        self.fd = fd
    }

    func readPasscode(prompt: String) throws(ClientError) -> SecureBytes {
        try PasscodeReader.readLine(from: fd)
    }

    func tell(_ line: String) {}
}

/// The controlling terminal, `/dev/tty`, read with echo off (as ssh-keygen and sudo do), so it
/// works while standard input and output are redirected.
final class TerminalChannel: PasscodeChannel {
    private let fd: Int32

    var isInteractive: Bool { true }

    /// Opens the terminal at `path`, normally `/dev/tty` (another path is for tests).
    ///
    /// - Throws: ``ClientError/noPasscodeSource`` when the process has no controlling terminal.
    init(path: String = "/dev/tty") throws(ClientError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .noPasscodeSource }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    func readPasscode(prompt: String) throws(ClientError) -> SecureBytes {
        // Echo goes off before the prompt shows, as in readpassphrase(3): whatever is typed once
        // the prompt is visible stays hidden.
        try TerminalEcho.withEchoOff(fd) { () throws(ClientError) -> SecureBytes in
            show(prompt + " ")
            return try PasscodeReader.readLine(from: fd)
        }
    }

    func tell(_ line: String) {
        show(line + "\n")
    }

    /// Reads one line typed with echo on, after `prompt` (a confirmation, never a passcode).
    func readAnswer(prompt: String) throws(ClientError) -> String {
        show(prompt + " ")
        let line = try PasscodeReader.readLine(from: fd)
        return String(decoding: line.unprotectedArray(), as: UTF8.self)
    }

    private func show(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(fd, bytes.baseAddress, bytes.count) }
    }
}
