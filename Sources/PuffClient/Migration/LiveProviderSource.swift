// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffDBus
public import PuffFormats
import PuffProtocol

/// The running provider that owns `org.freedesktop.secrets` on another bus (gnome-keyring,
/// KeePassXC, KWallet, oo7), read as an ordinary Secret Service client for `puffctl import --bus`
/// (docs/migration.md, "Live migration").
///
/// Every item of every unlocked collection is read: label, attributes, Created, Modified, the
/// secret and its content type. Locked collections are listed as skipped and, unless the person
/// asks (`--unlock-source`, not on a dry run: ``LiveUnlocking``), never unlocked, so the other
/// provider shows no prompt. Secrets cross the other bus under the spec's DH session
/// (plain only when the provider refuses it, which ``LiveReading/plainSession`` records) and are
/// held in secure memory. Every reply is bounded (``LiveLimits``): a hostile provider makes the
/// read fail, never grow without end.
public enum LiveProviderSource {
    static let secretsName = BusName(SecretServiceContract.busName)!
    static let servicePath = ObjectPath(unchecked: SecretServiceContract.servicePath)
    static let serviceInterface = SecretInterfaces.service
    static let collectionInterface = SecretInterfaces.collection
    static let itemInterface = SecretInterfaces.item

    /// Reads the provider on the bus at `address`; with `unlocking` ``LiveUnlocking/asking``,
    /// first asks it to unlock its locked collections (``LivePrompt``), which shows the
    /// provider's own prompt. Each item described is reported to ``ReadProgress/current``.
    ///
    /// - Throws: ``ClientError/liveSource(_:)`` naming what failed (no bus, no provider, a
    ///   malformed or oversized reply, a secret that did not decrypt); nothing secret in it.
    public static func read(address: String, unlocking: LiveUnlocking = .never) async throws(ClientError)
        -> LiveReading
    {
        let bus = try await LiveBus.connect(address: address)
        defer { bus.close() }
        let provider = try await bus.provider()
        let paths = try await bus.property(
            "Collections", of: servicePath, interface: serviceInterface, on: provider
        ).objectPaths.orFail("the Collections property is not a list of object paths")
        guard paths.count <= LiveLimits.maximumCollections else {
            throw .liveSource(
                "the provider lists \(paths.count) collections (at most \(LiveLimits.maximumCollections))")
        }
        var seen = Set<String>()
        var collections: [(path: ObjectPath, collection: LiveCollection)] = []
        for path in paths where seen.insert(path.rawValue).inserted {
            collections.append((path, try await LiveCollection.read(path, on: provider, bus: bus)))
        }
        let locked = collections.filter(\.collection.locked).map(\.path)
        if unlocking == .asking, !locked.isEmpty {
            try await LivePrompt.unlock(locked, on: provider, bus: bus)
            for index in collections.indices where collections[index].collection.locked {
                collections[index].collection = try await LiveCollection.read(
                    collections[index].path, on: provider, bus: bus)
            }
        }
        var reading = LiveReading()
        var wanted: [(path: ObjectPath, collection: String)] = []
        for (_, collection) in collections {
            if collection.locked {
                reading.skippedCollections.append(
                    .init(
                        label: collection.label,
                        reason: unlocking.lockedReason))
                continue
            }
            for item in collection.items where seen.insert(item.rawValue).inserted {
                wanted.append((item, collection.label))
            }
            guard wanted.count <= PortableBatch.maximumItems else {
                throw .liveSource("the provider lists more than \(PortableBatch.maximumItems) items")
            }
        }
        let described = try await LiveItemDescription.read(wanted.map(\.path), on: provider, bus: bus)
        let session = try await LiveSession.open(on: provider, bus: bus)
        defer { session.close(bus: bus) }
        reading.plainSession = session.isPlain
        let secrets = try await session.secrets(of: described.filter { !$0.locked }.map(\.path), bus: bus)
        for (index, description) in described.enumerated() {
            let origin = wanted[index].collection
            guard !description.locked, let secret = secrets[description.path.rawValue] else {
                reading.skippedItems.append(
                    .init(
                        label: description.label, collection: origin,
                        reason: description.locked
                            ? "locked on the other provider" : "the other provider did not release its secret"))
                continue
            }
            reading.items.append(description.item(secret: secret.value, contentType: secret.contentType))
            reading.origins.append(origin)
        }
        return reading
    }
}

/// Whether ``LiveProviderSource/read(address:unlocking:)`` asks the other provider to unlock
/// its locked collections.
public enum LiveUnlocking: Sendable, Equatable {
    /// Never (no `--unlock-source`): they are skipped, and no prompt is started.
    case never
    /// Through the provider's own prompt (`--unlock-source`).
    case asking
    /// Not on a dry run, which changes nothing anywhere, the other provider's state included
    /// (`--unlock-source --dry-run`): they are skipped, saying what the real run would do.
    case notOnDryRun

    /// `--unlock-source`, and whether the run is `--dry-run`.
    public init(unlockSource: Bool, dryRun: Bool) {
        self = !unlockSource ? .never : dryRun ? .notOnDryRun : .asking
    }

    /// Why a collection still locked after the read was skipped.
    var lockedReason: String {
        switch self {
        case .never:
            "locked on the other provider; unlock it there, or run again with --unlock-source (no prompt was started)"
        case .asking: "still locked on the other provider: its unlock prompt was dismissed"
        case .notOnDryRun:
            "locked on the other provider; a dry run does not unlock it "
                + "(without --dry-run, --unlock-source asks the provider, which shows its prompt)"
        }
    }
}

/// What ``LiveProviderSource/read(address:unlocking:)`` found.
public struct LiveReading: Sendable {
    /// A collection that was not read, and why.
    public struct SkippedCollection: Sendable, Equatable {
        public var label: String
        public var reason: String
    }

    /// An item of an unlocked collection that was not read, and why.
    public struct SkippedItem: Sendable, Equatable {
        public var label: String
        public var collection: String
        public var reason: String
    }

    /// Every item read, collections flattened in the provider's order.
    public var items: [PortableItem] = []
    /// The label of the collection each of ``items`` came from, by index.
    public var origins: [String] = []
    public var skippedCollections: [SkippedCollection] = []
    public var skippedItems: [SkippedItem] = []
    /// Whether the provider refused the DH session, so the secrets crossed its bus in plain.
    public var plainSession = false
}

extension Optional {
    /// The value, or ``ClientError/liveSource(_:)`` saying the reply was malformed.
    func orFail(_ what: String) throws(ClientError) -> Wrapped {
        guard let self else { throw .liveSource("a malformed reply: \(what)") }
        return self
    }
}
