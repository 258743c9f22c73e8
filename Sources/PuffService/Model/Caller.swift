// SPDX-License-Identifier: Apache-2.0
public import PuffSystem

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
    /// Whether the caller runs in a Flatpak sandbox, and as which app.
    public let sandbox: CallerSandbox

    /// Creates a caller.
    public init(_ client: ClientID, executable: String? = nil, pid: UInt32? = nil, sandbox: CallerSandbox = .host) {
        self.client = client
        self.executable = executable
        self.pid = pid
        self.sandbox = sandbox
    }

    /// puffd itself, for work no client asked for (auto-lock, the login socket).
    public static let daemon = Caller(ClientID("puffd"), executable: nil)

    /// What a question names as the application that asks: a sandboxed caller's app id (not the
    /// xdg-dbus-proxy that carries its calls), else the executable.
    public var application: String? {
        if case .app(let app, _) = sandbox { return app.rawValue }
        return executable
    }

    /// The app id for a sandboxed caller, else the executable's path, else the bus name: how a
    /// person is shown who asks.
    public var description: String {
        if case .app(let app, _) = sandbox { return app.rawValue }
        return executable ?? client.rawValue
    }
}

/// Where a caller's process runs, as read from `/proc/<pid>/root/.flatpak-info` when it first
/// called: `.host`, `.app(id, instance:)` or `.unverified(reason)`. One type with the bus's call
/// context (PuffSystem's ``ProcessIdentity``), so nothing converts between them.
public typealias CallerSandbox = ProcessIdentity.Sandbox
