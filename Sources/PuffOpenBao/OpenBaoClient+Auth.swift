// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffFormats
import Synchronization

extension OpenBaoClient {
    /// The token to send: the configured one, or an AppRole login's, logging in when there is
    /// none yet or its lease is two thirds gone.
    func currentToken() async throws(OpenBaoError) -> SecureBytes {
        let now = ContinuousClock.now
        if let current = session.withLock({ $0 }), current.renewAt.map({ now < $0 }) ?? true {
            return current.token
        }
        guard case .appRole(let roleID, let secretID, let mount) = auth else {
            // A token client's session is set in init and never cleared.
            throw .refused("no OpenBao token")
        }
        let login = try await logIn(roleID: roleID, secretID: secretID, mount: mount)
        let renewAt = login.lease > 0 ? now.advanced(by: .seconds(login.lease * 2 / 3)) : nil
        session.withLock { $0 = (login.token, renewAt) }
        return login.token
    }

    /// Logs in with an AppRole (`POST auth/<mount>/login`).
    ///
    /// - Returns: The client token and its lease in seconds (0: none).
    /// - Throws: ``OpenBaoError/denied(path:)`` when OpenBao refuses the ids (it answers 400
    ///   "invalid role or secret ID", mapped to denied here), ``OpenBaoError/unreachable(address:reason:)``.
    public func logIn(roleID: SecureBytes, secretID: SecureBytes, mount: String = "approle")
        async throws(OpenBaoError) -> (token: SecureBytes, lease: Int64)
    {
        let path = try KVPath.escaped("auth/\(mount)/login")
        let body = JSONBody.object([("role_id", .secret(roleID)), ("secret_id", .secret(secretID))])
        let answer = try await send(.post, path, body: body, authenticated: false)
        if answer.status == 400, Self.errors(in: answer).contains("invalid") { throw .denied(path: path) }
        try Self.check(answer, path: path)
        return try Self.json(answer, path: path) { (document) throws(OpenBaoError) in
            let auth = document.root["auth"]
            guard let token = document.secret(auth?["client_token"]), token.count > 0 else {
                throw .server(status: answer.status, message: "the login answer holds no client token")
            }
            return (token, Int64(document.integer(auth?["lease_duration"]) ?? 0))
        }
    }
}
