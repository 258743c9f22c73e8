// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Wraps a transit slot's key with an OpenBao transit key (docs/fleet.md, "Transit slots"): the
/// real one is puffd's, over `OpenBaoClient`; PuffService never talks to OpenBao itself.
public protocol TransitSealing: Sendable {
    /// The transit key new slots use (`[store.openbao] transit_key`); nil: none is configured.
    var keyName: String? { get }
    /// OpenBao's ciphertext (`vault:v1:…`) of `secret` under transit key `key`. The secret leaves
    /// locked memory only into the request body.
    func seal(_ secret: SecureBytes, key: String) async throws(HardwareError) -> String
    /// The secret behind `ciphertext`, as OpenBao decrypts it with transit key `key`.
    ///
    /// - Throws: ``HardwareError/transit(_:)`` when OpenBao refuses (the token's policy no longer
    ///   allows `transit/decrypt/<key>`) or cannot be reached, the text naming which and where.
    func unseal(_ ciphertext: String, key: String) async throws(HardwareError) -> SecureBytes
}
