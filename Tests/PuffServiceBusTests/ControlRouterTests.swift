// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
import PuffDBus
import PuffProtocol
import PuffService
import Testing

@testable import PuffServiceBus

/// `io.puff.Control1` with no bus (design core-reshaped §8): its methods are the wire contract's
/// (``ControlContract/Method``), a call of another shape is refused with `InvalidArgs` before any
/// handler runs, and a call of the right shape reaches its handler with typed arguments.
struct ControlRouterTests {
    typealias H = SecretRouterHarness
    typealias Contract = ControlContract.Method
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    @Test func theControlObjectServesEveryMethodOfTheContractWithItsArgumentsAndNoOther() async throws {
        let harness = try await H()
        let served = SecretInterfaces.control(BusContext(service: harness.service)).methods
        #expect(served.map(\.name.rawValue).sorted() == Contract.all.map(\.name).sorted())
        for method in served {
            let contract = try #require(Contract.all.first { $0.name == method.name.rawValue })
            let inputs = method.inputs.map { Contract.Argument(name: $0.name, signature: $0.signature.rawValue) }
            let outputs = method.outputs.map { Contract.Argument(name: $0.name, signature: $0.signature.rawValue) }
            #expect(inputs == contract.inputs, "\(contract.name)")
            #expect(outputs == contract.outputs, "\(contract.name)")
        }
    }

    @Test func everyControlMethodCalledWithTheWrongSignatureAnswersInvalidArgs() async throws {
        let harness = try await H()
        // No method of the contract takes a lone `u`; each is sent one, and each with no arguments
        // but those that take none.
        for method in Contract.all {
            #expect(try await harness.controlError(method.name, [.uint32(7)]) == Self.invalidArgs, "\(method.name)")
            if !method.inputs.isEmpty {
                #expect(try await harness.controlError(method.name) == Self.invalidArgs, "\(method.name)")
            }
        }
    }

    @Test func aHandlerCalledDirectlyWithAValueOfAnotherTypeThrowsInvalidArgs() async throws {
        let harness = try await H()
        // The router never lets such a call through; the typed inputs refuse it all the same.
        let call = harness.directCall([.uint32(7)])
        let refused = await #expect(throws: DBusError.self) {
            _ = try await harness.controlHandler(Contract.listSlots.name)(call)
        }
        #expect(refused?.name == .invalidArgs)
    }

    @Test func collectionCallsReachTheirHandlers() async throws {
        let harness = try await H()
        #expect(
            try await harness.control(Contract.renameCollection.name, [.string("login"), .string("Personal")]).isEmpty)
        #expect(
            try await harness.property(H.login, SecretServiceContract.Interface.collection, "Label")?.string
                == "Personal")
        let deleted = try await harness.control(Contract.deletedCollections.name)
        #expect(deleted.first?.elements?.isEmpty == true)
    }

    @Test func accessCallsReachTheirHandlersWithTheItemAndTheConsent() async throws {
        let harness = try await H()
        let item = try #require(ObjectPath(try await harness.createItem()))
        let none = DBusValue.dictionary(key: "s", value: "v", [])
        #expect(
            try await harness.control(Contract.setProtected.name, [.objectPath(item), .boolean(true), none]).isEmpty)
        let listed = try await harness.control(Contract.listAccess.name, [.objectPaths([item])])
        let entry = try #require(listed.first?.elements?.first?.variantDictionary)
        #expect(entry[ControlContract.Key.protected]?.bool == true)
        let missing = try #require(ObjectPath(H.login + "/99"))
        #expect(
            try await harness.controlError(Contract.setProtected.name, [.objectPath(missing), .boolean(true), none])
                == SecretServiceContract.ErrorName.noSuchObject)
    }

    @Test func auditReachesItsHandlerWhichSaysThatAnEphemeralVaultKeepsNoLog() async throws {
        let harness = try await H()
        let after = DBusValue.dictionary(key: "s", value: "t", [.init(.string("login"), .uint64(3))])
        let refused = try await harness.controlError(
            Contract.audit.name, [.uint64(0), .string(""), after, .uint32(0)])
        #expect(refused == "org.freedesktop.DBus.Error.NotSupported")
    }

    @Test func backupCallsReachTheirHandlers() async throws {
        let harness = try await H()
        let verified = try await harness.control(Contract.verify.name)
        #expect(DBusValue.signature(of: verified).rawValue == Contract.verify.outputSignature)
        // A pipe is no archive: the handler looked at the descriptor it was given.
        let pipe = try UnixFD.pipe()
        let refused = await #expect(throws: ServiceError.self) {
            _ = try await harness.controlHandler(Contract.backup.name)(harness.directCall([.unixFD(pipe.write)]))
        }
        #expect(refused == .invalidArgument("the archive must be a regular file"))
    }

    @Test func slotCallsReachTheirHandlers() async throws {
        let harness = try await H()
        #expect(
            try await harness.controlError(Contract.listSlots.name, [.string("nothing")])
                == ControlContract.ErrorName.noSuchCollection)
        let slot = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(ControlContract.Key.slot), .variant(.string("1")))])
        let refused = try await harness.controlReply(Contract.unlockWith.name, [.string("login"), slot])
        #expect(refused.errorName == Self.invalidArgs)
        #expect(refused.arguments.first?.string == "slot must be q")
    }

    @Test func exportReadsTheConsentFromItsOptions() async throws {
        let harness = try await H()
        let pipe = try UnixFD.pipe()
        let options = DBusValue.dictionary(
            key: "s", value: "v", [.init(.string(ControlContract.Key.passcode), .variant(.string("no pipe")))])
        let refused = await #expect(throws: ServiceError.self) {
            _ = try await harness.controlHandler(Contract.exportItems.name)(
                harness.directCall([.string("login"), .unixFD(pipe.write), options]))
        }
        #expect(refused == .invalidArgument("passcode must be a pipe's descriptor (h)"))
    }
}

