// SPDX-License-Identifier: Apache-2.0
import PuffService
import PuffStore
import PuffTesting
import Testing

/// The access gate in front of secret reads, driven through the service with a scripted
/// prompter: one row per access mode × stored rule × protection × answers (issue 16 items 3, 4).
struct AccessGateTests {
    static let gitHelper = "/usr/lib/git-core/git-credential-libsecret"
    static let caller = Caller(Fixture.alice, executable: gitHelper, pid: nil)

    /// One row of the table.
    struct Case: Sendable, CustomTestStringConvertible {
        var mode: AccessMode
        /// The rule stored for the caller before the read: allow (true), deny (false) or none.
        var stored: Bool?
        var isProtected: Bool
        /// The prompter's answers, in order.
        var answers: [PromptReply]
        /// The read's error, or nil when the secret comes back.
        var error: ServiceError?
        /// The questions asked, as `allow` or `confirm`, in order.
        var questions: [String]
        /// The caller's rule after the read.
        var rule: Bool?

        var testDescription: String {
            "\(mode) stored=\(stored.map(String.init) ?? "-") protected=\(isProtected) answers=\(answers.count)"
        }
    }

    static let cases: [Case] = [
        Case(mode: .open, stored: nil, isProtected: false, answers: [], error: nil, questions: [], rule: nil),
        Case(
            mode: .open, stored: false, isProtected: false, answers: [], error: .readRefused(.deniedByRule),
            questions: [], rule: false),
        Case(
            mode: .open, stored: true, isProtected: true, answers: [.confirmed], error: nil, questions: ["confirm"],
            rule: true),
        Case(
            mode: .open, stored: nil, isProtected: true, answers: [.dismissed], error: .readRefused(nil),
            questions: ["confirm"], rule: nil),
        Case(
            mode: .open, stored: nil, isProtected: true, answers: [.access(.deny)], error: .readRefused(.declined),
            questions: ["confirm"], rule: nil),
        Case(
            mode: .ask, stored: nil, isProtected: false, answers: [.access(.once)], error: nil, questions: ["allow"],
            rule: nil),
        Case(
            mode: .ask, stored: nil, isProtected: false, answers: [.access(.always)], error: nil,
            questions: ["allow"], rule: true),
        Case(
            mode: .ask, stored: nil, isProtected: false, answers: [.access(.deny)], error: .readRefused(.declined),
            questions: ["allow"], rule: false),
        Case(
            mode: .ask, stored: nil, isProtected: false, answers: [.dismissed], error: .readRefused(nil),
            questions: ["allow"], rule: nil),
        Case(
            mode: .ask, stored: nil, isProtected: false, answers: [.passcode(Fixture.passcode("no"))],
            error: .readRefused(nil), questions: ["allow"], rule: nil),
        Case(mode: .ask, stored: true, isProtected: false, answers: [], error: nil, questions: [], rule: true),
        Case(
            mode: .ask, stored: false, isProtected: true, answers: [], error: .readRefused(.deniedByRule),
            questions: [], rule: false),
        Case(
            mode: .ask, stored: nil, isProtected: true, answers: [.access(.always), .confirmed], error: nil,
            questions: ["allow", "confirm"], rule: true),
        Case(
            mode: .ask, stored: nil, isProtected: true, answers: [.access(.always), .dismissed],
            error: .readRefused(nil), questions: ["allow", "confirm"], rule: true),
        Case(
            mode: .strict, stored: nil, isProtected: false, answers: [], error: .readRefused(.unknownExecutable),
            questions: [], rule: nil),
        Case(mode: .strict, stored: true, isProtected: false, answers: [], error: nil, questions: [], rule: true),
        Case(
            mode: .strict, stored: true, isProtected: true, answers: [.confirmed], error: nil,
            questions: ["confirm"], rule: true),
        Case(
            mode: .strict, stored: false, isProtected: false, answers: [], error: .readRefused(.deniedByRule),
            questions: [], rule: false),
    ]

