// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// Bitwarden's unencrypted JSON export (`.json` in its export dialogue, `bw export --format
/// json`): `{"encrypted": false, "folders": [...], "items": [...]}`. Mapped as docs/migration.md
/// says: a login (type 1) becomes label = `name`, secret = `login.password`, `user` =
/// `login.username` and `url` = the first `login.uris[].uri` (each when not empty); a secure note
/// (type 2) becomes label = `name`, secret = `notes`; an item in a folder gets a `folder`
/// attribute with the folder's name. Cards, identities, SSH keys and items in the trash are
/// skipped, each with its reason; what of a login has no place in an item (its notes, TOTP key,
/// custom fields, further URIs, password history, passkeys) is listed as left behind. Encrypted
/// exports are refused: Puff does not take the Bitwarden account's key or the file password.
public enum BitwardenExport: ForeignFileReader {
    public static let format = ForeignFormat.bitwarden

    /// A JSON object whose top-level keys (those within `prefix`) include `encrypted` with a
    /// true or false value, or `items` with a list: what every Bitwarden JSON export starts with.
    public static func recognises(_ prefix: [UInt8]) -> Bool {
        var scanner = BitwardenKeyScanner(prefix)
        return scanner.hasExportKey()
    }

    /// Unencrypted exports have no password; encrypted ones are refused before any is asked.
    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { false }

    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        // The scanner keeps a reference to `bytes`, not a copy: no plaintext is left behind.
        var scanner = BitwardenKeyScanner(bytes)
        guard scanner.hasExportKey() else { throw .notThisFormat(.bitwarden) }
        let document = try JSONDocument(bytes)
        let root = document.root
        guard case .object = root else { throw .notThisFormat(.bitwarden) }
        if case .bool(true)? = root["encrypted"] {
            throw .unsupported(
                "an encrypted Bitwarden export (\"encrypted\": true); export again choosing the format"
                    + " \".json\", not \".json (Encrypted)\", import that, then delete it")
        }
        guard let entries = root["items"]?.elements else { throw .damaged("it has no \"items\" list") }
        var folders: [String: String] = [:]
        for folder in root["folders"]?.elements ?? [] {
            guard let id = document.string(folder["id"]), let name = document.string(folder["name"]) else { continue }
            folders[id] = name
        }
        return try collection(entries, folders: folders, in: document)
    }

    /// The items of `entries` (an export's `items`), and what was skipped.
    ///
    /// - Throws: ``ForeignFormatError/damaged(_:)`` for an entry that is not an object.
    static func collection(
        _ entries: [JSONDocument.Value], folders: [String: String], in document: JSONDocument
    ) throws(ForeignFormatError) -> PortableCollection {
        var items: [PortableItem] = []
        var skipped: [PortableSkip] = []
        for (index, entry) in entries.enumerated() {
            guard case .object = entry else { throw .damaged("item \(index + 1) of \"items\" is not an object") }
            let name = document.string(entry["name"]) ?? ""
            if document.string(entry["deletedDate"]) != nil {
                skipped.append(PortableSkip(label: name, reason: "in Bitwarden's trash"))
                continue
            }
            let type = document.integer(entry["type"])
            guard type == 1 || type == 2 else {
                skipped.append(PortableSkip(label: name, reason: "\(kind(type)): Puff imports logins and secure notes"))
                continue
            }
            items.append(item(entry, isLogin: type == 1, name: name, folders: folders, in: document))
        }
        return PortableCollection(label: "Bitwarden", items: items, skipped: skipped)
    }

    /// One login or secure note as an item.
    static func item(
        _ entry: JSONDocument.Value, isLogin: Bool, name: String, folders: [String: String], in document: JSONDocument
    ) -> PortableItem {
        var attributes: [String: String] = [:]
        var leftBehind: [String] = []
        let secret: SecureBytes
        if isLogin {
            let login = entry["login"]
            secret = document.secret(login?["password"]) ?? .empty
            if let user = document.string(login?["username"]), !user.isEmpty { attributes["user"] = user }
            let uris = (login?["uris"]?.elements ?? []).compactMap { document.string($0["uri"]) }.filter { !$0.isEmpty }
            if let url = uris.first { attributes["url"] = url }
            // Tested for text without decoding it: notes and TOTP keys are secrets of their own.
            if document.hasText(entry["notes"]) { leftBehind.append("its notes") }
            if document.hasText(login?["totp"]) { leftBehind.append("its TOTP key") }
            if uris.count > 1 { leftBehind.append(plural(uris.count - 1, "more URI")) }
            if let passkeys = login?["fido2Credentials"]?.elements, !passkeys.isEmpty {
                leftBehind.append(plural(passkeys.count, "passkey"))
            }
        } else {
            secret = document.secret(entry["notes"]) ?? .empty
        }
        if let folder = document.string(entry["folderId"]).flatMap({ folders[$0] }) { attributes["folder"] = folder }
        if let fields = entry["fields"]?.elements, !fields.isEmpty {
            leftBehind.append(plural(fields.count, "custom field"))
        }
        if let history = entry["passwordHistory"]?.elements, !history.isEmpty {
            leftBehind.append("its password history (\(plural(history.count, "earlier password")))")
        }
        if let reprompt = document.integer(entry["reprompt"]), reprompt != 0 {
            leftBehind.append("its master password re-prompt")
        }
        return PortableItem(
            label: name, attributes: attributes, secret: secret,
            created: document.string(entry["creationDate"]).flatMap(KDBXDocument.parseTime),
            modified: document.string(entry["revisionDate"]).flatMap(KDBXDocument.parseTime),
            leftBehind: leftBehind)
    }

    /// What an item of `type` is, in words.
    static func kind(_ type: Int?) -> String {
        switch type {
        case 3: "a card"
        case 4: "an identity"
        case 5: "an SSH key"
        case let type?: "an item of type \(type)"
        case nil: "an item without a type"
        }
    }

    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
