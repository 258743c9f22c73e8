// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffText

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
        defer { try? channel.send("BYE") }
        guard !request.purpose.isConfirmation else {
            return try PinentryConfirmation(channel: channel).ask(request.purpose)
        }
        guard request.purpose.asksNewPasscode else { return try getPIN() }
        // pinentry asks twice itself and answers once both match; one too old for SETREPEAT
        // (it answers ERR) gets two GETPINs, compared here.
        try channel.send("SETREPEAT", "Repeat:")
        guard try channel.response().error != nil else {
            // Only the wording of the mismatch message: pinentry has its own if this fails.
            try channel.send("SETREPEATERROR", "The passcodes differ")
            _ = try channel.response()
            return try getPIN()
        }
        for _ in 1...Self.repeatAttempts {
            guard case .passcode(let first) = try getPIN() else { return .dismissed }
            // pinentry forgets SETERROR after each GETPIN, so the repeat shows none.
            try command("SETPROMPT", "Repeat:")
            guard case .passcode(let second) = try getPIN() else { return .dismissed }
            if first.constantTimeEquals(second) { return .passcode(first) }
            try command("SETPROMPT", text.prompt)
            try command("SETERROR", "The passcodes differ, try again")
        }
        return .dismissed
    }

    /// How often an old pinentry may get two different new passcodes before the question ends.
    static let repeatAttempts = 3

    /// Asks for the PIN; ``PromptReply/dismissed`` when the person cancelled.
    private func getPIN() throws(AssuanError) -> PromptReply {
        try channel.send("GETPIN")
        let (pin, error) = try channel.response()
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

/// What pinentry shows for a request. Every text from a client or a header (labels, the
/// application's path, a change's words) is shown with its control characters escaped
/// (``TerminalText/escaped(_:)``): a tty or curses pinentry would pass them to the terminal.
struct PinentryText {
    var title = "Puff"
    var description: String
    var prompt = "Passcode:"

    init(_ request: PromptRequest) {
        let name = TerminalText.escaped(request.purpose.collectionName)
        let application = TerminalText.escaped(request.application)
        // The policy reminds the person which passcode is meant ("6 digits").
        let hint = request.policy.map { " (\($0.requirement))" } ?? ""
        switch request.purpose {
        case .unlock(_, _, let slot):
            let asked = Self.asking(slot, hint: slot.followsPolicy ? hint : "")
            description = "\(application) wants to unlock the collection “\(name)”.\n\(asked.description)"
            prompt = asked.prompt
        case .touchSecurityKey(_, _, let slotLabel, _):
            description =
                "\(application) wants to unlock the collection “\(name)”.\n"
                + "Touch the security key “\(TerminalText.escaped(slotLabel))” now."
        case .securityKeyPIN(_, _, let slotLabel, let retries):
            let left = retries.map { " (\($0) \($0 == 1 ? "try" : "tries") left before the key blocks it)" } ?? ""
            description =
                "\(application) wants to unlock the collection “\(name)”.\n"
                + "Enter the PIN of the security key “\(TerminalText.escaped(slotLabel))”\(left)."
            prompt = "PIN:"
        case .confirmRead:
            description =
                "\(application) wants to read the protected item “\(name)”.\nRelease its secret this once?"
        case .confirmChange(_, _, let change):
            description = "\(application) wants to \(TerminalText.escaped(change)).\nAllow this change?"
        case .allowRead:
            description =
                "\(application) wants to read the item “\(name)”.\n"
                + "Allow once, allow always, or deny from now on (puffctl access revoke undoes either)?"
        case .deleteCollection(_, _, let items):
            description =
                "\(application) wants to delete the collection “\(name)” and its \(items) item\(items == 1 ? "" : "s").\n"
                + "It is kept sealed for a while: puffctl collection restore brings it back."
        case .create:
            description = "\(application) wants to create the collection “\(name)”.\nChoose its passcode\(hint)."
            prompt = "New passcode:"
        case .currentPasscode:
            description =
                "\(application) wants to change the passcode of the collection “\(name)”.\nEnter its current passcode."
            prompt = "Current passcode:"
        case .newPasscode:
            description = "Choose the new passcode of the collection “\(name)”\(hint)."
            prompt = "New passcode:"
        case .previousLoginPassword:
            description =
                "Your login password changed, but the collection “\(name)” still opens with the previous one.\n"
                + "Enter the previous login password to move it to the new one."
            prompt = "Previous password:"
        }
    }

    /// The request's second line and the prompt for an unlock with `slot`.
    private static func asking(_ slot: TypedSlot, hint: String) -> (description: String, prompt: String) {
        switch slot {
        case .passcode: ("Enter its passcode\(hint).", "Passcode:")
        case .recoveryCode: ("Enter one of its recovery codes (XXXX-XXXX-…).", "Recovery code:")
        case .passcodeOrRecoveryCode: ("Enter its passcode\(hint), or one of its recovery codes.", "Passcode:")
        case .loginPassword: ("Enter your login password.", "Login password:")
        case .securityKeyPasscode(let slotLabel):
            (
                "Enter the passcode that goes with the security key “\(TerminalText.escaped(slotLabel))”\(hint); "
                    + "the key is asked for next.", "Passcode:"
            )
        }
    }

    /// The button that stops waiting for a touch to type `instead`: "Type the passcode instead".
    static func typeInsteadButton(_ instead: TypedSlot) -> String {
        let noun =
            switch instead {
            case .securityKeyPasscode: "passcode"
            default: instead.noun
            }
        return "_Type the \(noun) instead"
    }
}
