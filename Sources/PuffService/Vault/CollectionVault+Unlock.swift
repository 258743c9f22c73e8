// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

/// What an unlock that reads no journal opened: the keys, and the few records that are not items.
struct InPlaceUnlock {
    let sealer: SecretSealer
    let auditSealer: SecretSealer?
    let fields: CollectionFields
    let settings: [UInt64: ItemSettings]
    /// The collection's `Modified`, as the head sealed it (or as kept since).
    let modified: UInt64
}

extension CollectionVault {
    /// Unlocks with `master` without reading the journal or opening an item record (issue 27,
    /// design §2 and §4 point 4): the records in memory are checked against the head, sealed
    /// under the record key, by the digest of their clear prefixes and MACs (``ChainDigest``),
    /// unless an unlock since start checked them already; then the collection record and the
    /// items' settings records are opened and the key installed. Items open when touched.
    ///
    /// - Returns: false, changing nothing, when the journal must be read instead: the records in
    ///   memory are not all the journal's, the index does not answer yet (a private, `never` or
    ///   still TPM-keyed collection builds it at unlock), the journal is of format 1 or shows
    ///   damage, or its head is of version 1, does not authenticate, or names another record or
    ///   digest (the full read then names what is wrong).
    func unlockInPlace(master: MasterKey) -> Bool {
        guard isLocked, let space, isIndexed, !readsJournalToOpen, !isPrivate,
            format >= VaultRecord.currentFormat, damage.isEmpty, let tip, let collectionRecord,
            !collectionRecord.isEmpty, let sealer = try? SecretSealer(key: master.subkey(.records)),
            // Items loaded from an index snapshot without locators: the journal is read.
            table.allSatisfy({ !$0.record.isNone })
        else { return false }
        // What an index snapshot said (locators, index, the digest it started from) counts only
        // under its seal: the digest alone is not secret, so a planted snapshot could match it.
        if !chainChecked, fromSnapshot, snapshotSeal?.authenticates(space: space, sealer: sealer) != true {
            return false
        }
        let modified: UInt64
        if chainChecked {
            modified = tip.modified
        } else {
            let heads = scannedHeads.filter { $0.authenticates(space: space, sealer: sealer) }
            guard let head = JournalChain.newestHead(heads), let digest = head.digest,
                head.sequence == tip.sequence, head.tag == tip.tag, digest.matches(tip.digest)
            else { return false }
            modified = head.modified
        }
        guard
            let fields = Self.open(collectionRecord, space: space, sealer: sealer, format: format, as: .collection)
                .flatMap({ try? CollectionFields(parsing: $0) })
        else { return false }
        var settings: [UInt64: ItemSettings] = [:]
        for (number, bytes) in settingsRecords {
            guard
                let opened = Self.open(bytes, space: space, sealer: sealer, format: format, as: .itemSettings)
                    .flatMap({ try? ItemSettings(parsing: $0) })
            else { return false }
            settings[number] = opened
        }
        unlock(
            inPlace: InPlaceUnlock(
                sealer: sealer, auditSealer: try? SecretSealer(key: master.subkey(.audit)), fields: fields,
                settings: settings, modified: modified))
        return true
    }

    /// `bytes` opened as a record of `kind`, or nil.
    private static func open(
        _ bytes: [UInt8], space: SpaceID, sealer: SecretSealer, format: UInt8, as kind: VaultRecord.Kind
    ) -> SecureBytes? {
        guard let record = try? VaultRecord(decoding: bytes, format: format), record.kind == kind else { return nil }
        return try? record.open(space: space, sealer: sealer)
    }
}
