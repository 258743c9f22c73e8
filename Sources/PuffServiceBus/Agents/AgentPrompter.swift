import PuffConcurrency
import PuffCrypto
// SPDX-License-Identifier: Apache-2.0
public import PuffDBus
public import PuffService
import Synchronization

/// Asks the `puffctl agent` registered last, over the bus (dbus/io.puff.Agent1.xml); a later
/// agent gets its place only with the person's yes (``SecretInterfaces/agentMethods(_:)``).
///
/// An agent answers in its terminal and writes the passcode into a pipe whose write end travels
/// with the question, so the passcode never crosses the bus. When an agent leaves the bus, or
/// vanishes in the middle of a question, the agent registered before it is asked instead.
public final class AgentPrompter: Prompter, Sendable {
    /// `"agent"`.
    public static let kind = "agent"
    /// The longest a question may wait for an agent's answer; the prompt's own timeout is shorter
    /// and tells the agent to stop asking.
    static let answerTimeout = Duration.seconds(600)

    /// One registered agent: the connection that registered it and the object it serves.
    struct Agent: Equatable {
        var owner: String
        var path: ObjectPath
    }

    private let connection: BusConnection
    private let agents = Mutex<[Agent]>([])

    /// A prompter asking agents through `connection`, the daemon's bus connection.
    public init(connection: BusConnection) {
        self.connection = connection
    }

    /// Adds an agent; it is asked before every agent registered earlier.
    func register(owner: String, path: ObjectPath) {
        agents.withLock { list in
            list.removeAll { $0 == Agent(owner: owner, path: path) }
            list.append(Agent(owner: owner, path: path))
        }
    }

    /// Whether an agent of another connection than `owner` is registered.
    func hasAgent(otherThan owner: String) -> Bool {
        agents.withLock { list in list.contains { $0.owner != owner } }
    }

    /// Removes one agent; false when it was not registered by `owner`.
    func unregister(owner: String, path: ObjectPath) -> Bool {
        agents.withLock { list in
            let before = list.count
            list.removeAll { $0 == Agent(owner: owner, path: path) }
            return list.count < before
        }
    }

    /// Forgets every agent of a connection that left the bus.
    public func clientLeft(_ name: String) {
        agents.withLock { $0.removeAll { $0.owner == name } }
    }

    /// Reachable while an agent is registered.
    public func canReachPerson() async -> Bool {
        agents.withLock { !$0.isEmpty }
    }

    /// Asks the newest agent; one that is gone is dropped and the next asked.
    public func prompt(_ request: PromptRequest) async throws -> PromptReply {
        while let agent = agents.withLock({ $0.last }) {
            do {
                return try await ask(agent, request)
            } catch let error as DBusError where Self.agentIsGone(error) {
                agents.withLock { list in list.removeAll { $0 == agent } }
            }
        }
        return .dismissed
    }

    /// Errors after which the agent cannot answer any more.
    static func agentIsGone(_ error: DBusError) -> Bool {
        [
            ErrorName.noReply, .disconnected, .unknownObject, .unknownMethod, .unknownInterface,
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        ].contains(error.name)
    }

    private func ask(_ agent: Agent, _ request: PromptRequest) async throws -> PromptReply {
        let connection = self.connection
        // Held until the answer is read, or let go when the prompt ends first: the agent then sees
        // the pipe's read end closed and withdraws the question (an agent's lane runs `Cancel` only
        // after `Ask` returns, so the pipe is what tells it).
        let reader = Mutex<UnixFD?>(nil)
        let answered: Bool
        do {
            // The write end goes to the agent inside the message; ours closes with this block, so
            // the read below sees end of file once the agent has closed its copy.
            let writer: UnixFD
            do {
                let ends = try UnixFD.pipe()
                reader.withLock { $0 = ends.read }
                writer = ends.write
            } catch {
                throw DBusError(.failed, "no pipe for the agent's answer")
            }
            answered = try await withTaskCancellationHandler {
                let message = OutgoingMessage.methodCall(
                    destination: agent.owner, path: agent.path, interface: AgentNames.interface, member: "Ask",
                    [.variantDictionary(AgentNames.question(request)), .unixFD(writer)])
                let reply = try await connection.call(message, timeout: Self.answerTimeout)
                guard let answered = reply.arguments.first?.bool else {
                    throw DBusError(.failed, "the agent's answer is not a boolean")
                }
                return answered
            } onCancel: {
                reader.withLock { $0 = nil }
                connection.send(
                    .methodCall(
                        destination: agent.owner, path: agent.path, interface: AgentNames.interface, member: "Cancel"))
            }
        }
        guard answered, let answer = reader.withLock({ $0.take() }) else { return .dismissed }
        let passcode = try await CallSlot.released { () async throws(ServiceError) in
            try await BlockingWork.run { () throws(ServiceError) in try PasscodePipe.read(answer) }
        }
        guard request.purpose.isConfirmation else { return .passcode(passcode) }
        // A question about a read, a change or a deletion is answered with one word, not a passcode.
        let word = String(decoding: passcode.unprotectedArray(), as: UTF8.self)
        if case .deleteCollection = request.purpose { return word == "delete" ? .confirmed : .dismissed }
        if case .touchSecurityKey(_, _, _, let instead) = request.purpose {
            return instead != nil && word == AgentNames.typeInstead ? .typeInstead : .dismissed
        }
        return AgentNames.choice(word).map { .access($0) } ?? .dismissed
    }
}
