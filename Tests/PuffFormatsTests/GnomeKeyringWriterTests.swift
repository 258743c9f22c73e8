// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// The binary keyring Puff exports, read back on bytes; gnome-keyring-daemon reading it is in
/// EndToEndTests/GnomeKeyringFileTests.
@Suite struct GnomeKeyringWriterTests {
    static func secure(_ bytes: [UInt8]) -> SecureBytes { SecureBytes(unwipedCopyOf: bytes) }

    /// The fixture set of issue 25 in portable form.
    static var fixtures: PortableCollection {
        var fifty: [String: String] = ["xdg:schema": "org.example.Many"]
        for index in 0..<50 { fifty["attr\(index)"] = "value \(index)" }
        let items = [
            PortableItem(
                label: "Ünïcödé ✓", attributes: ["service": "mail", "empty": "", "": "empty name"],
                secret: secure(Array("hunter2 ✓".utf8)), created: 1_551_675_967, modified: 1_551_675_968),
            PortableItem(label: "fifty", attributes: fifty, secret: secure(Array("x".utf8)), created: 1, modified: 2),
            PortableItem(
                label: "every byte", attributes: ["kind": "bytes"], secret: secure((0...255).map { UInt8($0) }),
                created: 3, modified: 4),
            PortableItem(
                label: "sixty-four KiB", attributes: ["kind": "large"],
                secret: secure((0..<65536).map { UInt8(($0 * 7 + 3) % 251) }), created: 5, modified: 6),
            PortableItem(
                label: "network", attributes: ["xdg:schema": "org.gnome.keyring.NetworkPassword", "port": "993"],
                secret: .empty, created: 7, modified: 8),
            PortableItem(
                label: "", attributes: ["port": "143", "gkr:compat:uint32:port": ""], secret: secure([0]), created: 9,
                modified: 10),
        ]
        return PortableCollection(label: "exported ✓", items: items, created: 100, modified: 200)
    }

    static let passcode = secure(Array("target passcode".utf8))

    @Test func anExportReadsBackWithEveryLabelAttributeSecretAndTime() throws {
        let source = Self.fixtures
        let file = try GnomeKeyringBinary.write(source, passcode: Self.passcode, iterations: 1000, salt: Array(1...8))
        let read = try GnomeKeyringBinary.read(file, passcode: Self.passcode)
        #expect(read.label == "exported ✓")
        #expect(read.created == 100)
        #expect(read.modified == 200)
        try #require(read.items.count == source.items.count)
        for (written, back) in zip(source.items, read.items) {
            #expect(back.label == written.label)
            var expected = written.attributes
            // gnome-keyring serves the item type's schema where the item names none.
            if expected["xdg:schema"] == nil { expected["xdg:schema"] = "org.freedesktop.Secret.Generic" }
            #expect(back.attributes == expected, "\(written.label)")
            #expect(back.secret.constantTimeEquals(written.secret), "\(written.label)")
            #expect(back.created == written.created)
            #expect(back.modified == written.modified)
        }
    }

    @Test func aUint32MarkedAttributeIsWrittenAsAUint32AndServedWithItsMarker() throws {
        let file = try GnomeKeyringBinary.write(
            Self.fixtures, passcode: Self.passcode, iterations: 1, salt: Array(1...8))
        let header = try GnomeKeyringBinary.readHeader(file)
        #expect(header.items.map(\.type) == [0, 0, 0, 0, 1, 0], "NetworkPassword is type 1")
        let plaintext = try GnomeKeyringCipher.open(
            header.ciphertext, passcode: Self.passcode, salt: header.salt, iterations: header.iterations)
        // The last item's attributes: "port" as type 1 holding 143; the marker itself is not written.
        let port: [UInt8] = [0, 0, 0, 4] + Array("port".utf8) + [0, 0, 0, 1, 0, 0, 0, 143]
        let bytes = plaintext.unprotectedArray()
        #expect(bytes.windows(port.count).contains { Array($0) == port })
        #expect(!bytes.windows(6).contains { Array($0) == Array("compat".utf8) })
    }

