// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffService

/// ``PasscodePolicy`` on its own: which passcodes each kind admits, how names and lengths are
/// read, what it says to people, and how it sits in a header's two policy bytes.
@Suite struct PasscodePolicyTests {
    /// Whether `policy` admits each of `passcodes`. Tests compare these Bools, so a failure shows
    /// which case failed, never a passcode.
    private func verdicts(_ policy: PasscodePolicy, _ passcodes: [String]) -> [Bool] {
        passcodes.map { policy.admits(Fixture.passcode($0)) }
    }

    @Test func digits6AdmitsExactlySixASCIIDigits() {
        let got = verdicts(
            .digits6, ["123456", "000000", "abc123", "12345", "1234567", "12345a", "12 456", "١٢٣٤٥٦", ""])
        #expect(got == [true, true, false, false, false, false, false, false, false])
    }

    @Test func digits4AdmitsExactlyFourASCIIDigits() {
        let got = verdicts(.digits4, ["0420", "123", "12345", "abcd", "12.4"])
        #expect(got == [true, false, false, false, false])
    }

    @Test func numericAdmitsOnlyDigitsFromItsMinimumLengthUp() {
        let got = verdicts(.numeric(minimumLength: 6), ["123456", "12345678901234567890", "12345", "1234567x"])
        #expect(got == [true, true, false, false])
    }

    @Test func alphanumericCountsCharactersNotBytes() {
        // "пароль12" is 8 characters in 14 bytes; "пароль1" 7 in 13.
        let got = verdicts(.standard, ["first pass", "пароль12", "пароль1", "seven77"])
        #expect(got == [true, true, false, false])
    }

    @Test func namesReadBackWithTheirDefaultLengths() throws {
        #expect(try PasscodePolicy(name: "digits4") == .digits4)
        #expect(try PasscodePolicy(name: "digits6") == .digits6)
        #expect(try PasscodePolicy(name: "digits6", minimumLength: 6) == .digits6)
        #expect(try PasscodePolicy(name: "numeric") == .numeric(minimumLength: 6))
        #expect(try PasscodePolicy(name: "numeric", minimumLength: 4) == .numeric(minimumLength: 4))
        #expect(try PasscodePolicy(name: "alphanumeric") == .standard)
        #expect(PasscodePolicy.standard == .alphanumeric(minimumLength: 8))
        #expect(try PasscodePolicy(name: "alphanumeric", minimumLength: 1) == .alphanumeric(minimumLength: 1))
        for name in PasscodePolicy.names {
            #expect(try PasscodePolicy(name: name).name == name)
        }
    }

    @Test func aBadNameOrLengthIsAnInvalidArgumentThatSaysWhatFits() {
        func error(_ name: String, _ length: Int?) -> ServiceError? {
            do {
                _ = try PasscodePolicy(name: name, minimumLength: length)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            error("pin", nil)
                == .invalidArgument("unknown passcode policy 'pin': use digits4, digits6, numeric or alphanumeric"))
        #expect(error("digits6", 8) == .invalidArgument("digits6 is exactly 6 digits: leave out the minimum length"))
        #expect(error("numeric", 3) == .invalidArgument("numeric needs a minimum length from 4 to 255"))
        #expect(error("numeric", 256) == .invalidArgument("numeric needs a minimum length from 4 to 255"))
        #expect(error("alphanumeric", 0) == .invalidArgument("alphanumeric needs a minimum length from 1 to 255"))
    }

    @Test func theRequirementSaysWhatAPasscodeNeeds() {
        #expect(PasscodePolicy.digits6.requirement == "6 digits")
        #expect(PasscodePolicy.digits4.requirement == "4 digits")
        #expect(PasscodePolicy.numeric(minimumLength: 6).requirement == "at least 6 digits")
        #expect(PasscodePolicy.standard.requirement == "at least 8 characters")
        #expect(PasscodePolicy.alphanumeric(minimumLength: 1).requirement == "at least 1 character")
        #expect(ServiceError.passcodePolicy(.digits6).description == "the passcode must be 6 digits (policy digits6)")
    }

    @Test(arguments: [
        (PasscodePolicy.standard, UInt8(0), UInt8(8)), (.digits4, 1, 4), (.digits6, 2, 6),
        (.numeric(minimumLength: 7), 3, 7), (.alphanumeric(minimumLength: 255), 0, 255),
    ])
    func eachPolicyHasTheHeaderBytesOfTheVaultFormat(policy: PasscodePolicy, kind: UInt8, length: UInt8) {
        #expect(policy.headerKind == kind)
        #expect(PasscodePolicy(headerKind: kind, minimumLength: length) == policy)
    }

    @Test(arguments: [UInt8(0), 1])
    func aHeaderWrittenBeforePoliciesMeansAnyPasscode(length: UInt8) {
        #expect(PasscodePolicy(headerKind: 0, minimumLength: length) == .alphanumeric(minimumLength: 1))
    }

    @Test func anUnknownKindIsNoPolicy() {
        #expect(PasscodePolicy(headerKind: 4, minimumLength: 6) == nil)
    }
}
