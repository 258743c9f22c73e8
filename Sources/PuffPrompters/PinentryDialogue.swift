// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService

/// One question through pinentry's Assuan commands: the texts, then `GETPIN`, then `BYE`.
struct PinentryDialogue {
    /// Assuan's error code for a dialogue the person cancelled (`GPG_ERR_CANCELED` in source 5).
    static let cancelledCodes: Set<UInt32> = [83_886_179, 99]

    let channel: AssuanChannel
    let terminal: String?
    /// The terminal's type for curses (`OPTION ttytype`), sent with ``terminal``.
    var terminalType = PinentryPrompter.fallbackTerminalType

    /// Asks, and returns the PIN or ``PromptReply/dismissed`` when the person cancelled.
    func ask(_ request: PromptRequest) throws(AssuanError) -> PromptReply {
        guard case (nil, nil) = try channel.response() else { throw .unexpected("no greeting") }
        if let terminal {
            try command("OPTION", "ttyname=\(terminal)")
            try command("OPTION", "ttytype=\(terminalType)")
        }
        if let window = UInt64(request.windowID), window != 0 {
            // Older pinentries reject the option: a missing parent window is not worth failing for.
            try channel.send("OPTION", "parent-wid=\(window)")
            _ = try channel.response()
        }
        let text = PinentryText(request)
        try command("SETTITLE", text.title)
        try command("SETDESC", text.description)
        try command("SETPROMPT", text.prompt)
        if let error = request.error { try command("SETERROR", error) }
        try channel.send("GETPIN")
        let (pin, error) = try channel.response()
        try? channel.send("BYE")
        if let error {
            if Self.cancelledCodes.contains(error.code) || error.message.lowercased().contains("cancel") {
                return .dismissed
            }
            throw .unexpected("GETPIN: \(error.code) \(error.message)")
        }
        return .passcode(pin ?? SecureBytes.empty)
    }

    /// Sends a command that must answer `OK`.
    private func command(_ name: String, _ argument: String) throws(AssuanError) {
        try channel.send(name, argument)
        if let error = try channel.response().error { throw .unexpected("\(name): \(error.code) \(error.message)") }
    }
}

/// What pinentry shows for a request.
struct PinentryText {
    var title = "Puff"
    var description: String
    var prompt = "Passcode:"

    init(_ request: PromptRequest) {
        switch request.purpose {
        case .unlock(let collection, let label):
            let name = label.isEmpty ? collection.rawValue : label
            // The policy reminds the person which passcode is meant ("6 digits").
            let hint = request.policy.map { " (\($0.requirement))" } ?? ""
            description =
                "\(request.application) wants to unlock the collection “\(name)”.\nEnter its passcode\(hint)."
        }
    }
}
