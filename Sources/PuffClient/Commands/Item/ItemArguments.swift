// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffCrypto
import PuffText

/// The `ITEM` of `show`, `get` and `copy`, and how those commands find it.
struct ItemArguments: ParsableArguments {
    /// The forms of `ITEM`, for the commands' discussion text.
    static let forms = """
        ITEM is an object path (/org/freedesktop/secrets/collection/login/3, as `puffctl list` \
        prints it), COLLECTION/NUMBER (login/3), or one or more attr=value that together must \
        match exactly one item. When several match, puffctl exits with 4 and lists them, oldest \
        first; a locked private collection cannot be searched until it is unlocked.
        """

    @Argument(
        help: ArgumentHelp(
            "A path, COLLECTION/NUMBER, or attr=value pairs that match exactly one item.", valueName: "ITEM"),
        completion: .custom(Completions.items))
    var item: [String] = []

    /// The item the arguments name, and the client that found it.
    ///
    /// - Throws: ``ClientError/usage(_:)`` for arguments that name no item, and whatever
    ///   ``ItemResolver/resolve(_:)`` throws.
    func resolve(_ connection: ConnectionOptions) async throws(ClientError) -> (ResolvedItem, ControlClient) {
        let reference = try ItemReference(arguments: item)
        let client = try await connection.connect()
        return (try await ItemResolver(directory: client).resolve(reference), client)
    }
}

extension ResolvedItem {
    /// The item's secret, read over the Secret Service with the bus encrypted.
    ///
    /// - Throws: ``ClientError/locked(collection:)`` when the collection is locked: `get` and
    ///   `copy` serve scripts, so they never start an unlock prompt.
    func secret(from client: ControlClient) async throws(ClientError) -> SecureBytes {
        guard !collection.isLocked else { throw .locked(collection: collection.id) }
        return try await client.secret(of: item.path, collection: collection.id)
    }

    /// The item's label for messages; its path when the label is unknown. Control characters
    /// are escaped.
    var name: String {
        TerminalText.escaped(item.label.map { "'\($0)'" } ?? item.path)
    }
}