    @Test(arguments: cases)
    func theGateFollowsTheModeTheStoredRuleTheProtectionAndTheAnswers(_ row: Case) async throws {
        let fixture = try await Fixture(
            script: row.answers.map { .reply($0) }, access: AccessConfiguration(mode: row.mode))
        let item = try await fixture.store(["service": "git"], label: "github.com alice")
        if let stored = row.stored { try await fixture.service.setAccess(stored, for: Self.gitHelper, of: item) }
        if row.isProtected { try await fixture.service.setProtected(true, of: item) }

        let session = try await fixture.plainSession()
        let result = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(of: item, session: session, caller: Self.caller)
        }
        #expect(result == row.error)
        let asked = await fixture.prompter.requests.map { request -> String in
            switch request.purpose {
            case .allowRead: "allow"
            case .confirmRead: "confirm"
            default: "other"
            }
        }
        #expect(asked == row.questions)
        let entries = try await fixture.service.accessEntries([item])
        #expect(entries.first?.settings.rules.first { $0.executable == Self.gitHelper }?.allows == row.rule)
        #expect(entries.first?.settings.isProtected == row.isProtected)
    }

    @Test func aQuestionNamesTheExecutableAndTheItemsLabel() async throws {
        let fixture = try await Fixture(script: [.reply(.access(.once))], access: AccessConfiguration(mode: .ask))
        let item = try await fixture.store(["service": "git"], label: "github.com alice")
        _ = try await fixture.service.secret(of: item, session: try await fixture.plainSession(), caller: Self.caller)
        let request = try #require(await fixture.prompter.requests.first)
        #expect(request.application == Self.gitHelper)
        #expect(request.purpose == .allowRead(item: item, label: "github.com alice"))
        #expect(request.purpose.collectionName == "github.com alice")
    }

    @Test func twoExecutablesAreAskedSeparatelyAndAlwaysIsNotAskedAgain() async throws {
        let fixture = try await Fixture(
            script: [.reply(.access(.always)), .reply(.access(.deny))], access: AccessConfiguration(mode: .ask))
        let item = try await fixture.store(["service": "git"])
        let tool = Caller(Fixture.alice, executable: "/usr/bin/secret-tool", pid: nil)
        let python = Caller(Fixture.bob, executable: "/usr/bin/python3.11", pid: nil)
        let toolSession = try await fixture.plainSession()
        let pythonSession = try await fixture.plainSession(Fixture.bob)

        _ = try await fixture.service.secret(of: item, session: toolSession, caller: tool)
        let denied = await serviceError { () throws(ServiceError) in
            try await fixture.service.secret(of: item, session: pythonSession, caller: python)
        }
        _ = try await fixture.service.secret(of: item, session: toolSession, caller: tool)

        #expect(denied == .readRefused(.declined))
        #expect(await fixture.prompter.requests.map(\.application) == ["/usr/bin/secret-tool", "/usr/bin/python3.11"])
    }

    @Test func aCallerWithoutAnExecutableIsAskedButNothingIsRemembered() async throws {
        let fixture = try await Fixture(
            script: [.reply(.access(.always)), .reply(.access(.once))], access: AccessConfiguration(mode: .ask))
        let item = try await fixture.store(["service": "git"])
        let anonymous = Caller(Fixture.alice)
        for _ in 0..<2 {
            _ = try await fixture.service.secret(of: item, session: try await fixture.plainSession(), caller: anonymous)
        }
        #expect(await fixture.prompter.requests.count == 2)
        #expect(try await fixture.service.accessEntries([item]).first?.settings.rules == [])
    }

    @Test func getSecretsLeavesRefusedItemsOutAndReturnsTheOthers() async throws {
        let fixture = try await Fixture(script: [.reply(.dismissed)])
        let open = try await fixture.store(["n": "1"])
        let protected = try await fixture.store(["n": "2"])
        try await fixture.service.setProtected(true, of: protected)
        let secrets = try await fixture.service.secrets(
            for: [protected, open], session: try await fixture.plainSession(), caller: Self.caller)
        #expect(secrets.map(\.0) == [open])
    }
}
