// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `ITEM [EXECUTABLE]` of the `access` subcommands: the item's forms, then an executable's
/// absolute path. A last argument that starts with `/` and is no Secret Service object path is
/// the executable.
struct AccessArguments: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The item (a path, COLLECTION/NUMBER or attr=value pairs), then an executable's absolute path.",
            valueName: "ITEM [EXECUTABLE]"))
    var words: [String] = []

    /// The item's words and the executable, if the last word is one.
    var split: (item: [String], executable: String?) {
        guard let last = words.last, last.hasPrefix("/"), !last.hasPrefix(SecretPaths.service) else {
            return (words, nil)
        }
        return (Array(words.dropLast()), last)
    }

    /// The item named and the client that found it.
    func resolve(_ connection: ConnectionOptions) async throws(ClientError) -> (ResolvedItem, ControlClient) {
        var item = ItemArguments()
        item.item = split.item
        return try await item.resolve(connection)
    }
}
