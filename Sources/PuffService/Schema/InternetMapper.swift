// SPDX-License-Identifier: Apache-2.0

/// `internet`: a password for an account on a network server (issue 16, item 1).
///
/// The shapes, with their attribute names as the clients' sources write them:
/// - libsecret's `org.gnome.keyring.NetworkPassword` (`user`, `domain`, `server`, `object`,
///   `protocol`, `port`, `authtype`), which git's `git-credential-libsecret` stores in git 2.39
///   (Debian 12), and git's own `org.git.Password` of later versions (`user`, `object`,
///   `protocol`, `port`, `server`): `object` is the path;
/// - docker-credential-helpers' `io.docker.Credentials` (`label`, `server`, `username`,
///   `docker_cli`), whose `server` is a registry URL or `host[:port]`;
/// - Chromium's `chrome_libsecret_password_schema` (`origin_url`, `username_value`,
///   `signon_realm`, ...), whose `origin_url` is the page's URL.
///
/// Without a schema, an item has the network shape when it has `server` and one of `protocol`,
/// `user`, `username`, `port`, `object`, `domain` or `authtype`; docker's when it has `server` and
/// `docker_cli`; Chromium's when it has `origin_url` and `username_value`.
public struct InternetMapper: SchemaMapper {
    /// libsecret's compat network schema.
    public static let networkPasswordSchema = "org.gnome.keyring.NetworkPassword"
    /// git's libsecret credential helper after git 2.39.
    public static let gitSchema = "org.git.Password"
    /// docker-credential-helpers' `secretservice` helper.
    public static let dockerSchema = "io.docker.Credentials"
    /// Chromium's password store on libsecret.
    public static let chromiumSchema = "chrome_libsecret_password_schema"

    /// Creates the mapper.
    public init() {}

    /// `internet`.
    public var name: String { "internet" }
    /// The network, git, docker and Chromium schemas.
    public var schemas: Set<String> {
        [Self.networkPasswordSchema, Self.gitSchema, Self.dockerSchema, Self.chromiumSchema]
    }

    /// The record, or nil for an item with no schema of ours and none of the shapes.
    public func record(from attributes: Attributes) -> TypedRecord? {
        switch attributes["xdg:schema"] {
        case Self.chromiumSchema?: return .internet(Self.chromium(attributes))
        case Self.dockerSchema?: return .internet(Self.docker(attributes))
        case Self.networkPasswordSchema?, Self.gitSchema?: return .internet(Self.network(attributes))
        default: break
        }
        if attributes.firstValue("origin_url") != nil, attributes["username_value"] != nil {
            return .internet(Self.chromium(attributes))
        }
        guard attributes.firstValue("server") != nil else { return nil }
        if attributes["docker_cli"] != nil { return .internet(Self.docker(attributes)) }
        let hints = attributes.firstValue("protocol", "user", "username", "port", "object", "domain", "authtype")
        return hints == nil ? nil : .internet(Self.network(attributes))
    }

    /// NetworkPassword and git: every field is an attribute of its own.
    static func network(_ attributes: Attributes) -> InternetRecord {
        InternetRecord(
            protocol: attributes.firstValue("protocol"), server: attributes.firstValue("server"),
            user: attributes.firstValue("user", "username"), port: NetworkAddress.port(attributes["port"]),
            path: attributes.firstValue("object"), domain: attributes.firstValue("domain"),
            authType: attributes.firstValue("authtype"), serverAttribute: "server")
    }

    /// docker: the fields are parts of `server`, the account is `username`.
    static func docker(_ attributes: Attributes) -> InternetRecord {
        let address = NetworkAddress(attributes.firstValue("server") ?? "")
        return InternetRecord(
            protocol: address.scheme, server: address.host, user: attributes.firstValue("username") ?? address.user,
            port: address.port, path: address.path, serverAttribute: "server")
    }

    /// Chromium: the fields are parts of `origin_url`, the account is `username_value`.
    static func chromium(_ attributes: Attributes) -> InternetRecord {
        let address = NetworkAddress(attributes.firstValue("origin_url") ?? "")
        return InternetRecord(
            protocol: address.scheme, server: address.host,
            user: attributes.firstValue("username_value") ?? address.user, port: address.port, path: address.path,
            serverAttribute: "origin_url")
    }
}
