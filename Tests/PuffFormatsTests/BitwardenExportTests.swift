// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffTesting
import Testing

@testable import PuffFormats

/// Bitwarden's unencrypted JSON export on bytes: the hand-written fixture with the awkward
/// content, and the ways an export goes wrong. The built puffctl importing it is in
/// EndToEndTests/BitwardenImportFlowTests.
@Suite struct BitwardenExportTests {
    @Test func theFixtureIsFoundByItsContentAndMapsItemForItem() throws {
        let reader = try ForeignFormats.reader(for: BitwardenFixture.bytes, format: nil)
        #expect(reader.format == .bitwarden)
        let needsPasscode = reader.needsPasscode(BitwardenFixture.bytes)
        #expect(!needsPasscode)
        let collection = try BitwardenExport.read(BitwardenFixture.bytes, passcode: nil)
        try #require(collection.items.count == BitwardenFixture.expected.count)
        for (item, expected) in zip(collection.items, BitwardenFixture.expected) {
            #expect(item.label == expected.label)
            #expect(item.attributes == expected.attributes, "\(expected.label)")
            #expect(item.secret.unprotectedArray() == expected.secret, "the secret of '\(expected.label)'")
            #expect(item.created == expected.created, "\(expected.label)")
            #expect(item.modified == expected.modified, "\(expected.label)")
            #expect(item.leftBehind == expected.leftBehind, "\(expected.label)")
            #expect(item.contentType == "text/plain")
        }
        #expect(collection.skipped.map(\.label) == BitwardenFixture.skipped.map(\.label))
        for (skip, expected) in zip(collection.skipped, BitwardenFixture.skipped) {
            #expect(skip.reason.hasPrefix(expected.reason), "\(skip.reason)")
        }
        // The long password: 20,000 characters, whole.
        #expect(collection.items[2].secret.count == Array(BitwardenFixture.long.utf8).count)
    }

    @Test func aSkippedItemsReasonSaysWhatPuffImports() throws {
        let collection = try BitwardenExport.read(BitwardenFixture.bytes, passcode: nil)
        #expect(
            collection.skipped.first
                == PortableSkip(label: "Visa", reason: "a card: Puff imports logins and secure notes"))
        for skip in collection.skipped {
            for value in BitwardenFixture.neverImported {
                #expect(!skip.reason.contains(value))
            }
        }
    }

    @Test func anEncryptedExportIsRefusedSayingSoAndHowToExportAgain() {
        #expect(BitwardenExport.recognises(BitwardenFixture.encrypted), "found, so the refusal can say why")
        #expect(!BitwardenExport.needsPasscode(BitwardenFixture.encrypted), "no password is asked for first")
        #expect {
            try BitwardenExport.read(BitwardenFixture.encrypted, passcode: nil)
        } throws: { error in
            guard case ForeignFormatError.unsupported(let message) = error else { return false }
            return message.hasPrefix("an encrypted Bitwarden export") && message.contains("\".json (Encrypted)\"")
        }
    }

    @Test func otherJSONAndOtherFormatsAreNotTakenForAnExport() {
        for text in [
            "[]", "{}", "{\"folders\": []}", "{\"items\": {}}", "{\"encrypted\": \"no\"}",
            "{\"nested\": {\"items\": []}}",
            "\"items\"", "[keyring]\ndisplay-name=x\n",
        ] {
            #expect(!BitwardenExport.recognises(Array(text.utf8)), "\(text)")
        }
        #expect(BitwardenExport.recognises(Array("\u{FEFF}  {\"folders\":[{\"a\":\"}\"}], \"items\": [".utf8)))
        #expect(BitwardenExport.recognises(Array("{\"x\": \"\\\"\", \"encrypted\":false".utf8)), "a cut prefix")
        #expect(throws: ForeignFormatError.notThisFormat(.bitwarden)) {
            try ForeignFormats.reader(for: Array("{}".utf8), format: .bitwarden)
        }
    }

    @Test func damageIsNamedByItsPlaceAndNothingIsRead() {
        let cases: [(String, String)] = [
            ("{\"encrypted\": false}", "it has no \"items\" list"),
            ("{\"items\": [1]}", "item 1 of \"items\" is not an object"),
            ("{\"items\": [{\"name\": \"a\"}", "the JSON ends early at byte 24 of the JSON"),
            ("{\"items\": []} x", "text after the JSON value at byte 14 of the JSON"),
            ("{\"items\": [{\"name\": \"\\ud800\"}]}", "a lone UTF-16 surrogate at byte 21 of the JSON"),
            ("{\"items\": [{\"name\": \"a\nb\"}]}", "a control character inside a string at byte 22 of the JSON"),
            ("{\"items\": [{\"type\": 01}]}", "a value that is not JSON at byte 20 of the JSON"),
        ]
        for (text, damage) in cases {
            #expect(throws: ForeignFormatError.damaged(damage), "\(text)") {
                try BitwardenExport.read(Array(text.utf8), passcode: nil)
            }
        }
        let notUTF8 = Array("{\"items\": [{\"name\": \"".utf8) + [0xFF] + Array("\"}]}".utf8)
        #expect(throws: ForeignFormatError.damaged("the JSON is not UTF-8")) {
            try BitwardenExport.read(notUTF8, passcode: nil)
        }
    }

    @Test func nestingBeyondTheBoundIsRefusedNotRecursedInto() {
        let deep =
            "{\"items\": " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(throws: ForeignFormatError.damaged("arrays and objects nested deeper than 64 at byte 73 of the JSON")) {
            try BitwardenExport.read(Array(deep.utf8), passcode: nil)
        }
    }

    @Test func escapesDecodeToTheirCharactersInLabelsAndSecrets() throws {
        let text = #"{"items":[{"type":2,"name":"A\u00e9\/\b\f","notes":"\ud83d\udd11\u0000\"\\"}]}"#
        let item = try #require(try BitwardenExport.read(Array(text.utf8), passcode: nil).items.first)
        #expect(item.label == "Aé/\u{08}\u{0C}")
        #expect(item.secret.unprotectedArray() == Array("🔑\u{0}\"\\".utf8))
    }

    @Test func theFirstURIWithTextIsTheUrlAndALoginWithoutPasswordHasAnEmptySecret() throws {
        let text =
            #"{"items":[{"type":1,"name":"n","login":{"uris":[{"uri":null},{"uri":""},{"uri":"b"},{"uri":"c"}]}}]}"#
        let item = try #require(try BitwardenExport.read(Array(text.utf8), passcode: nil).items.first)
        #expect(item.attributes == ["url": "b"])
        #expect(item.leftBehind == ["1 more URI"])
        #expect(item.secret.isEmpty)
        #expect(item.created == nil && item.modified == nil, "no dates in the export: the import's time")
    }
}
