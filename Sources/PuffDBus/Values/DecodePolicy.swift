// SPDX-License-Identifier: Apache-2.0

/// What the bus thread may decode of an incoming message, and how (architecture.md Part A item 10).
///
/// A message is decoded on the bus thread before anything else sees it, so whatever a client puts
/// in a body costs the daemon memory and time before any handler can refuse it. The policy bounds
/// that cost: a method call whose member and signature no served method takes is not decoded at all
/// (the router then answers `InvalidArgs` or `UnknownMethod`), and decoding stops at
/// ``maxValues`` values or ``maxBytes`` bytes of string and array contents (the router then answers
/// `LimitsExceeded`).
public struct DecodePolicy: Sendable {
    /// The most values one message may decode to, containers and Unix file descriptors included.
    public var maxValues: Int
    /// The most bytes of string, path, signature and byte-array contents one message may carry.
    public var maxBytes: Int
    /// Struct signatures whose field at the given index, when it is an `ay`, is decoded as
    /// ``DBusValue/secret(_:)`` into locked memory; every other `ay` is ordinary bytes.
    public var secretFields: [String: Int]
    /// Input signatures accepted per method name, from the served interface tables; nil decodes
    /// every method call.
    public var methodSignatures: [String: Set<String>]?

    /// Creates a policy.
    public init(
        maxValues: Int = 262_144,
        maxBytes: Int = 4 * 1024 * 1024,
        secretFields: [String: Int] = [:],
        methodSignatures: [String: Set<String>]? = nil
    ) {
        self.maxValues = maxValues
        self.maxBytes = maxBytes
        self.secretFields = secretFields
        self.methodSignatures = methodSignatures
    }

    /// The default limits, no secret fields, every method call decoded.
    public static let standard = DecodePolicy()

    /// Whether a method call to `member` with `signature` should be decoded.
    func accepts(member: String?, signature: String) -> Bool {
        guard let methodSignatures else { return true }
        guard let member, let accepted = methodSignatures[member] else { return false }
        return accepted.contains(signature)
    }
}

/// Why a message's body was not decoded; the router turns each into a D-Bus error.
public enum UndecodedBody: Error, Sendable, Equatable {
    /// The body holds a type Puff does not decode (none today: libdbus refuses unknown type codes).
    case unsupportedType
    /// An `h` argument's descriptor is not in the message: it was demarshalled from bytes, which
    /// carry none, or duplicating it failed (the process is out of descriptors).
    case missingUnixFD
    /// No served method takes this member with this signature, so the body was skipped.
    case unexpectedSignature
    /// Decoding stopped at a ``DecodePolicy`` limit; the text names it.
    case limitExceeded(String)
}
