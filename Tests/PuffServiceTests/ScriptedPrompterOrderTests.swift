// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffTesting
import Testing

/// The test prompter answers held requests oldest first, as tests that release them expect.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes))) struct ScriptedPrompterOrderTests {
    static func request(_ label: String) -> PromptRequest {
        PromptRequest(purpose: .create(label: label), caller: ClientID(":1.7"), windowID: "", application: "test")
    }

    @Test func heldRequestsAreReleasedOldestFirst() async throws {
        let prompter = ScriptedPrompter([.hold, .hold])
        let first = Task { try await prompter.prompt(Self.request("first")) }
        #expect(await prompter.waitUntilHolding(1))
        let second = Task { try await prompter.prompt(Self.request("second")) }
        #expect(await prompter.waitUntilHolding(2))
        #expect(await prompter.release(with: .confirmed))
        #expect(await prompter.release(with: .dismissed))
        guard case .confirmed = try await first.value else {
            Issue.record("the oldest request did not get the first release")
            return
        }
        guard case .dismissed = try await second.value else {
            Issue.record("the newer request did not get the second release")
            return
        }
        #expect(await prompter.release(with: .confirmed) == false, "nothing is left held")
    }
}
