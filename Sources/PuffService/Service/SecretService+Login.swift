// SPDX-License-Identifier: Apache-2.0
import Logging
public import PuffCrypto

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
