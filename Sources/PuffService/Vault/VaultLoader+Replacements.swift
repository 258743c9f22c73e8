// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffStore

extension VaultLoader {
    /// Ends the re-keys a crash interrupted (docs/vault-format.md, "Re-keying"), before anything
    /// is loaded: one stopped before its switch is undone (the new space's files go, the old
    /// collection stays as it was); one stopped after it is finished (the catalog names the new
    /// space, then the old space's files go). Either way exactly one of the two is loaded.
    ///
    /// A note whose two headers do not belong together (other ids, a hidden one replacing a
    /// visible one, a header that does not parse) was not written by a re-key: it is reported as
    /// a vault problem and nothing is removed.
    static func settleReplacements(
        store: any RecordStore, spaces: inout [SpaceID], into loaded: inout Loaded, logger: Logger
    ) async {
        let replacements: [SpaceReplacement]
        do {
            replacements = try await store.replacements()
        } catch {
            loaded.problems.append("the notes of interrupted re-keys cannot be read: \(error)")
            return
        }
        var finishing: [SpaceReplacement] = []
        for replacement in replacements {
            let note = store.name(of: .replacementNote(replacement.new))
            guard replacement.isSwitched else {
                do {
                    try await store.settleReplacement(replacement, keepingNew: false)
                    logger.warning(
                        "A passcode change was interrupted before it took effect: the old passcode still opens the collection",
                        metadata: ["space": "\(replacement.old.hex)"])
                } catch {
                    logger.error("Undoing an interrupted re-key failed", metadata: ["error": "\(error)"])
                }
                continue
            }
            guard await belongTogether(replacement, store: store) else {
                loaded.problems.append("\(note) names a re-key whose headers do not belong together: nothing removed")
                continue
            }
            spaces.removeAll { $0 == replacement.old }
            if var catalog = loaded.catalog {
                for index in catalog.collections.indices where catalog.collections[index].space == replacement.old {
                    catalog.collections[index].space = replacement.new
                }
                loaded.catalog = catalog
            }
            finishing.append(replacement)
        }
        guard !finishing.isEmpty else { return }
        if let catalog = loaded.catalog {
            do {
                try await store.replaceCatalog(catalog.encoded())
            } catch {
                // The old spaces stay until a start can write the catalog; this one loads the new.
                logger.error("Writing the catalog after an interrupted re-key failed", metadata: ["error": "\(error)"])
                return
            }
        }
        for replacement in finishing {
            do {
                try await store.settleReplacement(replacement, keepingNew: true)
                loaded.retired.append(replacement.old)
                logger.warning(
                    "A passcode change was interrupted after it took effect: finished, the old collection's files are removed",
                    metadata: ["space": "\(replacement.new.hex)"])
            } catch {
                logger.error("Finishing an interrupted re-key failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Whether the new header of `replacement` can be the re-key of the old one: it parses and
    /// names its space, and the old one (if still there) is the same collection, hidden or not.
    private static func belongTogether(_ replacement: SpaceReplacement, store: any RecordStore) async -> Bool {
        guard let newBytes = try? await store.header(of: replacement.new),
            let new = try? VaultHeader(decoding: newBytes), new.space == replacement.new
        else { return false }
        guard let oldBytes = try? await store.header(of: replacement.old) else { return true }
        guard let old = try? VaultHeader(decoding: oldBytes) else { return false }
        return old.collectionID == new.collectionID && old.flags == new.flags
    }
}
