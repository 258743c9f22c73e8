// SPDX-License-Identifier: Apache-2.0
import PuffDBus

/// One fuzz input through puffd's message decoder (`WireCodec.decode`), with the checks that turn
/// a wrong answer into a crash the fuzzer can report.
///
/// Checks, for every input libdbus accepts:
/// - the header fields pass Puff's own name validators and have the fields each message type
///   must have;
/// - the decoded arguments' signature is the body signature;
/// - no Unix file descriptor is ever decoded: bytes carry none, so libdbus refuses a message that
///   declares some and an `h` in any other must leave the body undecoded (`missingUnixFD`);
/// - re-encoding the arguments (`WireCodec.encode`) succeeds, decodes again to the same signature,
///   and re-encodes to the same bytes; for a little-endian input the body bytes are the input's
///   own body bytes (libdbus only accepts the canonical encoding, so decoding must be lossless);
/// - a tight Secret Service-like ``DecodePolicy`` (small limits, secret `(oayays)` field, a method
///   table) never decodes what the standard policy refuses, agrees with it on everything it does
///   decode, and marks as secret exactly field 2 of each `(oayays)`.
///
/// Failure texts describe shapes and sizes, never the bytes of a value.
enum DecodeCheck {
    /// What the check did with one input, for the replay summary.
    enum Outcome {
        /// libdbus refused the bytes.
        case rejected
        /// Decoded, but the body was not (a limit, or an `h` without its descriptor), so nothing was
        /// re-encoded.
        case undecoded(UndecodedBody)
        /// Decoded and round-tripped through the writer.
        case roundTripped
    }

    /// A broken invariant; the text names which.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The policy puffd's bus connection is given, approximately: small enough that the fuzzer
    /// reaches both limits, the Secret Service's secret field, and a table of served methods.
    static let tightPolicy = DecodePolicy(
        maxValues: 512,
        maxBytes: 4096,
        secretFields: [secretStruct: 2],
        methodSignatures: [
            "OpenSession": ["sv"], "CreateCollection": ["a{sv}s"], "SearchItems": ["a{ss}"],
            "Unlock": ["ao"], "Lock": ["ao"], "GetSecrets": ["aoo"], "ReadAlias": ["s"],
            "SetAlias": ["so"], "CreateItem": ["a{sv}(oayays)b"], "Delete": [""], "GetSecret": ["o"],
            "SetSecret": ["(oayays)"], "Close": [""], "Prompt": ["s"], "Dismiss": [""],
            "Get": ["ss"], "GetAll": ["s"], "Set": ["ssv"], "Introspect": [""], "Ping": [""],
            "GetMachineId": [""],
        ]
    )

    /// The Secret Service's `Secret` struct; field 2 holds the secret bytes.
    static let secretStruct = "(oayays)"

    /// Runs every check on `bytes`; throws the first broken invariant.
    static func run(_ bytes: [UInt8]) throws(Failure) -> Outcome {
        let standard: IncomingMessage
        do {
            standard = try WireCodec.decode(bytes)
        } catch {
            // Rejected by libdbus; the tight policy must agree, as the policy applies after it.
            if (try? WireCodec.decode(bytes, policy: tightPolicy)) != nil {
                throw Failure("the tight policy decoded a message the standard policy rejected")
            }
            return .rejected
        }
        try checkHeader(standard, wireType: bytes[1])
        let tight: IncomingMessage
        do {
            tight = try WireCodec.decode(bytes, policy: tightPolicy)
        } catch {
            throw Failure("the tight policy rejected a message the standard policy decoded: \(error)")
        }
        try checkHeader(tight, wireType: bytes[1])
        guard tight.signature == standard.signature else {
            throw Failure("the two policies read different signatures")
        }

        var standardWalk = Walk(secretsExpected: false)
        try standardWalk.visit(standard.arguments)
        var tightWalk = Walk(secretsExpected: true)
        try tightWalk.visit(tight.arguments)

        if let reason = standard.undecodedBody {
            if tight.undecodedBody == nil {
                throw Failure("the tight policy decoded a body the standard policy did not: \(reason)")
            }
            guard standard.arguments.isEmpty, tight.arguments.isEmpty else {
                throw Failure("an undecoded body still has arguments")
            }
            return .undecoded(reason)
        }
        let encoded = try roundTrip(standard, input: bytes, policy: .standard)
        if tight.undecodedBody == nil {
            let tightEncoded = try roundTrip(tight, input: bytes, policy: tightPolicy)
            guard tightEncoded == encoded else {
                throw Failure("the two policies' arguments encode differently")
            }
        } else if !tight.arguments.isEmpty {
            throw Failure("an undecoded body still has arguments")
        }
        return .roundTripped
    }

