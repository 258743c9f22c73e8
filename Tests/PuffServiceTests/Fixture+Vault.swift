// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// What the vault tests need beyond ``Fixture``: collections under passcodes of their own, the
/// sealed bytes the store holds, and wrong-passcode attempts timed on the manual clock.
extension Fixture {
    /// Creates a collection under its own passcode (`puffctl collection create`).
    func makeCollection(
        _ label: String, passcode: String, isPrivate: Bool = false, isHidden: Bool = false,
        policy: PasscodePolicy = .standard
    ) async throws(ServiceError) -> CollectionID {
        try await service.createCollection(
            label: label, passcode: Fixture.passcode(passcode), isPrivate: isPrivate, isHidden: isHidden,
            policy: policy)
    }

    /// Unlocks a named collection, or with nil whichever hidden ones `passcode` opens.
    @discardableResult
    func unlock(_ collection: CollectionID?, _ passcode: String) async throws(ServiceError) -> CollectionID {
        try await service.unlock(collection, passcode: Fixture.passcode(passcode))
    }

    /// Whether `item` reads back as exactly `secret`; a Bool, so a failed check never prints the
    /// secret it read.
    func holds(_ item: ItemID, _ secret: String) async throws -> Bool {
        try await read(item) == secret
    }

    /// The catalog as stored.
    func storedCatalog() async throws -> Catalog {
        try Catalog(decoding: try #require(try await storage.catalog()))
    }

    /// The space of a visible collection, as the catalog lists it.
    func space(of collection: CollectionID) async throws -> SpaceID {
        try #require(try await storedCatalog().collections.first { $0.id == collection.rawValue }?.space)
    }

    /// The spaces whose headers say hidden; the catalog never lists them.
    func hiddenSpaces() async throws -> [SpaceID] {
        var found: [SpaceID] = []
        for space in try await storage.spaces() where try await header(of: space).flags.contains(.hidden) {
            found.append(space)
        }
        return found
    }

    /// A space's header as stored.
    func header(of space: SpaceID) async throws -> VaultHeader {
        try VaultHeader(decoding: try await storage.header(of: space))
    }

    /// A space's records as stored, parsed (their clear prefix; the box stays sealed).
    func parsedRecords(of space: SpaceID) async throws -> [VaultRecord] {
        try await storage.records(of: space).map { try VaultRecord(decoding: $0) }
    }

    /// Runs `attempt`, which must be tried only once `delay` passed (the delay the wrong passcode
    /// before it announced; `.zero`: at once): checks that it sleeps on the manual clock and is
    /// not woken a millisecond before `delay`, then lets it finish and returns its error (nil
    /// when it succeeded).
    func failure(
        after delay: Duration, sourceLocation: SourceLocation = #_sourceLocation,
        _ attempt: @escaping @Sendable () async throws(ServiceError) -> Void
    ) async -> ServiceError? {
        let finished = Flag()
        let task = Task {
            let error = await serviceError(attempt)
            finished.set()
            return error
        }
        let clock = self.clock
        if delay == .zero {
            let answered = await poll(limit: HangGuard.step) { finished.isSet }
            #expect(answered, "answered without waiting on the clock", sourceLocation: sourceLocation)
            if !answered { clock.advance(by: .seconds(3600)) }  // let a delay end so the test can finish
            return await task.value
        }
        // The delay of the last wrong passcode runs first; Argon2id then runs in real time.
        _ = await poll(limit: HangGuard.step) { clock.sleeperCount > 0 || finished.isSet }
        #expect(clock.sleeperCount == 1, "the attempt waits on the clock", sourceLocation: sourceLocation)
        clock.advance(by: delay - .milliseconds(1))
        #expect(clock.sleeperCount == 1, "not answered before \(delay)", sourceLocation: sourceLocation)
        clock.advance(by: .milliseconds(1))
        let answered = await poll(limit: HangGuard.step) { finished.isSet }
        #expect(answered, "answered once \(delay) passed", sourceLocation: sourceLocation)
        if !answered { clock.advance(by: .seconds(3600)) }  // let a longer delay end so the test can finish
        return await task.value
    }
}

extension Fixture {
    /// Runs `attempt`, which must be answered without the wrong-passcode delay, and returns its
    /// error (nil when it succeeded). A delay is reported and cut short, so the test never hangs.
    func immediateAnswer(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ attempt: @escaping @Sendable () async throws(ServiceError) -> Void
    ) async -> ServiceError? {
        let finished = Flag()
        let task = Task {
            let error = await serviceError(attempt)
            finished.set()
            return error
        }
        let clock = self.clock
        _ = await poll(limit: HangGuard.step) { clock.sleeperCount > 0 || finished.isSet }
        #expect(clock.sleeperCount == 0, "answered without a delay", sourceLocation: sourceLocation)
        clock.advance(by: .seconds(3600))
        return await task.value
    }
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let value = Mutex(false)

    /// Whether ``set()`` was called.
    var isSet: Bool { value.withLock { $0 } }

    /// Raises the flag.
    func set() { value.withLock { $0 = true } }
}
