// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// Why a request to OpenBao failed. Messages name the server's address and the path asked for,
/// never a token, a secret id or a body.
public enum OpenBaoError: Error, Equatable, Sendable {
    /// No answer from `address`: refused, timed out, a TLS failure, a name that does not resolve.
    case unreachable(address: String, reason: String)
    /// 403: the token's policies do not allow the request on `path` (or the token is not valid).
    case denied(path: String)
    /// 404 where an answer was needed (a transit key or a mount that does not exist).
    case notFound(path: String)
    /// KV v2 check-and-set refused the write to `path`: its current version is not the one given.
    case casMismatch(path: String)
    /// Any other answer: the HTTP status and OpenBao's own error text, shortened.
    case server(status: Int, message: String)
    /// A token or AppRole file that must not be used (a link, readable by others, someone
    /// else's, empty), or a name that cannot be a path.
    case refused(String)
}

extension OpenBaoError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .unreachable(let address, let reason): "OpenBao at \(address) is unreachable: \(reason)"
        case .denied(let path): "OpenBao refused access to \(path) (permission denied)"
        case .notFound(let path): "OpenBao has nothing at \(path)"
        case .casMismatch(let path): "\(path) changed in OpenBao since it was read (check-and-set)"
        case .server(let status, let message): "OpenBao answered \(status): \(message)"
        case .refused(let why): why
        }
    }

    /// The error a ``FleetLog`` throws for this one: the store is unavailable, the server's
    /// address named in the message.
    public func storeError(address: String) -> StoreError {
        switch self {
        case .unreachable: .unavailable(description)
        case .denied(let path): .unavailable("OpenBao at \(address) refused access to \(path) (permission denied)")
        case .notFound(let path): .unavailable("OpenBao at \(address) has nothing at \(path)")
        case .casMismatch(let path): .unavailable("\(path) changed in OpenBao at \(address) since it was read")
        case .server(let status, let message): .unavailable("OpenBao at \(address) answered \(status): \(message)")
        case .refused(let why): .unavailable(why)
        }
    }
}
