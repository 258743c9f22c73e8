// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffTesting
import Testing

/// A chain asks the first member that can reach a person, at the moment of asking.
@Suite struct PrompterChainTests {
    /// A prompter whose reachability the test sets, answering `reply`.
    actor Switchable: Prompter {
        static let kind = "switchable"
        var reachable: Bool
        let reply: PromptReply
        private(set) var asked = 0

        init(reachable: Bool, reply: PromptReply) {
            self.reachable = reachable
            self.reply = reply
        }

        func set(reachable: Bool) { self.reachable = reachable }
        func canReachPerson() async -> Bool { reachable }
        func prompt(_ request: PromptRequest) async throws -> PromptReply {
            asked += 1
            return reply
        }
    }

    static let request = PromptRequest(
        purpose: .unlock(collection: .login, label: "Login"), caller: ClientID(":1.5"), windowID: "")

    @Test func theFirstReachableMemberAnswersAndTheOthersAreNotAsked() async throws {
        let agent = Switchable(reachable: false, reply: .confirmed)
        let pinentry = Switchable(reachable: true, reply: .passcode(SecureBytes(unwipedCopyOf: Array("p".utf8))))
        let chain = PrompterChain([agent, pinentry, ScriptedPrompter()])
        guard case .passcode = try await chain.prompt(Self.request) else {
            Issue.record("pinentry's passcode was not the answer")
            return
        }
        #expect(await agent.asked == 0)
        #expect(await pinentry.asked == 1)
        await agent.set(reachable: true)
        guard case .confirmed = try await chain.prompt(Self.request) else {
            Issue.record("the agent, reachable now, did not answer")
            return
        }
        #expect(await pinentry.asked == 1)
    }

    @Test func aChainWithNobodyReachableDismisses() async throws {
        let chain = PrompterChain([Switchable(reachable: false, reply: .confirmed)])
        #expect(await chain.canReachPerson() == false)
        guard case .dismissed = try await chain.prompt(Self.request) else {
            Issue.record("an unreachable chain answered")
            return
        }
    }

    /// A prompter of another kind, always reachable, for the kind a chain reports.
    struct Other: Prompter {
        static let kind = "other"
        func prompt(_ request: PromptRequest) async throws -> PromptReply { .dismissed }
    }

    @Test func theAnsweringKindIsThatOfTheFirstReachableMemberAndFollowsItsReachability() async throws {
        let agent = Switchable(reachable: false, reply: .confirmed)
        let chain = PrompterChain([agent, PrompterChain([Other()])])
        #expect(await chain.answeringKind() == "other")
        await agent.set(reachable: true)
        #expect(await chain.answeringKind() == "switchable")
        #expect(await PrompterChain([Switchable(reachable: false, reply: .confirmed)]).answeringKind() == nil)
        #expect(await Other().answeringKind() == "other")
    }
}
