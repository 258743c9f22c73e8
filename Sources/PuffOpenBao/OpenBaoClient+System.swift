// SPDX-License-Identifier: Apache-2.0
import PuffFormats

/// What `sys/health` says, and the server's clock.
public struct OpenBaoHealth: Sendable, Equatable {
    public var initialized: Bool
    public var sealed: Bool
    public var standby: Bool
    public var version: String
    /// The server's clock (its Date header) in seconds since 1970; nil without the header.
    public var serverTime: Int64?
}

/// What `auth/token/lookup-self` says about the client's token, the token itself left out.
public struct OpenBaoTokenInfo: Sendable, Equatable {
    public var displayName: String
    public var policies: [String]
    /// Seconds the token has left; 0 for a token that does not expire.
    public var ttl: Int64
}

extension OpenBaoClient {
    /// `GET sys/health`, without the token. A sealed, standby or uninitialised server answers with
    /// a status of its own (503, 429, 501…) and the same fields, which are returned too.
    ///
    /// - Throws: ``OpenBaoError/unreachable(address:reason:)``, ``OpenBaoError/server(status:message:)``.
    public func health() async throws(OpenBaoError) -> OpenBaoHealth {
        let path = "sys/health"
        let answer = try await send(.get, path, authenticated: false, namespaced: false)
        if ![429, 472, 473, 501, 503].contains(answer.status) { try Self.check(answer, path: path) }
        return try Self.json(answer, path: path) { (document) throws(OpenBaoError) in
            let root = document.root
            guard case .bool(let initialized)? = root["initialized"], case .bool(let sealed)? = root["sealed"] else {
                throw .server(status: answer.status, message: "the answer for \(path) is not a health status")
            }
            let standby = if case .bool(true)? = root["standby"] { true } else { false }
            return OpenBaoHealth(
                initialized: initialized, sealed: sealed, standby: standby,
                version: document.string(root["version"]) ?? "",
                serverTime: answer.date)
        }
    }

    /// The server's clock in seconds since 1970, from the Date header of `sys/health`: how far
    /// this machine's clock is off is what `puffctl doctor` reports.
    public func serverTime() async throws(OpenBaoError) -> Int64 {
        guard let time = try await health().serverTime else {
            throw .server(status: 200, message: "the answer for sys/health has no Date header")
        }
        return time
    }

    /// `GET auth/token/lookup-self`: the token's name, policies and time left.
    public func lookupSelf() async throws(OpenBaoError) -> OpenBaoTokenInfo {
        try await call(.get, "auth/token/lookup-self") { document in
            let data = document.root["data"]
            return OpenBaoTokenInfo(
                displayName: document.string(data?["display_name"]) ?? "",
                policies: data?["policies"]?.elements?.compactMap { document.string($0) } ?? [],
                ttl: Int64(document.integer(data?["ttl"]) ?? 0))
        }
    }

    /// `POST sys/capabilities-self`: what the token may do on each of `paths` (`read`, `create`,
    /// `update`, `list`, `deny`, `root`…), as `puffctl doctor` checks a machine's policy.
    public func capabilities(_ paths: [String]) async throws(OpenBaoError) -> [String: [String]] {
        try await call(.post, "sys/capabilities-self", body: .object([("paths", .strings(paths))])) { document in
            var capabilities: [String: [String]] = [:]
            for path in paths {
                capabilities[path] = document.root["data"]?[path]?.elements?.compactMap { document.string($0) } ?? []
            }
            return capabilities
        }
    }
}
