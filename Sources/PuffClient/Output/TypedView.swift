// SPDX-License-Identifier: Apache-2.0
import PuffText

/// How `list` and `show` name an item from the typed view the daemon sends (issue 16, item 6):
/// an internet password as `protocol://user@server:port/path`, a generic one as
/// `service / account`, a note or anything else by its label.
enum TypedView {
    /// The field names in the order `show` prints them.
    static let fieldOrder = ["protocol", "server", "user", "port", "path", "domain", "authtype", "service", "account"]

    /// The item's name for people; the label where the typed fields say too little.
    static func name(of item: ItemSummary) -> String {
        let fields = item.fields ?? [:]
        let label = item.label ?? "-"
        switch item.kind {
        case "internet":
            guard let server = fields["server"] else { return label }
            return url(fields, server: server)
        case "generic":
            guard let service = fields["service"] else { return fields["account"] ?? label }
            return fields["account"].map { "\(service) / \($0)" } ?? service
        default:
            return label
        }
    }

    /// `protocol://user@server:port/path`, leaving out what is absent.
    static func url(_ fields: [String: String], server: String) -> String {
        var text = fields["protocol"].map { "\($0)://" } ?? ""
        if let user = fields["user"] { text += escapedUser(user) + "@" }
        // An IPv6 address needs brackets in a URL; some clients store it without them.
        text += server.contains(":") && !server.hasPrefix("[") ? "[\(server)]" : server
        if let port = fields["port"] { text += ":\(port)" }
        if let path = fields["path"] { text += path.hasPrefix("/") ? path : "/" + path }
        return text
    }

    /// `user` with the characters that would end or split the user part (`%`, `@`, `:`, `/`)
    /// percent-encoded, so `a@b` reads as one user, not a user `a` on host `b`.
    static func escapedUser(_ user: String) -> String {
        var text = ""
        for character in user.unicodeScalars {
            switch character {
            case "%": text += "%25"
            case "@": text += "%40"
            case ":": text += "%3A"
            case "/": text += "%2F"
            default: text.unicodeScalars.append(character)
            }
        }
        return text
    }

    /// The typed fields as `name=value` lines in ``fieldOrder``, then any others by name, their
    /// control characters escaped.
    static func fieldLines(_ fields: [String: String]) -> [String] {
        let shown = TerminalText.escaped
        let known = fieldOrder.compactMap { name in fields[name].map { "\(name)=\(shown($0))" } }
        let others = fields.filter { !fieldOrder.contains($0.key) }.sorted { $0.key < $1.key }
        return known + others.map { "\(shown($0.key))=\(shown($0.value))" }
    }
}

/// The typed fields as `--json` gives them: strings, but the port a number.
struct TypedFields: Encodable, Equatable {
    var `protocol`, server, user, path, domain, authtype, service, account: String?
    var port: Int?

    /// Reads the `fields` dictionary of a `ListItems` entry; unknown names are left out.
    init(_ fields: [String: String]) {
        `protocol` = fields["protocol"]
        server = fields["server"]
        user = fields["user"]
        port = fields["port"].flatMap { Int($0) }
        path = fields["path"]
        domain = fields["domain"]
        authtype = fields["authtype"]
        service = fields["service"]
        account = fields["account"]
    }
}
