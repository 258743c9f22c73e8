// SPDX-License-Identifier: Apache-2.0
public import Foundation
public import PuffCrypto

/// A libsecret file-backend keyring made and read by the real `secret-tool` (libsecret's
/// `SECRET_BACKEND=file`, no daemon): the oracle for Puff's reader and writer.
public struct LibsecretFixture: Sendable {
    public let folder: URL
    public let password: String
    public var path: String { folder.appendingPathComponent("fixture.keyring").path }

    public init(password: String = "source pass") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("puff-libsecret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.password = password
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }

    public var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "SECRET_BACKEND": "file", "SECRET_FILE_TEST_PATH": path, "SECRET_FILE_TEST_PASSWORD": password,
            "HOME": folder.path, "XDG_RUNTIME_DIR": folder.path, "TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        ]
    }

    /// Stores one item with `secret-tool store`; `at` ("2019-03-04 05:06:07") runs it under
    /// faketime so the item's times lie in the past.
    public func store(label: String, attributes: [(String, String)], secret: [UInt8], at time: String? = nil)
        async throws
    {
        let pairs = attributes.flatMap { [$0.0, $0.1] }
        var arguments = ["store", "--label=\(label)"] + pairs
        var program = "/usr/bin/secret-tool"
        var environment = environment
        if let time {
            // Frozen at `time`, not started there ("@"): libsecret stamps the item after deriving
            // the file's key, which took over a second under CI load. The monotonic clock is left
            // real, or GLib's waits fail (EINVAL).
            arguments = ["-f", time, program] + arguments
            program = "/usr/bin/faketime"
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        let result = try await ChildProcess.run(program, arguments, environment: environment, input: Data(secret))
        guard result.status == 0 else { throw FixtureError.failed("secret-tool store: \(result.output)") }
    }

    /// Stores one text item through libsecret's own API (python3-gi) under the schema `schema`
    /// with `contentType`: `secret-tool store` refuses secrets over 8 KiB. `at` runs it under
    /// libfaketime, as ``store(label:attributes:secret:at:)``.
    public func storeThroughLibsecret(
        schema: String, label: String, attributes: [String: String], text: String,
        contentType: String = "text/plain", at time: String? = nil
    ) async throws {
        let script = """
            import gi, json, sys
            gi.require_version('Secret', '1')
            from gi.repository import Secret
            request = json.loads(sys.stdin.read())
            fields = {name: Secret.SchemaAttributeType.STRING for name in request['attributes']}
            schema = Secret.Schema.new(request['schema'], Secret.SchemaFlags.NONE, fields)
            value = Secret.Value.new(request['text'], -1, request['content_type'])
            ok = Secret.password_store_binary_sync(
                schema, request['attributes'], None, request['label'], value, None)
            sys.exit(0 if ok else 1)
            """
        let request = try JSONSerialization.data(withJSONObject: [
            "schema": schema, "label": label, "attributes": attributes, "text": text, "content_type": contentType,
        ])
        var environment = environment
        if let time {
            environment["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
            environment["FAKETIME"] = time  // frozen, as in store(label:attributes:secret:at:)
            environment["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        let result = try await ChildProcess.run(
            "/usr/bin/python3", ["-c", script], environment: environment, input: request)
        guard result.status == 0 else { throw FixtureError.failed("libsecret store: \(result.output)") }
    }

    /// One item as libsecret's file backend itself reads it back (``items()``).
    public struct Item: Decodable, Sendable {
        public var label: String
        public var attributes: [String: String]
        public var created: UInt64
        public var modified: UInt64
        public var contentType: String
        public var secretHex: String

        enum CodingKeys: String, CodingKey {
            case label, attributes, created, modified
            case contentType = "content_type"
            case secretHex = "secret_hex"
        }
    }

    /// Every item as libsecret's file backend reads it (python3-gi, `Secret.password_search_sync`
    /// over all items, secrets loaded): the oracle for what an import must serve.
    public func items() async throws -> [Item] {
        let script = """
            import gi, json
            gi.require_version('Secret', '1')
            from gi.repository import Secret
            flags = Secret.SearchFlags.ALL | Secret.SearchFlags.UNLOCK | Secret.SearchFlags.LOAD_SECRETS
            out = []
            for item in Secret.password_search_sync(None, {}, flags, None):
                value = item.retrieve_secret_sync(None)
                out.append({'label': item.get_label(), 'attributes': dict(item.get_attributes()),
                            'created': item.get_created(), 'modified': item.get_modified(),
                            'content_type': value.get_content_type(), 'secret_hex': value.get().hex()})
            print(json.dumps(out))
            """
        let result = try await ChildProcess.run("/usr/bin/python3", ["-c", script], environment: environment)
        guard result.status == 0 else { throw FixtureError.failed("libsecret search: \(result.output)") }
        return try JSONDecoder().decode([Item].self, from: result.bytes)
    }

    /// The secret `secret-tool lookup` finds for `attributes`, exactly as it prints it.
    public func lookup(_ attributes: [(String, String)]) async throws -> [UInt8] {
        let result = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["lookup"] + attributes.flatMap { [$0.0, $0.1] }, environment: environment)
        guard result.status == 0 else { throw FixtureError.failed("secret-tool lookup: \(result.output)") }
        return Array(result.bytes)
    }

    /// What `secret-tool search --all` prints for `attributes` (labels, attributes, times).
    public func search(_ attributes: [(String, String)]) async throws -> String {
        let result = try await ChildProcess.run(
            "/usr/bin/secret-tool", ["search", "--all"] + attributes.flatMap { [$0.0, $0.1] },
            environment: environment)
        guard result.status == 0 else { throw FixtureError.failed("secret-tool search: \(result.output)") }
        return result.output
    }

    public func bytes() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    public func write(_ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    public var passcode: SecureBytes { SecureBytes(unwipedCopyOf: Array(password.utf8)) }

    public enum FixtureError: Error { case failed(String) }
}
