// SPDX-License-Identifier: Apache-2.0
public import Foundation

/// A folder of one test's own (mode 0700) under the temporary folder, removed with everything in
/// it when the value is released. Kept short: sockets made in it must fit `sun_path`.
public final class TestFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates `/tmp/puff-<label>-<8 random hex digits>` (under `TMPDIR` when set).
    public init(_ label: String) throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        url = FileManager.default.temporaryDirectory.appendingPathComponent("puff-\(label)-\(suffix)")
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// `name` in the folder.
    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
