// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto
import Testing

@testable import PuffClient

/// `puffctl generate` and `add --generate`: the charset only, the length asked, and no bias.
struct PasswordGeneratorTests {
    private func characters(_ password: SecureBytes) -> [Unicode.Scalar] {
        Array(String(decoding: password.unprotectedArray(), as: UTF8.self).unicodeScalars)
    }

    @Test(arguments: ["alnum", "digits", "alnum+symbols", "hex", "abc", "éü€"])
    func everyCharacterComesFromTheCharsetAndTheLengthIsAsAsked(_ name: String) throws {
        let charset = try #require(PasswordCharset(argument: name))
        let allowed = Set(charset.characters)
        for length in [1, 7, 24, 300] {
            let drawn = characters(PasswordGenerator.generate(length: length, charset: charset))
            #expect(drawn.count == length)
            #expect(drawn.allSatisfy(allowed.contains), "\(name): a character outside the set")
        }
    }

    @Test func namedClassesHoldWhatTheirNamesSay() throws {
        #expect(try #require(PasswordCharset(argument: "digits")).characters.count == 10)
        #expect(try #require(PasswordCharset(argument: "alnum")).characters.count == 62)
        #expect(try #require(PasswordCharset(argument: "alnum+symbols")).characters.count == 94)
        #expect(try #require(PasswordCharset(argument: "letters+digits")).characters.count == 62)
        // Not every part a class name: the text is the literal set, duplicates dropped.
        let literal = try #require(PasswordCharset(argument: "digits+x"))
        #expect(literal.characters.map(String.init).joined() == "digts+x")
    }

    @Test(arguments: ["", "a", "aaaa", "ab\u{1b}", "ab\n"])
    func setsOfFewerThanTwoCharactersOrWithControlsAreRefused(_ text: String) {
        #expect(PasswordCharset(argument: text) == nil)
    }

    @Test func everyCharacterIsDrawnAboutEquallyOften() throws {
        let charset = try #require(PasswordCharset(argument: "alnum"))
        var counts: [Unicode.Scalar: Int] = [:]
        for _ in 0..<2000 {
            for scalar in characters(PasswordGenerator.generate(length: 24, charset: charset)) {
                counts[scalar, default: 0] += 1
            }
        }
        // 48,000 draws over 62 characters: 774 each expected, a standard deviation near 28.
        #expect(counts.count == 62)
        #expect(counts.values.allSatisfy { (600...950).contains($0) }, "\(counts.values.sorted())")
    }

    @Test func aSetWhoseSizeDoesNotDivideTheRandomRangeShowsNoModuloBias() throws {
        // 192 characters: a byte taken modulo 192 would draw the first 64 twice as often, so
        // they would take half the draws instead of a third.
        let text = String(String.UnicodeScalarView((0x100..<0x1C0).compactMap(Unicode.Scalar.init)))
        let charset = try #require(PasswordCharset(argument: text))
        #expect(charset.characters.count == 192)
        let first = Set(charset.characters.prefix(64))
        var inFirst = 0
        var total = 0
        for _ in 0..<400 {
            for scalar in characters(PasswordGenerator.generate(length: 250, charset: charset)) {
                total += 1
                if first.contains(scalar) { inFirst += 1 }
            }
        }
        let share = Double(inFirst) / Double(total)
        // 100,000 draws: a third ± 0.0015 (one standard deviation); biased, it would be a half.
        #expect((0.31...0.36).contains(share), "the first 64 characters took \(share) of the draws")
    }

    @Test func generateParsesLengthAndCharsetAndRefusesBadLengths() throws {
        let command = try #require(try Puffctl.parseAsRoot(["generate", "32", "--charset", "digits"]) as? Generate)
        #expect(command.length == 32)
        #expect(command.charset.chosen.characters.count == 10)
        #expect(try #require(try Puffctl.parseAsRoot(["generate"]) as? Generate).length == 24)
        for bad in ["0", "4097", "-1"] {
            #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["generate", bad]) }
        }
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["generate", "--charset", "a"]) }
    }
}
