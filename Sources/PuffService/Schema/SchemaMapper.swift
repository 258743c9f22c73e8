// SPDX-License-Identifier: Apache-2.0

/// Translates between Secret Service attribute maps and ``PuffItem`` views. Pure and synchronous so
/// it can be tested with tables.
///
/// - Important: `attributes(for: item(from: a)) == a` must hold for every map `a`.
public protocol SchemaMapper: Sendable {
    /// The `xdg:schema` values this mapper recognises by name.
    var schemas: Set<String> { get }
    /// Classifies an attribute map.
    func item(from attributes: Attributes) -> PuffItem
    /// Returns the attribute map a view stands for.
    func attributes(for item: PuffItem) -> Attributes
}

/// Recognises network passwords and application passwords by schema name or by attribute shape.
public struct StandardSchemaMapper: SchemaMapper {
    /// libsecret's compat network schema (secret-service.md §9.1).
    public static let networkPassword = "org.gnome.keyring.NetworkPassword"
    /// git's libsecret credential helper schema.
    public static let gitPassword = "org.git.Password"
    /// gnome-keyring's untyped-item schema.
    public static let generic = "org.freedesktop.Secret.Generic"

    /// Creates the mapper.
    public init() {}

    /// The network, git and generic schema names.
    public var schemas: Set<String> { [Self.networkPassword, Self.gitPassword, Self.generic] }

    /// Classifies by `xdg:schema` first, then by which attributes are present.
    public func item(from attributes: Attributes) -> PuffItem {
        let schema = attributes["xdg:schema"]
        switch schema {
        case Self.networkPassword?, Self.gitPassword?:
            return .internetPassword(InternetPassword(attributes: attributes))
        case nil, Self.generic?:
            // secret-tool and python/go keyring store no schema; recognise them by shape.
            if attributes["server"] != nil, attributes["protocol"] != nil {
                return .internetPassword(InternetPassword(attributes: attributes))
            }
            if attributes["service"] != nil, attributes["username"] != nil {
                return .genericPassword(GenericPassword(attributes: attributes))
            }
            return .other(schema: schema, attributes: attributes)
        default:
            return .other(schema: schema, attributes: attributes)
        }
    }

    /// Returns the verbatim map every view keeps.
    public func attributes(for item: PuffItem) -> Attributes {
        item.attributes
    }
}