    /// Libdbus validated the header; Puff's validators and the router's assumptions must agree.
    private static func checkHeader(_ message: IncomingMessage, wireType: UInt8) throws(Failure) {
        if let path = message.path, ObjectPath(path.rawValue) == nil {
            throw Failure("header path fails ObjectPath validation")
        }
        if let interface = message.interface, InterfaceName(interface) == nil {
            throw Failure("header interface fails InterfaceName validation")
        }
        if let member = message.member, MemberName(member) == nil {
            throw Failure("header member fails MemberName validation")
        }
        if let name = message.errorName, ErrorName(name) == nil {
            throw Failure("header error name fails ErrorName validation")
        }
        if let sender = message.sender, BusName(sender) == nil {
            throw Failure("header sender fails BusName validation")
        }
        if let destination = message.destination, BusName(destination) == nil {
            throw Failure("header destination fails BusName validation")
        }
        if Signature(message.signature.rawValue) == nil {
            throw Failure("body signature fails Signature validation")
        }
        // libdbus accepts any type byte but 0; the specification says to ignore unknown types.
        let kinds: [UInt8: IncomingMessage.Kind] = [1: .methodCall, 2: .methodReturn, 3: .error, 4: .signal]
        guard let wireKind = kinds[wireType] else {
            // Fixed: fuzz/crashes/unknown-message-type-as-signal is kept as a regression input.
            guard message.kind == .unknown, message.arguments.isEmpty else {
                throw Failure("message type \(wireType), which D-Bus does not define, decoded as \(message.kind)")
            }
            return
        }
        guard message.kind == wireKind else {
            throw Failure("message type \(wireType) decoded as \(message.kind)")
        }
        if message.kind == .methodCall, message.path == nil || message.member == nil {
            throw Failure("method call without path or member")
        }
        if message.kind == .signal, message.path == nil || message.interface == nil || message.member == nil {
            throw Failure("signal without path, interface or member")
        }
        if message.kind == .error, message.errorName == nil {
            throw Failure("error without an error name")
        }
    }

    /// Re-encodes `message`'s arguments, decodes that again under `policy`, and re-encodes the
    /// result; returns the first encoding.
    private static func roundTrip(
        _ message: IncomingMessage,
        input: [UInt8],
        policy: DecodePolicy
    ) throws(Failure) -> [UInt8] {
        let signature = DBusValue.signature(of: message.arguments)
        guard signature == message.signature else {
            throw Failure(
                "decoded arguments have signature of \(signature.rawValue.utf8.count) bytes, "
                    + "the body \(message.signature.rawValue.utf8.count) bytes"
            )
        }
        let first: [UInt8]
        do {
            first = try WireCodec.encode(message.arguments)
        } catch {
            throw Failure("re-encoding decoded arguments failed: \(error)")
        }
        let again: IncomingMessage
        do {
            again = try WireCodec.decode(first, policy: policy)
        } catch {
            throw Failure("the re-encoded message does not decode: \(error)")
        }
        guard again.undecodedBody == nil else {
            throw Failure("the re-encoded body is not decoded: \(again.undecodedBody!)")
        }
        guard again.signature == message.signature else {
            throw Failure("the re-encoded message has another signature")
        }
        let second: [UInt8]
        do {
            second = try WireCodec.encode(again.arguments)
        } catch {
            throw Failure("encoding the second decode failed: \(error)")
        }
        guard second == first else {
            throw Failure("decode-encode is not stable (\(first.count) then \(second.count) bytes)")
        }
        if let inputBody = WireLayout.body(of: input), let firstBody = WireLayout.body(of: first),
            input.first == first.first, inputBody != firstBody
        {
            throw Failure("the re-encoded body differs from the input body (\(inputBody.count) bytes)")
        }
        return first
    }
}

