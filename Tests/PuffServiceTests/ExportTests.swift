// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffFormats
import PuffService
import PuffStore
import PuffTesting
import Synchronization
import Testing

/// `puffctl export`'s service side (docs/migration.md, "Exporting"): the person agrees first,
/// every item passes the access gate as a read would, and each item's copy is audited.
@Suite(.timeLimit(.minutes(HangGuard.testMinutes)))
struct ExportTests {
    static let tool = Caller(Fixture.alice, executable: "/usr/bin/puffctl", pid: 77)
    static let allBytes = (0...255).map { UInt8($0) }

    /// A persistent vault with a scripted prompter.
    static func fixture(_ script: [ScriptedPrompter.Step] = []) async throws -> Fixture {
        let fixture = try await Fixture(script: script, mode: .persistent(kdf: .interactive))
        try await fixture.service.initialize(passcode: Fixture.passcode("correct horse"))
        return fixture
    }

    static var passcode: Consent { .passcode(Fixture.passcode("correct horse")) }

    /// (action, result, label) of every entry, as `puffctl audit` lists them.
    func entries(_ fixture: Fixture) async throws -> [String] {
        try await fixture.service.auditEntries().entries.map { "\($0.action) \($0.result) \($0.label)" }
    }

    @Test func thePasscodeHandsOverEveryItemExactlyWithOneAuditEntryEach() async throws {
        let fixture = try await Self.fixture()
        let session = try await fixture.plainSession()
        let mail = try await fixture.service.createItem(
            in: .login, label: "Mail für Jürgen 🔑", attributes: ["service": "mail", "empty": ""], type: "",
            secret: Fixture.plain(Array("hunter2".utf8), session: session), replace: true, client: Fixture.alice)
        let bytes = try await fixture.service.createItem(
            in: .login, label: "every byte", attributes: ["kind": "bytes"], type: "",
            secret: Fixture.plain(Self.allBytes, session: session, contentType: "application/octet-stream"),
            replace: true, client: Fixture.alice)
        let mailInfo = try await fixture.service.itemInfo(mail)
        let reports = Mutex<[WorkProgress]>([])

        let result = try await fixture.service.exportItems(
            of: .login, consent: Self.passcode, caller: Self.tool,
            progress: { report in reports.withLock { $0.append(report) } })

        #expect(result.leftOut.isEmpty)
        #expect(result.collection.label == "Login")
        let items = result.collection.items
        #expect(items.map(\.label) == ["Mail für Jürgen 🔑", "every byte"])
        #expect(items[0].attributes == ["service": "mail", "empty": ""])
        #expect(items[0].secret.unprotectedArray() == Array("hunter2".utf8))
        #expect((items[0].created, items[0].modified) == (mailInfo.created, mailInfo.modified))
        #expect(items[1].secret.unprotectedArray() == Self.allBytes)
        #expect(items[1].contentType == "application/octet-stream")
        let audit = try await fixture.service.auditEntries().entries.filter { $0.action == .export }
        #expect(audit.map { "\($0.result) \($0.label)" } == ["allowed Mail für Jürgen 🔑", "allowed every byte"])
        #expect(audit.map(\.item) == [mail.number, bytes.number])
        #expect(audit.allSatisfy { $0.executable == "/usr/bin/puffctl" && $0.pid == 77 })
        let last = reports.withLock { $0.last }
        #expect(last == WorkProgress(done: 2, total: 2, unit: .items))
        #expect(await fixture.prompter.requests.isEmpty, "a passcode needs no question")
    }

    @Test func withoutThePasscodeThePersonIsAskedAndNoOrNoAnswerHandsOverNothing() async throws {
        let fixture = try await Self.fixture([.reply(.dismissed), .reply(.confirmed)])
        _ = try await fixture.store(["service": "mail"], secret: "hunter2", label: "Mail")

        let refused = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.exportItems(of: .login, consent: .confirmation, caller: Self.tool)
        }
        guard case .notConfirmed? = refused else {
            Issue.record("expected notConfirmed, got \(String(describing: refused))")
            return
        }
        let asked = await fixture.prompter.requests
        guard case .confirmChange(let collection, _, let change)? = asked.first?.purpose else {
            Issue.record("expected a confirm-change question, got \(asked)")
            return
        }
        #expect(collection == .login)
        #expect(change.contains("export its 1 items"), "\(change)")
        #expect(try await entries(fixture).last == "export dismissed Login")

