// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import SystemPackage

/// One request of the PAM module over the login socket (docs/pam.md):
///
///     "PUF1" | op: 'L' (login) or 'C' (change) | u32 LE length | bytes | u32 LE length | bytes
///
/// For a login, the first field is the password and the second is empty; for a change, they are
/// the old and the new password. Each field holds at most ``maxField`` bytes; the whole request
/// must arrive within the read's time limit. Passwords are read straight into locked memory.
enum LoginRequest: Sendable {
    /// Open (or create) `login` with the password.
    case login(password: SecureBytes)
    /// Rewrap `login` from the old password to the new one.
    case change(old: SecureBytes, new: SecureBytes)

    /// The first bytes of every request.
    static let magic: [UInt8] = Array("PUF1".utf8)
    /// The longest password accepted, in bytes (as a passcode through Control1).
    static let maxField = 1024

    /// Why a request was refused; the connection is closed without reading further.
    enum Failure: Error, Equatable {
        case timedOut
        case closed
        case badMagic
        case unknownOperation(UInt8)
        case tooLong(Int)
        case unexpectedField
    }

    /// Reads one request from `fd`, all of it within `milliseconds`.
    static func read(from fd: Int32, within milliseconds: Int32) throws(Failure) -> LoginRequest {
        let reader = DeadlineReader(fd: fd, deadline: DeadlineReader.now() + Int64(milliseconds))
        let header = try reader.bytes(5)
        guard Array(header[0..<4]) == magic else { throw .badMagic }
        let first = try field(reader)
        let second = try field(reader)
        switch header[4] {
        case UInt8(ascii: "L"):
            guard second.count == 0 else { throw .unexpectedField }
            return .login(password: first)
        case UInt8(ascii: "C"):
            return .change(old: first, new: second)
        case let other:
            throw .unknownOperation(other)
        }
    }

    /// One length-prefixed field, into locked memory.
    private static func field(_ reader: DeadlineReader) throws(Failure) -> SecureBytes {
        let prefix = try reader.bytes(4)
        let length = prefix.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard length <= maxField else { throw .tooLong(length) }
        guard length > 0 else { return SecureBytes.empty }
        return try SecureBytes(count: length) { (buffer: UnsafeMutableRawBufferPointer) throws(Failure) in
            try reader.fill(buffer)
        }
    }
}

/// Reads exact byte counts from a descriptor before a common deadline.
struct DeadlineReader {
    let fd: Int32
    /// CLOCK_MONOTONIC milliseconds.
    let deadline: Int64

    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// The next `count` bytes (not secret ones: those go into ``fill(_:)``'s locked buffer).
    func bytes(_ count: Int) throws(LoginRequest.Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(LoginRequest.Failure) in try fill(buffer) }
        }
        try result.get()
        return bytes
    }

    /// Reads until end of file or until `buffer` is full; returns how many bytes came.
    func fillToEnd(_ buffer: UnsafeMutableRawBufferPointer) throws(LoginRequest.Failure) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try readSome(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Fills `buffer` completely.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(LoginRequest.Failure) {
        var filled = 0
        while filled < buffer.count {
            let count = try readSome(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            guard count > 0 else { throw .closed }
            filled += count
        }
    }

    /// Waits until bytes arrive before the deadline and reads them; 0 at end of file.
    private func readSome(into buffer: UnsafeMutableRawBufferPointer) throws(LoginRequest.Failure) -> Int {
        while true {
            let left = deadline - Self.now()
            guard left > 0 else { throw .timedOut }
            guard (try? SystemCalls.wait(for: Int16(POLLIN), on: fd, timeout: Int32(clamping: left))) == true else {
                throw .timedOut
            }
            do throws(Errno) {
                return try FileDescriptor(rawValue: fd).readSome(into: buffer)
            } catch .wouldBlock {
                continue
            } catch {
                throw .closed
            }
        }
    }
}
