// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffProtocol
import PuffService

/// `io.puff.Agent1` (dbus/io.puff.Agent1.xml), served by `puffctl agent`, and the question it gets.
enum AgentNames {
    /// The interface an agent serves.
    static let interface = InterfaceName(ControlContract.Agent.interface)!
    /// Where `puffctl agent` serves it.
    static let path = ObjectPath(ControlContract.Agent.path)!

    /// The word an agent writes into the answer pipe to type something instead of touching a
    /// security key; anything else, or no answer, cancels.
    static let typeInstead = "type"

    /// The word an agent writes into the answer pipe for each choice about a read.
    static func choice(_ word: String) -> AccessChoice? {
        AccessChoice(rawValue: word)
    }

    /// The `a{sv}` of `Ask`: what is asked, of which collection, by whom, and why again.
    static func question(_ request: PromptRequest) -> [String: DBusValue] {
        var question: [String: DBusValue] = [
            ControlKey.application: .string(request.application), ControlKey.windowID: .string(request.windowID),
            ControlKey.error: .string(request.error ?? ""),
            ControlKey.policy: .string(request.policy?.requirement ?? ""),
        ]
        let (purpose, collection): (String, String) =
            switch request.purpose {
            case .unlock(let collection, _, _): ("unlock", collection.rawValue)
            case .touchSecurityKey(let collection, _, _, _): ("touch-security-key", collection.rawValue)
            case .securityKeyPIN(let collection, _, _, _): ("security-key-pin", collection.rawValue)
            case .create: ("create", "")
            case .currentPasscode(let collection, _): ("current-passcode", collection.rawValue)
            case .newPasscode(let collection, _): ("new-passcode", collection.rawValue)
            case .previousLoginPassword(let collection, _): ("previous-login-password", collection.rawValue)
            case .confirmRead(let item, _): ("confirm-read", item.collection.rawValue)
            case .allowRead(let item, _): ("allow-read", item.collection.rawValue)
            case .confirmChange(let collection, _, _): ("confirm-change", collection.rawValue)
            case .deleteCollection(let collection, _, _): ("delete-collection", collection.rawValue)
            }
        switch request.purpose {
        case .confirmRead(let item, _), .allowRead(let item, _): question[ControlKey.item] = .uint64(item.number)
        case .confirmChange(_, _, let change): question[ControlKey.change] = .string(change)
        case .deleteCollection(_, _, let items): question[ControlKey.items] = .uint64(UInt64(items))
        case .unlock(_, _, let slot):
            question[ControlKey.slot] = .string(slot.agentWord)
            if case .securityKeyPasscode(let slotLabel) = slot { question[ControlKey.slotLabel] = .string(slotLabel) }
        case .touchSecurityKey(_, _, let slotLabel, let instead):
            question[ControlKey.slotLabel] = .string(slotLabel)
            question[ControlKey.instead] = .string(instead?.agentWord ?? "")
        case .securityKeyPIN(_, _, let slotLabel, let retries):
            question[ControlKey.slotLabel] = .string(slotLabel)
            question[ControlKey.retries] = .int32(retries.map { Int32(clamping: $0) } ?? -1)
        default: break
        }
        question[ControlKey.purpose] = .string(purpose)
        question[ControlKey.collection] = .string(collection)
        question[ControlKey.label] = .string(request.purpose.collectionName)
        // The agent asks a new passcode twice and answers once both match.
        question[ControlKey.repeats] = .boolean(request.purpose.asksNewPasscode)
        return question
    }
}
