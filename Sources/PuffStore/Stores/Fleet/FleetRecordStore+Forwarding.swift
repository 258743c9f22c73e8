// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// What goes to the local store as it is, for every space: reads (fleet spaces are read from
/// their local cache too) and the vault's own files.
extension FleetRecordStore {
    /// The local store's kind: the vault is in it, fleet collections or not.
    public var kindName: String { local.kindName }
    public func spaces() async throws(StoreError) -> [SpaceID] { try await local.spaces() }
    public func header(of space: SpaceID) async throws(StoreError) -> [UInt8] { try await local.header(of: space) }
    public func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        try local.read(locator, in: space)
    }
    public func replay(_ space: SpaceID) async throws(StoreError) -> JournalReplay { try await local.replay(space) }
    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await local.replaceHead(head, of: space)
    }
    public func replacements() async throws(StoreError) -> [SpaceReplacement] { try await local.replacements() }
    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        try await local.settleReplacement(replacement, keepingNew: keepingNew)
    }
    public func setAsideSpaces() async throws(StoreError) -> [SetAsideSpace] { try await local.setAsideSpaces() }
    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        try await local.bringBack(space, setAsideAt: time)
    }
    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        try await local.purgeSetAside(before: time)
    }
    public func refusedFiles() async -> [StoreError] { await local.refusedFiles() }
    public func catalog() async throws(StoreError) -> [UInt8]? { try await local.catalog() }
    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) { try await local.replaceCatalog(bytes) }
    public func passcodeAttempts() async throws(StoreError) -> [UInt8]? { try await local.passcodeAttempts() }
    public func replacePasscodeAttempts(_ bytes: [UInt8]) async throws(StoreError) {
        try await local.replacePasscodeAttempts(bytes)
    }
    public func snapshot() async throws(StoreError) -> VaultSnapshot { try await local.snapshot() }
    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?)
        async throws(StoreError) -> String?
    {
        try await local.saveSnapshot(snapshot, reason: reason, keep: keep, counting: counting)
    }
    public func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) async throws(StoreError)
        -> StagedRestore
    {
        try await local.stageRestore(from: fd, path: path, counting: counting)
    }
    /// The local store's; each fleet space's journal is compared with the map again at its next
    /// pull (``pull(_:)``), which refuses one a restore took back behind the entries it held.
    public func commitRestore(_ staged: StagedRestore) async throws(StoreError) {
        try await local.commitRestore(staged)
        state.withLock { $0.checked = [] }
    }
    public func discardRestore(_ staged: StagedRestore) async { await local.discardRestore(staged) }
    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? { await local.indexSnapshot(of: space) }
    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await local.replaceIndexSnapshot(bytes, of: space)
    }
    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? {
        try await local.replay(space, from: offset)
    }
    public func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool {
        await local.journalFramesAreGood(space, before: offset)
    }
    public func name(of object: StoreObject) -> String { local.name(of: object) }
    public func flushHeads() async { await local.flushHeads() }
}
