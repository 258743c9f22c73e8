// SPDX-License-Identifier: Apache-2.0

/// Whether executables need permission to read items (`[access] mode`, docs/configuration.md).
public enum AccessMode: String, Sendable, Equatable, CaseIterable {
    /// Every client reads every unlocked item, as with any other Secret Service provider; only
    /// persisted denials and protected items are asked about.
    case open
    /// The first read of an item by an executable with no rule for it asks the person: once,
    /// always (persisted) or deny (persisted).
    case ask
    /// Only executables with an `allow` rule read an item; the others are refused without a
    /// question (`puffctl access allow` adds rules).
    case strict
}

/// How the service decides who reads a secret.
public struct AccessConfiguration: Sendable, Equatable {
    /// The longest a read waits for the person's answer: below the 25 s a D-Bus client waits for
    /// a reply by default, so the client hears a refusal, not a timeout.
    public static let longestQuestion = Duration.seconds(20)

    /// Whether executables need permission.
    public var mode: AccessMode
    /// Whether rules are bound to the executable's contents (BLAKE2b-256 of the file) as well as
    /// its path: a changed file then counts as a new executable.
    public var hashesExecutables: Bool
    /// How long one read may wait for answers; the prompt timeout when that is shorter.
    public var questionTimeout: Duration

    /// A configuration; the default leaves every client reading as before.
    public init(
        mode: AccessMode = .open, hashesExecutables: Bool = false, questionTimeout: Duration = longestQuestion
    ) {
        self.mode = mode
        self.hashesExecutables = hashesExecutables
        self.questionTimeout = questionTimeout
    }

    /// Every client reads; nothing is hashed.
    public static let open = AccessConfiguration()
}
