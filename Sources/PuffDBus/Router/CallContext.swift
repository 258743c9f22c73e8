// SPDX-License-Identifier: Apache-2.0
public import PuffSystem
import Synchronization

/// Who made a call: the caller's unique bus name and, where the bus could tell, its Unix user,
/// process, executable and sandbox (`GetConnectionCredentials`, then ``ProcessIdentity``). Every
/// method and property handler gets one (architecture.md Part A item 10); access rules and audit
/// logs are built on it.
public struct CallContext: Sendable, Equatable {
    /// The caller's unique bus name, such as `:1.42`.
    public let sender: String
    /// The caller's Unix user id.
    public let uid: UInt32?
    /// The caller's process id.
    public let pid: UInt32?
    /// The caller's executable (`/proc/<pid>/exe`), when readable.
    public let executable: String?
    /// Whether the caller runs in a Flatpak sandbox, and as which app (`/proc/<pid>/root/.flatpak-info`).
    public let sandbox: ProcessIdentity.Sandbox

    /// Creates a context.
    public init(
        sender: String, uid: UInt32? = nil, pid: UInt32? = nil, executable: String? = nil,
        sandbox: ProcessIdentity.Sandbox = .host
    ) {
        self.sender = sender
        self.uid = uid
        self.pid = pid
        self.executable = executable
        self.sandbox = sandbox
    }
}

/// Looks up and caches each caller's ``CallContext``, one bus round trip and one read of
/// `/proc/<pid>` per connection, at its first call; entries are dropped when the connection leaves
/// the bus.
///
/// A pid the bus names may have been reused by the time it is read (dbus 1.14 gives no pidfd). So
/// the directory notes, on the bus thread, when each unique name appeared (`NameOwnerChanged`), and
/// a process that started after its connection appeared is ``ProcessIdentity/Sandbox/unverified(_:)``.
public final class CallerDirectory: Sendable {
    private let lookup: @Sendable (String, UInt64) async -> CallContext
    private let cache = Mutex<[String: Task<CallContext, Never>]>([:])
    /// The contexts already looked up, for ``cachedContext(for:)``.
    private let known = Mutex<[String: CallContext]>([:])
    /// When each unique name appeared (``ProcessIdentity/bootTicks()``), and when the directory
    /// began to see them appear: a name without an arrival is older than that.
    private let arrivals = Mutex<Arrivals>(Arrivals())

    private struct Arrivals {
        var names: [String: UInt64] = [:]
        var watchedSince: UInt64?
    }

    /// A directory that asks the bus behind `connection` and reads processes under `procRoot`.
    /// It notes arrivals from now on; call ``noteSubscribed()`` once `NameOwnerChanged` is subscribed.
    public convenience init(connection: BusConnection, procRoot: String = "/proc") {
        self.init(boundedLookup: { sender, bound in
            await Self.credentials(of: sender, on: connection, startedBy: bound, procRoot: procRoot)
        })
        connection.observeSignals { [weak self] signal in self?.noteArrival(signal) }
    }

    /// A directory with a custom lookup (tests).
    public convenience init(lookup: @escaping @Sendable (String) async -> CallContext) {
        self.init(boundedLookup: { sender, _ in await lookup(sender) })
    }

    /// A directory whose lookup gets each sender's start bound (tests).
    public init(boundedLookup lookup: @escaping @Sendable (String, UInt64) async -> CallContext) {
        self.lookup = lookup
    }

    /// Notes that the bus now tells this connection of every name that appears (its match for
    /// `NameOwnerChanged` is in place): a name with no noted arrival appeared before now.
    public func noteSubscribed(at ticks: UInt64 = ProcessIdentity.bootTicks()) {
        arrivals.withLock { $0.watchedSince = $0.watchedSince ?? ticks }
    }

    /// Notes `signal` if it is the bus saying a unique name appeared.
    public func noteArrival(_ signal: IncomingMessage, at ticks: UInt64 = ProcessIdentity.bootTicks()) {
        guard signal.sender == "org.freedesktop.DBus", signal.interface == "org.freedesktop.DBus",
            signal.member == "NameOwnerChanged", signal.arguments.count == 3,
            case .string(let name) = signal.arguments[0], name.hasPrefix(":"),
            case .string("") = signal.arguments[1], case .string(name) = signal.arguments[2]
        else { return }
        arrivals.withLock { $0.names[name] = $0.names[name] ?? ticks }
    }

    /// The latest start `sender`'s process may have had: when it appeared, else when arrivals
    /// began to be noted, else now (a looser bound, still true for the process that connected).
    func bound(for sender: String) -> UInt64 {
        arrivals.withLock { $0.names[sender] ?? $0.watchedSince } ?? ProcessIdentity.bootTicks()
    }

    /// The context of `sender`, from the cache or the bus.
    public func context(for sender: String) async -> CallContext {
        let lookup = self.lookup
        let task = cache.withLock { cache in
            if let known = cache[sender] { return known }
            let bound = bound(for: sender)
            let task = Task { await lookup(sender, bound) }
            cache[sender] = task
            return task
        }
        let context = await task.value
        // Kept only while the sender is: a departure may have come while the bus answered.
        cache.withLock { cache in
            if cache[sender] != nil { known.withLock { $0[sender] = context } }
        }
        return context
    }

    /// The context of `sender` if it was looked up already; never waits (the bus thread asks).
    public func cachedContext(for sender: String) -> CallContext? {
        known.withLock { $0[sender] }
    }

    /// Forgets `sender`, which has left the bus.
    public func forget(_ sender: String) {
        cache.withLock { cache in
            cache[sender] = nil
            known.withLock { $0[sender] = nil }
        }
        arrivals.withLock { $0.names[sender] = nil }
    }

    private static func credentials(
        of sender: String, on connection: BusConnection, startedBy bound: UInt64, procRoot: String
    ) async -> CallContext {
        guard let reply = try? await connection.callBus("GetConnectionCredentials", [.string(sender)]),
            let entries = reply.arguments.first?.variantDictionary
        else { return CallContext(sender: sender, sandbox: .unverified("the bus gave no credentials")) }
        var uid: UInt32?
        var pid: UInt32?
        if case .uint32(let value)? = entries["UnixUserID"] { uid = value }
        if case .uint32(let value)? = entries["ProcessID"] { pid = value }
        guard let pid else { return CallContext(sender: sender, uid: uid, sandbox: .unverified("the bus gave no pid")) }
        let identity = ProcessIdentity.read(pid: pid, startedBy: bound, procRoot: procRoot)
        return CallContext(
            sender: sender, uid: uid, pid: pid, executable: identity.executable, sandbox: identity.sandbox)
    }
}
