// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

/// One row of the schema table: attributes in, the typed record the standard mappers make out.
struct SchemaCase: Sendable, CustomTestStringConvertible {
    let name: String
    let attributes: Attributes
    let expected: TypedRecord
    var testDescription: String { name }

    init(_ name: String, _ attributes: Attributes, _ expected: TypedRecord) {
        self.name = name
        self.attributes = attributes
        self.expected = expected
    }

    static let network = InternetMapper.networkPasswordSchema

    static func internet(
        _ protocol: String? = nil, _ server: String? = nil, user: String? = nil, port: UInt16? = nil,
        path: String? = nil, domain: String? = nil, authType: String? = nil, from attribute: String? = "server"
    ) -> TypedRecord {
        .internet(
            InternetRecord(
                protocol: `protocol`, server: server, user: user, port: port, path: path, domain: domain,
                authType: authType, serverAttribute: attribute))
    }

    static func generic(_ service: String?, _ account: String?) -> TypedRecord {
        .generic(GenericRecord(service: service, account: account))
    }

    /// The shapes clients store, with their attribute names as their sources write them.
    static let clients: [SchemaCase] = [
        SchemaCase(
            "libsecret NetworkPassword, every field",
            [
                "xdg:schema": network, "user": "alice", "server": "example.com", "protocol": "https",
                "port": "8443", "domain": "CORP", "object": "/x", "authtype": "basic",
            ],
            internet("https", "example.com", user: "alice", port: 8443, path: "/x", domain: "CORP", authType: "basic")),
        SchemaCase(
            "git 2.39 credential helper with a port",
            ["xdg:schema": network, "user": "alice", "server": "example.com", "protocol": "https", "port": "8443"],
            internet("https", "example.com", user: "alice", port: 8443)),
        SchemaCase(
            "git org.git.Password",
            [
                "xdg:schema": "org.git.Password", "user": "bob", "server": "github.com", "protocol": "https",
                "object": "owner/repo.git",
            ],
            internet("https", "github.com", user: "bob", path: "owner/repo.git")),
        SchemaCase(
            "docker with a registry URL",
            [
                "xdg:schema": "io.docker.Credentials", "label": "https://index.docker.io/v1/",
                "server": "https://index.docker.io/v1/", "username": "bob", "docker_cli": "1",
            ],
            internet("https", "index.docker.io", user: "bob", path: "/v1/")),
        SchemaCase(
            "docker with host and port, no schema",
            ["server": "registry.example:5000", "username": "bob", "docker_cli": "1"],
            internet(nil, "registry.example", user: "bob", port: 5000)),
        SchemaCase(
            "Chromium",
            [
                "xdg:schema": "chrome_libsecret_password_schema", "origin_url": "https://accounts.example:8443/login",
                "username_value": "carol", "signon_realm": "https://accounts.example:8443/", "application": "chrome",
            ],
            internet("https", "accounts.example", user: "carol", port: 8443, path: "/login", from: "origin_url")),
        SchemaCase(
            "Chromium with an IPv6 origin, no schema",
            ["origin_url": "http://[2001:db8::1]:8080/", "username_value": ""],
            internet("http", "[2001:db8::1]", port: 8080, path: "/", from: "origin_url")),
        SchemaCase(
            "NetworkManager",
            [
                "xdg:schema": GenericMapper.networkManagerSchema, "connection-uuid": "5f1c",
                "setting-name": "802-11-wireless-security", "setting-key": "psk",
            ],
            generic("5f1c", "802-11-wireless-security.psk")),
        SchemaCase(
            "python keyring",
            ["application": "Python keyring library", "service": "svc", "username": "u"], generic("svc", "u")),
        SchemaCase("go keyring", ["service": "svc", "username": "u"], generic("svc", "u")),
        SchemaCase(
            "secret-tool service and user", ["service": "example.com", "user": "alice"], generic("example.com", "alice")
        ),
        SchemaCase("note", ["xdg:schema": NoteMapper.noteSchema], .note),
        SchemaCase("empty", [:], .other),
        SchemaCase("secret-tool pairs of its own", ["app": "x", "key": "y"], .other),
    ]

