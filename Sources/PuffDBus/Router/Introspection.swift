// SPDX-License-Identifier: Apache-2.0

/// Generates introspection XML from interface tables.
public enum Introspection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// The XML for one object: its interfaces followed by its child nodes.
    public static func document(interfaces: [Interface], children: [String] = []) -> String {
        var lines = [doctype, "<node>"]
        for interface in interfaces { lines += xml(for: interface) }
        for child in children { lines.append("  <node name=\"\(escape(child))\"/>") }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The XML lines for one interface, indented by two spaces.
    public static func xml(for interface: Interface) -> [String] {
        var lines = ["  <interface name=\"\(interface.name)\">"]
        for method in interface.methods {
            let arguments =
                method.inputs.map { argument($0, direction: "in") }
                + method.outputs.map { argument($0, direction: "out") }
            if arguments.isEmpty {
                lines.append("    <method name=\"\(method.name)\"/>")
            } else {
                lines.append("    <method name=\"\(method.name)\">")
                lines += arguments
                lines.append("    </method>")
            }
        }
        for signal in interface.signals {
            if signal.arguments.isEmpty {
                lines.append("    <signal name=\"\(signal.name)\"/>")
            } else {
                lines.append("    <signal name=\"\(signal.name)\">")
                lines += signal.arguments.map { argument($0, direction: nil) }
                lines.append("    </signal>")
            }
        }
        for property in interface.properties {
            lines.append(
                "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.signature.rawValue))\" access=\"\(property.access.rawValue)\"/>"
            )
        }
        lines.append("  </interface>")
        return lines
    }

    private static func argument(_ argument: Argument, direction: String?) -> String {
        let direction = direction.map { " direction=\"\($0)\"" } ?? ""
        return
            "      <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.signature.rawValue))\"\(direction)/>"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
