// SPDX-License-Identifier: Apache-2.0

/// Who makes a call, as far as the system could tell: the client's bus name and the executable
/// behind it. Access rules and the audit log are built on it (architecture.md Part A item 10).
///
/// - Important: The executable is what `/proc/<pid>/exe` named when the client first called. Any
///   process of the same user can pose as another executable, so this identifies a caller for
///   defence in depth and the audit trail, never as a security boundary.
public struct Caller: Sendable, Hashable, CustomStringConvertible {
    /// The client's unique bus name; sessions and prompts belong to it.
    public let client: ClientID
    /// The absolute path of the caller's executable, or nil when the bus could not say.
    public let executable: String?
    /// The caller's process id, when known.
    public let pid: UInt32?

    /// Creates a caller.
    public init(_ client: ClientID, executable: String? = nil, pid: UInt32? = nil) {
        self.client = client
        self.executable = executable
        self.pid = pid
    }

    /// puffd itself, for work no client asked for (auto-lock, the login socket).
    public static let daemon = Caller(ClientID("puffd"), executable: nil)

    /// The executable's path, else the bus name: how a person is shown who asks.
    public var description: String { executable ?? client.rawValue }
}
