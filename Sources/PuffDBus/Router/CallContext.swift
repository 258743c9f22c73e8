// SPDX-License-Identifier: Apache-2.0
import Glibc
import Synchronization

/// Who made a call: the caller's unique bus name and, where the bus could tell, its Unix user,
/// process and executable (`GetConnectionCredentials`). Every method and property handler gets one
/// (architecture.md Part A item 10); access rules and audit logs are built on it.
public struct CallContext: Sendable, Equatable {
    /// The caller's unique bus name, such as `:1.42`.
    public let sender: String
    /// The caller's Unix user id.
    public let uid: UInt32?
    /// The caller's process id.
    public let pid: UInt32?
    /// The caller's executable (`/proc/<pid>/exe`), when readable.
    public let executable: String?

    /// Creates a context.
    public init(sender: String, uid: UInt32? = nil, pid: UInt32? = nil, executable: String? = nil) {
        self.sender = sender
        self.uid = uid
        self.pid = pid
        self.executable = executable
    }
}

/// Looks up and caches each caller's ``CallContext``, one bus round trip per connection; entries
/// are dropped when the connection leaves the bus.
public final class CallerDirectory: Sendable {
    private let lookup: @Sendable (String) async -> CallContext
    private let cache = Mutex<[String: Task<CallContext, Never>]>([:])
    /// The contexts already looked up, for ``cachedContext(for:)``.
    private let known = Mutex<[String: CallContext]>([:])

    /// A directory that asks the bus behind `connection`.
    public convenience init(connection: BusConnection) {
        self.init { sender in await Self.credentials(of: sender, on: connection) }
    }

    /// A directory with a custom lookup (tests).
    public init(lookup: @escaping @Sendable (String) async -> CallContext) {
        self.lookup = lookup
    }

    /// The context of `sender`, from the cache or the bus.
    public func context(for sender: String) async -> CallContext {
        let lookup = self.lookup
        let task = cache.withLock { cache in
            if let known = cache[sender] { return known }
            let task = Task { await lookup(sender) }
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
    }

    private static func credentials(of sender: String, on connection: BusConnection) async -> CallContext {
        guard let reply = try? await connection.callBus("GetConnectionCredentials", [.string(sender)]),
            let entries = reply.arguments.first?.variantDictionary
        else { return CallContext(sender: sender) }
        var uid: UInt32?
        var pid: UInt32?
        if case .uint32(let value)? = entries["UnixUserID"] { uid = value }
        if case .uint32(let value)? = entries["ProcessID"] { pid = value }
        return CallContext(sender: sender, uid: uid, pid: pid, executable: pid.flatMap(executable(of:)))
    }

    private static func executable(of pid: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
