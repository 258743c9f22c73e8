// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Glibc
import PuffCrypto
import PuffDBus

/// `io.puff.Agent1` (dbus/io.puff.Agent1.xml) as `puffctl agent` serves it: each question is
/// asked in the terminal, one at a time, and the passcode goes into the pipe puffd sent along.
struct AgentService: ObjectTree {
    static let interfaceName: InterfaceName = "io.puff.Agent1"
    static let path = ObjectPath("/io/puff/Agent")!

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
            var written = 0
            while written < bytes.count {
                let count = write(answer.rawValue, bytes.baseAddress! + written, bytes.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
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

/// What an `Ask` question says, in words for the terminal.
struct AgentQuestion {
    var name: String
    var description: String
    var error: String
    /// What to type, with the policy's requirement: "Passcode for “Login” (6 digits):".
    var prompt: String
    /// Whether a new passcode is asked, typed twice.
    var repeats: Bool
    /// For a question about a read, the words the agent may answer (dbus/io.puff.Agent1.xml);
    /// empty when a passcode is asked.
    var choices: [String] = []

    /// The choice a typed answer names: a word of ``choices`` or its beginning ("a", "alw");
    /// nil for an empty line or anything else, which declines.
    func choice(typed: String) -> String? {
        guard !typed.isEmpty else { return nil }
        return choices.first { $0.hasPrefix(typed) }
    }

    init(_ question: [String: DBusValue]) {
        // Labels and executable paths come from clients: never a terminal command.
        func text(_ key: String) -> String { TerminalText.escaped(question[key]?.string ?? "") }
        let collection = text("collection")
        let label = text("label")
        name = label.isEmpty ? collection : label
        let application = question["application"] == nil ? "an application" : text("application")
        error = text("error")
        let policy = text("policy")
        let hint = policy.isEmpty ? "" : " (\(policy))"
        repeats = question["repeat"]?.bool ?? false
        switch question["purpose"]?.string ?? "unlock" {
        case "create":
            description = "\(application) wants to create the collection “\(name)”."
            prompt = "New passcode for “\(name)”\(hint):"
        case "current-passcode":
            description = "\(application) wants to change the passcode of the collection “\(name)”."
            prompt = "Current passcode of “\(name)”:"
        case "previous-login-password":
            description =
                "Your login password changed, but the collection “\(name)” still opens with the previous one."
            prompt = "Previous login password:"
        case "confirm-read":
            description = "\(application) wants to read the protected item “\(name)”."
            prompt = "Release its secret this once? [o]nce / [d]eny (Enter: deny):"
            choices = ["once", "deny"]
        case "delete-collection":
            var items: UInt64 = 0
            if case .uint64(let count)? = question["items"] { items = count }
            description =
                "\(application) wants to delete the collection “\(name)” and its \(items) item\(items == 1 ? "" : "s")."
            prompt = "Delete it? [d]elete / [k]eep (Enter: keep):"
            choices = ["delete", "keep"]
        case "allow-read":
            description = "\(application) wants to read the item “\(name)” for the first time."
            prompt = "Allow [o]nce, [a]lways, or [d]eny from now on? (Enter: refuse this time only):"
            choices = ["once", "always", "deny"]
        case "confirm-change":
            let change = question["change"] == nil ? "change the protection of “\(name)”" : text("change")
            description = "\(application) wants to \(change)."
            prompt = "Allow this change? [o]nce / [d]eny (Enter: deny):"
            choices = ["once", "deny"]
        case "new-passcode":
            description = "Choose the new passcode of the collection “\(name)”."
            prompt = "New passcode for “\(name)”\(hint):"
        default:
            description = "\(application) wants to unlock the collection “\(name)”."
            prompt = "Passcode for “\(name)”\(hint):"
        }
    }
}
