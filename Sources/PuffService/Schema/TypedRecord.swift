// SPDX-License-Identifier: Apache-2.0

/// What an item is, as `puffctl list` shows it (issue 16, item 6).
public enum ItemKind: String, Sendable, CaseIterable {
    /// A password for a network service: a host, an account on it, a protocol and a port.
    case internet
    /// A password for an application account: a service and an account.
    case generic
    /// A note (`org.gnome.keyring.Note`): nothing but its label and secret.
    case note
    /// Anything no active mapper recognises, shown by its label.
    case other
}

/// A typed view of one item, derived from its attributes by the active ``SchemaMapper``s.
///
/// The view is never stored and never changes the attributes: a client reads back exactly the
/// attribute map it stored, byte for byte (docs/vault-format.md, "In memory").
public enum TypedRecord: Sendable, Equatable {
    /// See ``ItemKind/internet``.
    case internet(InternetRecord)
    /// See ``ItemKind/generic``.
    case generic(GenericRecord)
    /// See ``ItemKind/note``.
    case note
    /// See ``ItemKind/other``.
    case other

    /// The kind of record.
    public var kind: ItemKind {
        switch self {
        case .internet: .internet
        case .generic: .generic
        case .note: .note
        case .other: .other
        }
    }

    /// The typed fields that are present, by name (`protocol`, `server`, `user`, `port`, `path`,
    /// `domain`, `authtype`; `service`, `account`), the port in decimal: what `ListItems` sends.
    public var fields: [String: String] {
        switch self {
        case .internet(let record):
            let pairs: [(String, String?)] = [
                ("protocol", record.protocol), ("server", record.server), ("user", record.user),
                ("port", record.port.map { String($0) }), ("path", record.path), ("domain", record.domain),
                ("authtype", record.authType),
            ]
            return Dictionary(uniqueKeysWithValues: pairs.compactMap { name, value in value.map { (name, $0) } })
        case .generic(let record):
            let pairs: [(String, String?)] = [("service", record.service), ("account", record.account)]
            return Dictionary(uniqueKeysWithValues: pairs.compactMap { name, value in value.map { (name, $0) } })
        case .note, .other:
            return [:]
        }
    }
}

/// A network password's typed fields; each is nil when the item does not say (or says `""`).
public struct InternetRecord: Sendable, Equatable {
    /// The scheme, such as `https`, `smtp` or `sftp`.
    public var `protocol`: String?
    /// The host name or address, as the client stored it (an IPv6 address may lack brackets).
    public var server: String?
    /// The account on the server.
    public var user: String?
    /// The port, when the item names one from 1 to 65535.
    public var port: UInt16?
    /// The path or object on the server (git's repository, a URL's path).
    public var path: String?
    /// The domain (NetworkPassword's Windows or Kerberos domain).
    public var domain: String?
    /// The authentication type (NetworkPassword's `authtype`).
    public var authType: String?
    /// The attribute the server was read from (`server`, `origin_url`), so that items with the
    /// same server can be found through the attribute index.
    public var serverAttribute: String?

    /// Creates a record from its fields.
    public init(
        protocol: String? = nil, server: String? = nil, user: String? = nil, port: UInt16? = nil,
        path: String? = nil, domain: String? = nil, authType: String? = nil, serverAttribute: String? = nil
    ) {
        self.protocol = `protocol`
        self.server = server
        self.user = user
        self.port = port
        self.path = path
        self.domain = domain
        self.authType = authType
        self.serverAttribute = serverAttribute
    }

    /// What makes two internet passwords the same under `[items] unique_internet`: server, user,
    /// protocol and port, as the Keychain keys its internet passwords. Nil without a server.
    public var uniqueKey: UniqueKey? {
        guard let server else { return nil }
        return UniqueKey(server: server, user: user ?? "", protocol: self.protocol?.lowercased() ?? "", port: port)
    }

    /// See ``InternetRecord/uniqueKey``.
    public struct UniqueKey: Sendable, Hashable {
        /// The server, byte for byte.
        public var server: String
        /// The account; `""` when the item names none.
        public var user: String
        /// The protocol in lower case; `""` when the item names none.
        public var `protocol`: String
        /// The port; nil when the item names none.
        public var port: UInt16?
    }
}

/// An application password's typed fields; each is nil when the item does not say (or says `""`).
public struct GenericRecord: Sendable, Equatable {
    /// The application or service the account belongs to.
    public var service: String?
    /// The account within the service.
    public var account: String?

    /// Creates a record from its fields.
    public init(service: String? = nil, account: String? = nil) {
        self.service = service
        self.account = account
    }
}

extension Attributes {
    /// The value of the first of `names` that is present and not empty: libsecret's compat schemas
    /// store `""` for a field the client did not set.
    func firstValue(_ names: String...) -> String? {
        for name in names {
            if let value = self[name], !value.isEmpty { return value }
        }
        return nil
    }
}
