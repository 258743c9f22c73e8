// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto

/// Where a passcode is read from. Never the command line: arguments show up in `ps` and in shell
/// history.
public enum PasscodeSource: Sendable, Equatable {
    /// The controlling terminal, with echo off.
    case terminal
    /// One line of standard input (`--stdin`).
    case standardInput
    /// One line of an inherited descriptor (`--passcode-fd N`).
    case descriptor(Int32)

    /// Opens the source for reading.
    ///
    /// - Throws: ``ClientError/noPasscodeSource`` when there is no terminal, or
    ///   ``ClientError/usage(_:)`` when the descriptor is not open.
    func open() throws(ClientError) -> any PasscodeChannel {
        switch self {
        case .terminal: return try TerminalChannel()
        case .standardInput: return DescriptorChannel(fd: STDIN_FILENO)
        case .descriptor(let fd):
            guard fcntl(fd, F_GETFD) >= 0 else { throw .usage("descriptor \(fd) is not open") }
            return DescriptorChannel(fd: fd)
        }
    }
}

/// The two ways a passcode is asked for: once for one that exists, and, on a terminal, twice for a
/// new one, since a typo there would lock the collection for good.
enum PasscodePrompt {
    /// How many times a new passcode and its repetition may differ before the command gives up.
    static let attempts = 3

    /// Reads the passcode of an existing collection.
    static func existing(from channel: any PasscodeChannel, prompt: String) throws(ClientError) -> SecureBytes {
        try channel.readPasscode(prompt: prompt)
    }

    /// Reads a new passcode for `name`: on a terminal it is typed twice (asked again on a mismatch,
    /// at most ``attempts`` times), the prompt saying what the policy needs (`requirement`, for
    /// example "6 digits") when known; from a descriptor it is one line.
    ///
    /// - Throws: ``ClientError/passcodesDiffer`` after the last mismatch, or whatever reading throws.
    static func new(from channel: any PasscodeChannel, for name: String, requirement: String? = nil)
        throws(ClientError) -> SecureBytes
    {
        guard channel.isInteractive else { return try channel.readPasscode(prompt: "") }
        let hint = requirement.map { " (\($0))" } ?? ""
        for attempt in 1...attempts {
            let first = try channel.readPasscode(prompt: "Enter new passcode for \(name)\(hint):")
            let second = try channel.readPasscode(prompt: "Repeat it:")
            if first.constantTimeEquals(second) { return first }
            if attempt < attempts { channel.tell("Passcodes do not match; try again.") }
        }
        throw .passcodesDiffer
    }
}
