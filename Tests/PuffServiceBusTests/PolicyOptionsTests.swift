// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService
import Testing

@testable import PuffServiceBus

/// The passcode policy on `io.puff.Control1`: read from the `policy` and `min_length` options,
/// shown in `Status`, and refused passcodes answered with a message that says what is needed.
@Suite struct PolicyOptionsTests {
    private func policy(_ options: [String: DBusValue]) -> Result<PasscodePolicy, ServiceError> {
        Result { () throws(ServiceError) in try PasscodePolicy(options: options) }
    }

    @Test func noOptionsMeanTheStandardPolicy() {
        #expect(policy([:]) == .success(.standard))
        #expect(policy(["private": .boolean(true)]) == .success(.standard))
    }

    @Test func aNameAndALengthAreRead() {
        #expect(policy(["policy": .string("digits6")]) == .success(.digits6))
        #expect(
            policy(["policy": .string("numeric"), "min_length": .uint32(8)]) == .success(.numeric(minimumLength: 8)))
        #expect(policy(["min_length": .uint32(12)]) == .success(.alphanumeric(minimumLength: 12)))
    }

    @Test func aValueOfTheWrongTypeOrAnUnknownNameIsAnInvalidArgument() {
        #expect(policy(["policy": .uint32(2)]).failure == .invalidArgument("the policy option must be s"))
        #expect(policy(["min_length": .int32(6)]).failure == .invalidArgument("the min_length option must be u"))
        #expect(
            policy(["policy": .string("pin")]).failure
                == .invalidArgument("unknown passcode policy 'pin': use digits4, digits6, numeric or alphanumeric"))
    }

    @Test func statusShowsTheNameTheLengthAndTheText() {
        let entries = PasscodePolicy.digits6.statusEntries
        #expect(Set(entries.keys) == ["policy", "min_length", "policy_text"])
        #expect(entries["policy"]?.string == "digits6")
        #expect(entries["policy_text"]?.string == "6 digits")
        guard case .uint32(let length)? = entries["min_length"] else {
            Issue.record("min_length is not a u")
            return
        }
        #expect(length == 6)
    }

    @Test func aRefusedPasscodeIsAnsweredWithWhatThePolicyNeeds() {
        let error = DBusErrorMapping.map(ServiceError.passcodePolicy(.digits6))
        #expect(error.name.rawValue == "io.puff.Error.PasscodePolicy")
        #expect(error.message == "the passcode must be 6 digits (policy digits6)")
    }
}

extension Result {
    /// The error of a failed result, nil for a success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
