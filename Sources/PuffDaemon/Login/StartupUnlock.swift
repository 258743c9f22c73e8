// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffCrypto
import PuffService

/// `puffd --unlock-fd N`: the passcode of `login` read from descriptor N at start (the PAM
/// module's pipe when it starts puffd, or a server's or CI job's), which opens `login`, or
/// creates it on a vault without one, before the bus name is taken.
enum StartupUnlock {
    /// How long the writer may take to send the passcode and close its end, unless puffd's hidden
    /// `--passcode-pipe-timeout` says otherwise.
    static let readMilliseconds: Int32 = 5000

    /// Reads up to end of file, at most ``LoginRequest/maxField`` bytes, into locked memory, and
    /// closes `fd`; the writer has `milliseconds` from now. Exactly one trailing newline is dropped
    /// (issue 24 item 22): `--unlock-fd`, a credential and `puffctl --stdin` follow one rule, so
    /// `echo pass | ...` means `pass`.
    static func readPasscode(
        from fd: Int32, within milliseconds: Int32 = readMilliseconds
    ) throws(LoginRequest.Failure) -> SecureBytes {
        defer { close(fd) }
        let reader = DeadlineReader(fd: fd, deadline: DeadlineReader.now() + Int64(milliseconds))
        var length = 0
        let buffer = try SecureBytes(count: LoginRequest.maxField + 1) {
            (out: UnsafeMutableRawBufferPointer) throws(LoginRequest.Failure) in
            length = try reader.fillToEnd(out)
        }
        guard length <= LoginRequest.maxField else { throw .tooLong(length) }
        return buffer.withUnsafeBytes { bytes in
            let end = length > 0 && bytes[length - 1] == UInt8(ascii: "\n") ? length - 1 : length
            return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        }
    }

    /// Opens `login` with the passcode from `fd`; every failure is a log line, not an exit.
    static func run(
        fd: Int32, within milliseconds: Int32 = readMilliseconds, service: SecretService, logger: Logger
    ) async {
        // The vault is open (its lock held) and the bus name not yet taken: tests hold here.
        logger.debug("Reading the passcode on --unlock-fd \(fd)")
        let read = await BlockingWork.result { () throws(LoginRequest.Failure) in
            try readPasscode(from: fd, within: milliseconds)
        }
        guard case .success(let passcode) = read else {
            logger.warning("Nothing usable came on --unlock-fd \(fd): login stays locked")
            return
        }
        do {
            switch try await service.login(password: passcode) {
            case .unlocked: logger.info("login unlocked with the passcode from --unlock-fd")
            case .created: logger.info("login created with the passcode from --unlock-fd")
            case .wrongPasscode: logger.warning("The passcode from --unlock-fd does not open login")
            }
        } catch {
            logger.warning("--unlock-fd: \(error)")
        }
    }
}
