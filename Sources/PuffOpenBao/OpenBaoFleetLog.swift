// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
public import PuffStore

/// A ``FleetLog`` kept in an OpenBao KV v2 mount (docs/design/fleet.md §2):
///
/// - `<prefix>/<name>/header`, field `header`: base64 of the sealed header; created with
///   check-and-set 0, replaced with check-and-set of the version read;
/// - `<prefix>/<name>/log/<n>` (n from 1, 16 digits zero-padded so that a list is in order),
///   field `entry`: base64 of the entry's bytes; created once with check-and-set 0.
///
/// Every byte it writes was sealed by Puff before: OpenBao sees base64 of ciphertext only.
public struct OpenBaoFleetLog: FleetLog {
    public let client: OpenBaoClient
    /// The KV v2 mount (`[store.openbao] mount`, `secret` by default).
    public let mount: String
    /// The folder of the mount the collections are in (`[store.openbao] path_prefix`, `puff`).
    public let prefix: String

    public init(client: OpenBaoClient, mount: String = "secret", prefix: String = "puff") {
        self.client = client
        self.mount = mount
        self.prefix = prefix
    }

    public var address: String { "\(client.address) (\(mount)/\(prefix))" }

    /// `"openbao"`, the name `[store.openbao]` and `--store openbao` give it.
    public var kindName: String { "openbao" }

    public func collections() async throws(StoreError) -> [String] {
        let names = try await kv { () async throws(OpenBaoError) in try await client.list(prefix, mount: mount) }
        return names.filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }
    }

    public func header(of collection: String) async throws(StoreError) -> (bytes: [UInt8], version: UInt64)? {
        let path = try headerPath(collection)
        guard let secret = try await kv({ () async throws(OpenBaoError) in try await client.read(path, mount: mount) })
        else {
            return nil
        }
        return (try bytes(of: secret, field: "header", at: path), secret.version)
    }

    public func replaceHeader(_ bytes: [UInt8], of collection: String, expecting version: UInt64, space: SpaceID)
        async throws(StoreError) -> UInt64
    {
        let path = try headerPath(collection)
        do throws(OpenBaoError) {
            return try await client.write(path, mount: mount, fields: [("header", Base64.encode(bytes))], cas: version)
        } catch .casMismatch {
            let current = try await kv { () async throws(OpenBaoError) in try await client.metadata(path, mount: mount)
            }
            throw .staleGeneration(space, expected: version, current: current?.currentVersion ?? 0)
        } catch {
            throw error.storeError(address: client.address)
        }
    }

    public func entry(_ index: UInt64, of collection: String) async throws(StoreError) -> [UInt8]? {
        let path = try entryPath(index, collection)
        guard let secret = try await kv({ () async throws(OpenBaoError) in try await client.read(path, mount: mount) })
        else {
            return nil
        }
        return try bytes(of: secret, field: "entry", at: path)
    }

    public func createEntry(_ index: UInt64, _ bytes: [UInt8], of collection: String, space: SpaceID)
        async throws(StoreError)
    {
        let path = try entryPath(index, collection)
        do throws(OpenBaoError) {
            _ = try await client.write(path, mount: mount, fields: [("entry", Base64.encode(bytes))], cas: 0)
        } catch .casMismatch {
            // Entry `index` exists: the log is at least there, and this writer expected it one short.
            throw .staleGeneration(space, expected: index - 1, current: index)
        } catch {
            throw error.storeError(address: client.address)
        }
    }

    /// `<prefix>/<name>/header`.
    func headerPath(_ collection: String) throws(StoreError) -> String {
        try folder(of: collection) + "/header"
    }

    /// `<prefix>/<name>/log/<16-digit index>`.
    func entryPath(_ index: UInt64, _ collection: String) throws(StoreError) -> String {
        guard index > 0 else { throw .unavailable("\(address): fleet log entries are numbered from 1, not 0") }
        let digits = String(index)
        return try folder(of: collection) + "/log/" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// `<prefix>/<name>`; a name that is not one path segment is refused, as it would name
    /// another collection's paths.
    func folder(of collection: String) throws(StoreError) -> String {
        guard !collection.isEmpty, collection != ".", collection != "..", !collection.contains("/") else {
            throw .unavailable("\(collection.debugDescription) cannot be a fleet collection's name in OpenBao")
        }
        return prefix.isEmpty ? collection : prefix + "/" + collection
    }

    /// The bytes base64-encoded in `field` of `secret`.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming the path when the field is
    ///   missing or not base64: written by something other than Puff.
    func bytes(of secret: KVSecret, field: String, at path: String) throws(StoreError) -> [UInt8] {
        guard let text = secret.fields[field], let bytes = Base64.decode(text) else {
            throw .damaged(
                file: "\(client.address) \(mount)/\(path)", offset: 0,
                reason: "no base64 field \(field) in version \(secret.version)")
        }
        return bytes
    }

    /// Runs a client call, its errors as the store's.
    func kv<Value>(_ body: () async throws(OpenBaoError) -> Value) async throws(StoreError) -> Value {
        do throws(OpenBaoError) {
            return try await body()
        } catch {
            throw error.storeError(address: client.address)
        }
    }
}
