// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffFormats
import PuffTesting
import Testing

@testable import PuffClient

/// ``ControlClient`` against a fake control object on a real `dbus-daemon`: every call has the
/// signature of `dbus/io.puff.Control1.xml`, passcodes arrive through descriptors byte for byte,
/// and error replies become ``ClientError``s.
@Suite(.enabled(if: TestBus.isAvailable), .timeLimit(.minutes(HangGuard.testMinutes)))
struct ControlClientBusTests {
    private func secure(_ text: String) -> SecureBytes {
        SecureBytes(unwipedCopyOf: Array(text.utf8))
    }

    @Test func theFakesRepliesHaveTheSignaturesOfTheInterfaceFile() throws {
        for method in try ControlInterfaceFile.methods() {
            let reply = FakeControl.defaultReplies[method.name] ?? []
            #expect(DBusValue.signature(of: reply).rawValue == method.output, "\(method.name)")
        }
    }

    @Test func everyMethodOfTheInterfaceFileIsCalledWithItsSignature() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        #expect(try await client.status().collections.map(\.id) == ["login", "work"])
        try await client.initialize(passcode: secure("first"))
        #expect(try await client.unlock("login", passcode: secure("pass")) == "login")
        try await client.lock(["login", "work"])
        try await client.changePasscode(of: "login", old: secure("old"), new: secure("new"))
        #expect(
            try await client.createCollection(label: "Work", isPrivate: true, isHidden: false, passcode: secure("p"))
                == "new")
        #expect(try await client.deleteCollection("work").itemCount == 2)
        #expect(try await client.deletedCollections().isEmpty)
        #expect(try await client.restoreCollection("work") == "work")
        try await client.shareCollection("work", as: "team")
        #expect(try await client.attachCollection("team") == "team")
        // A control character from OpenBao's answer is shown escaped; the next step keeps its lines.
        #expect(
            try await client.checkStore() == [
                DoctorFinding(
                    .fail, "policy: the token's policy lacks create on secret/data/puff/*",
                    details: ["create on secret/data/puff/* (entries)\\u001b[2J"],
                    next: "add to the token's policy:\npath \"secret/data/puff/*\" {}")
            ])
        try await client.setLockedSearch(of: "work", to: .afterUnlock, passcode: secure("p"))
        try await client.renameCollection("work", to: "Day job")
        try await client.setDefault("work")
        #expect(try await client.compact("") == 4096)
        let repaired = try await client.repair("login")
        #expect(repaired.kept == 3 && repaired.lost.count == 1 && repaired.keptAt == "j.damaged-1")
        #expect(try await client.listItems(in: "login").map(\.path) == ["/i/1"])
        #expect(try await client.moveItem("/i/1", to: "work") == "/i/2")
        let imported = try await client.importItems(
            [PortableItem(label: "mail", attributes: ["user": "a"], secret: secure("s"))], into: "work", dryRun: false)
        #expect(imported == [.init(outcome: "added", index: 0, label: "mail", reason: "", path: "/i/3")])
        let exported = try await client.exportItems(of: "work", passcode: nil)
        #expect(exported.collection.label == "Work")
        #expect((exported.collection.created, exported.collection.modified) == (100, 200))
        #expect(exported.collection.items.map(\.label) == ["mail"])
        #expect(exported.collection.items.first?.secret.unprotectedArray() == Array("s".utf8))
        #expect(exported.leftOut == [.init(path: "/i/4", label: "kept", reason: "declined")])
        try await client.registerAgent(at: ObjectPath("/io/puff/Agent")!)
        try await client.unregisterAgent(at: ObjectPath("/io/puff/Agent")!)
        let audit = try await client.audit(since: 5, collection: "")
        #expect(audit.entries.map(\.caller) == ["/usr/bin/secret-tool", ":1.9"])
        #expect(audit.entries.map(\.pid) == [4242, nil])
        #expect(audit.unreadable == ["work": "locked"])
        try await client.setProtected(true, item: "/i/1")
        try await client.setAccess(false, for: "/usr/bin/secret-tool", item: "/i/1")
        try await client.revokeAccess(item: "/i/1", executable: nil)
        try await client.setAppAccess(false, for: "org.example.App", item: "/i/1")
        try await client.revokeAppAccess(item: "/i/1", app: "org.example.App")
        let access = try await client.listAccess([])
        #expect(access.first?.protected == true)
        #expect(
            access.first?.rules == [
                .init(executable: "/usr/bin/secret-tool", decision: "deny", digest: nil, app: nil),
                .init(executable: "", decision: "allow", digest: nil, app: "org.example.App"),
            ])
        // A regular file: the fake reads every descriptor to its end.
        let path = "/tmp/puff-fake-archive-\(getpid())"
        let archive = UnixFD(taking: open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600))
        unlink(path)
        let backup = try await client.backup(into: archive)
        #expect(backup.files == 7 && backup.collections == 2 && backup.bytes == 9000 && backup.unknown == 1)
        let restored = try await client.restore(from: archive, name: "b.puffbak")
        #expect(restored.snapshot == "/v/snapshots/x-restore.puffbak" && restored.restored == ["login"])
        let verified = try await client.verify()
        #expect(verified.findings == [.init(file: "/v/j", offset: 40, what: "bad", isWarning: false)])
        #expect(verified.checked == ["login"] && verified.records == 12 && verified.locked == ["work"])
        let slots = try await client.listSlots(of: "login")
        #expect(slots.map(\.id) == [1, 3] && slots.map(\.type) == ["passcode", "tpm2"] && slots[1].pcrs == 0x880)
        var request = SlotRequest()
        request.newPasscode = secure("second")
        let added = try await client.addSlot(to: "login", type: "passcode", request, proof: secure("pass"))
        #expect(added.id == 4 && added.recoveryCode == nil)
        let recovery = try await client.addSlot(to: "login", type: "recovery", SlotRequest(), proof: secure("pass"))
        #expect(recovery.recoveryCode?.unprotectedArray() == Array("000G-40R4-0M30-E209-185G-R38E-1W81-24GK".utf8))
        try await client.removeSlot(4, from: "login", proof: secure("pass"))
        try await client.relabelSlot(3, of: "login", to: "desk", proof: secure("pass"))
        #expect(try await client.unlock("login", recoveryCode: secure("000G40R40M30E209185GR38E1W8124GK")) == "login")
        try await client.rekey("login", proof: secure("old"), new: secure("new"), dropSlots: true)
        #expect(Set(fake.calls.map(\.member)) == Set(try ControlInterfaceFile.methods().map(\.name)))
    }

    @Test func slotSecretsReachTheDaemonThroughDescriptorsOnly() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        var request = SlotRequest()
        request.newPasscode = secure("second pass")
        request.label = "spare"
        _ = try await client.addSlot(to: "work", type: "passcode", request, proof: secure("first pass"))
        try await client.rekey("work", proof: secure("a code"), new: secure("new pass"), dropSlots: true)
        let calls = fake.calls
        #expect(calls.map(\.member) == ["AddSlot", "Rekey"])
        #expect(calls[0].strings == ["work", "passcode"])
        #expect(calls[0].passcodes == ["first pass", "second pass"])
        #expect(calls[1].passcodes == ["a code", "new pass"])
        #expect(calls[1].flags == ["drop_slots": true])
    }

    @Test func passcodesReachTheDaemonThroughDescriptorsByteForByte() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        _ = try await client.unlock("login", passcode: secure("hunter2 ✓"))
        try await client.changePasscode(of: "work", old: secure("old one"), new: secure("new one"))
        let calls = fake.calls
        #expect(calls.map(\.member) == ["Unlock", "ChangePasscode"])
        #expect(calls[0].strings == ["login"])
        #expect(calls[0].passcodes == ["hunter2 ✓"])
        #expect(calls[1].strings == ["work"])
        #expect(calls[1].passcodes == ["old one", "new one"])
    }

    @Test func createCollectionSendsItsOptions() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        _ = try await client.createCollection(label: "Diary", isPrivate: true, isHidden: true, passcode: secure("p"))
        #expect(fake.calls.first?.strings == ["Diary"])
        #expect(fake.calls.first?.flags == ["private": true, "hidden": true])
    }

    @Test func initAndCreateCollectionSendThePolicyOnlyWhenOneIsChosen() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        try await client.initialize(passcode: secure("123456"), policy: .digits6)
        try await client.initialize(passcode: secure("first pass"))
        _ = try await client.createCollection(
            label: "Phone", isPrivate: false, isHidden: false, policy: .numeric, minimumLength: 8,
            passcode: secure("12345678"))
        let calls = fake.calls
        #expect(calls.map(\.member) == ["Init", "Init", "CreateCollection"])
        #expect(calls.map(\.policy) == ["digits6", nil, "numeric"])
        #expect(calls.map(\.minimumLength) == [nil, nil, 8])
        #expect(calls[2].flags == ["private": false, "hidden": false])
    }

    @Test func aPolicyRefusalBecomesThePolicyErrorWithTheDaemonsReason() async throws {
        let fake = try await FakeControl()
        fake.fail("Init", with: "io.puff.Error.PasscodePolicy")
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        await #expect(throws: ClientError.passcodePolicy("scripted")) {
            try await client.initialize(passcode: secure("12345"), policy: .digits6)
        }
    }

    @Test func anErrorReplyBecomesTheClientErrorForItsCollection() async throws {
        let fake = try await FakeControl()
        fake.fail("Unlock", with: "io.puff.Error.WrongPasscode")
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        await #expect(throws: ClientError.wrongPasscode(collection: "work")) {
            try await client.unlock("work", passcode: secure("nope"))
        }
    }

    @Test func aReplyOfTheWrongShapeIsAnUnexpectedReply() async throws {
        let fake = try await FakeControl()
        fake.reply(to: "Compact", with: [.uint32(1)])
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        await #expect(throws: ClientError.unexpectedReply(member: "Compact")) { try await client.compact("") }
    }

    @Test func aNameOwnedWithoutTheControlObjectIsAnotherProvider() async throws {
        let fake = try await FakeControl(servesControl: false)
        let client = try await ControlClient.connect(address: fake.address, busName: FakeControl.busName)
        await #expect(throws: ClientError.otherProvider(busName: FakeControl.busName)) { try await client.status() }
    }

    @Test func aNameNobodyOwnsMeansPuffdIsNotRunning() async throws {
        let fake = try await FakeControl()
        let client = try await ControlClient.connect(address: fake.address, busName: "io.puff.Test.Nobody")
        await #expect(throws: ClientError.daemonNotRunning) { try await client.status() }
    }

    @Test func noBusAtTheAddressIsNoBus() async throws {
        let error = await #expect(throws: ClientError.self) {
            try await ControlClient.connect(address: "unix:path=/nonexistent/bus")
        }
        #expect(error?.exitStatus == .noDaemon)
    }
}