/// Walks decoded values: every container, the typed accessors the handlers use, and where secrets
/// may appear.
private struct Walk {
    /// Whether `.secret` byte arrays may appear (the tight policy); each must be field 2 of an
    /// `(oayays)`, and each such field must be one.
    var secretsExpected: Bool
    var values = 0
    var maxDepth = 0

    mutating func visit(_ arguments: [DBusValue]) throws(DecodeCheck.Failure) {
        for argument in arguments {
            guard argument.signature.isSingleCompleteType else {
                throw DecodeCheck.Failure("an argument's signature is not one complete type")
            }
            try visit(argument, depth: 1, secretAllowed: false)
        }
    }

    private mutating func visit(_ value: DBusValue, depth: Int, secretAllowed: Bool) throws(DecodeCheck.Failure) {
        values += 1
        maxDepth = max(maxDepth, depth)
        if value.secret != nil, !(secretsExpected && secretAllowed) {
            throw DecodeCheck.Failure("a byte array outside a secret field was decoded as secret")
        }
        if let fd = value.unixFD {
            throw DecodeCheck.Failure("bytes alone decoded to a Unix file descriptor (\(fd.rawValue))")
        }
        // The accessors the interface handlers call; each must answer without trapping.
        _ = value.stringDictionary?.count
        _ = value.variantDictionary?.count
        _ = value.objectPaths?.count
        _ = value.bytes?.count
        _ = value.string?.utf8.count
        if let inner = value.variantContents {
            try visit(inner, depth: depth + 1, secretAllowed: false)
        } else if let fields = value.fields {
            let isSecretStruct = value.signature.rawValue == DecodeCheck.secretStruct
            for (index, field) in fields.enumerated() {
                if secretsExpected, isSecretStruct, index == 2, field.secret == nil {
                    throw DecodeCheck.Failure("field 2 of \(DecodeCheck.secretStruct) was not decoded as secret")
                }
                try visit(field, depth: depth + 1, secretAllowed: isSecretStruct && index == 2)
            }
        } else if case .array(let element, let items) = value {
            for item in items {
                guard item.signature == element else {
                    throw DecodeCheck.Failure("an array element does not have the array's element type")
                }
                try visit(item, depth: depth + 1, secretAllowed: false)
            }
        } else if case .dictionary(let keyType, let valueType, let entries) = value {
            for entry in entries {
                guard entry.key.signature == keyType, entry.value.signature == valueType else {
                    throw DecodeCheck.Failure("a dictionary entry does not have the dictionary's types")
                }
                try visit(entry.key, depth: depth + 1, secretAllowed: false)
                try visit(entry.value, depth: depth + 1, secretAllowed: false)
            }
        }
    }
}

/// Where the body sits in a wire-format message (D-Bus specification, "Message Format").
enum WireLayout {
    /// The body bytes of a complete message, or nil if the fixed header does not describe one.
    static func body(of message: [UInt8]) -> ArraySlice<UInt8>? {
        guard message.count >= 16, let endian = message.first else { return nil }
        guard endian == UInt8(ascii: "l") || endian == UInt8(ascii: "B") else { return nil }
        func uint32(at offset: Int) -> Int {
            let b = message[offset..<offset + 4].map { Int($0) }
            return endian == UInt8(ascii: "l")
                ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
                : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24
        }
        let bodyLength = uint32(at: 4)
        let fieldsLength = uint32(at: 12)
        let bodyStart = (16 + fieldsLength + 7) & ~7
        guard bodyStart + bodyLength <= message.count else { return nil }
        return message[bodyStart..<bodyStart + bodyLength]
    }
}
