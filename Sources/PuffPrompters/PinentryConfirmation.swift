// SPDX-License-Identifier: Apache-2.0
import PuffService

/// A question about a read through pinentry's `CONFIRM`, whose buttons are `OK` (`SETOK`),
/// "not OK" (`SETNOTOK`) and `Cancel` (`SETCANCEL`).
///
/// pinentry (`pinentry/pinentry.c`, `cmd_confirm`) answers `OK` for the OK button, `ERR` with
/// `GPG_ERR_NOT_CONFIRMED` (114) for the not-OK button and `GPG_ERR_CANCELED` (99) for Cancel,
/// a closed window and end of input; a closed window or end of input also sends
/// `S BUTTON_INFO close` first, and a pinentry timeout answers `GPG_ERR_TIMEOUT` (62). The
/// mapping keeps an accident from persisting anything permissive:
///
/// | button | allow-read | confirm-read |
/// | --- | --- | --- |
/// | OK (the default: Enter) | once | allow |
/// | not OK (absent in pinentry-gnome3) | always | – |
/// | Cancel | deny (persisted) | deny |
/// | closed window, end of input, timeout, Ctrl-C | dismissed (nothing persisted) | dismissed |
///
/// Touching a security key shows two buttons: OK, "Type the passcode instead" (Enter: a person
/// with no key at hand types instead), and Cancel, which ends the unlock; puffd ends the dialogue
/// itself when the key answers. With nothing to type instead, it is a one-button message whose
/// button cancels. No not-OK button: pinentry-gnome3 has none, so no answer may depend on it.
struct PinentryConfirmation {
    /// `GPG_ERR_NOT_CONFIRMED`: the not-OK button.
    static let notConfirmed: UInt32 = 114
    /// `GPG_ERR_CANCELED`: Cancel, or a closed window.
    static let canceled: UInt32 = 99

    let channel: AssuanChannel

    /// Sets the buttons for `purpose`, asks, and reads the answer.
    func ask(_ purpose: PromptRequest.Purpose) throws(AssuanError) -> PromptReply {
        let offersAlways: Bool
        if case .allowRead = purpose { offersAlways = true } else { offersAlways = false }
        if case .touchSecurityKey(_, _, _, let instead) = purpose {
            guard let instead else {
                try command("SETOK", "_Cancel")
                try channel.send("CONFIRM", "--one-button")
                _ = try channel.statusResponse()
                return .dismissed
            }
            try command("SETOK", PinentryText.typeInsteadButton(instead))
            try command("SETCANCEL", "_Cancel")
            try channel.send("CONFIRM")
            return try channel.statusResponse().error == nil ? .typeInstead : .dismissed
        }
        if case .deleteCollection = purpose {
            // Only the OK button deletes; every other ending keeps the collection.
            try command("SETOK", "_Delete")
            try command("SETCANCEL", "_Keep")
            try channel.send("CONFIRM")
            return try channel.statusResponse().1 == nil ? .confirmed : .dismissed
        }
        try command("SETOK", offersAlways ? "Allow _once" : "_Allow")
        if offersAlways { try command("SETNOTOK", "Allow _always") }
        try command("SETCANCEL", "_Deny")
        try channel.send("CONFIRM")
        let (statuses, error) = try channel.statusResponse()
        guard let error else { return offersAlways ? .access(.once) : .confirmed }
        // The error code is the low 16 bits; the source (pinentry's is 5) sits above them.
        switch error.code & 0xFFFF {
        case Self.notConfirmed:
            return offersAlways ? .access(.always) : .access(.deny)
        case Self.canceled where !statuses.contains("BUTTON_INFO close"):
            return .access(.deny)
        default:
            // A closed window, a timeout, Ctrl-C (`GPG_ERR_FULLY_CANCELED`) or a failure.
            return .dismissed
        }
    }

    /// Sends a command that must answer `OK`.
    private func command(_ name: String, _ argument: String) throws(AssuanError) {
        try channel.send(name, argument)
        if let error = try channel.response().error { throw .unexpected("\(name): \(error.code) \(error.message)") }
    }
}
