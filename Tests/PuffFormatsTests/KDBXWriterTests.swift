// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import Testing

@testable import PuffFormats

/// Puff's KDBX 4 export, read back by Puff, by pykeepass and by keepassxc-cli (issue 25 item 2):
/// labels, attributes and secrets exact, binary secrets as KeePassXC's FDO_SECRETS_DATA.
@Suite(.serialized) struct KDBXWriterTests {
    /// Cheap KDF settings, so the tools open the files quickly; both variants and both ciphers.
    static let settings: [KDBXWriter.Settings] = [
        .init(argon2: .d, parameters: .init(iterations: 2, memoryKiB: 1024, parallelism: 2), cipher: .chacha20),
        .init(argon2: .id, parameters: .init(iterations: 2, memoryKiB: 1024, parallelism: 2), cipher: .aes256),
    ]

    static func secure(_ text: String) -> SecureBytes { SecureBytes(unwipedCopyOf: Array(text.utf8)) }

    static func collection() -> PortableCollection {
        var fifty: [String: String] = ["user": "u"]
        for index in 0..<50 { fifty["attr\(index)"] = "value \(index)" }
        let items = [
            PortableItem(
                label: "Grüße 🔑 ünïcødé",
                attributes: [
                    "xdg:schema": "org.example.Test", "ключ": "значение ✓", "user": "ålice",
                    "url": "https://example.org/ü",
                ],
                secret: secure("pässword 🔐"), created: 1_457_067_967, modified: 1_565_345_472),
            PortableItem(
                label: "empty values", attributes: ["empty": "", "user": "", "url": ""], secret: .empty,
                created: 1_000_000_000, modified: 1_000_000_001),
            PortableItem(label: "fifty", attributes: fifty, secret: secure("p")),
            PortableItem(label: "big", attributes: [:], secret: secure(KDBXReaderTests.bigValue)),
            PortableItem(
                label: "binary", attributes: ["service": "ssh"],
                secret: SecureBytes(unwipedCopyOf: KDBXReaderTests.allBytes), contentType: "application/octet-stream"),
            PortableItem(
                label: "charset", attributes: [:], secret: secure("abc"), contentType: "text/plain; charset=utf-8"),
            PortableItem(label: "control", attributes: [:], secret: secure("a\u{1}b")),
            PortableItem(label: "a & b <c> \"d\"", attributes: ["note": "x\r\ny & <z>"], secret: secure("s")),
        ]
        return PortableCollection(label: "Puff export ✓", items: items)
    }

    @Test(arguments: settings)
    func puffReadsItsOwnExportBackExactly(_ settings: KDBXWriter.Settings) throws {
        let original = Self.collection()
        let bytes = try KDBXWriter.write(original, passcode: KDBXTool.passcode, settings: settings)
        let read = try KDBXReader.read(bytes, passcode: KDBXTool.passcode)
        #expect(read.label == original.label)
        #expect(read.items.count == original.items.count)
        for (back, item) in zip(read.items, original.items) {
            #expect(back.isSameItem(as: item), "\(item.label) changed")
            #expect(back.leftBehind.isEmpty)
            if let created = item.created { #expect(back.created == created && back.modified == item.modified) }
        }
        #expect(throws: ForeignFormatError.wrongPasscode) {
            try KDBXReader.read(bytes, passcode: Self.secure("another"))
        }
    }

    /// What a KeePass tool should show for `item`: field name to value, attachment name to hex.
    static func expected(_ item: PortableItem) -> (strings: [String: String], attachments: [String: String]) {
        let asPassword = KDBXWriter.fitsPasswordField(item)
        let secretText = String(decoding: item.secret.unprotectedArray(), as: UTF8.self)
        var strings = [
            "Title": item.label, "UserName": item.attributes["user"] ?? "", "URL": item.attributes["url"] ?? "",
            "Password": asPassword ? secretText : "", "Notes": "",
        ]
        for (name, value) in item.attributes where !((name == "user" || name == "url") && !value.isEmpty) {
            strings[name] = value
        }
        var attachments: [String: String] = [:]
        if !asPassword {
            strings["FDO_SECRETS_CONTENT_TYPE"] = item.contentType
            attachments["FDO_SECRETS_DATA"] = item.secret.unprotectedArray().map {
                ($0 < 16 ? "0" : "") + String($0, radix: 16)
            }.joined()
        }
        return (strings, attachments)
    }

    @Test(arguments: settings)
    func pykeepassReadsTheExportExactly(_ settings: KDBXWriter.Settings) throws {
        let original = Self.collection()
        let dump = try KDBXTool.dump(
            "dump-py", try KDBXWriter.write(original, passcode: KDBXTool.passcode, settings: settings))
        #expect(dump["version"] as? [Int] == [4, 0])
        let entries = try #require(dump["entries"] as? [[String: Any]])
        #expect(entries.count == original.items.count)
        for (entry, item) in zip(entries, original.items) {
            let (strings, attachments) = Self.expected(item)
            #expect(entry["strings"] as? [String: String] == strings, "\(item.label)")
            #expect(entry["attachments"] as? [String: String] == attachments, "\(item.label)")
            if let created = item.created, let modified = item.modified {
                #expect(entry["times"] as? [Int] == [Int(created), Int(modified)])
            }
        }
    }

    @Test func keepassxcCLIReadsTheExportExactly() throws {
        let original = Self.collection()
        let dump = try KDBXTool.dump(
            "dump-cli", try KDBXWriter.write(original, passcode: KDBXTool.passcode, settings: Self.settings[0]))
        let entries = try #require(dump["entries"] as? [[String: Any]])
        #expect(entries.count == original.items.count)
        for (entry, item) in zip(entries, original.items) {
            let (strings, attachments) = Self.expected(item)
            #expect(entry["strings"] as? [String: String] == strings, "\(item.label)")
            #expect(entry["attachments"] as? [String: String] == attachments, "\(item.label)")
        }
    }

    @Test func whatKDBXCannotCarryIsRefusedBeforeWriting() {
        let taken = PortableCollection(
            label: "c", items: [PortableItem(label: "x", attributes: ["Title": "t"], secret: Self.secure("s"))])
        #expect(throws: ForeignFormatError.cannotCross("item 1 has an attribute named Title, which is a KeePass field"))
        {
            try KDBXWriter.write(taken, passcode: KDBXTool.passcode, settings: Self.settings[0])
        }
        let control = PortableCollection(
            label: "c", items: [PortableItem(label: "bell\u{7}", attributes: [:], secret: Self.secure("s"))])
        #expect(throws: ForeignFormatError.cannotCross("item 1's label holds a character XML cannot carry")) {
            try KDBXWriter.write(control, passcode: KDBXTool.passcode, settings: Self.settings[0])
        }
    }
}
