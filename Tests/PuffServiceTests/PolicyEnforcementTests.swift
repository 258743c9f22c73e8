// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The service enforces each collection's ``PasscodePolicy`` wherever a passcode is set (`init`,
/// a new collection, a passcode change), keeps it in the header across restarts, shows it in the
/// status and in unlock prompts, and never checks it on unlock.
@Suite struct PolicyEnforcementTests {
    /// Passcodes `digits6` refuses: letters, and one digit too few.
    static let refusedByDigits6 = ["abc123", "12345"]

    /// A persistent vault with no passcode yet.
    static func uninitialized() async throws -> Fixture {
        try await Fixture(mode: .persistent(kdf: .interactive))
    }

    @Test func initUnderDigits6RefusesLettersAndFiveDigitsAndWritesNothing() async throws {
        let fixture = try await Self.uninitialized()
        for passcode in Self.refusedByDigits6 {
            let error = await serviceError { () async throws(ServiceError) in
                try await fixture.service.initialize(passcode: Fixture.passcode(passcode), policy: .digits6)
            }
            #expect(error == .passcodePolicy(.digits6))
        }
        #expect(await !fixture.service.isInitialized)
        #expect(try await fixture.storage.catalog() == nil)
        #expect(try await fixture.storage.spaces().isEmpty)

        try await fixture.service.initialize(passcode: Fixture.passcode("123456"), policy: .digits6)
        #expect(await fixture.service.vaultStatus.collections.map(\.policy) == [.digits6])
        let header = try await fixture.header(of: try await fixture.space(of: .login))
        #expect(header.policyKind == 2)
        #expect(header.policyMinimumLength == 6)
    }

    @Test func initWithoutAPolicyNeedsEightCharacters() async throws {
        let fixture = try await Self.uninitialized()
        let short = await serviceError { () async throws(ServiceError) in
            try await fixture.service.initialize(passcode: Fixture.passcode("seven77"))
        }
        #expect(short == .passcodePolicy(.standard))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        #expect(await fixture.service.vaultStatus.collections.map(\.policy) == [.alphanumeric(minimumLength: 8)])
    }

    @Test func aNewCollectionUnderDigits6RefusesLettersAndFiveDigitsAndWritesNothing() async throws {
        let fixture = try await Fixture.persistent()
        let spaces = try await fixture.storage.spaces()
        for passcode in Self.refusedByDigits6 {
            let error = await serviceError { () async throws(ServiceError) in
                try await fixture.makeCollection("Phone", passcode: passcode, policy: .digits6)
            }
            #expect(error == .passcodePolicy(.digits6))
        }
        #expect(await fixture.service.collections == [.login, .session])
        #expect(try await fixture.storage.spaces() == spaces)

        let phone = try await fixture.makeCollection("Phone", passcode: "123456", policy: .digits6)
        #expect(await fixture.service.vaultStatus.collections.map(\.policy) == [.standard, .digits6])
        try await fixture.service.lock([phone])
        try await fixture.unlock(phone, "123456")
    }

    @Test func aPasscodeChangeMustMeetTheCollectionsPolicyAndIsRefusedBeforeAnyDelay() async throws {
        let fixture = try await Fixture.persistent()
        let phone = try await fixture.makeCollection("Phone", passcode: "123456", policy: .digits6)
        let space = try await fixture.space(of: phone)
        let header = try await fixture.storage.header(of: space)
        for passcode in Self.refusedByDigits6 {
            let error = await serviceError { () async throws(ServiceError) in
                try await fixture.service.changePasscode(
                    of: phone, old: Fixture.passcode("123456"), new: Fixture.passcode(passcode))
            }
            // Required: had the change gone through, "123456" would be a wrong passcode from here
            // on, whose delay waits on the manual clock for ever.
            try #require(error == .passcodePolicy(.digits6))
        }
        // Checked before the old passcode: no key derivation, no wrong-passcode delay.
        let withWrongOld = await fixture.immediateAnswer { () async throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: phone, old: Fixture.passcode("999999"), new: Fixture.passcode("12345"))
        }
        #expect(withWrongOld == .passcodePolicy(.digits6))
        #expect(try await fixture.storage.header(of: space) == header, "the header is as it was")

