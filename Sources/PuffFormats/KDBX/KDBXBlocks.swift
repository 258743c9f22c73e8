// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The two block framings: KDBX 4's HMAC block stream around the ciphertext, and KDBX 3.1's hashed
/// block stream inside the plaintext.
enum KDBXBlocks {
    /// KDBX 4: blocks of (HMAC-SHA256, le32 size, ciphertext) up to an empty block; returns the
    /// ciphertext joined. A block whose HMAC fails is damage (the header HMAC already proved the key).
    static func readHMACStream(_ cursor: inout ByteCursor, keys: KDBXKeys) throws(ForeignFormatError) -> [UInt8] {
        var ciphertext: [UInt8] = []
        var index: UInt64 = 0
        while true {
            let mac = try cursor.array(32, "block \(index)")
            let size = Int(try cursor.uint32("block \(index)"))
            let data = try cursor.array(size, "block \(index)")
            guard digestsEqual(mac, try keys.blockHMAC(index, data)) else {
                throw .damaged("block \(index) of the payload fails its HMAC")
            }
            if size == 0 { return ciphertext }
            ciphertext += data
            index += 1
        }
    }

    /// KDBX 4: `ciphertext` in 1 MiB blocks (as KeePassXC writes), then the empty end block.
    static func writeHMACStream(_ ciphertext: [UInt8], keys: KDBXKeys) throws(ForeignFormatError) -> [UInt8] {
        var out: [UInt8] = []
        var index: UInt64 = 0
        var start = 0
        while true {
            let block = Array(ciphertext[start..<min(start + (1 << 20), ciphertext.count)])
            out += try keys.blockHMAC(index, block) + LittleEndian.bytes(UInt32(block.count)) + block
            if block.isEmpty { return out }
            start += block.count
            index += 1
        }
    }

    /// KDBX 3.1: blocks of (le32 index, SHA-256, le32 size, data) from `offset` up to an empty
    /// block; returns the data joined, in secure memory.
    static func readHashedStream(_ plain: SecureBytes, from offset: Int) throws(ForeignFormatError) -> SecureBytes {
        try plain.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(ForeignFormatError) -> SecureBytes in
            // First pass checks and measures, the second copies: the result is allocated once.
            var ranges: [Range<Int>] = []
            var cursor = ByteCursor(raw, at: offset)
            while true {
                let index = try cursor.uint32("hashed block")
                guard index == UInt32(ranges.count) else {
                    throw .damaged("hashed block \(ranges.count) is out of order")
                }
                let hash = try cursor.array(32, "hashed block \(index)")
                let size = Int(try cursor.uint32("hashed block \(index)"))
                let start = cursor.position
                let data = try cursor.bytes(size, "hashed block \(index)")
                if size == 0 {
                    guard hash.allSatisfy({ $0 == 0 }) else { throw .damaged("the last hashed block has a hash") }
                    break
                }
                let digest: [UInt8]
                do {
                    digest = try ForeignDigest.hash(.sha256, secret: [SecureBytes(copying: data)]).unprotectedArray()
                } catch { throw .damaged("hashing failed (\(error))") }
                guard digestsEqual(hash, digest) else { throw .damaged("hashed block \(index) fails its SHA-256") }
                ranges.append(start..<(start + size))
            }
            let total = ranges.reduce(0) { $0 + $1.count }
            return SecureBytes(count: total) { (out: UnsafeMutableRawBufferPointer) in
                var at = 0
                for range in ranges {
                    UnsafeMutableRawBufferPointer(rebasing: out[at..<(at + range.count)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[range]))
                    at += range.count
                }
            }
        }
    }
}
