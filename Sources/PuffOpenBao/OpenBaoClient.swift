// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
package import PuffFormats
import Synchronization

/// A client of one OpenBao (or HashiCorp Vault) server's HTTP API, through libcurl.
///
/// The token is sent as `X-Vault-Token` and lives in locked memory; it is never logged nor put in
/// an error. With AppRole the client logs in on its first request and again before the token's
/// lease runs out. Requests may run from any number of tasks at once.
public final class OpenBaoClient: Sendable {
    /// The server, `http(s)://host:port`, as given (without a trailing slash): what errors name.
    public let address: String
    /// The namespace every request but `sys/health` is sent in (`X-Vault-Namespace`); nil: the root.
    public let namespace: String?
    let transport: CurlTransport
    let auth: OpenBaoAuth
    /// The token requests carry, and when an AppRole client logs in again (nil: never).
    let session = Mutex<(token: SecureBytes, renewAt: ContinuousClock.Instant?)?>(nil)

    /// A client of the server at `address`.
    ///
    /// - Parameters:
    ///   - namespace: The namespace the mount, the policies and the AppRole are in, such as
    ///     `team1/ci`; nil: the root namespace.
    ///   - caFile: PEM certificates a `https` server must chain to; nil: the system's.
    ///   - connectTimeout: How long a connection may take (2 s by default).
    ///   - timeout: How long a whole request may take (10 s by default).
    /// - Throws: ``OpenBaoError/refused(_:)`` when `address` is not an `http` or `https` URL, or
    ///   `namespace` is not names separated by `/` (a header must not carry a line break).
    public init(
        address: String, auth: OpenBaoAuth, namespace: String? = nil, caFile: String? = nil,
        connectTimeout: Duration = .seconds(2), timeout: Duration = .seconds(10)
    ) throws(OpenBaoError) {
        let scheme = address.prefix { $0 != ":" }
        let rest = address.dropFirst(scheme.count)
        guard ["http", "https"].contains(scheme), rest.hasPrefix("://"),
            rest.dropFirst(3).contains(where: { $0 != "/" }),
            !address.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" })
        else { throw .refused("the OpenBao address \(address) is not an http:// or https:// URL") }
        if let namespace, !Self.isNamespace(namespace) {
            throw .refused("the OpenBao namespace \(namespace.debugDescription) is not names separated by \"/\"")
        }
        self.namespace = namespace
        var trimmed = address
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.address = trimmed
        self.auth = auth
        transport = CurlTransport(.init(connectTimeout: connectTimeout, timeout: timeout, caFile: caFile))
        if case .token(let token) = auth { session.withLock { $0 = (token, nil) } }
    }

    /// A request's method: `LIST` is sent as `GET …?list=true`, which OpenBao takes the same way.
    package enum Method: Sendable {
        case get, list, post
    }

    /// Sends a request to `/v1/<path>` (`path` already escaped, see ``KVPath``) with the token, and
    /// returns the answer whatever its status. An AppRole client refused with 403 logs in again
    /// and sends it once more: its token may have expired or been used up early.
    ///
    /// - Parameter namespaced: Whether the request goes to ``namespace``: OpenBao answers
    ///   `sys/health` only in the root ("operation unavailable in namespaces", 400).
    /// - Throws: ``OpenBaoError/unreachable(address:reason:)``, or what logging in threw.
    func send(
        _ method: Method, _ path: String, body: JSONBody? = nil, authenticated: Bool = true, namespaced: Bool = true
    ) async throws(OpenBaoError) -> CurlTransport.Answer {
        let encoded = body?.encoded
        guard authenticated else {
            return try await exchange(method, path, body: encoded, token: nil, namespaced: namespaced)
        }
        let token = try await currentToken()
        let answer = try await exchange(method, path, body: encoded, token: token)
        guard answer.status == 403, case .appRole = auth else { return answer }
        // Only the token that was refused is dropped: another task may have logged in since.
        session.withLock { if $0?.token === token { $0 = nil } }
        return try await exchange(method, path, body: encoded, token: try await currentToken())
    }

