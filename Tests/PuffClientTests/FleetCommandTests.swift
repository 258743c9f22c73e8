// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffDBus
import PuffTesting
import Testing

@testable import PuffClient

/// `puffctl collection create NAME --store openbao` and `puffctl collection attach NAME --store
/// openbao`, run in-process against the fake control object: what they send, in which order.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct FleetCommandTests {
    private func run(_ fake: FakeControl, _ arguments: [String]) async -> Int32 {
        await Puffctl.run(arguments: arguments + ["--address", fake.address, "--bus-name", FakeControl.busName])
    }

    @Test func creatingWithTheOpenBaoStoreCreatesThenSharesUnderTheName() async throws {
        let fake = try await FakeControl()
        let fd = try Descriptors.readEnd(holding: "team passcode\n")
        defer { close(fd) }
        #expect(await run(fake, ["collection", "create", "team", "--store", "openbao", "--passcode-fd", "\(fd)"]) == 0)
        #expect(fake.calls.map(\.member) == ["CreateCollection", "ShareCollection"])
        #expect(fake.calls.last?.strings == ["new", "team"], "the id CreateCollection gave, and the name")
    }

    @Test func aNameThatCannotBeAPathOrAHiddenCollectionIsRefusedBeforeAnyCall() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["collection", "create", "../team", "--store", "openbao", "--passcode-fd", "9"]) != 0)
        #expect(await run(fake, ["collection", "create", "team", "--hidden", "--store", "openbao"]) != 0)
        #expect(await run(fake, ["collection", "attach", "a/b", "--store", "openbao"]) != 0)
        #expect(fake.calls.isEmpty)
    }

    @Test func aShareThatFailsFailsTheCommandAfterTheCollectionWasMade() async throws {
        let fake = try await FakeControl()
        fake.fail("ShareCollection", with: "org.freedesktop.DBus.Error.Failed")
        let fd = try Descriptors.readEnd(holding: "team passcode\n")
        defer { close(fd) }
        #expect(await run(fake, ["collection", "create", "team", "--store", "openbao", "--passcode-fd", "\(fd)"]) != 0)
        #expect(fake.calls.map(\.member) == ["CreateCollection", "ShareCollection"])
    }

    @Test func attachingAddsTheCollectionAndUnlocksItOnlyWithAPasscodeGiven() async throws {
        let fake = try await FakeControl()
        #expect(await run(fake, ["collection", "attach", "team", "--store", "openbao"]) == 0)
        #expect(fake.calls.map(\.member) == ["AttachCollection"])
        #expect(fake.calls.last?.strings == ["team"])

        let fd = try Descriptors.readEnd(holding: "team passcode\n")
        defer { close(fd) }
        #expect(await run(fake, ["collection", "attach", "team", "--store", "openbao", "--passcode-fd", "\(fd)"]) == 0)
        #expect(fake.calls.map(\.member) == ["AttachCollection", "AttachCollection", "Unlock"])
        #expect(fake.calls.last?.strings == ["team"] && fake.calls.last?.passcodes == ["team passcode"])
    }
}
