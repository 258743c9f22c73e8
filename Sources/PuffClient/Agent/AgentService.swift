// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffCrypto
import PuffDBus
import PuffProtocol
import PuffSystem
import SystemPackage

/// `io.puff.Agent1` (dbus/io.puff.Agent1.xml) as `puffctl agent` serves it: each question is
/// asked in the terminal, one at a time, and the passcode goes into the pipe puffd sent along.
struct AgentService: ObjectTree {
    static let interfaceName = InterfaceName(ControlContract.Agent.interface)!
    static let path = ObjectPath(ControlContract.Agent.path)!

    let terminal: AgentTerminal
    /// The puffd the agent registered with: only the connection that owns its control name may
    /// ask, so another client of the bus cannot phish a passcode through the agent's terminal.
    let puffd: ControlClient
    /// One question at a time: the terminal has one person in front of it.
    let turns = DispatchQueue(label: "puffctl.agent")

    var interface: Interface {
        let terminal = self.terminal
        let turns = self.turns
        let puffd = self.puffd
        return Interface(
            Self.interfaceName,
            methods: [
                Method(
                    "Ask", in: [Argument("question", "a{sv}"), Argument("answer", "h")],
                    out: [Argument("answered", "b")]
                ) { call in
                    guard let question = call.arguments.first?.variantDictionary,
                        let answer = call.arguments.last?.unixFD
                    else { throw DBusError(.invalidArgs, "expected (a{sv}h)") }
                    guard await puffd.ownsControlName(call.context.sender) else {
                        throw DBusError(.accessDenied, "only puffd asks this agent")
                    }
                    let answered = await withCheckedContinuation { continuation in
                        turns.async { continuation.resume(returning: Self.ask(question, into: answer, on: terminal)) }
                    }
                    return [.boolean(answered)]
                },
                Method("Cancel") { call in
                    guard await puffd.ownsControlName(call.context.sender) else {
                        throw DBusError(.accessDenied, "only puffd asks this agent")
                    }
                    terminal.cancel()
                    return []
                },
            ])
    }

    func resolve(_ path: ObjectPath, context: CallContext) async -> ResolvedObject? {
        path == Self.path ? ResolvedObject(interfaces: [interface], object: "agent") : nil
    }

    func children(of path: ObjectPath, context: CallContext) async -> [String] { [] }

    /// Asks in the terminal and writes the passcode (or, about a read, the choice) into `answer`;
    /// false when there is none.
    static func ask(_ question: [String: DBusValue], into answer: UnixFD, on terminal: AgentTerminal) -> Bool {
        let text = AgentQuestion(question)
        terminal.show("\n" + text.description + "\n")
        if !text.error.isEmpty { terminal.show(text.error + "\n") }
        guard !text.unknown else {
            terminal.show("(declined)\n")
            return false
        }
        let passcode: SecureBytes
        do {
            passcode =
                try text.choices.isEmpty
                ? read(text, on: terminal, answer: answer.rawValue)
                : choose(text, on: terminal, answer: answer.rawValue)
        } catch .cancelled {
            terminal.show("(the prompt ended)\n")
            return false
        } catch {
            terminal.show("(declined)\n")
            return false
        }
        return passcode.withUnsafeBytes { bytes in
            (try? FileDescriptor(rawValue: answer.rawValue).writeFully(bytes)) != nil
        }
    }

    /// Reads a choice about a read: one of ``AgentQuestion/choices`` by its first letter; an empty
    /// line or anything else declines (this read is refused, nothing is remembered).
    private static func choose(_ text: AgentQuestion, on terminal: AgentTerminal, answer: Int32)
        throws(AgentTerminal.Outcome) -> SecureBytes
    {
        guard let word = text.choice(typed: try terminal.readAnswer(prompt: text.prompt, answer: answer)) else {
            throw .declined
        }
        return SecureBytes(unwipedCopyOf: Array(word.utf8))
    }

    /// How often two different new passcodes may be typed before the question is declined.
    static let repeatAttempts = 3

    /// Reads the passcode; a new one twice, until both match (compared in constant time).
    private static func read(_ text: AgentQuestion, on terminal: AgentTerminal, answer: Int32)
        throws(AgentTerminal.Outcome) -> SecureBytes
    {
        guard text.repeats else { return try terminal.readPasscode(prompt: text.prompt, answer: answer) }
        for _ in 1...repeatAttempts {
            let first = try terminal.readPasscode(prompt: text.prompt, answer: answer)
            let second = try terminal.readPasscode(prompt: "Repeat it:", answer: answer)
            if first.constantTimeEquals(second) { return first }
            terminal.show("The passcodes differ, try again.\n")
        }
        throw .declined
    }
}
