// SPDX-License-Identifier: Apache-2.0
import PuffText

/// What plain `puffctl unlock` tries before it asks for the passcode (docs/unlock-slots.md,
/// "puffctl unlock"): the collection's slots that need nothing typed, in the order of
/// docs/design/unlock-slots.md §3, each through `UnlockWith` with no typed field.
enum UntypedUnlock {
    /// The slots tried, in order: the tpm2 and transit slots, then the fido2 slots that need neither the
    /// key's PIN nor a passcode (a fido2+passcode slot needs typing, so it waits for
    /// `--security-key --with-passcode`).
    static func candidates(_ slots: [SlotSummary]) -> [SlotSummary] {
        slots.filter { $0.type == "tpm2" || $0.type == "transit" }
            + slots.filter { $0.type == "fido2" && $0.pin != true }
    }

    /// Tries each of ``candidates(_:)`` on `collection` in turn, showing "Touch the security key
    /// “LABEL”" on standard error before a fido2 slot's wait; a slot that does not open it is
    /// named there with puffd's reason, in one line, and the next one is tried.
    ///
    /// - Returns: Whether a slot opened the collection; false when none did and something typed
    ///   may still (the caller asks for it).
    /// - Throws: What is not a slot's refusal (puffd gone, a damaged header…); the last refusal
    ///   when the collection has no slot that opens with something typed.
    static func open(
        _ collection: String, client: ControlClient, connect: () async throws(ClientError) -> ControlClient
    ) async throws(ClientError) -> Bool {
        let slots = try await client.listSlots(of: collection)
        var refusal: ClientError?
        for slot in candidates(slots) {
            let label = "“\(TerminalText.escaped(slot.label))”"
            do {
                if slot.type == "fido2", slot.presence != false, let enter = EnterKey() {
                    Console.error(
                        "Touch the security key \(label) when it blinks, or press Enter to type the passcode instead…")
                    // Its own connection, which Enter closes: puffd then ends the key's wait.
                    guard try await touch(collection, slot.id, on: try await connect(), or: enter) else { return false }
                    return true
                }
                if slot.type == "fido2" {
                    Console.error(
                        slot.presence == false
                            ? "Asking the security key \(label)…" : "Touch the security key \(label) when it blinks…")
                }
                _ = try await client.unlock(collection, untypedSlot: slot.id)
                return true
            } catch {
                guard let why = reason(error) else { throw error }
                Console.error("The \(slot.type) slot \(label) did not open it: \(why)")
                refusal = error
            }
        }
        if let refusal, !slots.contains(where: { typedTypes.contains($0.type) }) { throw refusal }
        return false
    }

    /// What ends first: the key's answer through `connection` (true: opened; a refusal is
    /// thrown) or Enter (false), which closes `connection` so puffd cancels the key's wait.
    private static func touch(
        _ collection: String, _ slot: UInt16, on connection: ControlClient, or enter: EnterKey
    ) async throws(ClientError) -> Bool {
        enum Event: Sendable {
            case answered(Result<String, ClientError>)
            case enter
        }
        let (events, sink) = AsyncStream<Event>.makeStream()
        let call = Task {
            do throws(ClientError) {
                sink.yield(.answered(.success(try await connection.unlock(collection, untypedSlot: slot))))
            } catch {
                sink.yield(.answered(.failure(error)))
            }
        }
        let pressed = Task {
            if await enter.wait() { sink.yield(.enter) }
        }
        var next = events.makeAsyncIterator()
        let first = await next.next()
        // The terminal is given back (echo on again) before anything else is read from it.
        enter.stop()
        await pressed.value
        guard case .answered(let result)? = first else {
            connection.close()
            call.cancel()
            return false
        }
        _ = try result.get()
        return true
    }

    /// The slot types that open with something typed at the passcode question.
    static let typedTypes: Set<String> = ["passcode", "login", "recovery"]

    /// Why a slot did not open, when `error` is a refusal the passcode question may make up for:
    /// no such slot (any more), the TPM or key absent, another one, a refused or missed touch, a
    /// PIN, no answer in time. Nil for anything else.
    static func reason(_ error: ClientError) -> String? {
        switch error {
        case .noSuchSlot(let why), .slotRefused(let why), .notConfirmed(let why), .securityKeyPIN(let why): why
        case .noReply: "no answer in time"
        default: nil
        }
    }
}
