// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// The registry import and export find readers and writers in: formats known by content, never by name.
@Suite struct ForeignFormatsTests {
    let passcode = SecureBytes(unwipedCopyOf: Array("p".utf8))

    func libsecretBytes() throws -> [UInt8] {
        try LibsecretFile.write(PortableCollection(label: "", items: []), passcode: passcode)
    }

    @Test func aLibsecretFileIsRecognisedByItsContent() throws {
        #expect(try ForeignFormats.reader(for: try libsecretBytes(), format: nil).format == .libsecret)
    }

    @Test func gnomeKeyringsOwnBinaryFormatIsNotTakenForLibsecret() {
        let binary = LibsecretFile.magic + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 64)
        #expect(!LibsecretFile.recognises(binary))
        #expect(throws: ForeignFormatError.notThisFormat(.libsecret)) {
            try LibsecretFile.read(binary, passcode: passcode)
        }
    }

    @Test func aFormatThatDoesNotFitTheContentIsRefused() throws {
        let bytes = Array("{\"items\": []}".utf8)
        #expect(throws: ForeignFormatError.notThisFormat(.libsecret)) {
            try ForeignFormats.reader(for: bytes, format: .libsecret)
        }
    }

    @Test func contentNoReaderKnowsIsRefusedNamingNoFormat() {
        #expect(throws: ForeignFormatError.unsupported("a file of no format Puff reads")) {
            try ForeignFormats.reader(for: Array("hello".utf8), format: nil)
        }
    }

    @Test func everyRegisteredFormatHasOneReaderAndAtMostOneWriter() {
        let readers = ForeignFormats.readers.map { $0.format }
        let writers = ForeignFormats.writers.map { $0.format }
        #expect(Set(readers).count == readers.count)
        #expect(Set(writers).count == writers.count)
    }
}
