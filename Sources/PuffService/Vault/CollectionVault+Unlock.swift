// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffStore

extension CollectionVault {
    /// Installs what an unlock read from the whole journal (keys, items) and publishes the key.
    ///
    /// - Returns: What the service does next (``perform(_:)``).
    /// - Parameter since: The ``CollectionState/lockCount`` the unlock began under.
    /// - Throws: ``CollectionRefusal`` when another unlock opened the collection, none is under
    ///   way (another opened it and a lock came after), or a `Lock` came after this one began
    ///   (``CollectionRefusal/lockedMeanwhile``); nothing is installed.
    func unlock(with opened: OpenedCollection, since: Int) throws(CollectionRefusal) -> [CollectionAction] {
        let keys = CollectionKeys(records: opened.sealer, audit: opened.auditSealer)
        let actions = try applied(.keyUnwrapped(keys, read: .journal(damage: opened.damage), since: since))
        install(opened)
        return perform(actions)
    }

    /// Unlocks with `master` without reading the journal or opening an item record (issue 27,
    /// design §2 and §4 point 4): the records in memory are checked against the head, sealed
    /// under the record key, by the digest of their clear prefixes and MACs (``ChainDigest``),
    /// unless an unlock since start checked them already; then the collection record and the
    /// items' settings records are opened and the key installed. Items open when touched.
    ///
    /// - Returns: What the service does next (``perform(_:)``); nil, changing nothing, when the
    ///   journal must be read instead: the records in
    ///   memory are not all the journal's, the index does not answer yet (a private, `never` or
    ///   still TPM-keyed collection builds it at unlock), the journal is of format 1 or shows
    ///   damage, or its head is of version 1, does not authenticate, or names another record or
    ///   digest (the full read then names what is wrong).
    /// - Throws: ``CollectionRefusal`` as ``unlock(with:since:)`` does.
    func unlockInPlace(master: MasterKey, since: Int) throws(CollectionRefusal) -> [CollectionAction]? {
        guard isLocked, let space, isIndexed, !readsJournalToOpen, !isPrivate,
            format >= VaultRecord.currentFormat, damage.isEmpty, let tip, let collectionRecord,
            !collectionRecord.isEmpty, let sealer = try? SecretSealer(key: master.subkey(.records)),
            // Items loaded from an index snapshot without locators: the journal is read.
            table.allSatisfy({ !$0.record.isNone })
        else { return nil }
        // What an index snapshot said (locators, index, the digest it started from) counts only
        // under its seal: the digest alone is not secret, so a planted snapshot could match it.
        if !chainChecked, fromSnapshot, snapshotSeal?.authenticates(space: space, sealer: sealer) != true {
            return nil
        }
        let modified: UInt64
        if chainChecked {
            modified = tip.modified
        } else {
            let heads = scannedHeads.filter { $0.authenticates(space: space, sealer: sealer) }
            guard let head = JournalChain.newestHead(heads), let digest = head.digest,
                head.sequence == tip.sequence, head.tag == tip.tag, digest.matches(tip.digest)
            else { return nil }
            modified = head.modified
        }
        guard
            let fields = Self.open(collectionRecord, space: space, sealer: sealer, format: format, as: .collection)
                .flatMap({ try? CollectionFields(parsing: $0) })
        else { return nil }
        var settings: [UInt64: ItemSettings] = [:]
        for (number, records) in settingsRecords {
            for bytes in records.records {
                guard let kind = bytes.first.flatMap(VaultRecord.Kind.init(rawValue:)), SettingsRecords.holds(kind),
                    let plaintext = Self.open(bytes, space: space, sealer: sealer, format: format, as: kind),
                    let opened = try? (settings[number] ?? ItemSettings()).applying(kind, plaintext)
                else { return nil }
                settings[number] = opened
            }
        }
        let keys = CollectionKeys(records: sealer, audit: try? SecretSealer(key: master.subkey(.audit)))
        let actions = try applied(.keyUnwrapped(keys, read: .inPlace, since: since))
        let next = max(self.fields.nextItemNumber, fields.nextItemNumber)
        self.fields = fields
        self.fields.nextItemNumber = next
        self.fields.modified = max(self.fields.modified, modified)
        self.settings = settings
        self.tip?.modified = self.fields.modified
        return perform(actions)
    }

    /// `bytes` opened as a record of `kind`, or nil.
    private static func open(
        _ bytes: [UInt8], space: SpaceID, sealer: SecretSealer, format: UInt8, as kind: VaultRecord.Kind
    ) -> SecureBytes? {
        guard let record = try? VaultRecord(decoding: bytes, format: format), record.kind == kind else { return nil }
        return try? record.open(space: space, sealer: sealer)
    }
}
