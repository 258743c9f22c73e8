// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto
import PuffStore

/// What handing the login password to puffd did.
public enum LoginOutcome: Sendable, Equatable {
    /// `login` was locked and the password opened it, or it was already open.
    case unlocked
    /// There was no `login` (or no vault yet): it was created under the password, unlocked.
    case created
    /// The password does not open `login`: it was set from another password (`puffctl passwd`, or
    /// a change of the login password puffd did not see).
    case wrongPasscode
}

extension SecretService {
    /// The policy of a `login` collection created from a login password: any length, because the
    /// system, not Puff, decides what a login password looks like.
    public static let loginPolicy = PasscodePolicy.alphanumeric(minimumLength: 1)

    /// Opens the `login` collection with the user's login password (the PAM module's session
    /// stage) through its login slots, then its passcode slots (a collection made before login
    /// slots, whose passcode is the login password); creates it, and the vault, with one login
    /// slot when there is none yet.
    ///
    /// - Throws: ``ServiceError/damaged(_:)``, ``ServiceError/noMatchingSlot(_:)`` (no login or
    ///   passcode slot), ``ServiceError/failed(_:)``; an empty password is
    ///   ``ServiceError/invalidArgument(_:)`` (the module skips those).
    public func login(password: SecureBytes) async throws(ServiceError) -> LoginOutcome {
        guard password.count > 0 else { throw .invalidArgument("an empty login password opens nothing") }
        guard isInitialized else {
            try await initialize(passcode: password, policy: Self.loginPolicy, announce: true, slot: .login)
            logger.info("Created the login collection from the login password")
            return .created
        }
        guard collectionStates[.login] != nil else {
            try await createLoginCollection(password: password)
            return .created
        }
        do {
            try await unlock(.login, with: .login(password))
            return .unlocked
        } catch .wrongPasscode {
            logger.notice("The login password does not open the login collection; it stays locked")
            startLoginResync(to: password)
            return .wrongPasscode
        }
    }

    /// Moves `login`'s login slot from the old login password to the new one (the PAM module's
    /// password stage): ``rewrapLoginSlot(proof:to:)``, no re-key. A vault with no `login` yet
    /// gets one under the new password.
    ///
    /// - Throws: ``ServiceError/wrongPasscode`` when `old` opens neither a login nor a passcode
    ///   slot; ``ServiceError/failed(_:)``.
    public func changeLoginPassword(old: SecureBytes, new: SecureBytes) async throws(ServiceError) -> LoginOutcome {
        guard new.count > 0 else { throw .invalidArgument("an empty login password opens nothing") }
        guard isInitialized, collectionStates[.login] != nil else { return try await login(password: new) }
        try await rewrapLoginSlot(proof: old, to: new)
        return .unlocked
    }

    /// Wraps `login`'s master key for `new` in its login slot, and in nothing else (design §3,
    /// "Login password change"): no new master key, no record sealed again, the other slots as
    /// they were, so a passcode slot with its own passcode keeps opening. The slot is the login
    /// slot `old` opens, else the first login slot; a collection without one (made before login
    /// slots, or with `puffctl init`) gets the passcode slot `old` opens rewritten as its login
    /// slot, since the login password was the way in its owner chose. `new` keeps the salt and
    /// cost the typed slots share (one Argon2id run per typed secret) and is not held to the
    /// passcode policy: the system judges login passwords. A header from before slots is written
    /// as version 3. Only the header file changes; audited as `slot-add` (the slot's new
    /// password), and `old` unlocks a locked `login` first, as every slot change does.
    ///
    /// Not a re-key: a copy of the old header still opens with the old password, and opens what is
    /// written later, until `puffctl passwd login` (docs/pam.md).
    ///
    /// - Throws: ``ServiceError/wrongPasscode`` (with the wrong-passcode delay),
    ///   ``ServiceError/noSuchObject``, ``ServiceError/failed(_:)``.
    func rewrapLoginSlot(proof old: SecureBytes, to new: SecureBytes) async throws(ServiceError) {
        let existing = collectionStates[.login]?.header?.slots.first { $0.kind == .login }
        let label =
            existing.map { "\(SlotInfo($0).described) (new login password)" }
            ?? "login “login” (the passcode slot the old login password opened)"
        try await slotChange(.slotAdd, of: .login, label: label, proof: .login(old), caller: .daemon) { _ in
        } prepare: { header, opened throws(ServiceError) in
            let typed = try Self.loginTarget(in: header, opened: opened).typed
            return (typed, try await self.typedKey(new, typed))
        } change: { current, opened, prepared throws(ServiceError) in
            var header = current
            if header.isLegacy {
                guard let typedKey = opened.typedKey,
                    let slotted = try? header.slotted(master: opened.master, typedKey: typedKey)
                else { throw .failed("the collection's header could not be written as version 3") }
                header = slotted
            }
            let target = try Self.loginTarget(in: header, opened: opened)
            // The typed slots' salt changed meanwhile (a re-key): the key derived is for the old one.
            guard target.typed == prepared.0 else { throw .wrongPasscode(nil) }
            var slot = header.slots[target.index]
            if slot.kind != .login { slot.label = KeySlot.Kind.login.description }
            slot.parameters = .login(target.typed)
            do {
                slot.wrappedMaster = try header.wrapMaster(
                    opened.master, for: slot,
                    kek: SlotKeys.kek(from: prepared.1, kind: KeySlot.Kind.login.rawValue))
            } catch {
                throw .failed("the collection key could not be wrapped")
            }
            header.slots[target.index] = slot
            header.sealMAC(with: opened.master)
            return header
        }
        logger.info("The login slot of login now opens with the new login password")
    }

