// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
import PuffFormats

/// What the other provider says of one item besides its secret: its properties as
/// `org.freedesktop.Secret.Item` carries them, and gnome-keyring's `Type` where there is one.
struct LiveItemDescription: Sendable {
    var path: ObjectPath
    var label: String
    var attributes: [String: String]
    var created: UInt64?
    var modified: UInt64?
    var locked: Bool

    /// The items at `paths`, in that order; up to ``LiveLimits/concurrentCalls`` reads in flight.
    /// Each one read is reported to ``ReadProgress/current`` (from 0 to all of them): with a big
    /// gnome-keyring these reads are most of the import's time (docs/migration.md).
    static func read(_ paths: [ObjectPath], on provider: String, bus: LiveBus) async throws(ClientError)
        -> [LiveItemDescription]
    {
        var results = [LiveItemDescription?](repeating: nil, count: paths.count)
        let progress = ReadProgress.current
        var done = 0
        progress?(.items, done, of: paths.count)
        do {
            try await withThrowingTaskGroup(of: (Int, LiveItemDescription).self) { group in
                var next = 0
                func start() {
                    let index = next
                    next += 1
                    group.addTask { (index, try await read(paths[index], on: provider, bus: bus)) }
                }
                while next < min(paths.count, LiveLimits.concurrentCalls) { start() }
                while let (index, description) = try await group.next() {
                    results[index] = description
                    done += 1
                    progress?(.items, done, of: paths.count)
                    if next < paths.count { start() }
                }
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw .liveSource("\(error)")
        }
        return results.map { $0! }
    }

    /// One item (`GetAll` of the Item interface).
    static func read(_ path: ObjectPath, on provider: String, bus: LiveBus) async throws(ClientError)
        -> LiveItemDescription
    {
        let properties = try await bus.properties(of: path, interface: LiveProviderSource.itemInterface, on: provider)
        return try LiveItemDescription(path: path, properties: properties)
    }

    /// A `t` timestamp; none when missing or 0 (a provider that keeps no time).
    private static func timestamp(_ value: DBusValue?) -> UInt64? {
        guard case .uint64(let seconds)? = value, seconds != 0 else { return nil }
        return seconds
    }

    /// The item to import, with the secret read for it.
    func item(secret: SecureBytes, contentType: String) -> PortableItem {
        PortableItem(
            label: label, attributes: attributes, secret: secret, contentType: contentType, created: created,
            modified: modified)
    }
}

extension LiveItemDescription {
    /// The description in an Item's `GetAll` reply.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` for Attributes that are not an `a{ss}`, name an
    ///   attribute twice, or hold a string over the batch's bounds.
    init(path: ObjectPath, properties: [String: DBusValue]) throws(ClientError) {
        let label = try LiveText.checked(properties["Label"]?.string ?? "", "the label of item \(path.rawValue)")
        let attributeValue = try properties["Attributes"].orFail("item \(path.rawValue) has no Attributes property")
        guard case .dictionary(_, _, let entries) = attributeValue,
            var attributes = attributeValue.stringDictionary
        else { throw .liveSource("a malformed reply: the Attributes of \(path.rawValue) are not a{ss}") }
        // Attributes must arrive exactly: a name given twice has no one value to keep.
        guard attributes.count == entries.count else {
            throw .liveSource("a malformed reply: item \(path.rawValue) names an attribute twice")
        }
        for (name, value) in attributes {
            _ = try LiveText.checked(name, "an attribute name of \(path.rawValue)")
            _ = try LiveText.checked(value, "an attribute value of \(path.rawValue)")
        }
        // gnome-keyring reports an item's type as xdg:schema already; a provider that keeps it
        // only in Type gets the same mapping as gnome-keyring's files (docs/migration.md).
        if attributes["xdg:schema"] == nil, let type = properties["Type"]?.string, !type.isEmpty {
            attributes["xdg:schema"] = try LiveText.checked(type, "the Type of \(path.rawValue)")
        }
        self.init(
            path: path, label: label, attributes: attributes, created: Self.timestamp(properties["Created"]),
            modified: Self.timestamp(properties["Modified"]), locked: properties["Locked"]?.bool ?? false)
    }
}
