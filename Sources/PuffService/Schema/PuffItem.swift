// SPDX-License-Identifier: Apache-2.0

/// A typed view of an item's attributes, for `puffctl list` and future native UIs.
///
/// Every case keeps the attribute map verbatim, so the view never loses what the client stored:
/// clients look items up by exact attribute sets (architecture.md §2.3).
public enum PuffItem: Sendable, Equatable {
    /// A password for a network service (`org.gnome.keyring.NetworkPassword`, git's `org.git.Password`).
    case internetPassword(InternetPassword)
    /// A password for an application account (python-keyring, go-keyring: `service` + `username`).
    case genericPassword(GenericPassword)
    /// Anything else; `schema` is the `xdg:schema` attribute when present.
    case other(schema: String?, attributes: Attributes)

    /// The attribute map the view was made from, verbatim.
    public var attributes: Attributes {
        switch self {
        case .internetPassword(let password): password.attributes
        case .genericPassword(let password): password.attributes
        case .other(_, let attributes): attributes
        }
    }
}

/// A network password. The typed fields are read from ``attributes``, which stays authoritative.
public struct InternetPassword: Sendable, Equatable {
    /// The attributes verbatim.
    public let attributes: Attributes
    /// The schema name, when the item carries `xdg:schema`.
    public var schema: String? { attributes["xdg:schema"] }
    /// The `server` attribute (host name).
    public var server: String? { attributes["server"] }
    /// The `protocol` attribute, for example `"https"`.
    public var `protocol`: String? { attributes["protocol"] }
    /// The `port` attribute when it is a valid port number.
    public var port: UInt16? { attributes["port"].flatMap { UInt16($0) } }
    /// The `user` attribute.
    public var user: String? { attributes["user"] }
    /// The `domain` attribute (NetworkPassword).
    public var domain: String? { attributes["domain"] }
    /// The `object` attribute (NetworkPassword).
    public var object: String? { attributes["object"] }
    /// The `authtype` attribute (NetworkPassword).
    public var authType: String? { attributes["authtype"] }
    /// The `path` attribute (git).
    public var path: String? { attributes["path"] }

    /// Wraps an attribute map.
    public init(attributes: Attributes) { self.attributes = attributes }
}

/// An application password. The typed fields are read from ``attributes``, which stays authoritative.
public struct GenericPassword: Sendable, Equatable {
    /// The attributes verbatim.
    public let attributes: Attributes
    /// The `service` attribute.
    public var service: String { attributes["service"] ?? "" }
    /// The `username` attribute.
    public var account: String { attributes["username"] ?? "" }
    /// The `application` attribute (python-keyring sets `Python keyring library`).
    public var application: String? { attributes["application"] }

    /// Wraps an attribute map.
    public init(attributes: Attributes) { self.attributes = attributes }
}
