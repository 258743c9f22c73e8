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
    /// stage), creating it, and the vault, when there is none yet.
    ///
    /// - Throws: ``ServiceError/damaged(_:)``, ``ServiceError/failed(_:)``; an empty password
    ///   is ``ServiceError/invalidArgument(_:)`` (the module skips those).
    public func login(password: SecureBytes) async throws(ServiceError) -> LoginOutcome {
        guard password.count > 0 else { throw .invalidArgument("an empty login password opens nothing") }
        guard isInitialized else {
            try await initialize(passcode: password, policy: Self.loginPolicy)
            logger.info("Created the login collection from the login password")
            return .created
        }
        guard collectionStates[.login] != nil else {
            try await createLoginCollection(password: password)
            return .created
        }
        do {
            try await unlock(.login, passcode: password)
            return .unlocked
        } catch .wrongPasscode {
            logger.notice("The login password does not open the login collection; it stays locked")
            startLoginResync(to: password)
            return .wrongPasscode
        }
    }

    /// Rewraps `login`'s key from the old login password to the new one (the PAM module's password
    /// stage). A vault with no `login` yet gets one under the new password.
    ///
    /// - Throws: ``ServiceError/wrongPasscode`` when `old` does not open it;
    ///   ``ServiceError/passcodePolicy(_:)`` when `login` was made with `puffctl init` under a
    ///   policy the new password breaks; ``ServiceError/failed(_:)``.
    public func changeLoginPassword(old: SecureBytes, new: SecureBytes) async throws(ServiceError) -> LoginOutcome {
        guard new.count > 0 else { throw .invalidArgument("an empty login password opens nothing") }
        guard isInitialized, collectionStates[.login] != nil else { return try await login(password: new) }
        try await changePasscode(of: .login, old: old, new: new)
        return .unlocked
    }

    /// Asks once, through the prompters and in the background, for the previous login password,
    /// and moves `login` to `password`, the new one, which it missed (root ran `passwd USER`, or
    /// puffd did not run at the change). Nobody to ask: a log line, and `puffctl passwd login`
    /// does it by hand.
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
            await self.askPasscode(request, asker) { previous throws(ServiceError) in
                let master = try await self.masterKey(of: .login, with: .typed(previous))
                try await self.changePasscode(of: .login, master: master, new: password)
                if let vault = self.collectionStates[.login] { try await self.open(vault, master: master) }
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

    /// Creates `login` in a vault that lost it, under `password`, with the alias `login` (and
    /// `default` when no collection has it).
    private func createLoginCollection(password: SecureBytes) async throws(ServiceError) {
        await beginWrite()
        defer { endWrite() }
        var aliases = ["login"]
        if readAlias("default") == nil { aliases.append("default") }
        _ = try await makeCollection(
            id: .login, label: "Login", passcode: password, policy: Self.loginPolicy, flags: [], aliases: aliases)
        logger.info("Created the login collection from the login password")
    }
}
