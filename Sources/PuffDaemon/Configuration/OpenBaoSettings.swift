// SPDX-License-Identifier: Apache-2.0

/// `[store.openbao]`: the OpenBao server fleet collections are kept in (docs/design/fleet.md).
/// Read and printed here; used once a fleet collection is created or attached.
public struct OpenBaoSettings: Sendable, Equatable {
    /// `http(s)://host:port`; nil: no OpenBao, so no fleet collection.
    public var address: String?
    /// The namespace the mount, the policies and the AppRole are in; nil: the root namespace.
    public var namespace: String?
    /// The KV v2 mount.
    public var mount = "secret"
    /// The folder of the mount the collections are in; empty: the mount's top.
    public var pathPrefix = "puff"
    /// A file holding the token (the user's own, mode 0600).
    public var tokenFile: String?
    /// Files holding an AppRole's role id and secret id; both or neither. With neither and no
    /// token file, the systemd credentials `openbao-role-id` and `openbao-secret-id` are used.
    public var roleIDFile: String?
    public var secretIDFile: String?
    /// PEM certificates an `https` server must chain to; nil: the system's.
    public var caFile: String?
    /// Seconds between two looks for what other machines wrote.
    public var pollInterval = 1
    /// The transit key of `transit` unlock slots; nil: no such slot can be added.
    public var transitKey: String?

    public init() {}

    /// What is wrong with the keys together, and the key to report it at; nil when nothing is.
    var combinationProblem: (key: String, reason: String)? {
        if tokenFile != nil, roleIDFile != nil || secretIDFile != nil {
            return (
                "token_file", "and an AppRole (approle_role_id_file, approle_secret_id_file) are both set: keep one"
            )
        }
        if roleIDFile != nil, secretIDFile == nil {
            return ("approle_role_id_file", "needs approle_secret_id_file too")
        }
        if secretIDFile != nil, roleIDFile == nil {
            return ("approle_secret_id_file", "needs approle_role_id_file too")
        }
        return nil
    }
}

extension DaemonConfiguration {
    /// ``OpenBaoSettings/pollInterval`` as an optional, so that it reads through ``ConfigurationKey/seconds``.
    var openBaoPollIntervalSetting: Int? {
        get { openBao.pollInterval }
        set { openBao.pollInterval = newValue ?? openBao.pollInterval }
    }
}

extension ConfigurationKeys {
    /// The keys of `[store.openbao]`, in print order.
    static var openBaoKeys: [ConfigurationKey] {
        let section = "store.openbao"
        return [
            ConfigurationKey(
                section: section, name: "address",
                read: { value, configuration throws(KeyReason) in
                    configuration.openBao.address = try openBaoAddress(ConfigurationKey.string(value))
                },
                write: { configuration, _ in configuration.openBao.address }),
            ConfigurationKey(
                section: section, name: "namespace",
                read: { value, configuration throws(KeyReason) in
                    let name = try ConfigurationKey.string(value)
                    guard (try? openBaoPath(name, emptyAllowed: false)) != nil, !name.contains(" ") else {
                        throw KeyReason(
                            "must be an OpenBao namespace such as \"team1\" or \"team1/ci\", not "
                                + ConfigurationKey.quoted(name))
                    }
                    configuration.openBao.namespace = name
                },
                write: { configuration, _ in configuration.openBao.namespace }),
            ConfigurationKey(
                section: section, name: "mount",
                read: { value, configuration throws(KeyReason) in
                    configuration.openBao.mount = try openBaoPath(ConfigurationKey.string(value), emptyAllowed: false)
                },
                write: { configuration, _ in configuration.openBao.mount }),
            ConfigurationKey(
                section: section, name: "path_prefix",
                read: { value, configuration throws(KeyReason) in
                    configuration.openBao.pathPrefix = try openBaoPath(
                        ConfigurationKey.string(value), emptyAllowed: true)
                },
                write: { configuration, _ in configuration.openBao.pathPrefix }),
            .path(section, "token_file", \.openBao.tokenFile),
            .path(section, "approle_role_id_file", \.openBao.roleIDFile),
            .path(section, "approle_secret_id_file", \.openBao.secretIDFile),
            .path(section, "ca_file", \.openBao.caFile),
            .seconds(section, "poll_interval", \.openBaoPollIntervalSetting, range: 1...300) {
                $0.openBao.pollInterval
            },
            ConfigurationKey(
                section: section, name: "transit_key",
                read: { value, configuration throws(KeyReason) in
                    let name = try ConfigurationKey.string(value)
                    guard (try? openBaoPath(name, emptyAllowed: false)) != nil, !name.contains("/") else {
                        throw KeyReason(
                            "must be a transit key's name, such as \"puff\", not \(ConfigurationKey.quoted(name))")
                    }
                    configuration.openBao.transitKey = name
                },
                write: { configuration, _ in configuration.openBao.transitKey }),
        ]
    }

    /// `text` as an OpenBao address: `http://` or `https://`, a host, no space, query or fragment.
    static func openBaoAddress(_ text: String) throws(KeyReason) -> String {
        let scheme = text.prefix { $0 != ":" }
        let rest = text.dropFirst(scheme.count)
        guard ["http", "https"].contains(scheme), rest.hasPrefix("://"),
            rest.dropFirst(3).contains(where: { $0 != "/" }),
            !text.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" })
        else {
            throw KeyReason(
                "must be an http:// or https:// address such as \"https://bao.example.net:8200\", not "
                    + ConfigurationKey.quoted(text))
        }
        return text
    }

    /// `text` as a path in OpenBao: names separated by `/`, none empty, `.` or `..`, no control
    /// character; an empty path only when `emptyAllowed`.
    static func openBaoPath(_ text: String, emptyAllowed: Bool) throws(KeyReason) -> String {
        if text.isEmpty, emptyAllowed { return text }
        let usable = text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { name in
            !name.isEmpty && name != "." && name != ".."
                && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
        }
        guard usable else {
            throw KeyReason(
                "must be names separated by \"/\", none empty, \".\" or \"..\", not \(ConfigurationKey.quoted(text))")
        }
        return text
    }
}
