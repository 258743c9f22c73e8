// SPDX-License-Identifier: Apache-2.0
package import PuffCrypto
package import PuffStore

/// One live item's newest settings records as sealed in its journal: its access settings (kind 4)
/// and its app rules (kind 5), at most one of each. Kept so an unlock and a compaction find them
/// without reading the journal; a deletion of the item ends them all.
package struct SettingsRecords: Sendable, Equatable {
    /// The records' bytes, oldest first. Empty bytes stand for a record an index snapshot
    /// counted but did not keep (an unlock then reads the journal).
    package private(set) var records: [[UInt8]] = []

    package init() {}

    /// Notes `bytes`, an encoded record of kind 4 or 5: it replaces the item's record of its kind.
    package mutating func note(_ bytes: [UInt8]) {
        // A record's first byte is its kind, in every journal format.
        if let kind = bytes.first { records.removeAll { $0.first == kind } }
        records.append(bytes)
    }

    /// How many records the item keeps.
    package var count: Int { records.count }

    /// Whether a record of `kind` is kept.
    package func has(_ kind: VaultRecord.Kind) -> Bool { records.contains { $0.first == kind.rawValue } }

    /// Whether `kind` is one of the item settings kinds these records hold.
    package static func holds(_ kind: VaultRecord.Kind) -> Bool { kind == .itemSettings || kind == .appRules }
}

extension Dictionary where Key == UInt64, Value == SettingsRecords {
    /// How many settings records the items keep, together.
    package var recordCount: Int { values.reduce(0) { $0 + $1.count } }
}

extension ItemSettings {
    /// These settings with the opened record `plaintext` of `kind` (4 or 5) applied: a kind 4
    /// record replaces protection and executables' rules, a kind 5 record the app rules.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    package func applying(_ kind: VaultRecord.Kind, _ plaintext: SecureBytes) throws(VaultFormatError) -> ItemSettings {
        var settings = self
        if kind == .appRules {
            settings.appRules = try Self.appRules(parsing: plaintext)
        } else {
            let access = try ItemSettings(parsing: plaintext)
            settings.isProtected = access.isProtected
            settings.rules = access.rules
        }
        return settings
    }

    /// The records that take these settings from `old` (nil: none): one of kind 4 when
    /// protection or executables' rules changed, one of kind 5 when app rules did.
    func drafts(from old: ItemSettings?, number: UInt64) -> [RecordDraft] {
        let old = old ?? ItemSettings()
        var drafts: [RecordDraft] = []
        if accessDiffers(from: old) {
            drafts.append(RecordDraft(kind: .itemSettings, number: number, tags: [], plaintext: plaintext()))
        }
        if appRules != old.appRules {
            drafts.append(RecordDraft(kind: .appRules, number: number, tags: [], plaintext: appRulesPlaintext()))
        }
        return drafts
    }
}
