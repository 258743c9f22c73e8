// SPDX-License-Identifier: Apache-2.0
import InMemoryLogging
import Logging
import PuffService
import PuffTesting
import Testing

@Suite struct DismissingPrompterTests {
    @Test func theDismissingPrompterDismissesAtOnceAndLogsAHint() async throws {
        let logs = InMemoryLogHandler()
        let prompter = DismissingPrompter(logger: InMemoryLogHandler.logger(store: logs))
        let reply = try await prompter.prompt(
            PromptRequest(purpose: .unlock(collection: .login, label: "Login"), caller: Fixture.alice, windowID: ""))
        guard case .dismissed = reply else {
            Issue.record("not dismissed")
            return
        }
        #expect(logs.lines.count == 1)
        #expect(logs.lines.first?.contains("To unlock, run: puffctl unlock login") == true)
        #expect(DismissingPrompter.kind == "none")
    }
}
