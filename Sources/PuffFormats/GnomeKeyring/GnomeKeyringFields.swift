// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffProtocol

/// gnome-keyring's item attributes ("fields") as its files keep them and as it serves them over
/// D-Bus (gkm-secret-fields.c, gkm-secret-compat.c), so that a read gives exactly what
/// gnome-keyring serves and a write is served back exactly (docs/migration.md).
enum GnomeKeyringFields {
    /// The attribute naming an item's schema.
    static let schema = "xdg:schema"
    /// A uint32 attribute `NAME` is served as its decimal string plus this marker attribute
    /// `gkr:compat:uint32:NAME` with an empty value; the marker makes a write keep it a uint32.
    static let uint32Prefix = "gkr:compat:uint32:"
    /// Every compatibility attribute's prefix; never written as an attribute of its own.
    static let compatPrefix = "gkr:compat:"

    /// The old item types and the schemas gnome-keyring reports for them
    /// (`gkm_secret_compat_format_item_type`, masked with 0xffff).
    static let schemaByType: [UInt32: String] = [
        0: SecretServiceContract.genericSchema,
        1: "org.gnome.keyring.NetworkPassword",
        2: "org.gnome.keyring.Note",
        3: "org.gnome.keyring.ChainedKeyring",
        4: "org.gnome.keyring.EncryptionKey",
        0x100: "org.gnome.keyring.PkStorage",
    ]

    /// The schema gnome-keyring reports for an item of `type` without an `xdg:schema`; nil for a
    /// type it does not know (it then reports no `xdg:schema` at all).
    static func schema(forType type: UInt32) -> String? { schemaByType[type & 0xffff] }

    /// The item type gnome-keyring writes for `schema` (`gkm_secret_compat_parse_item_type`):
    /// generic for any schema it does not know.
    static func type(forSchema schema: String?) -> UInt32 {
        guard let schema else { return 0 }
        return schemaByType.first { $0.value == schema }?.key ?? 0
    }

    /// One attribute as stored in a file: a string, or a uint32 (type 1).
    enum Value: Equatable {
        case string(String)
        case uint32(UInt32)
    }

    /// The attributes gnome-keyring serves for an item read from a file: uint32 values as decimal
    /// strings with their marker, NULL values as empty strings, and `xdg:schema` added from the
    /// item type where the item has none.
    static func served(_ stored: [(name: String, value: Value?)], type: UInt32) -> [String: String] {
        var attributes: [String: String] = [:]
        for (name, value) in stored {
            switch value {
            case .uint32(let number):
                attributes[name] = String(number)
                attributes[uint32Prefix + name] = ""
            case .string(let text): attributes[name] = text
            case nil: attributes[name] = ""
            }
        }
        if attributes[schema] == nil, let reported = Self.schema(forType: type) {
            attributes[schema] = reported
        }
        return attributes
    }

    /// The attributes to write for `attributes` (`gkm_secret_fields_get_names`): compatibility
    /// markers dropped, names sorted bytewise, values that carry a uint32 marker and parse as one
    /// written as uint32s.
    static func stored(_ attributes: [String: String]) -> [(name: String, value: Value)] {
        attributes.keys.filter { !$0.hasPrefix(compatPrefix) }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { name in
                let text = attributes[name] ?? ""
                if attributes[uint32Prefix + name] != nil, let number = decimalUInt32(text) {
                    return (name, .uint32(number))
                }
                return (name, .string(text))
            }
    }

    /// gnome-keyring's `parse_uint32`: `strtoul` base 10 that consumed the whole string. Only
    /// plain digits are accepted here; the marker is only ever set with a number it formatted.
    static func decimalUInt32(_ text: String) -> UInt32? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return UInt32(text)
    }

    /// The hashed value the clear part of a binary file holds for an attribute
    /// (`compat_hash_value_as_string`, `compat_hash_value_as_uint32`): a lower-case hex MD5 of a
    /// string, or the old keyring's mix of a uint32.
    static func hashed(_ value: Value) throws(ForeignFormatError) -> Value {
        switch value {
        case .uint32(let number):
            return .uint32(0x1827_3645 ^ number ^ (number << 16 | number >> 16))
        case .string(let text):
            let digest: [UInt8]
            do { digest = try ForeignDigest.hash(.md5, Array(text.utf8)) } catch {
                throw .unsupported("MD5 is not available: \(error)")
            }
            return .string(digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined())
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
