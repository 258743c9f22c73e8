// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// gnome-keyring's binary keyring read and written on bytes alone; the real daemon's side is in
/// EndToEndTests/GnomeKeyringFileTests.
@Suite struct GnomeKeyringBinaryTests {
    /// A login.keyring gnome-keyring-daemon 42.1 wrote (password "pass1", 3644 iterations) after
    /// `secret-tool store --label='Ünïcödé label ✓' service mail user alice empty ''` with the
    /// secret "hunter2".
    static let daemonWritten = hex(
        """
        476e6f6d654b657972696e670a0d000a00000000000000054c6f67696e000000006b08e7800000000000000000000000\
        000000000000000e3c44d493b5a688a9b700000000000000000000000000000000000000010000000100000000000000\
        0300000005656d7074790000000000000020643431643863643938663030623230346539383030393938656366383432\
        376500000007736572766963650000000000000020623833613838366135633433376363643961633135343733666436\
        663137383800000004757365720000000000000020363338346532623231383462636266353865636366313063613761\
        3635363363000000a0fbbf97877b0e218c5b67480098c2bcfad56c044177c8d2a430be6c861b9040394470a9107d6701\
        9d68e41b7f079b0ae731faac9e95aa4cbf6cd9a6afac6b063495e923b3ef5262a8f16beae6bbc20d1697a17a1a20035f\
        f90704a4dd14a0fa67e885a47d2e6a6b63f5ac56aa4306e6a470801d3624d63709d624b4225b1076a1ad01543c88e084\
        8895611495dc045b9d9c7f52e21f3ba7fd05054ddce71abb75
        """)
    static let password = secure("pass1")

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    static func secure(_ text: String) -> SecureBytes { SecureBytes(unwipedCopyOf: Array(text.utf8)) }

    static func text(_ secret: SecureBytes) -> [UInt8] { secret.unprotectedArray() }

    @Test func aKeyringTheDaemonWroteReadsAsTheDaemonServesIt() throws {
        let collection = try GnomeKeyringBinary.read(Self.daemonWritten, passcode: Self.password)
        #expect(collection.label == "Login")
        // The header as gnome-keyring reads it: the first time as Created (its writer put the
        // keyring's Modified, 0, second after one reload).
        #expect(collection.created == 1_795_745_664)
        #expect(collection.modified == 0)
        try #require(collection.items.count == 1)
        let item = collection.items[0]
        #expect(item.label == "Ünïcödé label ✓")
        #expect(
            item.attributes == [
                "empty": "", "service": "mail", "user": "alice", "xdg:schema": "org.freedesktop.Secret.Generic",
            ])
        #expect(Self.text(item.secret) == Array("hunter2".utf8))
        #expect(item.contentType == "text/plain")
        #expect(item.created == 1_795_745_669)
        #expect(item.modified == 1_795_745_669)
        #expect(item.leftBehind.isEmpty)
    }

    @Test func aWrongPasswordFailsTheMD5Check() {
        #expect(throws: ForeignFormatError.wrongPasscode) {
            try GnomeKeyringBinary.read(Self.daemonWritten, passcode: Self.secure("pass2"))
        }
        #expect(throws: ForeignFormatError.wrongPasscode) {
            try GnomeKeyringBinary.read(Self.daemonWritten, passcode: nil)
        }
    }

    @Test func everyTruncationIsNamedAsDamageOrAnotherFormat() {
        let file = Self.daemonWritten
        for length in 0..<file.count {
            do {
                _ = try GnomeKeyringBinary.read(Array(file[0..<length]), passcode: Self.password)
                Issue.record("a file cut to \(length) bytes was read")
            } catch .notThisFormat(.gnomeKeyring) {
                #expect(length < 16, "cut to \(length) bytes")
            } catch .damaged(let what) {
                #expect(length >= 16, "cut to \(length) bytes")
                #expect(what.contains("cut off"), "cut to \(length) bytes: \(what)")
            } catch {
                Issue.record("cut to \(length) bytes: \(error)")
            }
        }
    }

    @Test func aFlippedCiphertextByteFailsTheCheckAndAnotherVersionIsUnsupported() {
        var flipped = Self.daemonWritten
        flipped[flipped.count - 20] ^= 0x01
        #expect(throws: ForeignFormatError.wrongPasscode) {
            try GnomeKeyringBinary.read(flipped, passcode: Self.password)
        }
        var version = Self.daemonWritten
        version[16] = 1
        #expect(throws: ForeignFormatError.unsupported("gnome-keyring file version 1.0, cipher 0, hash 0")) {
            try GnomeKeyringBinary.read(version, passcode: Self.password)
        }
        var iterations = Self.daemonWritten
        // The iteration count sits after magic, version, name (4 + 5), two times and two words.
        let at = 16 + 4 + 9 + 16 + 8
        #expect(Array(iterations[at..<at + 4]) == [0, 0, 0x0e, 0x3c], "3644 where the layout says")
        iterations.replaceSubrange(at..<at + 4, with: [0, 0, 0, 0])
        #expect(throws: ForeignFormatError.damaged("the header's hash iteration count is zero")) {
            try GnomeKeyringBinary.read(iterations, passcode: Self.password)
        }
    }

    @Test func onlyTheMagicIsRecognised() {
        #expect(GnomeKeyringBinary.recognises(Self.daemonWritten))
        #expect(!GnomeKeyringBinary.recognises(Array("[keyring]\ndisplay-name=x\n".utf8)))
        #expect(throws: ForeignFormatError.notThisFormat(.gnomeKeyring)) {
            try GnomeKeyringBinary.read(Array("GnomeKeyring\n\r\0X".utf8) + [0, 0, 0, 0], passcode: nil)
        }
    }
}
