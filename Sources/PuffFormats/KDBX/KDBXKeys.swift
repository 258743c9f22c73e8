// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The keys a KDBX file is opened with: composite key SHA-256(SHA-256(password)) (no key file),
/// transformed by the header's KDF, then the cipher key SHA-256(seed ‖ transformed) and (KDBX 4)
/// the HMAC base key SHA-512(seed ‖ transformed ‖ 0x01). All in secure memory.
struct KDBXKeys {
    let cipherKey: SecureBytes
    private let hmacBase: SecureBytes

    /// Derives the keys; this runs the KDF, the slow part of opening a database.
    init(passcode: SecureBytes?, header: KDBXHeader) throws(ForeignFormatError) {
        do throws(CryptoError) {
            // KeePassXC leaves the password out of the composite key when there is none at all.
            let parts =
                try passcode.map { (pass: SecureBytes) throws(CryptoError) in
                    [try ForeignDigest.hash(.sha256, secret: [pass])]
                } ?? []
            let composite = try ForeignDigest.hash(.sha256, secret: parts)
            let transformed: SecureBytes
            switch header.kdf {
            case .aes(let seed, let rounds):
                let progress = ReadProgress.current
                progress?(.keyRounds, 0, of: Int(clamping: rounds))
                transformed = try AESKDF.transform(
                    composite, seed: SecureBytes(unwipedCopyOf: seed), rounds: rounds,
                    counting: progress.map { progress in
                        { progress(.keyRounds, Int(clamping: $0), of: Int(clamping: rounds)) }
                    })
            case .argon2(let variant, let salt, let parameters):
                transformed = try Argon2.hash(variant, password: composite, salt: salt, parameters: parameters)
            }
            let seed = SecureBytes(unwipedCopyOf: header.masterSeed)
            cipherKey = try ForeignDigest.hash(.sha256, secret: [seed, transformed])
            hmacBase = try ForeignDigest.hash(.sha512, secret: [seed, transformed, SecureBytes(unwipedCopyOf: [1])])
        } catch {
            throw .damaged("the key derivation failed (\(error))")
        }
    }

    /// The HMAC-SHA256 of block `index` of a KDBX 4 HMAC block stream (the header uses index
    /// UInt64.max): keyed with SHA-512(le64(index) ‖ base), over le64(index) ‖ le32(size) ‖ data.
    func blockHMAC(_ index: UInt64, _ data: [UInt8]) throws(ForeignFormatError) -> [UInt8] {
        do throws(CryptoError) {
            let indexBytes = LittleEndian.bytes(index)
            let key = try ForeignDigest.hash(.sha512, secret: [SecureBytes(unwipedCopyOf: indexBytes), hmacBase])
            return try ForeignDigest.hmac(
                .sha256, key: key, [indexBytes, LittleEndian.bytes(UInt32(data.count)), data])
        } catch {
            throw .damaged("HMAC failed (\(error))")
        }
    }

    /// The KDBX 4 header's HMAC (it proves the password before anything is decrypted).
    func headerHMAC(_ header: [UInt8]) throws(ForeignFormatError) -> [UInt8] {
        do throws(CryptoError) {
            let key = try ForeignDigest.hash(
                .sha512, secret: [SecureBytes(unwipedCopyOf: LittleEndian.bytes(UInt64.max)), hmacBase])
            return try ForeignDigest.hmac(.sha256, key: key, [header])
        } catch {
            throw .damaged("HMAC failed (\(error))")
        }
    }
}

/// Compares two digests in constant time.
func digestsEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    SecureBytes(unwipedCopyOf: a).constantTimeEquals(SecureBytes(unwipedCopyOf: b))
}
