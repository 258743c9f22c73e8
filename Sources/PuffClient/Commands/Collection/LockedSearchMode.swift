// SPDX-License-Identifier: Apache-2.0
public import ArgumentParser

/// `--locked-search`: whether a locked collection's items are found by search (docs/collections.md).
public enum LockedSearchMode: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// Found from start; the files let a thief confirm guessed attribute values (the default).
    case always
    /// Found once the collection was unlocked since puffd started; nothing on disk to guess with.
    case afterUnlock = "after-unlock"
    /// Found only while unlocked.
    case never

    /// How much a thief with the files learns: `always` most.
    var exposure: Int {
        switch self {
        case .always: 2
        case .afterUnlock: 1
        case .never: 0
        }
    }
}
