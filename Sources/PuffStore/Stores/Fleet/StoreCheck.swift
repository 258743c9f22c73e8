// SPDX-License-Identifier: Apache-2.0

/// One check of the shared store fleet collections are kept in (OpenBao's, docs/fleet.md), as
/// puffd answers `puffctl doctor` (`io.puff.Control1.CheckStore`). Every text names addresses,
/// paths and policies, never a token, a secret id or a record.
public struct StoreCheck: Sendable, Equatable {
    /// How a check came out.
    public enum Outcome: String, Sendable, Equatable {
        case ok, warn, fail
    }

    /// What was checked: `reachable`, `authenticated`, `policy`, `clock`.
    public var name: String
    /// How it came out.
    public var outcome: Outcome
    /// One line saying what was found.
    public var summary: String
    /// Lines shown under it (the paths a policy lacks).
    public var details: [String]
    /// What to do about it; nil when nothing is to be done.
    public var next: String?

    /// Creates a check's outcome.
    public init(_ name: String, _ outcome: Outcome, _ summary: String, details: [String] = [], next: String? = nil) {
        self.name = name
        self.outcome = outcome
        self.summary = summary
        self.details = details
        self.next = next
    }
}
