// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus
import PuffTesting
import Testing

@testable import PuffClient

/// Whole puffctl commands, run in-process against the fake control object: which collection they
/// pick, where they read passcodes, what they send and how they exit.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct CommandBusTests {
    /// `Status` with `login` (the default) and `work`, both locked.
    private static let bothLocked = Replies.status([
        Replies.collection("login", label: "Login", locked: true, items: 3, isDefault: true),
        Replies.collection("work", label: "Work", locked: true, items: 1, isPrivate: true),
    ])

    private func run(_ fake: FakeControl, _ arguments: [String]) async -> Int32 {
        await Puffctl.run(arguments: arguments + ["--address", fake.address, "--bus-name", FakeControl.busName])
    }

    @Test func unlockWithNoCollectionOpensTheDefaultWithThePasscodeFromADescriptor() async throws {
        let fake = try await FakeControl()
        fake.reply(to: "Status", with: Self.bothLocked)
        let fd = try Descriptors.readEnd(holding: "hunter2\n")
        defer { close(fd) }
        #expect(await run(fake, ["unlock", "--passcode-fd", "\(fd)"]) == 0)
        let unlock = try #require(fake.calls.last)
        #expect(unlock.member == "Unlock")
        #expect(unlock.strings == ["login"])
        #expect(unlock.passcodes == ["hunter2"])
    }

    @Test func unlockingAnUnlockedCollectionAsksForNothing() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["unlock", "login", "--passcode-fd", "987654"]) == 0)
        #expect(fake.calls.map(\.member) == ["Status"])
    }

    @Test func aCollectionNotListedExitsWithFourBeforeAnyPasscodeIsRead() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["passwd", "typo", "--passcode-fd", "987654"]) == 4)
        #expect(fake.calls.map(\.member) == ["Status"])
    }

    @Test func unlockingANameNotListedTriesThePasscodeOnTheHiddenCollections() async throws {
        let fake = try await FakeControl()
        fake.fail("Unlock", with: "io.puff.Error.WrongPasscode")
        let fd = try Descriptors.readEnd(holding: "pass\n")
        defer { close(fd) }
        #expect(await run(fake, ["unlock", "Stash", "--passcode-fd", "\(fd)"]) == 4)
        #expect(fake.calls.map(\.member) == ["Status", "Unlock"])
        #expect(fake.calls.last?.strings == [""] && fake.calls.last?.passcodes == ["pass"])
    }

    @Test func aWrongPasscodeExitsWithTwo() async throws {
        let fake = try await FakeControl()
        fake.reply(to: "Status", with: Self.bothLocked)
        fake.fail("Unlock", with: "io.puff.Error.WrongPasscode")
        let fd = try Descriptors.readEnd(holding: "wrong\n")
        defer { close(fd) }
        #expect(await run(fake, ["unlock", "work", "--passcode-fd", "\(fd)"]) == 2)
    }

    @Test func passwdReadsTheCurrentAndTheNewPasscodeAsTwoLines() async throws {
        let fake = try await FakeControl()
        let fd = try Descriptors.readEnd(holding: "old one\nnew one\n")
        defer { close(fd) }
        #expect(await run(fake, ["passwd", "work", "--passcode-fd", "\(fd)"]) == 0)
        let change = try #require(fake.calls.last)
        #expect(change.member == "Rekey")
        #expect(change.strings == ["work"])
        #expect(change.passcodes == ["old one", "new one"])
    }

    @Test func initOnAnInitializedVaultExitsWithOneAndReadsNothing() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["init", "--passcode-fd", "987654"]) == 1)
        #expect(fake.calls.map(\.member) == ["Status"])
    }

    @Test func anythingBeforeInitExitsWithThree() async throws {
        let fake = try await FakeControl()
        fake.reply(to: "Status", with: Replies.status(initialized: false, []))
        #expect(await run(fake, ["unlock"]) == 3)
        #expect(await run(fake, ["list"]) == 3)
    }

    @Test func lockAllSendsAnEmptyListAndLockAloneTheDefault() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["lock", "--all"]) == 0)
        #expect(await run(fake, ["lock"]) == 0)
        let locks = fake.calls.filter { $0.member == "Lock" }
        #expect(locks.map(\.strings) == [[], ["login"]])
    }

    @Test func createHiddenSendsPrivateAndHidden() async throws {
        let fake = try await FakeControl()
        let fd = try Descriptors.readEnd(holding: "diary pass\n")
        defer { close(fd) }
        #expect(await run(fake, ["collection", "create", "Diary", "--hidden", "--passcode-fd", "\(fd)"]) == 0)
        let create = try #require(fake.calls.last)
        #expect(create.flags == ["private": true, "hidden": true])
        #expect(create.passcodes == ["diary pass"])
    }

    @Test func initAndCreateSendTheChosenPolicy() async throws {
        let fake = try await FakeControl()
        fake.reply(to: "Status", with: Replies.status(initialized: false, []))
        let first = try Descriptors.readEnd(holding: "123456\n")
        defer { close(first) }
        #expect(await run(fake, ["init", "--policy", "digits6", "--passcode-fd", "\(first)"]) == 0)
        let second = try Descriptors.readEnd(holding: "12345678\n")
        defer { close(second) }
        let create = ["collection", "create", "Phone", "--policy", "numeric", "--min-length", "8"]
        #expect(await run(fake, create + ["--passcode-fd", "\(second)"]) == 0)
        let calls = fake.calls.filter { $0.member != "Status" }
        #expect(calls.map(\.member) == ["Init", "CreateCollection"])
        #expect(calls.map(\.policy) == ["digits6", "numeric"])
        #expect(calls.map(\.minimumLength) == [nil, 8])
    }

    @Test func aPasscodeThePolicyRefusesExitsWithOne() async throws {
        let fake = try await FakeControl()
        fake.fail("Rekey", with: "io.puff.Error.PasscodePolicy")
        let fd = try Descriptors.readEnd(holding: "123456\n12345\n")
        defer { close(fd) }
        #expect(await run(fake, ["passwd", "work", "--passcode-fd", "\(fd)"]) == 1)
        #expect(fake.calls.last?.member == "Rekey")
    }

    @Test func listAsksEveryVisibleCollection() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["list", "--json"]) == 0)
        #expect(fake.calls.filter { $0.member == "ListItems" }.map(\.strings) == [["login"], ["work"]])
    }

    @Test func anotherProviderExitsWithFive() async throws {
        let fake = try await FakeControl(servesControl: false)
        #expect(await run(fake, ["status"]) == 5)
    }

    @Test func getOnALockedCollectionExitsWithThreeAndNeverAsksForTheSecret() async throws {
        let fake = try await FakeControl()
        let path = ObjectPath("/org/freedesktop/secrets/collection/work/1")!
        fake.reply(
            to: "ListItems", with: [.array(element: "a{sv}", [Replies.dictionary([("path", .objectPath(path))])])])
        #expect(await run(fake, ["get", "work/1"]) == 3)
        #expect(await run(fake, ["show", "work/1"]) == 0)
        #expect(fake.calls.map(\.member) == ["Status", "ListItems", "Status", "ListItems"])
        #expect(fake.calls.map(\.strings) == [[], ["work"], [], ["work"]])
    }

    @Test func anItemNotListedExitsWithFour() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["show", "login/99"]) == 4)
        #expect(await run(fake, ["get", "/org/freedesktop/secrets/collection/nowhere/1"]) == 4)
        #expect(await run(fake, ["get", "not an item"]) == 1)
    }
}
