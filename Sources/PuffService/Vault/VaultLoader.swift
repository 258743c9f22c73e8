// SPDX-License-Identifier: Apache-2.0
import Logging
import PuffCrypto
import PuffStore

/// Reads a vault at start-up: the catalog, every header, and each visible collection's journal.
enum VaultLoader {
    struct Loaded {
        var catalog: Catalog?
        var collections: [CollectionID: CollectionVault] = [:]
        var order: [CollectionID] = []
        var hidden: [SpaceID: VaultHeader] = [:]
        var damaged: [(name: String, reason: String)] = []
    }

    /// Loads what can be loaded; a collection that fails is listed in `damaged`, never fatal.
    ///
    /// - Throws: ``ServiceError/failed(_:)`` when the store cannot be listed or the catalog is unreadable.
    static func load(store: any RecordStore, logger: Logger) async throws(ServiceError) -> Loaded {
        var loaded = Loaded()
        let spaces: [SpaceID]
        do {
            if let bytes = try await store.catalog() { loaded.catalog = try Catalog(decoding: bytes) }
            spaces = try await store.spaces()
        } catch {
            logger.critical("The vault's catalog cannot be read", metadata: ["error": "\(error)"])
            throw .failed("the vault's catalog cannot be read: \(error)")
        }
        let listed = Dictionary(
            (loaded.catalog?.collections ?? []).map { ($0.space, $0.id) }, uniquingKeysWith: { first, _ in first })
        // Catalog order first, then visible collections the catalog lost (recovered, logged).
        let ordered = (loaded.catalog?.collections.map(\.space) ?? []) + spaces.filter { listed[$0] == nil }
        for space in ordered where spaces.contains(space) {
            await loadSpace(space, store: store, into: &loaded, logger: logger)
        }
        return loaded
    }

    private static func loadSpace(
        _ space: SpaceID, store: any RecordStore, into loaded: inout Loaded, logger: Logger
    ) async {
        let file = store.location.map { "\($0)/\(space.hex)" } ?? space.hex
        do {
            let header = try VaultHeader(decoding: try await store.header(of: space))
            guard header.space == space else { throw VaultDamage(message: "\(file).header names another space") }
            if header.flags.contains(.hidden) {
                loaded.hidden[space] = header
                return
            }
            let id = CollectionID(header.collectionID!)  // a visible header always has an id (checked on decode)
            guard loaded.collections[id] == nil else { throw VaultDamage(message: "a second collection named \(id)") }
            var scanned: ScannedCollection
            if header.flags.contains(.private) {
                // Nothing of a private collection is read before its passcode opens it.
                scanned = ScannedCollection(index: AttributeIndex(), hasher: KeyedHash())
            } else {
                let replay = try await store.replay(space)
                if let cut = replay.cut {
                    logger.error(
                        "Cut a torn record off a journal (it was never acknowledged)",
                        metadata: [
                            "file": "\(file).journal", "offset": "\(cut.offset)", "bytes": "\(cut.length)",
                            "kept.at": "\(cut.keptAt ?? "-")",
                        ])
                }
                scanned = try VaultOpening.scan(replay, header: header, file: "\(file).journal")
            }
            loaded.collections[id] = CollectionVault(id: id, space: space, header: header, scanned: scanned)
            loaded.order.append(id)
        } catch {
            let reason = (error as? VaultDamage)?.message ?? "\(error)"
            logger.error(
                "A collection could not be opened", metadata: ["space": "\(space.hex)", "reason": "\(reason)"])
            loaded.damaged.append((name: space.hex, reason: reason))
        }
    }
}