    /// Inputs no client should send but some will.
    static let unusual: [SchemaCase] = [
        SchemaCase("schema given, every field missing", ["xdg:schema": network], internet()),
        SchemaCase(
            "NetworkManager schema, fields missing", ["xdg:schema": GenericMapper.networkManagerSchema],
            generic(nil, nil)),
        SchemaCase("docker schema, fields missing", ["xdg:schema": "io.docker.Credentials"], internet(nil, nil)),
        SchemaCase("untyped schema alone", ["xdg:schema": SchemaMappers.untypedSchema], generic(nil, nil)),
        SchemaCase(
            "untyped schema with the network shape",
            ["xdg:schema": SchemaMappers.untypedSchema, "server": "h", "protocol": "ftp"],
            internet("ftp", "h")),
        SchemaCase(
            "schema absent, network shape", ["server": "h", "protocol": "ftp", "port": "08080"],
            internet("ftp", "h", port: 8080)),
        SchemaCase("a server alone is no shape", ["server": "h"], .other),
        SchemaCase(
            "unknown schema with the network shape", ["xdg:schema": "org.example.X", "server": "h", "protocol": "p"],
            .other),
        SchemaCase("non-numeric port", ["xdg:schema": network, "server": "h", "port": "http"], internet(nil, "h")),
        SchemaCase("port 65536", ["xdg:schema": network, "server": "h", "port": "65536"], internet(nil, "h")),
        SchemaCase("port 0", ["xdg:schema": network, "server": "h", "port": "0"], internet(nil, "h")),
        SchemaCase("negative port", ["xdg:schema": network, "server": "h", "port": "-1"], internet(nil, "h")),
        SchemaCase("port with a space", ["xdg:schema": network, "server": "h", "port": " 80"], internet(nil, "h")),
        SchemaCase(
            "port in full-width digits", ["xdg:schema": network, "server": "h", "port": "８０"], internet(nil, "h")),
        SchemaCase(
            "port 65535", ["xdg:schema": network, "server": "h", "port": "65535"], internet(nil, "h", port: 65535)),
        SchemaCase(
            "docker URL with a bad port",
            ["xdg:schema": "io.docker.Credentials", "server": "https://r.example:99999/"],
            internet("https", "r.example", path: "/")),
        SchemaCase(
            "unicode host", ["xdg:schema": network, "server": "bücher.example", "user": "jürgen", "protocol": "https"],
            internet("https", "bücher.example", user: "jürgen")),
        SchemaCase(
            "IDN host in another script", ["server": "例え.テスト", "protocol": "https"], internet("https", "例え.テスト")),
        SchemaCase(
            "IPv6 server without brackets", ["xdg:schema": network, "server": "2001:db8::1", "port": "22"],
            internet(nil, "2001:db8::1", port: 22)),
        SchemaCase(
            "empty values are absent fields",
            ["xdg:schema": network, "server": "", "user": "", "protocol": "", "port": "", "domain": "", "object": ""],
            internet()),
        SchemaCase("empty values make no shape", ["server": "", "protocol": ""], .other),
        SchemaCase("empty account makes no generic shape", ["service": "svc", "username": ""], .other),
        SchemaCase(
            "both user and username, network: user wins",
            ["xdg:schema": network, "server": "h", "user": "a", "username": "b"], internet(nil, "h", user: "a")),
        SchemaCase(
            "both user and username, generic: username wins",
            ["service": "svc", "user": "a", "username": "b"], generic("svc", "b")),
        SchemaCase(
            "account before username", ["service": "svc", "account": "c", "username": "b"], generic("svc", "c")),
        SchemaCase(
            "a user in docker's URL when username is missing",
            ["xdg:schema": "io.docker.Credentials", "server": "https://dan@r.example/"],
            internet("https", "r.example", user: "dan", path: "/")),
    ]
}
