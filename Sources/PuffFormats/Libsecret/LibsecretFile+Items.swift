// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The file's clear part and one item's sealing and opening.
extension LibsecretFile {
    struct Header {
        var salt: [UInt8]
        var iterations: Int
        var modified: UInt64
        /// Each item's encrypted blob (its hashed attributes are only for libsecret's lookups).
        var blobs: [[UInt8]]
    }

    static func readHeader(_ bytes: [UInt8]) throws(ForeignFormatError) -> Header {
        try Array(bytes[(magic.count + 2)...]).withTypedBytes {
            (body: UnsafeRawBufferPointer) throws(ForeignFormatError) -> Header in
            let decoder = GVariantDecoder(bytes: body, context: "header")
            let fields = try decoder.members(of: 0..<body.count, fileType)
            let salt = decoder.byteArray(fields[1])
            guard decoder.integer(fields[0]) == UInt64(salt.count), !salt.isEmpty else {
                throw .damaged("header: the salt's size does not match its length")
            }
            let iterations = decoder.integer(fields[2])
            guard iterations > 0, iterations <= UInt64(maximumIterations) else {
                throw .unsupported("\(iterations) key derivation rounds")
            }
            var blobs: [[UInt8]] = []
            for (index, range) in try decoder.elements(of: fields[5], itemType).enumerated() {
                let itemDecoder = GVariantDecoder(bytes: body, context: "item \(index + 1)")
                blobs.append(itemDecoder.byteArray(try itemDecoder.members(of: range, itemType)[1]))
            }
            return Header(
                salt: salt, iterations: Int(iterations), modified: decoder.integer(fields[3]), blobs: blobs)
        }
    }

    /// The blob's plaintext, or nil when its HMAC does not match under `key`.
    static func open(_ blob: [UInt8], key: SecureBytes, index: Int) throws(ForeignFormatError) -> SecureBytes? {
        let ivSize = AESCBC.blockSize
        guard blob.count >= ivSize + macSize + AESCBC.blockSize, (blob.count - ivSize - macSize) % ivSize == 0 else {
            throw .damaged("item \(index + 1): an encrypted blob of \(blob.count) bytes")
        }
        let macStart = blob.count - macSize
        let expected: [UInt8]
        do { expected = try ForeignDigest.hmac(.sha256, key: key, [Array(blob[..<macStart])]) } catch {
            throw .unsupported("HMAC failed: \(error)")
        }
        guard SecureBytes(unwipedCopyOf: expected).constantTimeEquals(SecureBytes(unwipedCopyOf: blob[macStart...]))
        else { return nil }
        let ivStart = macStart - ivSize
        do {
            return try AESCBC.decrypt(
                Array(blob[..<ivStart]), key: key, iv: Array(blob[ivStart..<macStart]), padding: .pkcs7)
        } catch { throw .damaged("item \(index + 1) does not decrypt") }
    }

    /// Throws ``ForeignFormatError/damaged(_:)`` if any of `blobs` opens under `key` (the first did not).
    static func requireNoneOpen(_ blobs: ArraySlice<[UInt8]>, key: SecureBytes) throws(ForeignFormatError) {
        for (offset, blob) in blobs.enumerated() where try open(blob, key: key, index: offset + 1) != nil {
            throw .damaged("item 1 fails its integrity check")
        }
    }

    /// The item a decrypted `(a{ss}sttay)` holds.
    static func item(from plaintext: SecureBytes, index: Int) throws(ForeignFormatError) -> PortableItem {
        try plaintext.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(ForeignFormatError) -> PortableItem in
            let decoder = GVariantDecoder(bytes: bytes, context: "item \(index + 1)")
            let fields = try decoder.members(of: 0..<bytes.count, plaintextType)
            var attributes: [String: String] = [:]
            for entry in try decoder.elements(of: fields[0], .dictEntry(.string, .string)) {
                let pair = try decoder.members(of: entry, .dictEntry(.string, .string))
                attributes[try decoder.string(pair[0])] = try decoder.string(pair[1])
            }
            let contentType = attributes.removeValue(forKey: contentTypeAttribute) ?? "text/plain"
            return PortableItem(
                label: try decoder.string(fields[1]), attributes: attributes,
                secret: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[fields[4]])),
                contentType: contentType, created: decoder.integer(fields[2]), modified: decoder.integer(fields[3]))
        }
    }

    /// `item` as the file's `(a{say}ay)`: hashed attributes and the sealed blob.
    static func sealed(_ item: PortableItem, index: Int, key: SecureBytes, now: UInt64) throws(ForeignFormatError)
        -> GVariantValue
    {
        var attributes = item.attributes
        if item.contentType != "text/plain" { attributes[contentTypeAttribute] = item.contentType }
        for text in [item.label] + attributes.keys + attributes.values where text.utf8.contains(0) {
            throw .cannotCross("item \(index + 1): a label or attribute holding a NUL character")
        }
        let names = attributes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let created = item.created ?? now
        let plaintext = GVariantEncoder.tuple(
            [
                .array(.dictEntry(.string, .string), names.map { .dictEntry(.string($0), .string(attributes[$0]!)) }),
                .string(item.label), .uint64(created), .uint64(item.modified ?? created),
            ], trailingSecret: item.secret)
        do {
            let iv = SecureRandom.bytes(AESCBC.blockSize)
            let sealed = try AESCBC.encrypt(plaintext, key: key, iv: iv, padding: .pkcs7) + iv
            let mac = try ForeignDigest.hmac(.sha256, key: key, [sealed])
            let hashed: [GVariantValue] = try names.map { (name: String) throws(CryptoError) -> GVariantValue in
                .dictEntry(
                    .string(name), .bytes(try ForeignDigest.hmac(.sha256, key: key, [Array(attributes[name]!.utf8)])))
            }
            return .tuple([.array(.dictEntry(.string, .array(.byte)), hashed), .bytes(sealed + mac)])
        } catch { throw .cannotCross("item \(index + 1): encryption failed: \(error)") }
    }
}
