// SPDX-License-Identifier: Apache-2.0

/// When an unlocked collection locks by itself. Each collection keeps its own clocks; the limits
/// are the same for all. `puffd`'s options fill this today, a configuration file later.
public struct AutoLockSettings: Sendable, Equatable {
    /// Lock after this long with no secret read or written in the collection; nil: never.
    public var idle: Duration?
    /// Lock this long after the collection was unlocked, however often it is used; nil: never.
    public var maximum: Duration?

    /// Settings with the given limits; nil turns a limit off.
    public init(idle: Duration?, maximum: Duration?) {
        self.idle = idle
        self.maximum = maximum
    }

    /// Settings from whole seconds, as options and configuration files give them: 0 means never.
    public init(idleSeconds: Int, maximumSeconds: Int) {
        idle = idleSeconds > 0 ? .seconds(idleSeconds) : nil
        maximum = maximumSeconds > 0 ? .seconds(maximumSeconds) : nil
    }

    /// Collections stay unlocked until something locks them.
    public static let never = AutoLockSettings(idle: nil, maximum: nil)

    /// `puffd`'s defaults for a vault with passcodes: 15 minutes without a read, 8 hours at most.
    ///
    /// The idle limit is the usual one of password managers (gpg-agent, behind `pass`, forgets a
    /// passphrase after 10 idle minutes; Bitwarden and 1Password lock after 10–15), so an
    /// unattended desktop does not hand out secrets for long. The maximum is a working day rather
    /// than gpg-agent's 2 hours: a keyring is read by programs in the background (mail, browsers,
    /// git), and asking for the passcode every 2 hours of active use teaches people weak passcodes;
    /// a collection kept busy by such a program still does not stay open overnight.
    public static let standard = AutoLockSettings(idle: .seconds(15 * 60), maximum: .seconds(8 * 3600))

    /// Whether any limit is on.
    public var isEnabled: Bool { idle != nil || maximum != nil }

    /// When a collection unlocked at `unlockedAt` and last used at `lastUse` must lock, and which
    /// limit that is; nil when no limit is on. Times are offsets on the service's clock.
    func deadline(unlockedAt: Duration, lastUse: Duration) -> (time: Duration, reason: LockReason)? {
        let byIdle = idle.map { (time: lastUse + $0, reason: LockReason.idle) }
        let byMaximum = maximum.map { (time: unlockedAt + $0, reason: LockReason.timeLimit) }
        switch (byIdle, byMaximum) {
        case (let idle?, let maximum?): return maximum.time <= idle.time ? maximum : idle
        case (let idle?, nil): return idle
        case (nil, let maximum?): return maximum
        case (nil, nil): return nil
        }
    }
}

/// Why collections were locked without a client asking; logged with the lock.
public enum LockReason: Sendable, Equatable, CustomStringConvertible {
    /// No secret of the collection was read or written for the idle time.
    case idle
    /// The collection was unlocked for the maximum time.
    case timeLimit
    /// The daemon got `SIGUSR1`.
    case signal
    /// The system is about to sleep.
    case systemSleep
    /// The user's session was locked (its screen locks).
    case sessionLocked
    /// The user's last login session ended.
    case sessionsEnded

    /// A few words for the log.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .timeLimit: "unlocked for the maximum time"
        case .signal: "SIGUSR1"
        case .systemSleep: "system going to sleep"
        case .sessionLocked: "session locked"
        case .sessionsEnded: "last session ended"
        }
    }
}
