// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffProtocol
import PuffStore

/// What a collection's passcode must look like (the TOPasscode passcode types), kept in the
/// collection's header.
///
/// ``SecretService`` checks it whenever a passcode is set: `init`, a new collection and a passcode
/// change. Unlocking never checks it, so a passcode set under a laxer policy, or before policies
/// existed, keeps opening its collection.
///
/// Lengths count Unicode scalars (UTF-8 sequences), read in place in locked memory: the passcode
/// never becomes a `String`.
public enum PasscodePolicy: Sendable, Hashable {
    /// Exactly 4 ASCII digits. 10,000 guesses at one Argon2id run each: a convenience, not a wall.
    case digits4
    /// Exactly 6 ASCII digits.
    case digits6
    /// ASCII digits only, at least `minimumLength` of them (at least 4).
    case numeric(minimumLength: Int)
    /// Any characters, at least `minimumLength` of them.
    case alphanumeric(minimumLength: Int)

    /// The policy of a collection created without one: 8 characters, the floor NIST SP 800-63B
    /// sets for a memorized secret a person picks. The vault's files can be copied and attacked
    /// offline, so the floor applies even though each guess costs an Argon2id run.
    public static let standard = PasscodePolicy.alphanumeric(minimumLength: 8)
    /// `numeric` without a minimum length: 6 digits, as a phone's default PIN.
    public static let numericDefaultLength = 6
    /// `numeric` below 4 digits is weaker than `digits4`; refused.
    public static let numericShortest = 4
    /// A minimum length is kept in one header byte.
    public static let longestMinimum = 255
    /// The names `puffctl` and `io.puff.Control1` use, in the order help lists them.
    public static let names = PasscodePolicyName.allCases.map(\.rawValue)

    /// The policy called `name` (one of ``names``), with `minimumLength` for `numeric` and
    /// `alphanumeric` (their defaults when nil).
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` for an unknown name, a minimum length out of
    ///   range, or one given to a fixed-length policy other than its own length.
    public init(name: String, minimumLength: Int? = nil) throws(ServiceError) {
        switch PasscodePolicyName(rawValue: name) {
        case .digits4?, .digits6?:
            let policy: PasscodePolicy = name == PasscodePolicyName.digits4.rawValue ? .digits4 : .digits6
            if let minimumLength, minimumLength != policy.minimumLength {
                throw .invalidArgument(
                    "\(name) is exactly \(policy.minimumLength) digits: leave out the minimum length")
            }
            self = policy
        case .numeric?:
            let length = minimumLength ?? Self.numericDefaultLength
            guard (Self.numericShortest...Self.longestMinimum).contains(length) else {
                throw .invalidArgument(
                    "numeric needs a minimum length from \(Self.numericShortest) to \(Self.longestMinimum)")
            }
            self = .numeric(minimumLength: length)
        case .alphanumeric?:
            let length = minimumLength ?? Self.standard.minimumLength
            guard (1...Self.longestMinimum).contains(length) else {
                throw .invalidArgument("alphanumeric needs a minimum length from 1 to \(Self.longestMinimum)")
            }
            self = .alphanumeric(minimumLength: length)
        case nil:
            throw .invalidArgument(
                "unknown passcode policy '\(name)': use \(Self.names.dropLast().joined(separator: ", ")) or "
                    + "\(Self.names.last!)")
        }
    }

    /// The policy's name, one of ``names``.
    public var name: String {
        let name: PasscodePolicyName =
            switch self {
            case .digits4: .digits4
            case .digits6: .digits6
            case .numeric: .numeric
            case .alphanumeric: .alphanumeric
            }
        return name.rawValue
    }

    /// The shortest passcode the policy admits (for `digits4` and `digits6`, the only length).
    public var minimumLength: Int {
        switch self {
        case .digits4: 4
        case .digits6: 6
        case .numeric(let length), .alphanumeric(let length): length
        }
    }

    /// What a passcode needs, for people: "6 digits", "at least 8 characters".
    public var requirement: String {
        switch self {
        case .digits4, .digits6: "\(minimumLength) digits"
        case .numeric(let length): "at least \(length) digits"
        case .alphanumeric(1): "at least 1 character"
        case .alphanumeric(let length): "at least \(length) characters"
        }
    }

    /// Whether `passcode` meets the policy.
    public func admits(_ passcode: SecureBytes) -> Bool {
        passcode.withUnsafeBytes { bytes in
            // A UTF-8 continuation byte (10xxxxxx) does not start a scalar.
            let length = bytes.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
            let digitsOnly = bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            switch self {
            case .digits4, .digits6: return digitsOnly && length == minimumLength
            case .numeric(let shortest): return digitsOnly && length >= shortest
            case .alphanumeric(let shortest): return length >= shortest
            }
        }
    }
}

extension PasscodePolicy {
    /// The header's policy bytes (docs/vault-format.md): kind 0 alphanumeric, 1 digits4,
    /// 2 digits6, 3 numeric, then the minimum length. Kind 0 keeps headers written before
    /// policies were enforced (0 with length 0 or 1) meaning "any passcode".
    ///
    /// - Returns: nil for a kind this version does not know.
    init?(headerKind kind: UInt8, minimumLength: UInt8) {
        let length = max(Int(minimumLength), 1)
        switch kind {
        case 0: self = .alphanumeric(minimumLength: length)
        case 1: self = .digits4
        case 2: self = .digits6
        case 3: self = .numeric(minimumLength: length)
        default: return nil
        }
    }

    /// The kind byte ``init(headerKind:minimumLength:)`` reads back.
    var headerKind: UInt8 {
        switch self {
        case .alphanumeric: 0
        case .digits4: 1
        case .digits6: 2
        case .numeric: 3
        }
    }
}

extension VaultHeader {
    /// The collection's passcode policy; nil when a newer Puff wrote a kind this one does not know.
    var passcodePolicy: PasscodePolicy? {
        PasscodePolicy(headerKind: policyKind, minimumLength: policyMinimumLength)
    }
}
