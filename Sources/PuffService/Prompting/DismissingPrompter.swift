// SPDX-License-Identifier: Apache-2.0
public import Logging

/// Dismisses every prompt at once: what CI and headless machines get, like gnome-keyring without a
/// system prompter (secret-service.md §6.11). Logs the `puffctl unlock` command that would help.
public struct DismissingPrompter: Prompter {
    /// `"none"`.
    public static let kind = "none"
    private let logger: Logger

    /// Creates the prompter; `logger` receives one notice per dismissed prompt.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs a hint and answers ``PromptReply/dismissed``.
    public func prompt(_ request: PromptRequest) async throws -> PromptReply {
        let hint =
            switch request.purpose {
            case .unlock(let collection, _, _), .touchSecurityKey(let collection, _, _, _),
                .securityKeyPIN(let collection, _, _, _):
                "To unlock, run: puffctl unlock \(collection.rawValue)"
            case .create where request.setsFirstPasscode:
                "The vault has no passcode yet. To set it (and create login), run: puffctl init"
            case .create: "To create a collection, run: puffctl collection create"
            case .currentPasscode(let collection, _), .newPasscode(let collection, _),
                .previousLoginPassword(let collection, _):
                "To change its passcode, run: puffctl passwd \(collection.rawValue)"
            case .confirmRead:
                "The item is protected: run puffctl agent, or puffctl unprotect it, so its secret can be read"
            case .confirmChange:
                "Nobody can confirm a change that weakens protection: give the collection's passcode (puffctl asks for it) or run puffctl agent"
            case .allowRead:
                "To allow the read without a question, run: puffctl access allow ITEM EXECUTABLE"
            case .deleteCollection(let collection, _, _):
                "Nothing was deleted. To delete it, run: puffctl collection delete \(collection.rawValue)"
            }
        logger.notice(
            "No prompter can reach a person; dismissing the prompt. \(hint)",
            metadata: ["client.name": "\(request.caller.rawValue)"])
        return .dismissed
    }
}
