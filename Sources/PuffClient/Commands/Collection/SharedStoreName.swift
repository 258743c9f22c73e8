// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffStore

/// `--store`: where a fleet collection is kept besides this vault (docs/design/fleet.md).
enum SharedStoreName: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// puffd's `[store.openbao]`.
    case openbao

    /// Refuses `name` unless it can name a fleet collection (its path in the shared store).
    static func validate(_ name: String) throws {
        guard FleetMap.isValidName(name) else {
            throw ValidationError(
                "a collection kept in OpenBao is named by 1 to 128 of A-Z a-z 0-9 . _ - (not starting with a dot)")
        }
    }
}
