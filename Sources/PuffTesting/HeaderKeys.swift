// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffStore

/// What a thief with a header file and a passcode gets, computed with the format's own parts and
/// not the service's: for tests that play the thief or look for keys in memory.
public enum HeaderKeys {
    /// The keys of the passcode (or login) slot of `header` that `passcode` opens: Argon2id's
    /// output, the slot's KEK (the same for a legacy header) and the master key; nil when no typed
    /// slot opens with it. The header MAC is checked too.
    public static func open(_ header: VaultHeader, passcode: String) -> (
        typedKey: SecureBytes, kek: SecureBytes, master: MasterKey
    )? {
        for slot in header.slots where slot.kind == .passcode || slot.kind == .login {
            guard let typed = slot.parameters.typed,
                let key = try? PasscodeKDF.key(
                    for: SecureBytes(unwipedCopyOf: Array(passcode.utf8)), salt: typed.salt, parameters: typed.kdf)
            else { continue }
            let kek = header.isLegacy ? key : SlotKeys.kek(from: key, kind: slot.kind.rawValue)
            guard let master = try? header.unwrapMaster(slot, kek: kek), (try? header.verifyMAC(with: master)) != nil
            else { continue }
            return (key, kek, master)
        }
        return nil
    }

    /// The master key `passcode` opens in `header`.
    ///
    /// - Throws: ``CryptoError/wrongKey`` when no typed slot opens with it.
    public static func master(_ header: VaultHeader, passcode: String) throws(CryptoError) -> MasterKey {
        guard let opened = open(header, passcode: passcode) else { throw .wrongKey }
        return opened.master
    }
}
