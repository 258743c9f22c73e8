// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffFormats
import Testing

/// A pass entry's decrypted file as an item: the first line is the secret, exactly; `login:`,
/// `user:`, `username:` and `url:` lines become attributes; nothing else of the file is kept.
struct PassEntryTests {
    static func item(_ text: [UInt8], path: String = "web/example.org") -> PortableItem {
        PassEntry.item(path: path, plaintext: SecureBytes(unwipedCopyOf: text))
    }

    @Test func theFirstLineIsTheSecretAndLoginAndUrlLinesAreAttributes() {
        let item = Self.item(Array("pw ✓ \n  Login:  alice \nurl: https://example.org/x?y=1\nnotes: keep out\n".utf8))
        #expect(item.label == "web/example.org")
        #expect(item.secret.unprotectedArray() == Array("pw ✓ ".utf8))
        #expect(item.attributes == ["user": "alice", "url": "https://example.org/x?y=1"])
        #expect(item.contentType == "text/plain")
        #expect(item.leftBehind == ["1 more line of the file"])
        #expect(item.created == nil && item.modified == nil)
    }

    @Test func anEmptyFirstLineIsAnEmptySecretAndUserOrUsernameLinesCount() {
        let item = Self.item(Array("\nusername: bob\nuser: carol\n".utf8))
        #expect(item.secret.isEmpty)
        #expect(item.attributes == ["user": "carol"], "user: wins over username: wherever it stands")
        #expect(Self.item(Array("\nusername: bob\n".utf8)).attributes == ["user": "bob"])
        #expect(Self.item(Array("x\nlogin: a\nuser: b\n".utf8)).attributes == ["user": "a"])
    }

    @Test func aFileWithoutANewlineIsAllSecretAndAnEmptyFileAnEmptyOne() {
        let bytes: [UInt8] = [0x00, 0xFF, 0x0D, 0x20]
        #expect(Self.item(bytes).secret.unprotectedArray() == bytes)
        #expect(Self.item(bytes).attributes.isEmpty)
        #expect(Self.item([]).secret.isEmpty)
        #expect(Self.item([]).leftBehind.isEmpty)
    }

    @Test func aFirstLineThatLooksLikeAFieldIsStillTheSecret() {
        let item = Self.item(Array("login: not a user\nurl:\n".utf8))
        #expect(item.secret.unprotectedArray() == Array("login: not a user".utf8))
        #expect(item.attributes == ["url": ""])
    }

    @Test func theFirstUrlLineWinsAndOtherLinesAreCountedNotKept() {
        let item = Self.item(Array("s\nurl: a\nURL: b\nloginx: c\n\nfree text\n".utf8))
        #expect(item.attributes == ["url": "a"])
        #expect(item.leftBehind == ["3 more lines of the file"])
    }
}
