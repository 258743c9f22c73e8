// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Synchronization
import Testing

@testable import PuffFormats

/// The registry import and export find readers and writers in: formats known by content, never by name.
@Suite struct ForeignFormatsTests {
    let passcode = SecureBytes(unwipedCopyOf: Array("p".utf8))

    func libsecretBytes() throws -> [UInt8] {
        try LibsecretFile.write(PortableCollection(label: "", items: []), passcode: passcode)
    }

    @Test func aReaderReportsEachItemItReadsToTheProgressOfItsTask() throws {
        let items = (0..<3).map {
            PortableItem(label: "\($0)", attributes: [:], secret: SecureBytes(unwipedCopyOf: [UInt8($0)]))
        }
        let bytes = try LibsecretFile.write(PortableCollection(label: "", items: items), passcode: passcode)
        let reports = Mutex<[String]>([])
        let progress = ReadProgress { stage, done, total in reports.withLock { $0.append("\(stage) \(done)/\(total)") }
        }
        let read = try ReadProgress.$current.withValue(progress) { try LibsecretFile.read(bytes, passcode: passcode) }
        #expect(read.items.count == 3)
        #expect(reports.withLock { $0 } == ["items 0/3", "items 1/3", "items 2/3", "items 3/3"])
        // Outside a reporting read, nothing is told.
        _ = try LibsecretFile.read(bytes, passcode: passcode)
        #expect(reports.withLock { $0.count } == 4)
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
