// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// Keeps unlocked collections' keys in the kernel's user keyring as `puff:<space>` for a set
/// time (`vault.kernel_keyring`, `--kernel-keyring`), so that a puffd started after a crash, an
/// upgrade or an exit finds them unlocked until then. Locking forgets them. docs/pam.md says what
/// this trades.
struct KernelKeyKeeper: UnlockedKeyKeeper {
    let keyring: KernelKeyring

    init(timeout seconds: Int) {
        keyring = KernelKeyring(timeout: UInt32(clamping: seconds))
    }

    static func name(of space: SpaceID) -> String { "puff:" + space.hex }

    func keep(_ key: MasterKey, for space: SpaceID) {
        keyring.keep(key.keyForKeyring, as: Self.name(of: space))
    }

    func key(for space: SpaceID) -> MasterKey? {
        keyring.key(named: Self.name(of: space)).flatMap { try? MasterKey(restoring: $0) }
    }

    func forget(_ space: SpaceID) {
        keyring.remove(Self.name(of: space))
    }
}