    @Test func theClearPartHashesValuesAsGnomeKeyringDoes() throws {
        // The daemon-written file's item: id 1, type 0, its three attributes hashed.
        let item = PortableItem(
            label: "Ünïcödé label ✓", attributes: ["empty": "", "service": "mail", "user": "alice"],
            secret: Self.secure(Array("hunter2".utf8)))
        let file = try GnomeKeyringBinary.write(
            PortableCollection(label: "Login", items: [item]), passcode: Self.passcode, iterations: 1,
            salt: Array(1...8))
        let daemon = GnomeKeyringBinaryTests.daemonWritten
        // From the item count to the encrypted part's size, in both files.
        let start: Int = 16 + 4 + 9 + 16 + 12 + 8 + 16
        let end: Int = daemon.count - 160 - 4
        let daemonClear: [UInt8] = Array(daemon[start..<end])
        let ourClear: [UInt8] = Array(file[start..<end])
        #expect(ourClear == daemonClear)
        // The old keyring's uint32 mix, 0x18273645 ^ x ^ rotate(x, 16).
        #expect(try GnomeKeyringFields.hashed(.uint32(1)) == .uint32(0x1827_3645 ^ 1 ^ 0x0001_0000))
    }

    @Test func anAccessListIsListedAsLeftBehind() throws {
        let item = PortableItem(
            label: "a", attributes: ["k": "v"], secret: Self.secure([1, 2]), created: 1, modified: 2)
        let prepared = try GnomeKeyringBinary.Prepared(item, number: 1)
        var body = [UInt8](repeating: 0, count: prepared.encryptedSize)
        body.withUnsafeMutableBytes { output in
            var writer = GnomeKeyringBufferWriter(output)
            prepared.write(into: &writer, now: 0)
        }
        // The access list count (the item's last word) becomes one entry, as libgnome-keyring wrote.
        body.removeLast(4)
        body.appendUInt32(1)
        body.appendUInt32(7)
        body.appendString("seahorse")
        body.appendString("/usr/bin/seahorse")
        body.appendString(nil)
        body.appendUInt32(0)
        let salt: [UInt8] = Array(1...8)
        let clear = try GnomeKeyringBinary.write(
            PortableCollection(label: "c", items: [item]), passcode: Self.passcode, iterations: 1, salt: salt)
        let header = try GnomeKeyringBinary.readHeader(clear)
        let sealed = try GnomeKeyringCipher.seal(
            SecureBytes(unwipedCopyOf: body), passcode: Self.passcode, salt: salt, iterations: 1)
        var file = Array(clear.dropLast(header.ciphertext.count + 4))
        file.appendUInt32(UInt32(sealed.count))
        file += sealed
        let read = try GnomeKeyringBinary.read(file, passcode: Self.passcode)
        #expect(read.items.first?.leftBehind == ["an access list of 1 application(s)"])
        #expect(read.items.first?.secret.unprotectedArray() == [1, 2])
    }

    @Test func whatGnomeKeyringCannotHoldIsRefusedBeforeWriting() {
        func refuse(_ item: PortableItem, _ message: String) {
            #expect(throws: ForeignFormatError.cannotCross(message)) {
                try GnomeKeyringBinary.write(PortableCollection(label: "c", items: [item]), passcode: Self.passcode)
            }
        }
        refuse(PortableItem(label: "a\u{0}b", attributes: [:], secret: .empty), "item 1's label holds a NUL character")
        refuse(
            PortableItem(label: "a", attributes: ["k": "v\u{0}"], secret: .empty),
            "item 1's attribute value holds a NUL character")
        refuse(
            PortableItem(label: "a", attributes: ["gkr:compat:hashed:k": "0"], secret: .empty),
            "item 1's attribute gkr:compat:hashed:k is a name gnome-keyring keeps for itself")
        refuse(
            PortableItem(label: "a", attributes: ["gkr:compat:uint32:k": "", "k": "x"], secret: .empty),
            "item 1's attribute gkr:compat:uint32:k is a name gnome-keyring keeps for itself")
    }

    @Test func theExportUsesMoreRoundsThanGnomeKeyringAndAFreshSalt() throws {
        let one = PortableCollection(label: "c", items: [])
        let first = try GnomeKeyringBinary.readHeader(GnomeKeyringBinary.write(one, passcode: Self.passcode))
        let second = try GnomeKeyringBinary.readHeader(GnomeKeyringBinary.write(one, passcode: Self.passcode))
        #expect(first.iterations == 100_000)
        #expect(first.salt != second.salt)
    }
}

extension Array {
    fileprivate func windows(_ size: Int) -> [ArraySlice<Element>] {
        count < size ? [] : (0...(count - size)).map { self[$0..<$0 + size] }
    }
}
