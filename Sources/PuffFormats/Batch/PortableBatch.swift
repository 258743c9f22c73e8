// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// How `puffctl import` hands items to puffd: a stream of bytes over a pipe, never a D-Bus
/// message body, so no secret sits in the bus's buffers (dbus/io.puff.Control1.xml,
/// `ImportItems`). Little-endian throughout:
///
///     "PUFFIMP1"  u32 item count
///     per item:   u32+bytes label, u32+bytes content type, u8 flags (1 created, 2 modified),
///                 u64 created, u64 modified, u32 attribute count, per attribute u32+bytes name
///                 and u32+bytes value, u32+bytes secret
///     "END1"
///
/// The reader takes each secret straight into secure memory.
public enum PortableBatch {
    static let magic: [UInt8] = Array("PUFFIMP1".utf8)
    static let trailer: [UInt8] = Array("END1".utf8)
    /// The most items one batch may carry.
    public static let maximumItems = 1_000_000
    /// The longest label, content type, attribute name or value a batch may carry (puffd's own
    /// limits are lower and say which item they skip).
    public static let maximumStringBytes = 1 << 20
    /// The longest secret a batch may carry.
    public static let maximumSecretBytes = 16 << 20

    /// Where the encoder's bytes go: a pipe, a buffer in tests.
    public protocol Output {
        /// Writes all of `bytes`.
        mutating func write(_ bytes: UnsafeRawBufferPointer) throws
    }

    /// Where the decoder's bytes come from.
    public protocol Input {
        /// Fills all of `buffer`, or throws (end of input, a timeout).
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ForeignFormatError)
    }

    /// Writes `items` to `output`, secrets straight from their secure memory.
    public static func write(_ items: [PortableItem], to output: inout some Output) throws {
        try put(magic + le(UInt32(items.count)), &output)
        for item in items {
            var head = string(item.label) + string(item.contentType)
            head.append((item.created == nil ? 0 : 1) | (item.modified == nil ? 0 : 2))
            head += le(item.created ?? 0) + le(item.modified ?? 0) + le(UInt32(item.attributes.count))
            for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
                head += string(name) + string(value)
            }
            head += le(UInt32(item.secret.count))
            try put(head, &output)
            try item.secret.withUnsafeBytes { try output.write($0) }
        }
        try put(trailer, &output)
    }

    /// Reads a whole batch from `input`.
    ///
    /// - Throws: ``ForeignFormatError/damaged(_:)`` for a malformed batch or one over the limits,
    ///   or what `input` throws.
    public static func read(from input: inout some Input) throws(ForeignFormatError) -> [PortableItem] {
        guard try bytes(8, &input) == magic else { throw .damaged("batch: not an import batch") }
        let count = Int(try integer(4, &input))
        guard count <= maximumItems else { throw .damaged("batch: \(count) items") }
        var items: [PortableItem] = []
        items.reserveCapacity(count)
        // puffctl export's bar for the items received (nil in puffd, whose import reads report nothing).
        let progress = ReadProgress.current
        progress?(.items, 0, of: count)
        for index in 0..<count {
            if index > 0 { progress?(.items, index, of: count) }
            let label = try string(&input)
            let contentType = try string(&input)
            let flags = try integer(1, &input)
            let created = try integer(8, &input)
            let modified = try integer(8, &input)
            let attributeCount = Int(try integer(4, &input))
            var attributes: [String: String] = [:]
            for _ in 0..<attributeCount {
                let name = try string(&input)
                attributes[name] = try string(&input)
            }
            let secretCount = Int(try integer(4, &input))
            guard secretCount <= maximumSecretBytes else { throw .damaged("batch: a secret of \(secretCount) bytes") }
            let secret = try SecureBytes(count: secretCount) {
                (buffer: UnsafeMutableRawBufferPointer) throws(ForeignFormatError) in
                if secretCount > 0 { try input.read(into: buffer) }
            }
            items.append(
                PortableItem(
                    label: label, attributes: attributes, secret: secret, contentType: contentType,
                    created: flags & 1 == 0 ? nil : created, modified: flags & 2 == 0 ? nil : modified))
        }
        guard try bytes(4, &input) == trailer else { throw .damaged("batch: no end marker") }
        progress?(.items, count, of: count)
        return items
    }

    private static func put(_ bytes: [UInt8], _ output: inout some Output) throws {
        try bytes.withUnsafeBytes { try output.write($0) }
    }

    private static func le<I: FixedWidthInteger>(_ value: I) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func string(_ text: String) -> [UInt8] {
        le(UInt32(text.utf8.count)) + Array(text.utf8)
    }

    private static func bytes(_ count: Int, _ input: inout some Input) throws(ForeignFormatError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return result }
        try result.withTypedMutableBytes { (buffer: UnsafeMutableRawBufferPointer) throws(ForeignFormatError) in
            try input.read(into: buffer)
        }
        return result
    }

    private static func integer(_ width: Int, _ input: inout some Input) throws(ForeignFormatError) -> UInt64 {
        try bytes(width, &input).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func string(_ input: inout some Input) throws(ForeignFormatError) -> String {
        let count = Int(try integer(4, &input))
        guard count <= maximumStringBytes else { throw .damaged("batch: a string of \(count) bytes") }
        guard let text = String(validating: try bytes(count, &input), as: UTF8.self) else {
            throw .damaged("batch: a string that is not UTF-8")
        }
        return text
    }
}
