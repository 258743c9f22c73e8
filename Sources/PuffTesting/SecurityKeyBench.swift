// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// The security keys of one test: a scratch folder and the software authenticators
/// (``SoftwareSecurityKey``) started in it. ``close()`` stops every one and removes the folder;
/// a test writes `let keys = try SecurityKeyBench(); defer { keys.close() }` (an explicit close:
/// Swift may end a value's life at its last use, before the test is done with its keys).
public final class SecurityKeyBench: @unchecked Sendable {
    // @unchecked: `started` is only touched under `lock`.
    /// The scratch folder: the keys' sockets and logs, and whatever else the test keeps there
    /// (a vault, a credential file).
    public let folder: URL
    private let lock = NSLock()
    private var started: [SoftwareSecurityKey] = []

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-fido2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A path in ``folder``.
    public func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Starts an authenticator named `name` (its socket `name.sock`, its log `name.log`) with
    /// `seed` (nil: the default one; ``SoftwareSecurityKey/otherSeed`` knows none of its
    /// credentials), `pin` set when given, answering touches as `touch` says.
    public func start(
        _ name: String = "key", seed: String? = nil, pin: String? = nil, touch: SoftwareSecurityKey.Touch = .auto
    ) async throws -> SoftwareSecurityKey {
        let key = try await SoftwareSecurityKey(in: folder, name: name, seed: seed, pin: pin, touch: touch)
        lock.withLock { started.append(key) }
        return key
    }

    /// Stops every key started here and removes the folder.
    public func close() {
        for key in lock.withLock({ started }) { key.stop() }
        try? FileManager.default.removeItem(at: folder)
    }
}
