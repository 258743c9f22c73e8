// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import PuffSystem

/// `ITEM [EXECUTABLE] [--app ID]` of the `access` subcommands: the item's forms, then an
/// executable's absolute path, or a Flatpak app's id. A last argument that starts with `/` and is
/// no Secret Service object path is the executable.
struct AccessArguments: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The item (a path, COLLECTION/NUMBER or attr=value pairs), then an executable's absolute path.",
            valueName: "ITEM [EXECUTABLE]"))
    var words: [String] = []

    @Option(
        name: .customLong("app"),
        help: ArgumentHelp(
            "A Flatpak app's id, such as org.example.App, instead of an EXECUTABLE: the rule is for that app.",
            valueName: "ID"))
    var app: String?

    /// Whom a rule is for.
    enum Subject: Equatable {
        case executable(String)
        case app(AppID)
    }

    /// The item's words and the executable, if the last word is one.
    var split: (item: [String], executable: String?) {
        guard let last = words.last, last.hasPrefix("/"), !last.hasPrefix(SecretPaths.service) else {
            return (words, nil)
        }
        return (Array(words.dropLast()), last)
    }

    /// The executable or app named; nil when neither is.
    ///
    /// - Throws: ``ClientError/usage(_:)`` for both at once, or an id flatpak would refuse.
    func subject() throws(ClientError) -> Subject? {
        guard let app else { return split.executable.map(Subject.executable) }
        guard split.executable == nil else {
            throw .usage("name either an EXECUTABLE or --app ID, not both")
        }
        guard let id = AppID(rawValue: app) else {
            throw .usage(
                "--app \(app) is not a Flatpak application id: it needs at least three dot-separated parts of "
                    + "letters, digits, _ and - (no - in the last), each starting with a letter or _, "
                    + "at most 255 bytes, such as org.example.App")
        }
        return .app(id)
    }

    /// The item named and the client that found it.
    func resolve(_ connection: ConnectionOptions) async throws(ClientError) -> (ResolvedItem, ControlClient) {
        var item = ItemArguments()
        item.item = split.item
        return try await item.resolve(connection)
    }
}

extension AccessArguments.Subject: CustomStringConvertible {
    /// How the subject is shown: the executable's path, or `app ID`.
    var description: String {
        switch self {
        case .executable(let path): path
        case .app(let app): "app \(app)"
        }
    }
}
