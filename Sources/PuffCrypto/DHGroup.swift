// SPDX-License-Identifier: Apache-2.0
import COpenSSL

/// The Second Oakley Group (RFC 2409 §6.2, the 1024-bit MODP group) that the spec's DH transport
/// uses, with the scratch context its arithmetic needs (secret-service.md §5.2).
///
/// `p = 2^1024 - 2^960 - 1 + 2^64 * (floor(2^894 * pi) + 129093)`, `g = 2`, `(p-1)/2` prime.
struct DHGroup: ~Copyable {
    /// Bytes in `p`: the length of every public key Puff sends and of the encoded shared secret.
    static let byteCount = 128

    /// The prime modulus `p` (from `BN_get_rfc2409_prime_1024`).
    let prime: BigNumber
    /// `p - 1`, the exclusive upper bound for a peer's public key.
    let primeMinusOne: BigNumber
    /// The number 1, the exclusive lower bound for a peer's public key.
    let one: BigNumber
    /// The generator `g = 2`.
    let generator: BigNumber
    /// Scratch space for the arithmetic below.
    let context: BigNumberContext

    /// Loads the group constants; fails only when libcrypto cannot allocate.
    init() throws(CryptoError) {
        // Locals first: Swift cannot unwind a partly initialised non-copyable `self` on a throw.
        let prime = try BigNumber(taking: BN_get_rfc2409_prime_1024(nil), from: "BN_get_rfc2409_prime_1024")
        let primeMinusOne = try BigNumber(taking: BN_dup(prime.pointer), from: "BN_dup")
        guard BN_sub_word(primeMinusOne.pointer, 1) == 1 else { throw .openSSL("BN_sub_word") }
        let one = try BigNumber(word: 1)
        let generator = try BigNumber(word: 2)
        let context = try BigNumberContext()
        self.prime = prime
        self.primeMinusOne = primeMinusOne
        self.one = one
        self.generator = generator
        self.context = context
    }

    /// Whether `value` is a usable peer public key: `1 < value < p-1`, which rules out the
    /// degenerate keys 0, 1 and p-1 whose shared secret an observer could predict.
    func isValidPublicKey(_ value: borrowing BigNumber) -> Bool {
        value.compare(one) > 0 && value.compare(primeMinusOne) < 0
    }

    /// A fresh private exponent in `[2, p-2]`: 128 bytes from the CSPRNG reduced modulo `p-3`, plus 2.
    ///
    /// The random bytes sit in secure memory and the exponent only in a cleared `BIGNUM`.
    func randomExponent() throws(CryptoError) -> BigNumber {
        let random = SecureRandom.secureBytes(Self.byteCount)
        let wide = try BigNumber()
        try random.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(CryptoError) -> Void in
            try wide.load(bigEndian: bytes)
        }
        wide.markConstantTime()
        let modulus = try BigNumber(taking: BN_dup(prime.pointer), from: "BN_dup")
        guard BN_sub_word(modulus.pointer, 3) == 1 else { throw .openSSL("BN_sub_word") }
        let exponent = try BigNumber()
        exponent.markConstantTime()
        // With BN_FLG_CONSTTIME on the dividend, BN_div takes its fixed-top, constant-time path.
        guard BN_nnmod(exponent.pointer, wide.pointer, modulus.pointer, context.pointer) == 1 else {
            throw .openSSL("BN_nnmod")
        }
        guard BN_add_word(exponent.pointer, 2) == 1 else { throw .openSSL("BN_add_word") }
        return exponent
    }

    /// `base^exponent mod p` in constant time (wraps `BN_mod_exp_mont_consttime`).
    ///
    /// - Important: Marks `exponent` with `BN_FLG_CONSTTIME` first.
    func power(_ base: borrowing BigNumber, _ exponent: borrowing BigNumber) throws(CryptoError) -> BigNumber {
        exponent.markConstantTime()
        let result = try BigNumber()
        guard
            BN_mod_exp_mont_consttime(
                result.pointer,
                base.pointer,
                exponent.pointer,
                prime.pointer,
                context.pointer,
                nil
            ) == 1
        else {
            throw .openSSL("BN_mod_exp_mont_consttime")
        }
        return result
    }
}