        let agreed = try await fixture.service.exportItems(of: .login, consent: .confirmation, caller: Self.tool)
        #expect(agreed.collection.items.map(\.label) == ["Mail"])
        #expect(try await entries(fixture).last == "export allowed Mail")
    }

    @Test func aWrongPasscodeHandsOverNothingAndIsAuditedAsRefused() async throws {
        let fixture = try await Self.fixture()
        _ = try await fixture.store(["service": "mail"], label: "Mail")
        let error = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.exportItems(
                of: .login, consent: .passcode(Fixture.passcode("wrong")), caller: Self.tool)
        }
        guard case .wrongPasscode? = error else {
            Issue.record("expected wrongPasscode, got \(String(describing: error))")
            return
        }
        #expect(try await entries(fixture).last == "export refused Login")
    }

    @Test func aLockedCollectionIsRefusedWithoutItsPasscodeAndOpenedWithIt() async throws {
        let fixture = try await Self.fixture([.reply(.confirmed)])
        _ = try await fixture.store(["service": "mail"], secret: "hunter2", label: "Mail")
        try await fixture.service.lock([.login])

        let locked = await serviceError { () async throws(ServiceError) in
            _ = try await fixture.service.exportItems(of: .login, consent: .confirmation, caller: Self.tool)
        }
        #expect(locked == .isLocked)
        #expect(await fixture.prompter.requests.isEmpty, "a yes does not unlock")

        let result = try await fixture.service.exportItems(of: .login, consent: Self.passcode, caller: Self.tool)
        #expect(result.collection.items.map { $0.secret.unprotectedArray() } == [Array("hunter2".utf8)])
        #expect(try await entries(fixture).last == "export allowed Mail")
    }

    @Test func aProtectedItemAsksAndOnceNobodyAnswersTheRestAreLeftOutUnasked() async throws {
        let fixture = try await Self.fixture([.reply(.confirmed), .reply(.dismissed)])
        let first = try await fixture.store(["n": "1"], label: "first protected")
        _ = try await fixture.store(["n": "2"], label: "plain")
        let second = try await fixture.store(["n": "3"], label: "second protected")
        try await fixture.service.setProtected(true, of: first)
        try await fixture.service.setProtected(true, of: second)

        let result = try await fixture.service.exportItems(of: .login, consent: Self.passcode, caller: Self.tool)

        #expect(result.collection.items.map(\.label) == ["first protected", "plain"])
        #expect(result.leftOut.map(\.label) == ["second protected"])
        #expect(result.leftOut.first?.reason.hasPrefix("nobody confirmed the read") == true)
        let third = try await fixture.store(["n": "4"], label: "third protected")
        try await fixture.service.setProtected(true, of: third)
        let again = try await fixture.service.exportItems(of: .login, consent: Self.passcode, caller: Self.tool)
        // Two questions in the first export; in the second, the first unanswered one ends the asking.
        #expect(await fixture.prompter.requests.count == 3)
        #expect(again.leftOut.map(\.label) == ["first protected", "second protected", "third protected"])
        let audit = try await entries(fixture)
        #expect(audit.contains("export dismissed second protected"))
        #expect(audit.contains("export allowed first protected"))
    }

    @Test func aDenyRuleForTheCallersExecutableLeavesTheItemOutNamed() async throws {
        let fixture = try await Self.fixture()
        let denied = try await fixture.store(["n": "1"], label: "denied")
        _ = try await fixture.store(["n": "2"], label: "fine")
        try await fixture.service.setAccess(false, for: "/usr/bin/puffctl", of: denied)

        let result = try await fixture.service.exportItems(of: .login, consent: Self.passcode, caller: Self.tool)

        #expect(result.collection.items.map(\.label) == ["fine"])
        #expect(result.leftOut == [.init(item: denied, label: "denied", reason: result.leftOut.first?.reason ?? "")])
        #expect(result.leftOut.first?.reason.contains("denied to this executable") == true)
        #expect(try await entries(fixture).contains("export refused denied"))
    }
}
