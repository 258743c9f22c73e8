// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// Shell completion of collection ids and items: the completion scripts puffctl installs call
/// `puffctl ---completion …`, which runs these and asks puffd over the bus. Nothing is offered
/// when puffd cannot be reached, and never a secret: ids and `COLLECTION/NUMBER` only.
enum Completions {
    /// The visible collections' ids starting with `prefix`.
    @Sendable static func collections(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
        guard let client = await client(arguments), let status = try? await client.status() else { return [] }
        return status.collections.map(\.id).filter { $0.hasPrefix(prefix) }
    }

    /// `COLLECTION/NUMBER` of the items in unlocked collections, starting with `prefix`; an
    /// argument that already holds `=` is a query, which is not completed.
    @Sendable static func items(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
        guard !prefix.contains("="), !prefix.hasPrefix("/"), let client = await client(arguments),
            let status = try? await client.status()
        else { return [] }
        var names: [String] = []
        for collection in status.collections where !collection.isLocked {
            guard let items = try? await client.listItems(in: collection.id) else { continue }
            for item in items {
                guard let parts = SecretPaths.itemParts(of: item.path) else { continue }
                let name = "\(collection.id)/\(parts.number)"
                if name.hasPrefix(prefix) { names.append(name) }
            }
        }
        return names
    }

    /// A client on the bus the command line names with `--address`, else the session bus.
    private static func client(_ arguments: [String]) async -> ControlClient? {
        var address: String?
        for (offset, argument) in arguments.enumerated() {
            if argument == "--address", offset + 1 < arguments.count {
                address = arguments[offset + 1]
            } else if argument.hasPrefix("--address=") {
                address = String(argument.dropFirst("--address=".count))
            }
        }
        return try? await ControlClient.connect(address: address)
    }
}