    /// The slot a login password change rewrites in `header`: the login slot that opened, else
    /// the first login slot, else the passcode slot that opened; with the Argon2id salt and cost
    /// it shares with the other typed slots.
    private static func loginTarget(in header: VaultHeader, opened: OpenedSlot) throws(ServiceError)
        -> (index: Int, typed: KeySlot.Typed)
    {
        let login =
            header.slots.firstIndex { $0.id == opened.slot && $0.kind == .login }
            ?? header.slots.firstIndex { $0.kind == .login }
        let index = login ?? header.slots.firstIndex { $0.id == opened.slot && $0.kind == .passcode }
        // The slot that opened was removed while the new password's key was derived.
        guard let index, let typed = header.slots[index].parameters.typed else { throw .wrongPasscode(nil) }
        return (index, typed)
    }

    /// Asks once, through the prompters and in the background, for the previous login password,
    /// and moves `login`'s login slot to `password`, the new one, which it missed (root ran
    /// `passwd USER`, or puffd did not run at the change). Nobody to ask: a log line, and
    /// `puffctl passwd login` does it by hand.
    func startLoginResync(to password: SecureBytes) {
        guard loginResync == nil else { return }
        loginResync = Task { await self.resyncLogin(to: password) }
    }

    private func resyncLogin(to password: SecureBytes) async {
        guard let label = collectionStates[.login]?.fields.label, let policy = try? policy(of: .login) else { return }
        let asker = PromptAsker(prompter: prompter, caller: ClientID("puffd"), windowID: "", application: "puffd")
        let request = asker.request(.previousLoginPassword(collection: .login, label: label), policy: policy)
        let clock = self.clock
        let timeout = promptTimeout
        let work = Task { () -> PromptOutcome? in
            // The rewrap opens `login` too (its proof is the previous password).
            await self.askPasscode(request, asker) { previous throws(ServiceError) in
                try await self.rewrapLoginSlot(proof: previous, to: password)
            }
        }
        let timer = Task {
            guard (try? await Self.sleep(on: clock, for: timeout)) != nil else { return }
            work.cancel()
        }
        let failure = await work.value
        timer.cancel()
        if let failure {
            logger.notice(
                "login still opens with the previous login password; run: puffctl passwd login",
                metadata: ["reason": "\(failure)"])
        } else {
            logger.info("login now opens with the new login password")
        }
    }

    /// Creates `login` in a vault that lost it, with one login slot for `password`, with the
    /// alias `login` (and `default` when no collection has it).
    private func createLoginCollection(password: SecureBytes) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        var aliases = ["login"]
        if readAlias("default") == nil { aliases.append("default") }
        _ = try await makeCollection(
            id: .login, label: "Login", passcode: password, policy: Self.loginPolicy, flags: [], aliases: aliases,
            slot: .login)
        logger.info("Created the login collection from the login password")
    }
}
