// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser

/// `--locked-search`: whether a locked collection's items are found by search (docs/collections.md).
public enum LockedSearchMode: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// Found from start; the files let a thief confirm guessed attribute values (the default).
    case always
    /// Found from start on this machine: `always` with the index key sealed by its TPM, so the
    /// files alone hold no key to test guesses with (docs/unlock-slots.md).
    case tpm2
    /// Found once the collection was unlocked since puffd started; nothing on disk to guess with.
    case afterUnlock = "after-unlock"
    /// Found only while unlocked.
    case never

    /// The mode `status` reports for `collection`: its `locked_search`, read as `tpm2` when its
    /// index key is sealed by the TPM; nil when puffd did not say.
    init?(of collection: CollectionStatus) {
        if collection.lockedSearch == "always", collection.indexKey == "tpm2" {
            self = .tpm2
        } else {
            self.init(rawValue: collection.lockedSearch)
        }
    }

    /// The mode as `status` and the command's answer say it: `tpm2` is `always (TPM-sealed)`.
    var shown: String { self == .tpm2 ? "always (TPM-sealed)" : rawValue }

    /// The mode in `status`'s flags column, without spaces: `always(TPM-sealed)` for `tpm2`.
    var flag: String { self == .tpm2 ? "always(TPM-sealed)" : rawValue }

    /// How much a thief with the files learns: `always` most, then `tpm2` (nothing without this
    /// machine), `after-unlock`, `never` least.
    var exposure: Int {
        switch self {
        case .always: 3
        case .tpm2: 2
        case .afterUnlock: 1
        case .never: 0
        }
    }
}
