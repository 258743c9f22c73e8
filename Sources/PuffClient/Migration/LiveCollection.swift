// SPDX-License-Identifier: Apache-2.0
import PuffDBus
import PuffFormats

/// The bounds `import --bus` reads another provider under: what a provider sends beyond them
/// fails the import (nothing is imported), it never makes puffctl's memory grow without end.
enum LiveLimits {
    /// How long one call to the provider may take.
    static let callTimeout: Duration = .seconds(60)
    /// The most collections a provider may list.
    static let maximumCollections = 10_000
    /// The most values one reply may decode to (an `Items` list of a large collection).
    static let maximumValues = 2 * PortableBatch.maximumItems + 1024
    /// The most bytes of strings and arrays one reply may carry (a dbus-daemon passes messages of
    /// up to about 63 MiB; a 16 MiB secret fits with room to spare).
    static let maximumReplyBytes = 48 << 20
    /// The most bytes of secrets read in all (as much as a source file may hold).
    static let maximumSecretBytes = 1 << 30
    /// How many items one `GetSecrets` asks for; a reply over the limits is asked for again in halves.
    static let secretsPerCall = 64
    /// How many property reads are in flight at once.
    static let concurrentCalls = 16
}

/// One collection of the other provider: its label (the last element of its path when it has
/// none), whether it is locked, its items' paths.
struct LiveCollection {
    var label: String
    var locked: Bool
    var items: [ObjectPath]

    /// Reads the collection at `path` (`GetAll` of its interface).
    static func read(_ path: ObjectPath, on provider: String, bus: LiveBus) async throws(ClientError) -> LiveCollection
    {
        let properties = try await bus.properties(
            of: path, interface: LiveProviderSource.collectionInterface, on: provider)
        var label = try LiveText.checked(
            properties["Label"]?.string ?? "", "the label of collection \(path.rawValue)")
        // gnome-keyring's in-memory `session` collection has no label: its path's last element names it.
        if label.isEmpty { label = path.rawValue.split(separator: "/").last.map(String.init) ?? path.rawValue }
        let locked = try properties["Locked"].orFail("collection \(path.rawValue) has no Locked property").bool
            .orFail("the Locked property of \(path.rawValue) is not a boolean")
        let items = try properties["Items"].orFail("collection \(path.rawValue) has no Items property").objectPaths
            .orFail("the Items property of \(path.rawValue) is not a list of object paths")
        guard items.count <= PortableBatch.maximumItems else {
            throw .liveSource("collection \(path.rawValue) lists \(items.count) items")
        }
        return LiveCollection(label: label, locked: locked, items: items)
    }
}

/// Strings the provider sends, checked against the import batch's bounds.
enum LiveText {
    /// `text` when it fits in an import batch.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` naming `what`, never the text.
    static func checked(_ text: String, _ what: @autoclosure () -> String) throws(ClientError) -> String {
        guard text.utf8.count <= PortableBatch.maximumStringBytes else {
            throw .liveSource("\(what()) is longer than \(PortableBatch.maximumStringBytes) bytes")
        }
        return text
    }
}
