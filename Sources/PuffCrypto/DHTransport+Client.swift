// SPDX-License-Identifier: Apache-2.0

extension DHTransport {
    /// The client side of `OpenSession` with `dh-ietf1024-sha256-aes128-cbc-pkcs7`, as libsecret
    /// plays it: send ``publicKey``, then turn the service's reply into the session key.
    ///
    /// The private exponent is drawn from the CSPRNG and lives only in a `BIGNUM` that is cleared
    /// when the exchange is consumed or dropped; it never passes through an ordinary array.
    public struct ClientExchange: ~Copyable {
        private let exponent: BigNumber
        /// Our public key `g^x mod p`, left-padded to 128 bytes: the `ay` input of `OpenSession`.
        public let publicKey: [UInt8]

        /// Picks a fresh private exponent and computes the public key.
        ///
        /// - Throws: ``CryptoError/library(_:)`` if libcrypto fails.
        public init() throws(CryptoError) {
            let group = try DHGroup()
            let exponent = try group.randomExponent()
            publicKey = try group.power(group.generator, exponent).paddedBytes(length: DHGroup.byteCount)
            self.exponent = exponent
        }

        /// The 16-byte AES key shared with the service whose `OpenSession` output was
        /// `servicePublicKey`; ends the exchange, so its exponent is used once.
        ///
        /// - Throws: ``CryptoError/invalidPublicKey`` for a degenerate or oversized service key;
        ///   ``CryptoError/library(_:)`` if libcrypto fails.
        public consuming func sessionKey(servicePublicKey: [UInt8]) throws(CryptoError) -> SecureBytes {
            let group = try DHGroup()
            let peer = try DHTransport.validatedPeerKey(servicePublicKey, in: group)
            let shared = try DHTransport.sharedSecret(peer: peer, exponent: exponent, in: group)
            return try DHTransport.sessionKey(sharedSecret: shared)
        }
    }
}
