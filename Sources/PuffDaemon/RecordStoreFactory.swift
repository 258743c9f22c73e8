// SPDX-License-Identifier: Apache-2.0
public import Logging
public import PuffStore

/// The record stores by the name `[vault] store` (and `--vault`) gives them, each with the audit
/// store that goes with it and the vault modes it can hold (architecture.md Part A item 7). A new
/// backend (a remote store) is one more entry in ``all``; nothing else chooses a store.
public struct RecordStoreFactory: Sendable {
    /// What a factory makes: the vault's records and its audit logs.
    public struct Opened: Sendable {
        public let records: any RecordStore
        public let audit: any AuditStore
    }

    /// What a factory is made from.
    public struct Settings: Sendable {
        /// The vault folder (a file store's files; others may keep their own state there).
        public var folder: String
        /// The size past which an audit log rotates.
        public var auditLimit: Int
        /// Where a store reports what it does.
        public var logger: Logger

        public init(folder: String, auditLimit: Int, logger: Logger) {
            self.folder = folder
            self.auditLimit = auditLimit
            self.logger = logger
        }
    }

    /// The name in configuration, the store's ``RecordStore/kind``.
    public let name: String
    /// The vault modes it can hold, the first its default. A store whose contents outlive puffd
    /// holds no ephemeral vault: its collection keys live only in puffd's memory, so what it kept
    /// would not open after a restart.
    public let modes: [VaultModeName]
    private let open: @Sendable (Settings) throws(StoreError) -> Opened

    init(name: String, modes: [VaultModeName], open: @escaping @Sendable (Settings) throws(StoreError) -> Opened) {
        self.name = name
        self.modes = modes
        self.open = open
    }

    /// Makes the store.
    ///
    /// - Throws: What opening it throws: ``StoreError/busy(_:)`` when another puffd holds the
    ///   vault, ``StoreError/refused(_:path:)`` when its folder cannot be written.
    public func make(_ settings: Settings) throws(StoreError) -> Opened {
        try open(settings)
    }

    /// The vault on disk, in the vault folder (docs/vault-format.md).
    public static let file = RecordStoreFactory(name: FileRecordStore.kind, modes: [.persistent]) {
        settings throws(StoreError) in
        let records = try FileRecordStore(folder: settings.folder, zeroTail: FileRecordStore.zeroTailStep)
        // How many records each journal flush made durable: crash_rounds.py --check-grouping reads
        // it to see that concurrent writes share flushes.
        let logger = settings.logger
        records.onFlush { _, count in logger.debug("journal flush records=\(count)") }
        return Opened(records: records, audit: try FileAuditStore(folder: settings.folder, limit: settings.auditLimit))
    }

    /// Everything in puffd's memory, gone when it stops: ephemeral by default (`--ephemeral`), or
    /// with passcodes (`mode = "persistent"`) to try them out.
    public static let memory = RecordStoreFactory(name: MemoryRecordStore.kind, modes: [.ephemeral, .persistent]) {
        settings throws(StoreError) in
        Opened(records: MemoryRecordStore(), audit: MemoryAuditStore(limit: settings.auditLimit))
    }

    /// Every store, in the order help lists them.
    public static let all = [file, memory]

    /// The store called `name`, or nil.
    public static func named(_ name: String) -> RecordStoreFactory? {
        all.first { $0.name == name }
    }
}

/// How the vault keeps collection keys, as `[vault] mode` names it (``VaultMode``).
public enum VaultModeName: String, CaseIterable, Sendable {
    /// Each collection has a passcode (or another slot) that opens it, now and after a restart.
    case persistent
    /// Collections live under random keys kept only in memory: no passcode, an unlocked `login`.
    case ephemeral
}
