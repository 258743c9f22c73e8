// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffSystem
import Synchronization
import SystemPackage

/// One line from an Assuan server (pinentry), as the Assuan protocol defines them.
enum AssuanLine {
    case ok
    case error(code: UInt32, message: String)
    /// A `D` line's data, percent-decoded, in locked memory: it may be a PIN.
    case data(SecureBytes)
    /// An `S` status line's keyword and arguments (never a PIN).
    case status(String)
    /// `#` comments and `INQUIRE`: read and passed over.
    case other
}

/// Why a conversation with an Assuan server stopped.
enum AssuanError: Error, Equatable {
    case closed
    case cancelled
    case lineTooLong
    case unexpected(String)
}

/// The client end of an Assuan conversation over two descriptors (the server's standard input and
/// output), read one byte at a time into locked memory so a PIN never sits in an ordinary buffer.
///
/// Reads poll in short slices, so ``cancel()`` (from another task) ends a read promptly even when
/// the server neither answers nor exits.
final class AssuanChannel: Sendable {
    /// The longest line Assuan allows, plus room for the newline.
    static let maxLine = 1002
    private let input: Int32
    private let output: Int32
    private let cancelled = Atomic<Bool>(false)

    /// Takes ownership of `reading` (the server's output) and `writing` (its input).
    init(reading: Int32, writing: Int32) {
        input = reading
        output = writing
    }

    deinit {
        close(input)
        close(output)
    }

    /// Makes the current and every later read throw ``AssuanError/cancelled``.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Sends `command` and its argument, percent-escaping what Assuan requires.
    func send(_ command: String, _ argument: String? = nil) throws(AssuanError) {
        var line = command
        if let argument { line += " " + Self.escaped(argument) }
        let bytes = Array((line + "\n").utf8)
        guard bytes.count <= Self.maxLine else { throw .lineTooLong }
        do throws(Errno) {
            try FileDescriptor(rawValue: output).writeFully(bytes)
        } catch {
            throw .closed
        }
    }

    /// Reads lines until `OK` or `ERR`; returns the data of the `D` lines before it, if any.
    ///
    /// - Throws: ``AssuanError/unexpected(_:)`` carrying the server's error for `ERR`.
    func response() throws(AssuanError) -> (data: SecureBytes?, error: (code: UInt32, message: String)?) {
        var data: SecureBytes?
        while true {
            switch try readLine() {
            case .ok: return (data, nil)
            case .error(let code, let message): return (data, (code, message))
            case .data(let chunk): data = data.map { Self.joined($0, chunk) } ?? chunk
            case .status, .other: continue
            }
        }
    }

    /// Reads lines until `OK` or `ERR`, keeping the status lines before it (`CONFIRM`'s
    /// `S BUTTON_INFO close` tells a closed window from a pressed button).
    func statusResponse() throws(AssuanError) -> (statuses: [String], error: (code: UInt32, message: String)?) {
        var statuses: [String] = []
        while true {
            switch try readLine() {
            case .ok: return (statuses, nil)
            case .error(let code, let message): return (statuses, (code, message))
            case .status(let status): statuses.append(status)
            case .data, .other: continue
            }
        }
    }

    /// Reads and classifies one line.
    func readLine() throws(AssuanError) -> AssuanLine {
        var length = 0
        let raw = try SecureBytes(count: Self.maxLine) { (line: UnsafeMutableRawBufferPointer) throws(AssuanError) in
            while true {
                guard length < line.count else { throw .lineTooLong }
                try readByte(into: line.baseAddress! + length)
                if line[length] == UInt8(ascii: "\n") { return }
                length += 1
            }
        }
        return raw.withUnsafeBytes { line in Self.classify(UnsafeRawBufferPointer(rebasing: line[0..<length])) }
    }

    private func readByte(into target: UnsafeMutableRawPointer) throws(AssuanError) {
        while true {
            guard !cancelled.load(ordering: .relaxed) else { throw .cancelled }
            let count: Int
            do throws(Errno) {
                guard try SystemCalls.wait(for: Int16(POLLIN), on: input, timeout: 200) else { continue }
                count = try FileDescriptor(rawValue: input).readSome(
                    into: UnsafeMutableRawBufferPointer(start: target, count: 1))
            } catch .wouldBlock {
                continue
            } catch {
                throw .closed
            }
            guard count == 1 else { throw .closed }
            return
        }
    }

    static func classify(_ line: UnsafeRawBufferPointer) -> AssuanLine {
        func starts(_ prefix: String) -> Bool {
            let bytes = Array(prefix.utf8)
            return line.count >= bytes.count && zip(line, bytes).allSatisfy { $0 == $1 }
                && (line.count == bytes.count || line[bytes.count] == UInt8(ascii: " "))
        }
        if starts("OK") { return .ok }
        if starts("D") { return .data(percentDecoded(UnsafeRawBufferPointer(rebasing: line[min(2, line.count)...]))) }
        if starts("S") { return .status(String(decoding: line.dropFirst(2), as: UTF8.self)) }
        if starts("ERR") {
            let text = String(decoding: line.dropFirst(4), as: UTF8.self)
            let code = UInt32(text.prefix { $0.isNumber }) ?? 0
            return .error(code: code, message: String(text.drop { $0.isNumber }.drop { $0 == " " }))
        }
        return .other
    }

    /// `%XX` escapes decoded into locked memory; a `%` not followed by two hex digits stays.
    static func percentDecoded(_ bytes: UnsafeRawBufferPointer) -> SecureBytes {
        func escape(at index: Int) -> UInt8? {
            guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else { return nil }
            return high << 4 | low
        }
        var decodedCount = 0
        var index = 0
        while index < bytes.count {
            index += escape(at: index) == nil ? 1 : 3
            decodedCount += 1
        }
        return SecureBytes(count: decodedCount) { (out: UnsafeMutableRawBufferPointer) -> Void in
            var from = 0
            for to in 0..<decodedCount {
                if let byte = escape(at: from) {
                    out[to] = byte
                    from += 3
                } else {
                    out[to] = bytes[from]
                    from += 1
                }
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Escapes `%`, CR and LF, which would end or corrupt the line.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\n": out += "%0A"
            case "\r": out += "%0D"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func joined(_ first: SecureBytes, _ second: SecureBytes) -> SecureBytes {
        SecureBytes(count: first.count + second.count) { (out: UnsafeMutableRawBufferPointer) -> Void in
            first.withUnsafeBytes { part in
                if let from = part.baseAddress { out.baseAddress!.copyMemory(from: from, byteCount: part.count) }
            }
            second.withUnsafeBytes { part in
                if let from = part.baseAddress {
                    (out.baseAddress! + first.count).copyMemory(from: from, byteCount: part.count)
                }
            }
        }
    }
}
