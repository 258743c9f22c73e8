// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffText

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
        let collection = text(ControlKey.collection)
        let label = text(ControlKey.label)
        name = label.isEmpty ? collection : label
        let application = question[ControlKey.application] == nil ? "an application" : text(ControlKey.application)
        error = text(ControlKey.error)
        let policy = text(ControlKey.policy)
        let hint = policy.isEmpty ? "" : " (\(policy))"
        repeats = question[ControlKey.repeats]?.bool ?? false
        let slotLabel = text(ControlKey.slotLabel)
        switch question[ControlKey.purpose]?.string ?? "unlock" {
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
            if case .uint64(let count)? = question[ControlKey.items] { items = count }
            description =
                "\(application) wants to delete the collection “\(name)” and its \(items) item\(items == 1 ? "" : "s")."
            prompt = "Delete it? [d]elete / [k]eep (Enter: keep):"
            choices = ["delete", "keep"]
        case "allow-read":
            description = "\(application) wants to read the item “\(name)” for the first time."
            prompt = "Allow [o]nce, [a]lways, or [d]eny from now on? (Enter: refuse this time only):"
            choices = ["once", "always", "deny"]
        case "confirm-change":
            let change =
                question[ControlKey.change] == nil ? "change the protection of “\(name)”" : text(ControlKey.change)
            description = "\(application) wants to \(change)."
            prompt = "Allow this change? [o]nce / [d]eny (Enter: deny):"
            choices = ["once", "deny"]
        case "new-passcode":
            description = "Choose the new passcode of the collection “\(name)”."
            prompt = "New passcode for “\(name)”\(hint):"
        case "unlock":
            description = "\(application) wants to unlock the collection “\(name)”."
            prompt = Self.unlockPrompt(
                slot: question[ControlKey.slot]?.string ?? "passcode", slotLabel, name, hint: hint)
        case "touch-security-key":
            description =
                "\(application) wants to unlock the collection “\(name)”.\n"
                + "Touch the security key “\(slotLabel)” now."
            let instead = Self.noun(question[ControlKey.instead]?.string ?? "")
            if let instead {
                prompt = "[t]ype the \(instead) instead, or [c]ancel (Enter: cancel):"
                choices = ["type", "cancel"]
            } else {
                prompt = "[c]ancel (Enter: cancel):"
                choices = ["cancel"]
            }
        case "security-key-pin":
            description = "\(application) wants to unlock the collection “\(name)”."
            var retries: Int32 = -1
            if case .int32(let count)? = question[ControlKey.retries] { retries = count }
            let left =
                retries < 0 ? "" : " (\(retries) \(retries == 1 ? "try" : "tries") left before the key blocks it)"
            prompt = "PIN of the security key “\(slotLabel)”\(left):"
        default:
            // A question of a newer puffd: asking it for a passcode could hand over the wrong secret.
            description = "puffd asks a question this puffctl does not know; update puffctl to answer it."
            prompt = ""
            unknown = true
        }
    }

    /// Whether the question is one this agent does not know: declined without reading anything.
    var unknown = false

    /// What the `slot` and `instead` words of dbus/io.puff.Agent1.xml ask to type; nil for "".
    static func noun(_ word: String) -> String? {
        switch word {
        case "": nil
        case "recovery": "recovery code"
        case "passcode-or-recovery": "passcode or recovery code"
        case "login": "login password"
        default: "passcode"
        }
    }

    /// The prompt of an unlock, naming what to type: "Recovery code for “Login”:".
    private static func unlockPrompt(slot: String, _ slotLabel: String, _ name: String, hint: String) -> String {
        switch slot {
        case "recovery": "Recovery code for “\(name)” (XXXX-XXXX-…):"
        case "passcode-or-recovery": "Passcode\(hint) or recovery code for “\(name)”:"
        case "login": "Login password for “\(name)”:"
        case "fido2+passcode":
            "Passcode for “\(name)” with the security key “\(slotLabel)”\(hint) (the key is asked next):"
        default: "Passcode for “\(name)”\(hint):"
        }
    }
}
