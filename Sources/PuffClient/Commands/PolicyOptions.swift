// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser

/// A passcode policy's name, as `--policy` and `io.puff.Control1` spell it.
public enum PolicyName: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// Exactly 4 ASCII digits.
    case digits4
    /// Exactly 6 ASCII digits.
    case digits6
    /// ASCII digits only, at least `--min-length` (default 6).
    case numeric
    /// Anything of at least `--min-length` characters (default 8).
    case alphanumeric
}

/// `--policy` and `--min-length`, for the commands that create a collection (`init`,
/// `collection create`): what its passcodes must look like from then on.
///
/// puffd decides; these checks only catch a bad combination before anyone types a passcode.
public struct PolicyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "What the passcode must look like: digits4 (4 digits), digits6 (6 digits), numeric (digits only) "
                + "or alphanumeric (anything; the default).",
            valueName: "POLICY")
    )
    public var policy: PolicyName?

    @Option(
        name: .customLong("min-length"),
        help: ArgumentHelp(
            "The shortest passcode for numeric (4 to 255, default 6) or alphanumeric (1 to 255, default 8).",
            valueName: "N")
    )
    public var minimumLength: UInt32?

    /// Creates the options with their defaults: puffd's default policy.
    public init() {}

    public func validate() throws {
        guard let minimumLength else { return }
        switch policy ?? .alphanumeric {
        case .digits4, .digits6:
            throw ValidationError("--min-length applies to numeric and alphanumeric; \(policy!) has a fixed length")
        case .numeric where !(4...255).contains(minimumLength):
            throw ValidationError("--min-length for numeric is 4 to 255")
        case .alphanumeric where !(1...255).contains(minimumLength):
            throw ValidationError("--min-length for alphanumeric is 1 to 255")
        default: break
        }
    }

}
