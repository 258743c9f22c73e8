// SPDX-License-Identifier: Apache-2.0

/// A match rule for `AddMatch`, built from typed parts so its quoting is always right (D-Bus
/// specification, "Match Rules").
///
/// Only the keys Puff uses are here; every one given must match. A rule for signals from a
/// well-known `sender` matches them while that name's owner sends them.
public struct MatchRule: Sendable, Equatable {
    /// Signals only, or any message type.
    public var type: IncomingMessage.Kind?
    public var sender: BusName?
    public var interface: InterfaceName?
    public var member: MemberName?
    public var path: ObjectPath?
    /// The first argument, when it is a string.
    public var arg0: String?

    /// A rule for the signals matching every part given.
    public static func signal(
        sender: BusName? = nil, interface: InterfaceName? = nil, member: MemberName? = nil, path: ObjectPath? = nil,
        arg0: String? = nil
    ) -> MatchRule {
        MatchRule(type: .signal, sender: sender, interface: interface, member: member, path: path, arg0: arg0)
    }

    /// The rule as `AddMatch` takes it, such as `type='signal',member='Lock'`.
    public var text: String {
        var parts: [(String, String)] = []
        if let type { parts.append(("type", Self.typeName(type))) }
        if let sender { parts.append(("sender", sender.rawValue)) }
        if let interface { parts.append(("interface", interface.rawValue)) }
        if let member { parts.append(("member", member.rawValue)) }
        if let path { parts.append(("path", path.rawValue)) }
        if let arg0 { parts.append(("arg0", arg0)) }
        return parts.map { "\($0.0)=\(Self.quoted($0.1))" }.joined(separator: ",")
    }

    private static func typeName(_ kind: IncomingMessage.Kind) -> String {
        switch kind {
        case .methodCall: "method_call"
        case .methodReturn: "method_return"
        case .error: "error"
        case .signal, .unknown: "signal"
        }
    }

    /// A value in single quotes; a quote inside is written `'\''`, as the specification says
    /// (backslashes are literal within quotes).
    private static func quoted(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
