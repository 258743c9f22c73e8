// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// The XML of a KDBX 4 database holding a collection: one root group, one entry per item, the
/// Password values protected with the inner stream and binary secrets as `FDO_SECRETS_DATA`
/// attachments referring to the inner header's pool (docs/migration.md).
struct KDBXXMLWriter {
    private var stream: StreamCipher
    private(set) var xml = ""
    /// The inner header's attachments, in Ref order.
    private(set) var pool: [SecureBytes] = []
    private let now: UInt64

    init(stream: StreamCipher, now: UInt64) {
        self.stream = stream
        self.now = now
    }

    /// Whether `text` can sit in XML 1.0 as it is (the characters XML allows; pykeepass and
    /// KeePassXC drop the others).
    static func isXMLSafe(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }
    }

    /// `text` escaped for element content; `\r` as a character reference so parsers keep it.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    private static let zeroUUID = "AAAAAAAAAAAAAAAAAAAAAA=="

    private static func uuid() -> String { Base64.encode(SecureRandom.bytes(16)) }

    private mutating func element(_ name: String, _ text: String) {
        xml += text.isEmpty ? "<\(name)/>" : "<\(name)>\(Self.escape(text))</\(name)>"
    }

    private mutating func times(created: UInt64, modified: UInt64) {
        xml += "<Times>"
        element("CreationTime", KDBXDocument.formatTime(created))
        element("LastModificationTime", KDBXDocument.formatTime(modified))
        element("LastAccessTime", KDBXDocument.formatTime(modified))
        element("ExpiryTime", KDBXDocument.formatTime(modified))
        element("Expires", "False")
        element("UsageCount", "0")
        element("LocationChanged", KDBXDocument.formatTime(modified))
        xml += "</Times>"
    }

    private mutating func string(_ key: String, _ value: String) {
        xml += "<String>"
        element("Key", key)
        element("Value", value)
        xml += "</String>"
    }

    /// Writes the whole document for `collection`, already checked by ``KDBXWriter``.
    mutating func write(_ collection: PortableCollection) throws(ForeignFormatError) {
        xml = "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n<KeePassFile><Meta>"
        element("Generator", "Puff")
        element("DatabaseName", collection.label)
        element("DatabaseNameChanged", KDBXDocument.formatTime(now))
        xml += "<MemoryProtection>"
        for (field, on) in [
            ("Title", false), ("UserName", false), ("Password", true), ("URL", false), ("Notes", false),
        ] {
            element("Protect\(field)", on ? "True" : "False")
        }
        xml += "</MemoryProtection>"
        element("RecycleBinEnabled", "False")
        element("RecycleBinUUID", Self.zeroUUID)
        element("HistoryMaxItems", "10")
        element("HistoryMaxSize", "6291456")
        xml += "</Meta><Root><Group>"
        element("UUID", Self.uuid())
        element("Name", collection.label.isEmpty ? "Root" : collection.label)
        times(created: collection.created ?? now, modified: collection.modified ?? now)
        element("IsExpanded", "True")
        element("LastTopVisibleEntry", Self.zeroUUID)
        for item in collection.items { try entry(item) }
        xml += "</Group></Root></KeePassFile>\n"
    }

    private mutating func entry(_ item: PortableItem) throws(ForeignFormatError) {
        xml += "<Entry>"
        element("UUID", Self.uuid())
        element("IconID", "0")
        times(created: item.created ?? now, modified: item.modified ?? item.created ?? now)
        string("Title", item.label)
        let user = item.attributes["user"] ?? ""
        let url = item.attributes["url"] ?? ""
        string("UserName", user)
        string("URL", url)
        let asPassword = KDBXWriter.fitsPasswordField(item)
        xml += "<String><Key>Password</Key>"
        if asPassword && !item.secret.isEmpty {
            let ciphertext: [UInt8]
            do { ciphertext = try stream.encrypt(item.secret) } catch { throw .cannotCross("the inner stream failed") }
            xml += "<Value Protected=\"True\">\(Base64.encode(ciphertext))</Value>"
        } else {
            xml += "<Value Protected=\"True\"/>"
        }
        xml += "</String>"
        string("Notes", "")
        for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
            // Non-empty user and url went to UserName and URL; empty ones stay custom fields, so
            // reading the file back gives the same attributes.
            if (name == "user" || name == "url") && !value.isEmpty { continue }
            string(name, value)
        }
        if !asPassword {
            string(KDBXMapping.contentTypeField, item.contentType)
            xml += "<Binary>"
            element("Key", KDBXMapping.secretAttachment)
            xml += "<Value Ref=\"\(pool.count)\"/></Binary>"
            pool.append(item.secret)
        }
        xml += "<AutoType><Enabled>True</Enabled><DataTransferObfuscation>0</DataTransferObfuscation></AutoType>"
        xml += "<History/></Entry>"
    }
}
