// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol

extension ControlClient {
    /// `ShareCollection`: shares the collection through puffd's shared store (OpenBao) as `name`.
    public func shareCollection(_ collection: String, as name: String) async throws(ClientError) {
        _ = try await call(.shareCollection, [.string(collection), .string(name)], collection: collection)
    }

    /// `AttachCollection`: adds the collection the shared store keeps as `name`, locked.
    ///
    /// - Returns: Its id.
    public func attachCollection(_ name: String) async throws(ClientError) -> String {
        let reply = try await call(.attachCollection, [.string(name)])
        guard let id = reply.first?.string else { throw .unexpectedReply(member: "AttachCollection") }
        return id
    }
}
