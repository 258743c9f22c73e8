// SPDX-License-Identifier: Apache-2.0
public import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Whole reads and writes over swift-system's `FileDescriptor`, which retries interrupted calls
/// (`EINTR`) itself; the rest of Puff calls these instead of looping over `read`/`write`.
extension FileDescriptor {
    /// One `read(2)`: what is there, up to `buffer`'s size; 0 at the end of the input.
    public func readSome(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try typed { try read(into: buffer) }
    }

    /// One `pread(2)` at `offset`: what is there, up to `buffer`'s size; 0 at the end of the file.
    public func readSome(fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno)
        -> Int
    {
        try typed { try read(fromAbsoluteOffset: offset, into: buffer) }
    }

    /// One `write(2)`: how much of `bytes` was taken.
    public func writeSome(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try typed { try write(bytes) }
    }

    /// Reads until `buffer` is full or the input ends; returns how many bytes came.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = try typed { try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    /// Reads to the end of the input; nil when it holds more than `limit` bytes (the rest is left
    /// unread).
    public func readToEnd(limit: Int) throws(Errno) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: limit < 1 << 16 ? limit + 1 : 1 << 16)
        while true {
            let got = try typed { try chunk.withUnsafeMutableBytes { try read(into: $0) } }
            if got == 0 { return bytes }
            guard bytes.count + got <= limit else { return nil }
            bytes += chunk[..<got]
        }
    }

    /// Writes all of `bytes`, however many calls it takes.
    public func writeFully(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        _ = try typed { try writeAll(bytes) }
    }

    /// Writes all of `bytes`, however many calls it takes.
    public func writeFully(_ bytes: [UInt8]) throws(Errno) {
        _ = try typed { try writeAll(bytes) }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`), leaving the descriptor's own offset alone.
    public func writeFully(_ bytes: [UInt8], atAbsoluteOffset offset: Int64) throws(Errno) {
        _ = try typed { try writeAll(toAbsoluteOffset: offset, bytes) }
    }

    /// Reads until `bytes` is full or the input ends; returns how many bytes came.
    public func readFully(into bytes: inout [UInt8]) throws(Errno) -> Int {
        try typed { try bytes.withUnsafeMutableBytes { (raw) throws in try readFully(into: raw) } }
    }

    /// Sends all of `bytes` on a socket without raising SIGPIPE when the peer has gone.
    public func sendFully(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(rawValue, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                let code = Errno(rawValue: errno)
                if code == .interrupted { continue }
                throw code
            }
            offset += sent
        }
    }
}

/// swift-system's calls are declared `throws` but throw only `Errno`; this keeps the type.
@inline(__always)
func typed<T>(_ body: () throws -> T) throws(Errno) -> T {
    do {
        return try body()
    } catch let error as Errno {
        throw error
    } catch {
        throw .ioError
    }
}

extension FileDescriptor {
    /// Reads from `offset` on until `buffer` is full or the file ends, leaving the descriptor's own
    /// offset alone; returns how many bytes came.
    public func readFully(
        fromAbsoluteOffset offset: Int64, into buffer: UnsafeMutableRawBufferPointer
    ) throws(Errno) -> Int {
        var filled = 0
        while filled < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            let got = try typed { try read(fromAbsoluteOffset: offset + Int64(filled), into: rest) }
            if got == 0 { break }
            filled += got
        }
        return filled
    }
}

extension FileDescriptor {
    /// Reads from `offset` on until `bytes` is full or the file ends; returns how many bytes came.
    public func readFully(fromAbsoluteOffset offset: Int64, into bytes: inout [UInt8]) throws(Errno) -> Int {
        try typed {
            try bytes.withUnsafeMutableBytes { (raw) throws in try readFully(fromAbsoluteOffset: offset, into: raw) }
        }
    }
}
