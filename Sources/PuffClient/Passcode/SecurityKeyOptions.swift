// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `puffctl unlock`'s security key options: open the collection with a fido2 slot (a touch on the
/// key) or a fido2+passcode slot (and the passcode, read where the passcode is read from).
struct SecurityKeyOptions: ParsableArguments {
    @Flag(help: "Open with a security key (a fido2 slot): touch it when asked; no passcode.")
    var securityKey = false

    @Flag(
        help: """
            With the security key, the passcode of a fido2+passcode slot (from the terminal, --stdin \
            or --passcode-fd); implies --security-key.
            """)
    var withPasscode = false

    @Flag(help: "Ask for the security key's PIN on the terminal; implies --security-key.")
    var pin = false

    @Option(
        help: ArgumentHelp(
            "Read the security key's PIN as one line of descriptor N; implies --security-key.", valueName: "N"))
    var pinFd: Int32?

    @Option(
        help: ArgumentHelp(
            "The security key, a device path or unix:PATH (puffd's or the first found when left out); implies --security-key.",
            valueName: "DEVICE"))
    var fido2Device: String?

    /// Whether the collection is to be opened with a security key.
    var isGiven: Bool { securityKey || withPasscode || pin || pinFd != nil || fido2Device != nil }

    func validate() throws {
        if let pinFd, pinFd < 0 { throw ValidationError("--pin-fd needs a descriptor number (0 or more)") }
        if pin, pinFd != nil { throw ValidationError("give --pin or --pin-fd, not both") }
    }

    /// Reads the PIN and the passcode asked for, and asks puffd to open `collection` with the key.
    func unlock(_ collection: String, passcodes: PasscodeSource, client: ControlClient) async throws {
        var request = SecurityKeyUnlock(device: fido2Device)
        if withPasscode {
            request.passcode = try PasscodePrompt.existing(
                from: try passcodes.open(), prompt: "Passcode of the security key slot of \(collection):")
        }
        if pin || pinFd != nil { request.pin = try SlotProof.pin(fd: pinFd) }
        Console.error("Touch your security key when it blinks…")
        _ = try await client.unlock(collection, securityKey: request)
    }
}
