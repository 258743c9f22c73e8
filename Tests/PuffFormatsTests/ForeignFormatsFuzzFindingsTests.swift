// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffCrypto
import Testing

@testable import PuffFormats

/// Inputs `make fuzz FUZZ_TARGET=formats` (PuffFuzzFormats) found, each kept as the regression
/// test of its fix, and the fuzzer's seeds checked to open.
struct ForeignFormatsFuzzFindingsTests {
    /// A KDBX document whose closing tag's name is not UTF-8 (way 3 of the fuzzer: the XML behind
    /// the HMAC, which the author of a hostile database controls). FoundationXML trapped on it,
    /// taking puffctl import down; now it is named as damage.
    @Test func aKDBXDocumentWithANameThatIsNotUTF8IsDamageNotATrap() throws {
        let base64 = [
            "PD94bWwgdmVyc2lvbj0iMS4wIiBlbmNvZGluZz0idXRmLTgiPz48S2VlUGFzc0ZpbGU+PE1ldGE+PEJpbmFyaWVzPjxCaW5hcnkg",
            "SUQ9IjAiIENvbXByZXNzZWQ9IkZhbHNlIj5BQUVDPC9CaW5hcnk+PC++lpGejZaahT48L01ldGE+PFJv73Q+PEdyb3VwPjxOYW1l",
            "Pmc8L05hbWU+PEVudHJ5PjxTdHJpbmc+PEtleT5UaXRsZTwvS2V5PjxWYWx1ZT50PC9WYWx1ZT48L1N0cmluZz48U3RyaW5nPjxL",
            "ZXk+UGFzc3dvcmQ8L0tleT48VmFsdWUgUHJvdGVjdGVkPSJUcnVlIj5BQUFBPC9WYWx1ZT48L1N0cmluZz48QmluYXJ5PjxLZXk+",
            "RkRPX1NFQ1JFVFNfREFUQTwvS2V5PjxWYWx1ZSBSZWY9IjAiLz48L0JpbmFyeT48VGltZXM+PENyZWF0aW9uVGltZT4yMDIwLTAx",
            "LTAxVDAwOjAwOjAwWjwvQ3JlYXRpb25UaW1lPjwvVGltZXM+PC9FbnRyeT48L0dyb3VwPjwvUm9vdD48L0tlZVBhc3NGaWxlPg==",
        ].joined()
        let xml = try #require(Data(base64Encoded: base64))
        #expect(throws: ForeignFormatError.damaged("the database's XML is not UTF-8")) {
            try xml.withUnsafeBytes { raw in _ = try KDBXXMLParser.parse(raw, stream: nil) }
        }
        #expect(ForeignFormatsFuzzing.run([3] + Array(xml)) == "xml refused")
    }

    @Test func everyFileSeedOpensWithTheFuzzersPasscode() throws {
        let files = ForeignFormatsFuzzing.seeds().filter { $0.name.hasPrefix("0-") }
        #expect(files.count == 6)
        for (name, bytes) in files {
            #expect(ForeignFormatsFuzzing.run(bytes).hasPrefix("opened by"), "\(name)")
        }
        let items = try #require(ForeignFormatsFuzzing.seeds().first { $0.name == "5-bitwarden-items" })
        #expect(ForeignFormatsFuzzing.run(items.bytes) == "items read")
    }
}
