// SPDX-License-Identifier: Apache-2.0
import PuffService
import Testing

@testable import PuffPrompters

/// pinentry's `CONFIRM` answers (pinentry.c, `cmd_confirm`) mapped so that the default button or
/// a closed window never persists "always", and nothing unanswered persists anything.
@Suite struct PinentryConfirmationTests {
    static let item = ItemID(collection: .login, number: 3)

    /// What pinentry sends for one button, and the reply it means for each purpose.
    static let table: [(said: String, allowRead: PromptReply, confirmRead: PromptReply)] = [
        ("OK\n", .access(.once), .confirmed),
        ("ERR 83886194 Not confirmed <Pinentry>\n", .access(.always), .access(.deny)),
        ("ERR 83886179 Operation cancelled <Pinentry>\n", .access(.deny), .access(.deny)),
        ("S BUTTON_INFO close\nERR 83886179 Operation cancelled <Pinentry>\n", .dismissed, .dismissed),
        ("ERR 83886142 Timeout <Pinentry>\n", .dismissed, .dismissed),
        ("ERR 83886278 Fully canceled <Pinentry>\n", .dismissed, .dismissed),
    ]

    /// Answers every command with OK, then `said` to CONFIRM, and returns the reply and what was sent.
    static func ask(_ purpose: PromptRequest.Purpose, pinentrySays said: String) throws -> (PromptReply, String) {
        let server = AssuanChannelTests.Server()
        let buttons = purpose == .allowRead(item: item, label: "x") ? 3 : 2
        server.say(String(repeating: "OK\n", count: buttons) + said)
        let reply = try PinentryConfirmation(channel: server.channel).ask(purpose)
        return (reply, server.heard())
    }

    @Test(arguments: 0..<table.count)
    func eachButtonMeansWhatTheTableSays(_ row: Int) throws {
        let (said, allowRead, confirmRead) = Self.table[row]
        let (allow, sentForAllow) = try Self.ask(.allowRead(item: Self.item, label: "x"), pinentrySays: said)
        #expect(Self.same(allow, allowRead))
        #expect(sentForAllow == "SETOK Allow _once\nSETNOTOK Allow _always\nSETCANCEL _Deny\nCONFIRM\n")
        let (confirm, sentForConfirm) = try Self.ask(.confirmRead(item: Self.item, label: "x"), pinentrySays: said)
        #expect(Self.same(confirm, confirmRead))
        #expect(sentForConfirm == "SETOK _Allow\nSETCANCEL _Deny\nCONFIRM\n")
    }

    static let touch = PromptRequest.Purpose.touchSecurityKey(
        collection: .login, label: "Login", slotLabel: "yubikey", instead: .passcode)

    /// Issue 26: OK (Enter) types the passcode instead; Cancel, a closed window, a timeout or
    /// Ctrl-C cancel the wait for the key; there is no not-OK button, which pinentry-gnome3 lacks.
    @Test(arguments: [
        ("OK\n", "typeInstead"), ("ERR 83886179 Operation cancelled <Pinentry>\n", "dismissed"),
        ("S BUTTON_INFO close\nERR 83886179 Operation cancelled <Pinentry>\n", "dismissed"),
        ("ERR 83886142 Timeout <Pinentry>\n", "dismissed"), ("ERR 83886278 Fully canceled <Pinentry>\n", "dismissed"),
    ])
    func theTouchQuestionsOKTypesInsteadAndEverythingElseCancels(said: String, meaning: String) throws {
        let server = AssuanChannelTests.Server()
        server.say("OK\nOK\n" + said)
        let reply = try PinentryConfirmation(channel: server.channel).ask(Self.touch)
        #expect(server.heard() == "SETOK _Type the passcode instead\nSETCANCEL _Cancel\nCONFIRM\n")
        switch (reply, meaning) {
        case (.typeInstead, "typeInstead"), (.dismissed, "dismissed"): break
        default: Issue.record("\(said) gave \(reply), not \(meaning)")
        }
    }

    @Test func withNothingToTypeTheTouchQuestionHasOneButtonAndItCancels() throws {
        let server = AssuanChannelTests.Server()
        server.say("OK\nOK\n")
        let reply = try PinentryConfirmation(channel: server.channel).ask(
            .touchSecurityKey(collection: .login, label: "Login", slotLabel: "yubikey", instead: nil))
        #expect(server.heard() == "SETOK _Cancel\nCONFIRM --one-button\n")
        #expect(Self.same(reply, .dismissed))
    }

    static func same(_ a: PromptReply, _ b: PromptReply) -> Bool {
        switch (a, b) {
        case (.confirmed, .confirmed), (.dismissed, .dismissed): true
        case (.access(let x), .access(let y)): x == y
        default: false
        }
    }
}
