// SPDX-License-Identifier: Apache-2.0

/// `generic`: a password for an account of an application (issue 16, item 1).
///
/// Recognises gnome-keyring's `org.freedesktop.Secret.Generic` and any item with `service` and an
/// account (`account`, else `username` as python-keyring and go-keyring store it, else `user`),
/// and NetworkManager's `org.freedesktop.NetworkManager.Connection`.
///
/// NetworkManager's secrets are generic, not internet passwords: an item names a connection
/// profile (`connection-uuid`) and one of its settings (`setting-name`, `setting-key`, such as
/// `802-11-wireless-security` and `psk`), never a host, protocol or port, and a Wi-Fi key or VPN
/// password belongs to the profile as an account belongs to a service. So the service is the
/// connection and the account the setting, written as nmcli writes properties
/// (`802-11-wireless-security.psk`).
public struct GenericMapper: SchemaMapper {
    /// NetworkManager's schema (network-manager-applet, gnome-shell's network agent).
    public static let networkManagerSchema = "org.freedesktop.NetworkManager.Connection"

    /// Creates the mapper.
    public init() {}

    /// `generic`.
    public var name: String { "generic" }
    /// The untyped schema and NetworkManager's.
    public var schemas: Set<String> { [SchemaMappers.untypedSchema, Self.networkManagerSchema] }

    /// The record, or nil for an item with no schema of ours and neither shape.
    public func record(from attributes: Attributes) -> TypedRecord? {
        let schema = attributes["xdg:schema"]
        if schema == Self.networkManagerSchema
            || (schema == nil && attributes.firstValue("connection-uuid") != nil
                && attributes.firstValue("setting-name") != nil)
        {
            return .generic(Self.networkManager(attributes))
        }
        let service = attributes.firstValue("service")
        let account = attributes.firstValue("account", "username", "user")
        guard schema == SchemaMappers.untypedSchema || (service != nil && account != nil) else { return nil }
        return .generic(GenericRecord(service: service, account: account))
    }

    private static func networkManager(_ attributes: Attributes) -> GenericRecord {
        let setting = [attributes.firstValue("setting-name"), attributes.firstValue("setting-key")].compactMap { $0 }
        return GenericRecord(
            service: attributes.firstValue("connection-uuid"),
            account: setting.isEmpty ? nil : setting.joined(separator: "."))
    }
}
