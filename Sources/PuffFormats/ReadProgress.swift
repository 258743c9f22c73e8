// SPDX-License-Identifier: Apache-2.0

/// Where a reader tells how far it has got while it reads a file for `puffctl import`: the
/// rounds of a key derivation that can be counted (KDBX's AES-KDF), then the items decrypted and
/// parsed. Ambient for the length of one read (``ReadProgress/$current``), as cancellation is,
/// so ``ForeignFileReader/read(_:passcode:)`` keeps its signature and a reader that reports
/// nothing needs no change. A derivation that is one library call (PBKDF2, Argon2, gnome-keyring's
/// iterated hash) cannot be counted and is not reported. Numbers only: never a label or secret.
public struct ReadProgress: Sendable {
    /// What is counted.
    public enum Stage: Sendable, Equatable {
        /// Rounds of the key derivation.
        case keyRounds
        /// Items read.
        case items
    }

    /// The reporter of the read running in this task, if any.
    @TaskLocal public static var current: ReadProgress?

    private let report: @Sendable (Stage, _ done: UInt64, _ total: UInt64) -> Void

    /// A reporter passing `done` of `total` of a stage to `report`; called from the reading
    /// thread, as often as once per item, so it must be cheap (puffctl's bar throttles itself).
    public init(report: @escaping @Sendable (Stage, _ done: UInt64, _ total: UInt64) -> Void) {
        self.report = report
    }

    /// Reports `done` of `total` of `stage`.
    public func callAsFunction(_ stage: Stage, _ done: Int, of total: Int) {
        report(stage, UInt64(max(done, 0)), UInt64(max(total, 0)))
    }
}
