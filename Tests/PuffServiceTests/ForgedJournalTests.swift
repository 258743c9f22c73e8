// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// Journals with records someone wrote into the files without the key, as the vault fuzz target
/// found them (fuzz/crashes/vault): start-up reads them without trapping, the collection reports
/// the damage, and every record that authenticates stays readable.
@Suite struct ForgedJournalTests {
    /// An item record anyone with write access could append: any number and sequence number in
    /// the clear prefix, no tags, and a box that opens under no key.
    static func forged(number: UInt64, sequence: UInt64 = 1000) -> [UInt8] {
        [1] + withUnsafeBytes(of: number.littleEndian, Array.init)
            + withUnsafeBytes(of: sequence.littleEndian, Array.init)
            + [UInt8](repeating: 0, count: 16) + [0, 0] + [UInt8](repeating: 0x2A, count: 40)
    }

    /// A persistent vault with one item in `login` and a `Work` collection, and login's space.
    static func vault() async throws -> (Fixture, SpaceID) {
        let fixture = try await Fixture.persistent()
        try await fixture.store(["k": "v"])
        _ = try await fixture.service.createCollection(
            label: "Work", passcode: Fixture.passcode("work pass"), isPrivate: false, isHidden: false)
        let catalog = try Catalog(decoding: try #require(try await fixture.storage.catalog()))
        let login = try #require(catalog.collections.first { $0.id == "login" })
        return (fixture, login.space)
    }

    @Test(arguments: [UInt64.max, VaultRecord.numberLimit])
    func aRecordNumberedPastTheLimitLeavesItsCollectionDamagedAndTheOthersOpen(number: UInt64) async throws {
        let (first, login) = try await Self.vault()
        let offset = await first.storage.records(of: login).reduce(16) { $0 + 20 + $1.count }
        try await first.storage.append(Self.forged(number: number), to: login)
        let fixture = try await first.restarted()
        #expect(await fixture.service.collections == [.login, CollectionID("Work"), .session])
        let status = await fixture.service.vaultStatus
        let damaged = status.collections.filter { !$0.damage.isEmpty }
        #expect(damaged.map(\.id) == ["login"])
        #expect(
            damaged.first?.damage
                == "\(login.hex).journal is damaged at offset \(offset): malformed item number at byte 1")
        try await fixture.service.unlock(CollectionID("Work"), passcode: Fixture.passcode("work pass"))
        try await fixture.unlock(.login, "correct horse")
        #expect(await fixture.service.itemIDs(in: .login).map(\.number) == [1], "the item before it still reads")
    }

    @Test func aRecordNumberedFarAheadIsListedWhileLockedAndLeftOutWhenItFailsToAuthenticate() async throws {
        let (first, login) = try await Self.vault()
        let offset = await first.storage.records(of: login).reduce(16) { $0 + 20 + $1.count }
        try await first.storage.append(Self.forged(number: 1 << 40), to: login)
        let fixture = try await first.restarted()
        #expect(await fixture.service.itemIDs(in: .login).map(\.number) == [1, 1 << 40])
        try await fixture.unlock(.login, "correct horse")
        #expect(await fixture.service.itemIDs(in: .login).map(\.number) == [1])
        #expect(try await fixture.read(ItemID(collection: .login, number: 1)) == "s3cret")
        let damage = await fixture.service.vaultStatus.collections.first { $0.id == "login" }?.damage
        #expect(
            damage
                == "\(login.hex).journal is damaged at offset \(offset): record does not authenticate (invalid ciphertext)"
        )
        let refused = await serviceError { () async throws(ServiceError) in try await fixture.store(["k2": "v2"]) }
        guard case .damaged(let why)? = refused else {
            Issue.record("a write to a damaged collection gave \(String(describing: refused))")
            return
        }
        #expect(why.hasSuffix("puffctl repair login keeps what authenticates"))
    }

    @Test func aCollectionThatHandedOutEveryNumberRefusesNewItems() async throws {
        let storage = try await Self.handBuilt(nextItemNumber: VaultRecord.numberLimit, passcode: "hand built")
        let fixture = try await Fixture(storage: storage, mode: .persistent(kdf: .interactive))
        try await fixture.service.unlock(.login, passcode: Fixture.passcode("hand built"))
        let appends = await fixture.storage.appendCount
        let error = await serviceError { () async throws(ServiceError) in try await fixture.store(["k": "v"]) }
        #expect(error == .limitExceeded("the collection has handed out every item number"))
        #expect(await fixture.storage.appendCount == appends, "nothing was written")
    }

    /// A vault made with the format's own parts, not the service: `login`, whose sealed
    /// collection record promises `nextItemNumber`.
    static func handBuilt(nextItemNumber: UInt64, passcode: String) async throws -> MemoryRecordStore {
        let space = SpaceID.random()
        var header = VaultHeader(
            flags: [], space: space, collectionID: "login", lockedSearch: .always, indexKey: SecureRandom.bytes(32))
        let typed = KeySlot.Typed(kdf: .interactive, salt: PasscodeKDF.newSalt())
        let master = MasterKey()
        let key = try PasscodeKDF.key(for: Fixture.passcode(passcode), salt: typed.salt, parameters: typed.kdf)
        try header.addSlot(
            label: "passcode", parameters: .passcode(typed), master: master,
            kek: SlotKeys.kek(from: key, kind: KeySlot.Kind.passcode.rawValue))
        let fields = CollectionFields(
            id: "login", label: "Login", created: 1, modified: 1, nextItemNumber: nextItemNumber, aliases: [])
        let sealer = try SecretSealer(key: master.subkey(.records))
        let record = VaultRecord(
            kind: .collection, number: 0, tags: [], plaintext: fields.plaintext(), space: space, sealer: sealer,
            link: .first(1))
        var catalog = Catalog(hiddenKDF: .interactive)
        catalog.collections = [Catalog.Entry(space: space, id: "login")]
        catalog.aliases = ["default": "login"]
        let storage = MemoryRecordStore()
        try await storage.replaceHeader(header.encoded(), of: space)
        try await storage.append(
            record.encoded(), to: space, head: JournalHead(of: record, space: space, sealer: sealer).encoded())
        try await storage.replaceCatalog(catalog.encoded())
        return storage
    }
}
