// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// KDBX entries as Puff items (issue 25, docs/migration.md): label = Title; secret = the
/// `FDO_SECRETS_DATA` attachment where there is one (content type from `FDO_SECRETS_CONTENT_TYPE`,
/// as KeePassXC's Secret Service stores binary secrets), otherwise Password as text/plain;
/// attributes = every custom string field, plus `user` (UserName) and `url` (URL) when not empty.
/// Entries in subgroups are kept (the group tree is not); entries in the recycle bin are skipped.
enum KDBXMapping {
    static let secretAttachment = "FDO_SECRETS_DATA"
    static let contentTypeField = "FDO_SECRETS_CONTENT_TYPE"

    static func collection(_ document: KDBXDocument, pool: [Int: SecureBytes]) throws(ForeignFormatError)
        -> PortableCollection
    {
        let bin = document.recycleBinUUID
        let binUsed = !bin.isEmpty && bin != "AAAAAAAAAAAAAAAAAAAAAA=="
        var items: [PortableItem] = []
        let progress = ReadProgress.current
        for (index, entry) in document.entries.enumerated() where !(binUsed && entry.groups.contains(bin)) {
            progress?(.items, index, of: document.entries.count)
            items.append(try item(entry, pool: pool))
        }
        progress?(.items, document.entries.count, of: document.entries.count)
        let label = document.databaseName.isEmpty ? document.rootGroupName : document.databaseName
        return PortableCollection(label: label, items: items)
    }

    static func item(_ entry: KDBXDocument.Entry, pool: [Int: SecureBytes]) throws(ForeignFormatError) -> PortableItem {
        var leftBehind: [String] = []
        var secretData: SecureBytes?
        for (key, reference) in entry.binaries {
            let data: SecureBytes
            switch reference {
            case .pool(let index):
                guard let pooled = pool[index] else { throw .damaged("an entry refers to attachment \(index), absent") }
                data = pooled
            case .inline(let bytes): data = bytes
            }
            if key == secretAttachment && secretData == nil {
                secretData = data
            } else {
                leftBehind.append("attachment \"\(key)\" (\(data.count) bytes)")
            }
        }
        var attributes: [String: String] = [:]
        for (key, value) in entry.strings where !KDBXDocument.standardFields.contains(key) {
            if key == contentTypeField && secretData != nil { continue }
            attributes[key] = value.text
        }
        for (field, attribute) in [("UserName", "user"), ("URL", "url")] {
            guard let value = entry.string(field)?.text, !value.isEmpty else { continue }
            if let custom = attributes[attribute], custom != value {
                leftBehind.append("custom field \"\(attribute)\" (the \(field) field takes its place)")
            }
            attributes[attribute] = value
        }
        if let notes = entry.string("Notes")?.text, !notes.isEmpty { leftBehind.append("notes") }
        let secret: SecureBytes
        let contentType: String
        if let secretData {
            secret = secretData
            contentType = entry.string(contentTypeField)?.text ?? "application/octet-stream"
            if let password = entry.string("Password"), !password.secret.isEmpty {
                leftBehind.append("the Password field (the \(secretAttachment) attachment is the secret)")
            }
        } else {
            secret = entry.string("Password")?.secret ?? .empty
            contentType = "text/plain"
        }
        return PortableItem(
            label: entry.string("Title")?.text ?? "", attributes: attributes, secret: secret, contentType: contentType,
            created: entry.created, modified: entry.modified, leftBehind: leftBehind)
    }
}
