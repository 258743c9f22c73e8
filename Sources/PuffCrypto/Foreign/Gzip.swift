// SPDX-License-Identifier: Apache-2.0
import CSodium
import CZlib

/// gzip through zlib for other stores' formats (KDBX payloads and attachments). It lives beside the
/// ciphers because what it handles is plaintext: input and output are secure memory, and zlib's own
/// state and window are allocated with `sodium_malloc`, so they are wiped when freed.
public enum Gzip {
    /// Why a gzip stream could not be handled; nothing of its content in it.
    public enum Failure: Error, Equatable, Sendable {
        /// Not a whole, valid gzip stream.
        case corrupt
        /// The stream inflates to more than the limit asked for.
        case tooLarge
        /// zlib refused for another reason (out of memory).
        case library(String)
    }

    /// Inflates a whole gzip stream into secure memory, refusing output beyond `limit` bytes (the
    /// caller's bound, tied to the compressed size: PuffFormats' `ForeignInflateLimit`). Inflating
    /// stops as soon as the limit is passed, so the work done is bounded by it too.
    public static func decompress(_ compressed: SecureBytes, limit: Int) throws(Failure) -> SecureBytes {
        // Two passes: the first counts into a reused secure scratch buffer, so the result is
        // allocated once at its exact size and no plaintext is left in a regrown buffer.
        var total = 0
        _ = try SecureBytes(count: 65536) { (scratch: UnsafeMutableRawBufferPointer) throws(Failure) in
            total = try inflate(compressed, into: scratch, reusing: true, limit: limit)
        }
        if total == 0 { return .empty }
        return try SecureBytes(count: total) { (output: UnsafeMutableRawBufferPointer) throws(Failure) in
            guard try inflate(compressed, into: output, reusing: false, limit: limit) == total else { throw .corrupt }
        }
    }

    /// Deflates `plain` into one gzip stream (level 6, as KeePassXC and pykeepass write it).
    public static func compress(_ plain: SecureBytes) throws(Failure) -> SecureBytes {
        var stream = z_stream()
        installSecureAllocator(&stream)
        guard puff_deflate_init2(&stream, 6, 16 + 15) == Z_OK else { throw .library("deflateInit2") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(plain.count))) + 64
        var produced = 0
        let scratch = try SecureBytes(count: bound) { (output: UnsafeMutableRawBufferPointer) throws(Failure) in
            try plain.withUnsafeBytes { (input: UnsafeRawBufferPointer) throws(Failure) in
                stream.next_in = UnsafeMutablePointer(
                    mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(output.count)
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { throw .library("deflate") }
                produced = output.count - Int(stream.avail_out)
            }
        }
        return scratch.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
    }

    /// Runs inflate over the whole input into `output`, from its start again for every chunk when
    /// `reusing` (counting only). Returns the inflated length.
    private static func inflate(
        _ compressed: SecureBytes, into output: UnsafeMutableRawBufferPointer, reusing: Bool, limit: Int
    ) throws(Failure) -> Int {
        var stream = z_stream()
        installSecureAllocator(&stream)
        guard puff_inflate_init2(&stream, 16 + 15) == Z_OK else { throw .library("inflateInit2") }
        defer { inflateEnd(&stream) }
        guard let base = output.baseAddress?.assumingMemoryBound(to: Bytef.self) else { throw .corrupt }
        return try compressed.withUnsafeBytes { (input: UnsafeRawBufferPointer) throws(Failure) -> Int in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            var total = 0
            while true {
                let offset = reusing ? 0 : total
                stream.next_out = base + offset
                stream.avail_out = uInt(output.count - offset)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                total += output.count - offset - Int(stream.avail_out)
                if total > limit { throw .tooLarge }
                switch status {
                case Z_STREAM_END: return total
                case Z_OK: continue
                case Z_MEM_ERROR: throw .library("inflate: out of memory")
                // Z_BUF_ERROR: no progress possible: the input ended early, or the output is full.
                default: throw .corrupt
                }
            }
        }
    }

    /// zlib's state and window through sodium_malloc, so plaintext in them is wiped when freed.
    private static func installSecureAllocator(_ stream: inout z_stream) {
        _ = Sodium.ready
        stream.zalloc = { _, items, size in sodium_malloc(Int(items) * Int(size)) }
        stream.zfree = { _, pointer in sodium_free(pointer) }
    }
}
