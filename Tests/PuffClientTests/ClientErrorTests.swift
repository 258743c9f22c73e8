// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffClient
import PuffDBus
import Testing

/// Error replies to exit statuses, checked against the names as `dbus/io.puff.Control1.xml` and
/// the D-Bus specification spell them, not against puffctl's own constants.
struct ClientErrorTests {
    private static let table: [(name: String, status: Int32)] = [
        ("io.puff.Error.WrongPasscode", 2),
        ("io.puff.Error.IsLocked", 3),
        ("org.freedesktop.Secret.Error.IsLocked", 3),
        ("io.puff.Error.NotInitialized", 3),
        ("io.puff.Error.NoSuchCollection", 4),
        ("org.freedesktop.Secret.Error.NoSuchObject", 4),
        ("org.freedesktop.DBus.Error.ServiceUnknown", 5),
        ("org.freedesktop.DBus.Error.NameHasNoOwner", 5),
        ("org.freedesktop.DBus.Error.Spawn.ChildExited", 5),
        ("org.freedesktop.DBus.Error.UnknownObject", 5),
        ("org.freedesktop.DBus.Error.UnknownMethod", 5),
        ("org.freedesktop.DBus.Error.UnknownInterface", 5),
        ("org.freedesktop.DBus.Error.NoReply", 5),
        ("org.freedesktop.DBus.Error.Disconnected", 5),
        ("io.puff.Error.AlreadyInitialized", 1),
        ("io.puff.Error.PasscodePolicy", 1),
        ("io.puff.Error.Damaged", 1),
        ("io.puff.Error.NotConfirmed", 1),
        ("io.puff.Error.Hardware", 1),
        ("io.puff.Error.LastSlot", 1),
        ("io.puff.Error.WouldDropSlots", 1),
        ("io.puff.Error.NoSuchSlot", 4),
        ("io.puff.Error.SecurityKeyPIN", 2),
        ("io.puff.Error.Offline", 1),
        ("org.freedesktop.DBus.Error.AccessDenied", 1),
        ("org.freedesktop.DBus.Error.InvalidArgs", 1),
        ("org.example.Unheard.Of", 1),
    ]

    private static func mapped(_ name: String, collection: String? = "login") -> ClientError {
        ClientError(DBusError(ErrorName(name)!, "text from the daemon"), collection: collection)
    }

    @Test(arguments: table)
    func eachErrorNameExitsWithItsStatus(_ name: String, _ status: Int32) {
        #expect(Self.mapped(name).exitStatus.rawValue == status)
    }

    @Test func everyPuffErrorNameInTheInterfaceFileHasItsOwnMapping() throws {
        let xml = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("dbus/io.puff.Control1.xml"),
            encoding: .utf8)
        let names = xml.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("io.puff.Error.") }
        #expect(names.count == 14)
        for name in names {
            if case .failed = Self.mapped(String(name)) { Issue.record("\(name) falls through to the generic failure") }
            #expect(Self.table.contains { $0.name == name }, "\(name) is missing from this test's table")
        }
    }

    @Test func everyFailureMessageIsOneLine() {
        for (name, _) in Self.table {
            #expect(!Self.mapped(name).message.contains("\n"))
        }
    }

    @Test func aWrongPasscodeNamesTheCollectionAndSaysToTryAgain() {
        #expect(Self.mapped("io.puff.Error.WrongPasscode").message == "wrong passcode for 'login'; try again")
        #expect(Self.mapped("io.puff.Error.WrongPasscode", collection: "").message.contains("hidden"))
    }

    @Test func noDaemonSaysHowToStartIt() {
        let message = Self.mapped("org.freedesktop.DBus.Error.ServiceUnknown").message
        #expect(message.contains("puffd is not running"))
        #expect(message.contains("systemctl --user start puffd"))
    }

    @Test func anotherProviderIsNamedAsSuch() {
        let error = ClientError(
            DBusError(ErrorName("org.freedesktop.DBus.Error.UnknownObject"), ""), busName: "org.freedesktop.secrets")
        #expect(error.message == "org.freedesktop.secrets is owned by another provider (not puffd); stop it first")
    }

    @Test func noPasscodeSetSaysToRunInit() {
        #expect(Self.mapped("io.puff.Error.NotInitialized").message == "no passcode set: run `puffctl init`")
    }

    @Test func thePolicyRefusalSaysWhatIsNeededAndWhatToDo() {
        let error = ClientError(
            DBusError(ErrorName("io.puff.Error.PasscodePolicy"), "the passcode must be 6 digits (policy digits6)"))
        #expect(error == .passcodePolicy("the passcode must be 6 digits (policy digits6)"))
        #expect(
            error.message
                == "the passcode must be 6 digits (policy digits6); nothing was changed, try again with one that fits")
        #expect(error.exitStatus == .usage)
    }

    @Test func noBusAtAllIsStatusFive() {
        #expect(ClientError.noBus("no address").exitStatus.rawValue == 5)
    }
}
