// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Testing

@testable import PuffClient

/// The command line, parsed in-process.
struct ParsingTests {
    private func parse<C: ParsableCommand>(_ arguments: [String], as type: C.Type) throws -> C {
        try #require(try Puffctl.parseAsRoot(arguments) as? C)
    }

    @Test func unlockWithNoCollectionMeansTheDefaultOneFromTheTerminal() throws {
        let command = try parse(["unlock"], as: Unlock.self)
        #expect(command.collection == nil)
        #expect(!command.hidden)
        #expect(command.passcode.source == .terminal)
        #expect(command.connection.busName == "io.puff.Control")
        #expect(command.connection.address == nil)
    }

    @Test func unlockTakesACollectionAndStdin() throws {
        let command = try parse(["unlock", "work", "--stdin"], as: Unlock.self)
        #expect(command.collection == "work")
        #expect(command.passcode.source == .standardInput)
    }

    @Test func connectionOptionsOverrideTheBusAndTheName() throws {
        let command = try parse(
            ["status", "--json", "--address", "unix:path=/tmp/bus", "--bus-name", "io.puff.Test"], as: Status.self)
        #expect(command.output.json)
        #expect(command.connection.address == "unix:path=/tmp/bus")
        #expect(command.connection.busName == "io.puff.Test")
    }

    @Test func anInvalidBusNameIsRefused() {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["status", "--bus-name", "not a name"]) }
    }

    @Test(arguments: [
        ["unlock", "--passcode", "hunter2"],
        ["unlock", "--password", "hunter2"],
        ["unlock", "login", "hunter2"],
        ["init", "hunter2"],
        ["passwd", "login", "old", "new"],
        ["collection", "create", "work", "hunter2"],
    ])
    func aPasscodeOnTheCommandLineIsRefused(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(arguments) }
    }

    @Test func aUsageErrorExitsWithOneNotSixtyFour() async {
        #expect(await Puffctl.run(arguments: ["unlock", "--passcode", "hunter2"]) == 1)
    }

    @Test func helpExitsWithZero() async {
        #expect(await Puffctl.run(arguments: ["lock", "--help"]) == 0)
    }

    @Test func stdinAndAPasscodeDescriptorExcludeEachOther() {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["unlock", "--stdin", "--passcode-fd", "3"]) }
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["init", "--passcode-fd", "-1"]) }
    }

    @Test func passwdTakesTwoLinesFromOneDescriptorUnlessGivenASecond() throws {
        let one = try parse(["passwd", "--passcode-fd", "3"], as: ChangePasscode.self)
        #expect(one.passcodes.oldSource == .descriptor(3))
        #expect(one.passcodes.newSource == .descriptor(3))
        let two = try parse(
            ["passwd", "work", "--passcode-fd", "3", "--new-passcode-fd", "4"], as: ChangePasscode.self)
        #expect(two.collection == "work")
        #expect(two.passcodes.oldSource == .descriptor(3))
        #expect(two.passcodes.newSource == .descriptor(4))
        let stdin = try parse(["passwd", "--stdin"], as: ChangePasscode.self)
        #expect(stdin.passcodes.oldSource == .standardInput)
        #expect(stdin.passcodes.newSource == .standardInput)
    }

    @Test func initAndCollectionCreateTakeAPolicyAndAMinimumLength() throws {
        let initialize = try parse(["init", "--policy", "digits6", "--stdin"], as: Initialize.self)
        #expect(initialize.policy.policy == .digits6)
        #expect(initialize.policy.minimumLength == nil)
        let create = try parse(
            ["collection", "create", "Phone", "--policy", "numeric", "--min-length", "8"], as: CreateCollection.self)
        #expect(create.policy.policy == .numeric)
        #expect(create.policy.minimumLength == 8)
        let plain = try parse(["init"], as: Initialize.self)
        #expect(plain.policy.policy == nil, "puffd's default")
    }

    @Test(arguments: [
        ["init", "--policy", "pin"],
        ["init", "--policy", "digits6", "--min-length", "8"],
        ["init", "--policy", "numeric", "--min-length", "3"],
        ["collection", "create", "x", "--min-length", "0"],
        ["collection", "create", "x", "--min-length", "256"],
    ])
    func aPolicyThatCannotBeIsRefusedBeforeAnyPasscodeIsAskedFor(_ arguments: [String]) async {
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(arguments) }
        #expect(await Puffctl.run(arguments: arguments) == 1)
    }

    @Test func unlockHiddenTakesNoCollection() throws {
        #expect(try parse(["unlock", "--hidden"], as: Unlock.self).hidden)
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["unlock", "work", "--hidden"]) }
    }

    @Test func lockTakesACollectionOrAllButNotBoth() throws {
        #expect(try parse(["lock"], as: Lock.self).collection == nil)
        #expect(try parse(["lock", "--all"], as: Lock.self).all)
        #expect(try parse(["lock", "work"], as: Lock.self).collection == "work")
        #expect(throws: (any Error).self) { try Puffctl.parseAsRoot(["lock", "work", "--all"]) }
    }

    @Test func listTakesACollectionAndJSON() throws {
        let command = try parse(["list", "--collection", "work", "--json"], as: ListItems.self)
        #expect(command.collection == "work")
        #expect(command.output.json)
    }

    @Test func collectionSubcommandsParse() throws {
        let create = try parse(["collection", "create", "Work", "--hidden", "--stdin"], as: CreateCollection.self)
        #expect(create.name == "Work")
        #expect(create.isHidden)
        #expect(!create.isPrivate)
        #expect(create.passcode.source == .standardInput)
        #expect(try parse(["collection", "delete", "work"], as: DeleteCollection.self).collection == "work")
        let rename = try parse(["collection", "rename", "work", "Day job"], as: RenameCollection.self)
        #expect(rename.collection == "work")
        #expect(rename.label == "Day job")
        #expect(try parse(["collection", "list", "--json"], as: ListCollections.self).output.json)
        #expect(try parse(["collection", "default", "work"], as: SetDefaultCollection.self).collection == "work")
    }

    @Test func compactWithNoCollectionMeansAll() throws {
        #expect(try parse(["compact"], as: Compact.self).collection == nil)
        #expect(try parse(["compact", "work"], as: Compact.self).collection == "work")
    }

    @Test func initTakesStdin() throws {
        #expect(try parse(["init", "--stdin"], as: Initialize.self).passcode.source == .standardInput)
    }
}