    /// One HTTP exchange, with `token` when given.
    private func exchange(
        _ method: Method, _ path: String, body: SecureBytes?, token: SecureBytes?, namespaced: Bool = true
    ) async throws(OpenBaoError) -> CurlTransport.Answer {
        var headers: [SecureBytes] = []
        if let token { headers.append(Self.tokenHeader(token)) }
        if namespaced, let namespace {
            headers.append(SecureBytes(unwipedCopyOf: Array("X-Vault-Namespace: \(namespace)\0".utf8)))
        }
        if body != nil { headers.append(SecureBytes(unwipedCopyOf: Array("Content-Type: application/json\0".utf8))) }
        let request = CurlTransport.Request(
            url: address + "/v1/" + path + (method == .list ? "?list=true" : ""), post: method == .post,
            headers: headers, body: body)
        switch await transport.send(request) {
        case .success(let answer): return answer
        case .failure(let failure): throw .unreachable(address: address, reason: failure.reason)
        }
    }

    /// Sends a request and reads its JSON answer with `read`; 2xx only.
    ///
    /// - Throws: ``OpenBaoError/denied(path:)`` (403), ``OpenBaoError/notFound(path:)`` (404),
    ///   ``OpenBaoError/casMismatch(path:)``, ``OpenBaoError/server(status:message:)``.
    package func call<Value>(
        _ method: Method, _ path: String, body: JSONBody? = nil, authenticated: Bool = true,
        _ read: (JSONDocument) throws(OpenBaoError) -> Value
    ) async throws(OpenBaoError) -> Value {
        let answer = try await send(method, path, body: body, authenticated: authenticated)
        try Self.check(answer, path: path)
        return try Self.json(answer, path: path, read)
    }

    /// Throws the error a non-2xx answer stands for.
    static func check(_ answer: CurlTransport.Answer, path: String) throws(OpenBaoError) {
        switch answer.status {
        case 200..<300: return
        case 403: throw .denied(path: path)
        case 404: throw .notFound(path: path)
        default:
            let message = errors(in: answer)
            if answer.status == 400, message.contains("check-and-set parameter did not match") {
                throw .casMismatch(path: path)
            }
            throw .server(status: answer.status, message: message)
        }
    }

    /// Parses the answer's body (`{}` when empty) and hands it to `read`. The document lives only
    /// inside this call, so the answer's bytes are the only copy left to zero.
    static func json<Value>(
        _ answer: CurlTransport.Answer, path: String, _ read: (JSONDocument) throws(OpenBaoError) -> Value
    ) throws(OpenBaoError) -> Value {
        let document: JSONDocument
        do {
            document = try JSONDocument(answer.bytes.isEmpty ? Array("{}".utf8) : answer.bytes)
        } catch {
            throw .server(status: answer.status, message: "the answer for \(path) is not JSON")
        }
        return try read(document)
    }

    /// OpenBao's `errors` list, joined, without control characters, at most 300 characters.
    static func errors(in answer: CurlTransport.Answer) -> String {
        guard let document = try? JSONDocument(answer.bytes),
            let errors = document.root["errors"]?.elements?.compactMap({ document.string($0) }), !errors.isEmpty
        else { return "no error text" }
        let text = errors.joined(separator: "; ").unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) }
        return String(text.prefix(300))
    }

    /// Whether `text` is names separated by `/` (a trailing one allowed, as OpenBao prints them):
    /// none empty, `.` or `..`, no space, control character or NUL.
    static func isNamespace(_ text: String) -> Bool {
        var names = text.split(separator: "/", omittingEmptySubsequences: false)
        if names.count > 1, names.last == "" { names.removeLast() }
        return names.allSatisfy { name in
            !name.isEmpty && name != "." && name != ".."
                && !name.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
        }
    }

    /// `X-Vault-Token: <token>` and a NUL, in locked memory.
    static func tokenHeader(_ token: SecureBytes) -> SecureBytes {
        let name = Array("X-Vault-Token: ".utf8)
        return token.withUnsafeBytes { raw in
            SecureBytes(count: name.count + raw.count + 1) { (output: UnsafeMutableRawBufferPointer) -> Void in
                output.copyBytes(from: name)
                UnsafeMutableRawBufferPointer(rebasing: output[name.count...]).copyBytes(from: raw)
                output[output.count - 1] = 0
            }
        }
    }
}
