// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffDBus

/// What a puffd does when another puffd holds the vault's lock (issue 24, item 27).
///
/// A puffd the PAM module started takes the lock, unlocks `login` with the login password (about
/// a second) and only then takes the bus name. A client calling in that window makes the bus
/// activate `puffd.service`, whose puffd would find the vault busy and fail; systemd restarts it
/// until the unit ends `failed`. Instead, the second puffd waits: once the name has an owner it
/// is served, and this puffd exits 0 (a `Type=dbus` unit whose process exits cleanly stops
/// without failing, and the bus hands the waiting client to the owner); once the lock is free (the
/// holder died before serving) it opens the vault itself. After ``limit`` it fails as before.
struct VaultHolderWait {
    /// Thrown by `makeService` when the vault's lock is held.
    struct Held: Error {
        let why: String
    }

    /// What came of the wait.
    enum Outcome: Equatable {
        /// The name has an owner (its unique name): someone serves it.
        case served(String)
        /// The lock came free: open the vault now.
        case lockFree
        /// Neither within ``limit``.
        case gaveUp
    }

    /// Generous: a first login derives a key with Argon2id and writes a new vault, on a machine
    /// that may be busy; systemd's default start timeout is 90 s.
    static let limit: Duration = .seconds(60)
    static let interval: Duration = .milliseconds(100)

    let connection: BusConnection
    let name: BusName
    let logger: Logger

    /// Waits until `name` has an owner, or `lockIsFree()` says the vault can be opened.
    func run(lockIsFree: () -> Bool) async -> Outcome {
        logger.notice(
            "The vault is held by another puffd (one the PAM module started?): waiting for it to take \(name)",
            metadata: ["limit": "\(Self.limit)"])
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.limit)
        while clock.now < deadline {
            if let owner = try? await connection.nameOwner(of: name) { return .served(owner) }
            if lockIsFree() { return .lockFree }
            try? await Task.sleep(for: Self.interval)
        }
        return .gaveUp
    }
}
