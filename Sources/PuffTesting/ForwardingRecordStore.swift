// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// A ``RecordStore`` that passes every call to ``base``: test decorators (``FaultyRecordStore``)
/// conform and replace only the calls they change.
public protocol ForwardingRecordStore: RecordStore {
    /// The store every call goes to.
    var base: any RecordStore { get }
}

extension ForwardingRecordStore {
    public func spaces() async throws(StoreError) -> [SpaceID] { try await base.spaces() }
    public func header(of space: SpaceID) async throws(StoreError) -> [UInt8] { try await base.header(of: space) }
    public func replaceHeader(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await base.replaceHeader(bytes, of: space)
    }
    public func read(_ locator: RecordLocator, in space: SpaceID) throws(StoreError) -> [UInt8] {
        try base.read(locator, in: space)
    }
    public func replay(_ space: SpaceID) async throws(StoreError) -> JournalReplay { try await base.replay(space) }
    public func append(_ record: [UInt8], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await base.append(record, to: space, head: head)
    }
    public func append(contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?) async throws(StoreError) {
        try await base.append(contentsOf: records, to: space, head: head)
    }
    public func enqueueAppend(
        contentsOf records: [[UInt8]], to space: SpaceID, head: [UInt8]?, expecting generation: UInt64?
    ) async throws(StoreError) -> AppendTicket {
        try await base.enqueueAppend(contentsOf: records, to: space, head: head, expecting: generation)
    }
    public func rewrite(_ space: SpaceID, records: [[UInt8]], version: UInt8, keepingOldAs: String?)
        async throws(StoreError) -> JournalRewrite
    {
        try await base.rewrite(space, records: records, version: version, keepingOldAs: keepingOldAs)
    }
    public func replaceHead(_ head: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await base.replaceHead(head, of: space)
    }
    public func replaceSpace(_ old: SpaceID, with new: SpaceID, header: [UInt8], records: [[UInt8]], head: [UInt8]?)
        async throws(StoreError)
    {
        try await base.replaceSpace(old, with: new, header: header, records: records, head: head)
    }
    public func replacements() async throws(StoreError) -> [SpaceReplacement] { try await base.replacements() }
    public func settleReplacement(_ replacement: SpaceReplacement, keepingNew: Bool) async throws(StoreError) {
        try await base.settleReplacement(replacement, keepingNew: keepingNew)
    }
    public func remove(_ space: SpaceID) async throws(StoreError) { try await base.remove(space) }
    public func setAside(_ space: SpaceID, at time: UInt64) async throws(StoreError) {
        try await base.setAside(space, at: time)
    }
    public func setAsideSpaces() async throws(StoreError) -> [SetAsideSpace] { try await base.setAsideSpaces() }
    public func bringBack(_ space: SpaceID, setAsideAt time: UInt64) async throws(StoreError) {
        try await base.bringBack(space, setAsideAt: time)
    }
    public func purgeSetAside(before time: UInt64) async throws(StoreError) -> [SetAsideSpace.Name] {
        try await base.purgeSetAside(before: time)
    }
    public func refusedFiles() async -> [StoreError] { await base.refusedFiles() }
    public func catalog() async throws(StoreError) -> [UInt8]? { try await base.catalog() }
    public func replaceCatalog(_ bytes: [UInt8]) async throws(StoreError) { try await base.replaceCatalog(bytes) }
    public func passcodeAttempts() async throws(StoreError) -> [UInt8]? { try await base.passcodeAttempts() }
    public func replacePasscodeAttempts(_ bytes: [UInt8]) async throws(StoreError) {
        try await base.replacePasscodeAttempts(bytes)
    }
    public var location: String? { base.location }
    public func snapshot() async throws(StoreError) -> VaultSnapshot { try await base.snapshot() }
    public func saveSnapshot(_ snapshot: VaultSnapshot, reason: String, keep: Int, counting: ByteCounting?)
        async throws(StoreError) -> String?
    {
        try await base.saveSnapshot(snapshot, reason: reason, keep: keep, counting: counting)
    }
    public func stageRestore(from fd: Int32, path: String, counting: ByteCounting?) async throws(StoreError)
        -> StagedRestore
    {
        try await base.stageRestore(from: fd, path: path, counting: counting)
    }
    public func commitRestore(_ staged: StagedRestore) async throws(StoreError) { try await base.commitRestore(staged) }
    public func discardRestore(_ staged: StagedRestore) async { await base.discardRestore(staged) }
    public func indexSnapshot(of space: SpaceID) async -> [UInt8]? { await base.indexSnapshot(of: space) }
    public func replaceIndexSnapshot(_ bytes: [UInt8], of space: SpaceID) async throws(StoreError) {
        try await base.replaceIndexSnapshot(bytes, of: space)
    }
    public func replay(_ space: SpaceID, from offset: UInt64) async throws(StoreError) -> JournalReplay? {
        try await base.replay(space, from: offset)
    }
    public func journalFramesAreGood(_ space: SpaceID, before offset: UInt64) async -> Bool {
        await base.journalFramesAreGood(space, before: offset)
    }
    public func name(of object: StoreObject) -> String { base.name(of: object) }
    public func generation(of space: SpaceID) async throws(StoreError) -> UInt64 {
        try await base.generation(of: space)
    }
    public func pull(_ space: SpaceID) async throws(StoreError) -> PulledRecords? {
        try await base.pull(space)
    }
    public func sharedName(of space: SpaceID) -> String? {
        base.sharedName(of: space)
    }
    public func sharedHeader(of space: SpaceID) async throws(StoreError) -> SharedHeader? {
        try await base.sharedHeader(of: space)
    }
    public func adoptHeader(_ header: SharedHeader, of space: SpaceID) async throws(StoreError) -> Bool {
        try await base.adoptHeader(header, of: space)
    }
    public var sharedStoreKind: String? { base.sharedStoreKind }
    public func share(_ space: SpaceID, as name: String) async throws(StoreError) {
        try await base.share(space, as: name)
    }
    public func attach(_ name: String) async throws(StoreError) -> SpaceID {
        try await base.attach(name)
    }
}
