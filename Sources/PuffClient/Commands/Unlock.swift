// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `puffctl unlock [COLLECTION] [--hidden] [--recovery]`.
struct Unlock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlock a collection (TPM, security key or passcode).",
        discussion: """
            With no COLLECTION, unlocks the default collection. First the collection's slots that \
            need no typing are tried: its tpm2 slots, then its fido2 slots (without a PIN) with the \
            security key puffd uses, showing "Touch the security key" and the slot's label while it waits \
            (Enter on the terminal stops the wait and goes on to the passcode). Only \
            if none opens it is the passcode asked for, on the terminal, after one line saying why \
            each slot did not open it. With --stdin, --passcode-fd, --recovery, --security-key or \
            --hidden only what was given is used, as scripts expect. A COLLECTION that is not visible may \
            be a closed hidden one: the passcode is tried on the hidden collections, as with \
            --hidden, which tries it without a name and prints the id of the one it opens. After a \
            wrong passcode puffd accepts the next try only after a delay that doubles with each \
            one (0.5 s up to 30 s) and says how long; on a terminal puffctl waits it out and asks \
            again, three times in all. With --recovery, a recovery code (`puffctl slot add C \
            recovery`) opens it instead, read from the terminal, --recovery-fd N, --stdin or \
            --passcode-fd. With --security-key, a FIDO2 security key opens it through a fido2 slot: \
            touch it when it blinks (--pin or --pin-fd N for a slot made with the key's PIN, \
            --with-passcode for a fido2+passcode slot, --fido2-device to name the key).
            """
    )

    @Argument(help: "The collection's id; the default collection when left out.")
    var collection: String?

    @Flag(help: "Unlock whichever hidden collection the passcode opens, and print its id.")
    var hidden = false

    @OptionGroup var recoveryCode: RecoveryCodeOptions
    @OptionGroup var securityKey: SecurityKeyOptions
    @OptionGroup var passcode: PasscodeOptions
    @OptionGroup var connection: ConnectionOptions

    /// Whether the slots that need no typing are tried before the passcode is asked: only when
    /// nothing says where the credential comes from. A passcode from `--stdin` or `--passcode-fd`
    /// keeps scripts from waiting on a key or unsealing with the TPM unasked.
    var triesSlotsWithoutTyping: Bool {
        !hidden && !recoveryCode.isGiven && !securityKey.isGiven && passcode.source == .terminal
    }

    func validate() throws {
        if hidden, collection != nil { throw ValidationError("--hidden takes no collection: the passcode picks it") }
        if hidden, recoveryCode.isGiven || securityKey.isGiven {
            throw ValidationError("a hidden collection opens only with its passcode")
        }
        if recoveryCode.isGiven, securityKey.isGiven {
            throw ValidationError("give a recovery code or a security key, not both")
        }
    }

    func run() async throws {
        let client = try await connection.connect()
        let status = try await client.status()
        if hidden {
            guard status.isInitialized else { throw ClientError.notInitialized }
            let code = try PasscodePrompt.existing(
                from: try passcode.source.open(), prompt: "Passcode for a hidden collection:")
            Console.out(try await client.unlock("", passcode: code))
            return
        }
        if let collection, status.isInitialized, status.collection(collection) == nil {
            // Perhaps a closed hidden collection: its name is in no file, so the passcode finds it
            // (one key derivation for every hidden collection).
            let code = try PasscodePrompt.existing(
                from: try passcode.source.open(), prompt: "Passcode for \(collection):")
            let opened: String
            do {
                opened = try await client.unlock("", passcode: code)
            } catch .wrongPasscode {
                throw ClientError.noSuchCollection(collection)
            }
            if opened != collection { Console.out(opened) }
            return
        }
        let target = try status.target(collection)
        guard target.isLocked else {
            Console.out("'\(target.id)' is already unlocked")
            return
        }
        if securityKey.isGiven {
            try await securityKey.unlock(target.id, passcodes: passcode.source, client: client)
            return
        }
        if recoveryCode.isGiven {
            let code = try recoveryCode.read(fallback: passcode.source, for: target.id)
            _ = try await client.unlock(target.id, recoveryCode: code)
            return
        }
        if triesSlotsWithoutTyping, try await UntypedUnlock.open(target.id, client: client, connect: connection.connect)
        {
            return
        }
        let channel = try passcode.source.open()
        for attempt in 1...PasscodePrompt.attempts {
            let code = try PasscodePrompt.existing(from: channel, prompt: "Passcode for \(target.id):")
            let failure: ClientError
            do {
                _ = try await client.unlock(target.id, passcode: code)
                return
            } catch {
                failure = error
            }
            guard case .wrongPasscode(_, let next) = failure, channel.isInteractive,
                attempt < PasscodePrompt.attempts
            else { throw failure }
            // On a terminal the person tries again; puffd takes the next try only after the delay
            // it announced, so the wait is shown rather than spent in silence.
            channel.tell(failure.message)
            if let next, let seconds = Double(next.dropLast(2)), seconds > 0 {
                channel.tell("Waiting \(next) for puffd to accept the next try…")
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            }
        }
    }
}
