// SPDX-License-Identifier: Apache-2.0

/// KDBX 4's VariantDictionary (the KDF parameters): a version, then typed, named values up to a
/// zero type byte.
enum VariantDictionary {
    enum Value: Equatable {
        case uint32(UInt32)
        case uint64(UInt64)
        case bool(Bool)
        case int32(Int32)
        case int64(Int64)
        case string(String)
        case bytes([UInt8])
    }

    static func read(_ bytes: [UInt8]) throws(ForeignFormatError) -> [String: Value] {
        try withBytes(of: bytes) { (raw: UnsafeRawBufferPointer) throws(ForeignFormatError) in
            var cursor = ByteCursor(raw)
            let version = try cursor.uint16("KDF parameters")
            guard version >> 8 == 1 else { throw .unsupported("KDF parameter format \(version >> 8)") }
            var result: [String: Value] = [:]
            while true {
                let type = try cursor.uint8("KDF parameter")
                if type == 0 { return result }
                let nameBytes = try cursor.array(Int(try cursor.uint32("KDF parameter")), "KDF parameter name")
                let valueBytes = try cursor.array(Int(try cursor.uint32("KDF parameter")), "KDF parameter value")
                let name = String(decoding: nameBytes, as: UTF8.self)
                let number = valueBytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let value: Value
                switch (type, valueBytes.count) {
                case (0x04, 4): value = .uint32(UInt32(number))
                case (0x05, 8): value = .uint64(number)
                case (0x08, 1): value = .bool(number != 0)
                case (0x0C, 4): value = .int32(Int32(bitPattern: UInt32(number)))
                case (0x0D, 8): value = .int64(Int64(bitPattern: number))
                case (0x18, _): value = .string(String(decoding: valueBytes, as: UTF8.self))
                case (0x42, _): value = .bytes(valueBytes)
                default: throw .damaged("KDF parameter \(name) has type \(type) and \(valueBytes.count) bytes")
                }
                result[name] = value
            }
        }
    }

    /// Serialises `entries` in the given order (version 1.0).
    static func write(_ entries: [(String, Value)]) -> [UInt8] {
        var out: [UInt8] = [0x00, 0x01]
        for (name, value) in entries {
            let (type, payload): (UInt8, [UInt8]) =
                switch value {
                case .uint32(let v): (0x04, LittleEndian.bytes(v))
                case .uint64(let v): (0x05, LittleEndian.bytes(v))
                case .bool(let v): (0x08, [v ? 1 : 0])
                case .int32(let v): (0x0C, LittleEndian.bytes(v))
                case .int64(let v): (0x0D, LittleEndian.bytes(v))
                case .string(let v): (0x18, Array(v.utf8))
                case .bytes(let v): (0x42, v)
                }
            let nameBytes = Array(name.utf8)
            out += [type] + LittleEndian.bytes(UInt32(nameBytes.count)) + nameBytes
            out += LittleEndian.bytes(UInt32(payload.count)) + payload
        }
        return out + [0]
    }
}
