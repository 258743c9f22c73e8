// SPDX-License-Identifier: Apache-2.0

extension Router {
    /// `org.freedesktop.DBus.Properties` over the object's own interface tables.
    static func propertiesInterface() -> Interface {
        Interface(
            "org.freedesktop.DBus.Properties",
            methods: [
                Method(
                    "Get", in: [Argument("interface_name", "s"), Argument("property_name", "s")],
                    out: [Argument("value", "v")]
                ) {
                    call in
                    let (interfaces, name) = try Self.target(call)
                    let property = try Self.property(name, in: interfaces)
                    return [.variant(try await property.get(call))]
                },
                Method("GetAll", in: [Argument("interface_name", "s")], out: [Argument("properties", "a{sv}")]) {
                    call in
                    guard case .string(let interfaceName)? = call.arguments.first else {
                        throw DBusError(.invalidArgs, "bad arguments")
                    }
                    let all = call.interfaces
                    // An empty interface name asks for every interface's properties.
                    let chosen = interfaceName.isEmpty ? all : all.filter { $0.name.rawValue == interfaceName }
                    if chosen.isEmpty && !interfaceName.isEmpty && !Self.isStandard(interfaceName) {
                        throw DBusError(.invalidArgs, "no interface \(interfaceName) at \(call.path)")
                    }
                    var entries: [DBusValue.DictEntry] = []
                    for interface in chosen {
                        for property in interface.properties {
                            entries.append(.init(.string(property.name), .variant(try await property.get(call))))
                        }
                    }
                    return [.dictionary(key: "s", value: "v", entries)]
                },
                Method(
                    "Set",
                    in: [Argument("interface_name", "s"), Argument("property_name", "s"), Argument("value", "v")]
                ) { call in
                    let (interfaces, name) = try Self.target(call)
                    let property = try Self.property(name, in: interfaces)
                    guard let setter = property.set else {
                        throw DBusError(.invalidArgs, "property \(name) is not writable")
                    }
                    guard case .variant(let value)? = call.arguments.last,
                        value.signatureText == property.signature.rawValue
                    else {
                        throw DBusError(.invalidArgs, "property \(name) has type \(property.signature)")
                    }
                    try await setter(call, value)
                    return []
                },
            ],
            signals: [
                SignalDescription(
                    "PropertiesChanged",
                    [
                        Argument("interface_name", "s"), Argument("changed_properties", "a{sv}"),
                        Argument("invalidated_properties", "as"),
                    ]
                )
            ]
        )
    }

    /// Resolves the interface named in the call's first argument (empty means "any").
    private static func target(_ call: MethodCall) throws -> ([Interface], String) {
        guard case .string(let interfaceName)? = call.arguments.first,
            case .string(let name)? = call.arguments.dropFirst().first
        else { throw DBusError(.invalidArgs, "bad arguments") }
        let all = call.interfaces
        let chosen = interfaceName.isEmpty ? all : all.filter { $0.name.rawValue == interfaceName }
        guard !chosen.isEmpty else { throw DBusError(.invalidArgs, "no interface \(interfaceName) at \(call.path)") }
        return (chosen, name)
    }

    private static func property(_ name: String, in interfaces: [Interface]) throws -> Property {
        guard let property = interfaces.lazy.compactMap({ $0.property(named: name) }).first else {
            throw DBusError(.invalidArgs, "no such property \(name)")
        }
        return property
    }

    private static func isStandard(_ name: String) -> Bool {
        name.hasPrefix("org.freedesktop.DBus.")
    }

    /// A `PropertiesChanged` signal carrying new values, never invalidations: libsecret's proxies
    /// drop invalidated values instead of re-reading them (secret-service.md §7).
    public static func propertiesChanged(
        path: ObjectPath,
        interface: InterfaceName,
        _ changed: [(String, DBusValue)]
    ) -> OutgoingMessage {
        .signal(
            path: path,
            interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged",
            [
                .string(interface.rawValue),
                .dictionary(key: "s", value: "v", changed.map { .init(.string($0.0), .variant($0.1)) }),
                .array(element: "s", []),
            ]
        )
    }
}
