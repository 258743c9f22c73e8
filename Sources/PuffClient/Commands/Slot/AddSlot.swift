// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto

/// `puffctl slot add COLLECTION TYPE [--label L] …`.
struct AddSlot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract:
            "Add an unlock slot: another passcode, a recovery code, this machine's TPM, a security key or OpenBao.",
        discussion: """
            TYPE is passcode (asked twice on the terminal, or --new-passcode-fd M), recovery (puffd \
            makes a code of 32 characters, printed once on standard output: write it down and keep \
            it away from this computer), tpm2 (opens with no person on this machine; --pcrs 7+11 \
            binds it to how the machine booted), fido2 (a touch on a FIDO2 security key; \
            --with-passcode also needs a passcode, --pin the key's PIN, --uv the key's own \
            verification, --no-touch no touch), fido2+passcode (as fido2 --with-passcode) or \
            transit (OpenBao's transit key [store.openbao] transit_key wraps it: opens with no \
            person on a machine whose OpenBao token may decrypt with that key). \
            First asks for a passcode or recovery code that opens the collection now (from the \
            terminal, --stdin or --passcode-fd N; with --stdin or --passcode-fd a new passcode \
            follows on the next line). A hidden collection takes no other slot. Audited.
            """
    )

    @Argument(help: "The collection's id.")
    var collection: String

    @Argument(help: "passcode, recovery, tpm2, fido2, fido2+passcode or transit.")
    var type: String

    @Option(help: ArgumentHelp("What to call the slot (1 to 64 bytes; the type when left out).", valueName: "L"))
    var label: String?

    @Option(help: ArgumentHelp("tpm2: the sha256 PCRs to bind to, as 7+11 (none when left out).", valueName: "PCRS"))
    var pcrs: String?

    @Flag(help: "fido2: also ask for a passcode at every unlock (a fido2+passcode slot).")
    var withPasscode = false

    @Flag(help: "fido2: unlock without a touch (the key only has to be plugged in).")
    var noTouch = false

    @Flag(help: "fido2: have the key verify the person itself (built-in PIN pad or fingerprint).")
    var uv = false

    @Flag(help: "fido2: need the key's PIN at every unlock.")
    var pin = false

    @Option(
        help: ArgumentHelp("Read the security key's PIN as one line of descriptor N (implies --pin).", valueName: "N"))
    var pinFd: Int32?

    @Option(
        help: ArgumentHelp("tpm2: the TPM to seal with, as a tpm2-tss TCTI (puffd's when left out).", valueName: "TCTI")
    )
    var tpm2Device: String?

    @Option(
        help: ArgumentHelp(
            "fido2: the security key, a device path or unix:PATH (puffd's or the first found when left out).",
            valueName: "DEVICE"))
    var fido2Device: String?

    @OptionGroup var passcodes: PasscodeChangeOptions
    @OptionGroup var connection: ConnectionOptions

    /// The slot type puffd is asked for.
    var slotType: String { type == "fido2" && withPasscode ? "fido2+passcode" : type }
    var isFIDO2: Bool { slotType == "fido2" || slotType == "fido2+passcode" }

    func validate() throws {
        guard ["passcode", "recovery", "tpm2", "fido2", "fido2+passcode", "transit"].contains(type) else {
            throw ValidationError("TYPE is passcode, recovery, tpm2, fido2, fido2+passcode or transit, not '\(type)'")
        }
        if !isFIDO2, withPasscode || noTouch || uv || pin || pinFd != nil || fido2Device != nil {
            throw ValidationError("--with-passcode, --no-touch, --uv, --pin, --pin-fd and --fido2-device are for fido2")
        }
        if slotType != "tpm2", pcrs != nil || tpm2Device != nil {
            throw ValidationError("--pcrs and --tpm2-device are for tpm2")
        }
        if let pcrs { _ = try PCRList.mask(pcrs) }
        if let pinFd, pinFd < 0 { throw ValidationError("--pin-fd needs a descriptor number (0 or more)") }
    }

    func run() async throws {
        let proved = try await SlotProof.read(collection, from: passcodes.oldSource, connection: connection)
        let target = proved.target
        var request = SlotRequest()
        request.label = label
        if let pcrs { request.pcrs = try PCRList.mask(pcrs) }
        request.tpm2Device = tpm2Device
        if isFIDO2 {
            request.presence = !noTouch
            request.verification = uv
            request.fido2Device = fido2Device
            if pin || pinFd != nil { request.pin = try SlotProof.pin(fd: pinFd) }
        }
        if slotType == "passcode" || slotType == "fido2+passcode" {
            let newChannel =
                passcodes.newSource == passcodes.oldSource ? proved.channel : try passcodes.newSource.open()
            request.newPasscode = try PasscodePrompt.new(
                from: newChannel, for: target.id, requirement: target.policyText)
        }
        if isFIDO2, !noTouch { Console.error("Touch your security key when it blinks…") }
        let added = try await proved.client.addSlot(to: target.id, type: slotType, request, proof: proved.proof)
        guard let code = added.recoveryCode else {
            Console.error("Added slot \(added.id) (\(slotType)) to '\(target.id)'.")
            return
        }
        Console.error(
            "Added slot \(added.id) (recovery) to '\(target.id)'. Its code, shown this once; write it down "
                + "and keep it away from this computer:")
        try Console.out(secret: code, newline: true)
    }
}

/// The `--pcrs` list: PCR numbers 0 to 23 joined by `+` (as systemd-cryptenroll) or `,`.
enum PCRList {
    /// The bit mask of the PCRs `text` names.
    ///
    /// - Throws: ``ValidationError`` for anything but numbers 0 to 23.
    static func mask(_ text: String) throws -> UInt32 {
        var mask: UInt32 = 0
        for part in text.split(whereSeparator: { $0 == "+" || $0 == "," }) {
            guard let number = UInt32(part), number < 24 else {
                throw ValidationError("--pcrs takes PCR numbers 0 to 23 joined by +, as 7+11; not '\(text)'")
            }
            mask |= 1 << number
        }
        guard mask != 0 else { throw ValidationError("--pcrs names no PCR") }
        return mask
    }
}
