// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffText

/// The connection to the other bus of `import --bus`, with the bounds a possibly hostile provider
/// is read under (``LiveLimits``): every reply decoded within them, every call with a timeout,
/// anything the provider sends unasked thrown away.
struct LiveBus: Sendable {
    let connection: BusConnection
    let address: String
    /// `Prompt.Completed` signals, the only messages kept of what arrives unasked (the newest few).
    let completions: AsyncStream<IncomingMessage>

    /// Connects to the bus at `address`.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` when there is no bus there.
    static func connect(address: String) async throws(ClientError) -> LiveBus {
        let connection: BusConnection
        do {
            connection = try await BusConnection.connect(address: address)
        } catch let error as DBusError {
            throw .liveSource("cannot reach the bus at \(TerminalText.escaped(address)): \(error.message)")
        } catch {
            throw .liveSource("cannot reach the bus at \(TerminalText.escaped(address)): \(error)")
        }
        // Calls to us are never decoded and never answered; signals sent to us are dropped.
        connection.setDecodePolicy(
            DecodePolicy(
                maxValues: LiveLimits.maximumValues, maxBytes: LiveLimits.maximumReplyBytes, methodSignatures: [:]))
        connection.setMethodCallHandler { _ in }
        let (completions, sink) = AsyncStream<IncomingMessage>.makeStream(bufferingPolicy: .bufferingNewest(8))
        Task {
            for await message in connection.messages
            where message.kind == .signal && message.member == "Completed"
                && message.interface == LivePrompt.promptInterface.rawValue
            {
                sink.yield(message)
            }
            sink.finish()
        }
        return LiveBus(connection: connection, address: address, completions: completions)
    }

    func close() {
        connection.close()
    }

    /// The unique name of the connection that owns `org.freedesktop.secrets` there: every call
    /// goes to it, so a provider replaced half-way cannot mix its items in.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` when nobody owns the name, or puffd itself does.
    func provider() async throws(ClientError) -> String {
        let owner: String?
        do {
            owner = try await connection.nameOwner(of: LiveProviderSource.secretsName)
        } catch {
            throw .liveSource("the bus at \(TerminalText.escaped(address)) did not answer: \(error)")
        }
        guard let owner else {
            throw .liveSource(
                "nothing owns org.freedesktop.secrets on the bus at \(TerminalText.escaped(address)): start the other provider there first"
            )
        }
        // puffd owns its control name in the same process: importing Puff into itself is a mistake.
        if let control = BusName(ControlNames.busName), let puffd = try? await connection.nameOwner(of: control),
            let ownerPID = try? await connection.processID(of: owner),
            let puffdPID = try? await connection.processID(of: puffd), ownerPID == puffdPID
        {
            throw .liveSource(
                "\(SecretServiceContract.busName) on the bus at \(TerminalText.escaped(address)) is puffd itself, not another provider"
            )
        }
        return owner
    }

    /// One property (`org.freedesktop.DBus.Properties.Get`), unwrapped from its variant.
    func property(
        _ name: String, of path: ObjectPath, interface: InterfaceName, on provider: String
    ) async throws(ClientError) -> DBusValue {
        let reply = try await call(
            "Get", on: path, interface: "org.freedesktop.DBus.Properties",
            [.string(interface.rawValue), .string(name)],
            expecting: "v", provider: provider)
        return try reply[0].variantContents.orFail("\(name) is not a variant")
    }

    /// Every property of `interface` (`GetAll`).
    func properties(of path: ObjectPath, interface: InterfaceName, on provider: String) async throws(ClientError)
        -> [String: DBusValue]
    {
        let reply = try await call(
            "GetAll", on: path, interface: "org.freedesktop.DBus.Properties", [.string(interface.rawValue)],
            expecting: "a{sv}", provider: provider)
        return try reply[0].variantDictionary.orFail("the properties of \(path.rawValue) are not a{sv}")
    }

    /// One call to the provider; its reply must have `signature` and be within the limits.
    func call(
        _ member: MemberName, on path: ObjectPath, interface: InterfaceName, _ body: [DBusValue],
        expecting signature: String, provider: String
    ) async throws(ClientError) -> [DBusValue] {
        switch try await attempt(member, on: path, interface: interface, body, expecting: signature, provider: provider)
        {
        case .reply(let arguments): return arguments
        case .refused(let error):
            throw .liveSource(
                "the provider refused \(member.rawValue): \(TerminalText.escaped(error.message)) (\(error.name.rawValue))"
            )
        case .tooLarge(let limit): throw .liveSource("the reply to \(member.rawValue) is too large (\(limit))")
        }
    }

    /// How the provider answered a call.
    enum Answer {
        /// A well-formed reply within the limits.
        case reply([DBusValue])
        /// An error reply.
        case refused(DBusError)
        /// A reply over ``LiveLimits``; the text names the limit.
        case tooLarge(String)
    }

    /// ``call(_:on:interface:_:expecting:provider:)`` with an error reply or an oversized one
    /// returned, not thrown.
    func attempt(
        _ member: MemberName, on path: ObjectPath, interface: InterfaceName, _ body: [DBusValue],
        expecting signature: String, provider: String
    ) async throws(ClientError) -> Answer {
        let reply: IncomingMessage
        do {
            reply = try await connection.call(
                .methodCall(destination: provider, path: path, interface: interface, member: member, body),
                timeout: LiveLimits.callTimeout)
        } catch let error as DBusError {
            switch error.name {
            case .noReply:
                throw .liveSource(
                    "no answer to \(member.rawValue) (\(TerminalText.escaped(error.message)); calls wait at most \(LiveLimits.callTimeout))"
                )
            case .disconnected:
                throw .liveSource(
                    "the bus at \(TerminalText.escaped(address)) closed the connection during \(member.rawValue)")
            default: return .refused(error)
            }
        } catch {
            throw .liveSource("\(member.rawValue) failed: \(error)")
        }
        if case .limitExceeded(let limit)? = reply.undecodedBody { return .tooLarge(limit) }
        guard reply.undecodedBody == nil, reply.signature.rawValue == signature else {
            throw .liveSource(
                "a malformed reply: \(member.rawValue) answered '\(reply.signature.rawValue)', not '\(signature)'")
        }
        return .reply(reply.arguments)
    }
}
