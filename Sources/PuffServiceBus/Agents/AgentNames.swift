// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffService

/// `io.puff.Agent1` (dbus/io.puff.Agent1.xml), served by `puffctl agent`, and the question it gets.
enum AgentNames {
    /// The interface an agent serves.
    static let interface: InterfaceName = "io.puff.Agent1"
    /// Where `puffctl agent` serves it.
    static let path = ObjectPath("/io/puff/Agent")!

    /// The `a{sv}` of `Ask`: what is asked, of which collection, by whom, and why again.
    static func question(_ request: PromptRequest) -> [String: DBusValue] {
        var question: [String: DBusValue] = [
            "application": .string(request.application), "window_id": .string(request.windowID),
            "error": .string(request.error ?? ""), "policy": .string(request.policy?.requirement ?? ""),
        ]
        switch request.purpose {
        case .unlock(let collection, let label):
            question["purpose"] = .string("unlock")
            question["collection"] = .string(collection.rawValue)
            question["label"] = .string(label)
        }
        return question
    }
}
