// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// The passcode policy as `io.puff.Control1` carries it (dbus/io.puff.Control1.xml): the options
/// `policy` (s) and `min_length` (u) of `Init` and `CreateCollection`, and the same keys plus
/// `policy_text` (s) in each collection of `Status`.
extension PasscodePolicy {
    /// The policy `options` ask for; ``PasscodePolicy/standard`` when they name none. `min_length`
    /// without `policy` sets the minimum of the default kind, `alphanumeric`.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for a value of the wrong type, an unknown
    ///   name or a minimum length out of range.
    init(options: [String: DBusValue]) throws(ServiceError) {
        var length: Int?
        if let value = options[ControlContract.Key.minimumLength] {
            guard case .uint32(let number) = value else { throw .invalidArgument("the min_length option must be u") }
            length = Int(number)
        }
        guard let value = options[ControlContract.Key.policy] else {
            self =
                length == nil
                ? .standard : try PasscodePolicy(name: PasscodePolicy.standard.name, minimumLength: length)
            return
        }
        guard let name = value.string else { throw .invalidArgument("the policy option must be s") }
        self = try PasscodePolicy(name: name, minimumLength: length)
    }

    /// The `Status` entries describing the policy.
    var statusEntries: [String: DBusValue] {
        [
            ControlContract.Key.policy: .string(name),
            ControlContract.Key.minimumLength: .uint32(UInt32(minimumLength)),
            ControlContract.Key.policyText: .string(requirement),
        ]
    }
}