        try await fixture.service.changePasscode(
            of: phone, old: Fixture.passcode("123456"), new: Fixture.passcode("654321"))
        try await fixture.service.lock([phone])
        try await fixture.unlock(phone, "654321")
        #expect(await fixture.service.vaultStatus.collections.map(\.policy) == [.standard, .digits6])
    }

    @Test func thePolicySurvivesARestartAndStillGuardsPasscodeChanges() async throws {
        let first = try await Fixture.persistent()
        let phone = try await first.makeCollection("Phone", passcode: "1234567", policy: .numeric(minimumLength: 7))
        _ = try await first.makeCollection("Stash", passcode: "4321", isHidden: true, policy: .digits4)

        let fixture = try await first.restarted()
        #expect(
            await fixture.service.vaultStatus.collections.map(\.policy) == [.standard, .numeric(minimumLength: 7)])
        try await fixture.unlock(phone, "1234567")
        let short = await serviceError { () async throws(ServiceError) in
            try await fixture.service.changePasscode(
                of: phone, old: Fixture.passcode("1234567"), new: Fixture.passcode("123456"))
        }
        #expect(short == .passcodePolicy(.numeric(minimumLength: 7)))
        let stash = try await fixture.unlock(nil, "4321")
        #expect(await fixture.service.vaultStatus.collections.first { $0.id == stash.rawValue }?.policy == .digits4)
    }

    @Test func theUnlockPromptCarriesThePolicy() async throws {
        let fixture = try await Fixture(
            script: [.reply(.passcode(Fixture.passcode("123456")))], mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("first pass"))
        let phone = try await fixture.makeCollection("Phone", passcode: "123456", policy: .digits6)
        try await fixture.service.lock([phone])
        let prompt = try #require(
            try await fixture.service.unlock([Fixture.reference(phone)], client: Fixture.alice).prompt)
        try await fixture.service.startPrompt(prompt, windowID: "", client: Fixture.alice)
        // The answer runs Argon2id, which takes a while on a loaded machine.
        let done = await fixture.recorder.waitFor(limit: HangGuard.step) {
            if case .promptCompleted = $0 { true } else { false }
        }
        #expect(
            done
                == .promptCompleted(
                    prompt, owner: Fixture.alice, dismissed: false, result: .objects([.collection(phone)])))
        #expect(await fixture.prompter.requests.map(\.policy) == [.digits6])
        #expect(try await fixture.service.collectionInfo(phone).isLocked == false)
    }

    /// A vault as puffd wrote it before policies were enforced: `login` under "pw", its header's
    /// policy bytes 0 and `length`.
    static func legacyVault(policyLength length: UInt8) async throws -> MemoryRecordStore {
        let storage = MemoryRecordStore()
        let space = SpaceID.random()
        // Version 2: one passcode, wrapped under the bare Argon2id key and the whole header as AD.
        var header = VaultHeader(
            flags: [], policyKind: 0, policyMinimumLength: length, space: space, collectionID: "login",
            lockedSearch: .always, indexKey: SecureRandom.bytes(32))
        header.version = 2
        let typed = KeySlot.Typed(kdf: .interactive, salt: PasscodeKDF.newSalt())
        // The slot's salt and cost are part of the associated data: in place before the wrap.
        header.slots = [KeySlot(id: 1, label: "passcode", parameters: .passcode(typed), wrappedMaster: [])]
        header.nextSlotID = 2
        let master = MasterKey()
        let key = try PasscodeKDF.key(for: Fixture.passcode("pw"), salt: typed.salt, parameters: .interactive)
        header.slots[0].wrappedMaster = try header.wrapMaster(master, for: header.slots[0], kek: key)
        let fields = CollectionFields(
            id: "login", label: "Login", created: 1, modified: 1, nextItemNumber: 1, aliases: [])
        let sealer = try SecretSealer(key: master.subkey(.records))
        let record = VaultRecord(
            kind: .collection, number: 0, tags: [], plaintext: fields.plaintext(), space: space, sealer: sealer,
            link: .first(1))
        var catalog = Catalog(hiddenKDF: .interactive)
        catalog.collections = [Catalog.Entry(space: space, id: "login")]
        catalog.aliases = ["default": "login", "login": "login"]
        try await storage.replaceHeader(header.encoded(), of: space)
        try await storage.append(
            record.encoded(), to: space, head: JournalHead(of: record, space: space, sealer: sealer).encoded())
        try await storage.replaceCatalog(catalog.encoded())
        return storage
    }

    @Test(arguments: [UInt8(0), 1])
    func aVaultFromBeforePoliciesOpensWithItsShortPasscodeAndKeepsAcceptingAny(policyLength: UInt8) async throws {
        let fixture = try await Fixture(
            storage: try await Self.legacyVault(policyLength: policyLength), mode: .persistent(kdf: .interactive))
        #expect(await fixture.service.vaultStatus.collections.map(\.policy) == [.alphanumeric(minimumLength: 1)])
        try await fixture.unlock(.login, "pw")
        try await fixture.service.changePasscode(of: .login, old: Fixture.passcode("pw"), new: Fixture.passcode("x"))
        try await fixture.service.lock([.login])
        try await fixture.unlock(.login, "x")
    }
}