extension SecretRouterHarness {
    /// The control object's router over this harness's service.
    var controlRouter: SecretRouter.Built {
        ControlBus.router(
            BusContext(service: service), logger: Logger(label: "control", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// The decoded reply to the control method `member`, from puffd's own user.
    func controlReply(_ member: String, _ arguments: [DBusValue] = []) async throws -> IncomingMessage {
        let built = controlRouter
        let message = try WireCodec.deliver(
            .methodCall(
                destination: ControlContract.busName, path: ObjectPath(unchecked: ControlContract.path),
                interface: try #require(InterfaceName(ControlContract.interface)),
                member: try #require(MemberName(member)), arguments),
            from: Self.alice, policy: built.decodePolicy)
        let reply = try #require(
            await built.router.handle(message, context: CallContext(sender: Self.alice, uid: getuid())))
        return try WireCodec.deliver(reply, from: ":1.0")
    }

    /// The body of a successful control reply; records an issue for an error.
    func control(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        let reply = try await controlReply(member, arguments)
        #expect(reply.kind == .methodReturn, "\(member): \(reply.errorName ?? "")")
        return reply.arguments
    }

    /// The error name a control call is answered with; nil for a successful reply.
    func controlError(_ member: String, _ arguments: [DBusValue] = []) async throws -> String? {
        let reply = try await controlReply(member, arguments)
        return reply.kind == .error ? reply.errorName : nil
    }

    /// The handler of the control method `member`, to call with what no message can carry here
    /// (descriptors).
    func controlHandler(_ member: String) throws -> @Sendable (MethodCall) async throws -> [DBusValue] {
        let methods = SecretInterfaces.control(BusContext(service: service)).methods
        return try #require(methods.first { $0.name.rawValue == member }).handler
    }

    /// A control call from puffd's own user carrying `arguments`.
    func directCall(_ arguments: [DBusValue]) -> MethodCall {
        MethodCall(
            path: ObjectPath(unchecked: ControlContract.path), context: CallContext(sender: Self.alice, uid: getuid()),
            arguments: arguments, object: SecretObject.control)
    }
}
