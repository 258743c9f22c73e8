// SPDX-License-Identifier: Apache-2.0
import PuffFormats

/// A KV v2 secret's string fields and the version read.
public struct KVSecret: Sendable, Equatable {
    /// The fields whose values are strings (Puff writes no other kind; others are left out).
    public var fields: [String: String]
    public var version: UInt64

    public init(fields: [String: String], version: UInt64) {
        self.fields = fields
        self.version = version
    }
}

/// What KV v2 keeps about a path besides its data.
public struct KVMetadata: Sendable, Equatable {
    /// The newest version (0 when every version was deleted for good).
    public var currentVersion: UInt64
    public var oldestVersion: UInt64
    /// RFC 3339 times, as OpenBao gives them.
    public var createdTime: String
    public var updatedTime: String
}

extension OpenBaoClient {
    /// Reads the newest version of KV v2 `path` in `mount` (`GET <mount>/data/<path>`).
    ///
    /// - Returns: nil when there is nothing there (never written, or its newest version deleted).
    /// - Throws: ``OpenBaoError/denied(path:)``, ``OpenBaoError/unreachable(address:reason:)``,
    ///   ``OpenBaoError/server(status:message:)``.
    public func read(_ path: String, mount: String) async throws(OpenBaoError) -> KVSecret? {
        let full = try KVPath.escaped("\(mount)/data/\(path)")
        let answer = try await send(.get, full)
        if answer.status == 404 { return nil }
        try Self.check(answer, path: full)
        return try Self.json(answer, path: full) { (document) throws(OpenBaoError) -> KVSecret? in
            let data = document.root["data"]
            guard case .object(let members)? = data?["data"] else { return nil }
            var fields: [String: String] = [:]
            for (key, value) in members {
                if let text = document.string(value) { fields[key] = text }
            }
            guard let version = document.integer(data?["metadata"]?["version"]) else {
                throw .server(status: answer.status, message: "the answer for \(full) has no version")
            }
            return KVSecret(fields: fields, version: UInt64(version))
        }
    }

    /// Writes `fields` as a new version of KV v2 `path`, with check-and-set when `cas` is given:
    /// 0 creates the path only if it holds nothing, n replaces version n only.
    ///
    /// - Returns: The version written.
    /// - Throws: ``OpenBaoError/casMismatch(path:)`` when the check-and-set failed (nothing was
    ///   written), ``OpenBaoError/denied(path:)``, ``OpenBaoError/unreachable(address:reason:)``,
    ///   ``OpenBaoError/server(status:message:)``.
    public func write(_ path: String, mount: String, fields: [(String, String)], cas: UInt64?)
        async throws(OpenBaoError) -> UInt64
    {
        let full = try KVPath.escaped("\(mount)/data/\(path)")
        var members: [(String, JSONBody)] = [("data", .object(fields.map { ($0.0, .text($0.1)) }))]
        if let cas { members.append(("options", .object([("cas", .number(cas))]))) }
        return try await call(.post, full, body: .object(members)) { (document) throws(OpenBaoError) in
            guard let version = document.integer(document.root["data"]?["version"]) else {
                throw .server(status: 200, message: "the answer for \(full) has no version")
            }
            return UInt64(version)
        }
    }

    /// The names below KV v2 `path` (`LIST <mount>/metadata/<path>`); folders end in `/`. Empty
    /// when there is nothing below it.
    /// An empty `path` lists the mount's top.
    public func list(_ path: String, mount: String) async throws(OpenBaoError) -> [String] {
        let full = try KVPath.escaped("\(mount)/metadata" + (path.isEmpty ? "" : "/\(path)"))
        let answer = try await send(.list, full)
        if answer.status == 404 { return [] }
        try Self.check(answer, path: full)
        return try Self.json(answer, path: full) { document in
            document.root["data"]?["keys"]?.elements?.compactMap { document.string($0) } ?? []
        }
    }

    /// KV v2 metadata of `path` (`GET <mount>/metadata/<path>`); nil when there is none.
    public func metadata(_ path: String, mount: String) async throws(OpenBaoError) -> KVMetadata? {
        let full = try KVPath.escaped("\(mount)/metadata/\(path)")
        let answer = try await send(.get, full)
        if answer.status == 404 { return nil }
        try Self.check(answer, path: full)
        return try Self.json(answer, path: full) { (document) throws(OpenBaoError) -> KVMetadata? in
            let data = document.root["data"]
            guard let current = document.integer(data?["current_version"]) else { return nil }
            return KVMetadata(
                currentVersion: UInt64(current), oldestVersion: UInt64(document.integer(data?["oldest_version"]) ?? 0),
                createdTime: document.string(data?["created_time"]) ?? "",
                updatedTime: document.string(data?["updated_time"]) ?? "")
        }
    }
}
