// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
import PuffDBus
import PuffProtocol

/// A typed proxy for `io.puff.Control1` (`dbus/io.puff.Control1.xml`): one method per D-Bus method,
/// replies decoded into Swift types and every error reply mapped to a ``ClientError``.
///
/// Passcodes travel as the read end of a pipe (``PasscodePipe``), never as strings or byte arrays.
public final class ControlClient: Sendable {
    /// How long ordinary calls wait for puffd (``CallTimeout/standard``, 25 s unless the environment says).
    public static let callTimeout: Duration = CallTimeout.standard
    /// How long calls that take a passcode wait: a key derivation, plus the delay puffd adds after
    /// each wrong passcode, which doubles with every consecutive failure.
    public static let passcodeCallTimeout: Duration = CallTimeout.atLeast(.seconds(120))

    let connection: BusConnection
    /// The name the calls are addressed to, normally ``ControlNames/busName``.
    public let busName: String
    /// Where `Progress` signals go while a long call runs.
    let relay = ProgressRelay()

    private init(connection: BusConnection, busName: String) {
        self.connection = connection
        self.busName = busName
    }

    deinit {
        connection.close()
    }

    /// Leaves the bus now: puffd ends what it was waiting on for this connection (a security
    /// key's wait for a touch).
    public func close() {
        connection.close()
    }

    /// What puffctl decodes of a reply. puffd's replies grow with a collection (`ListItems`,
    /// `ImportItems`, `Audit`: about 20 values and 100 bytes per item), so the bus layer's default
    /// limits (262,144 values, 4 MiB) would refuse those of a collection of 12,500 items; these
    /// allow a reply as large as dbus-daemon's own limit on a message (128 MiB).
    // A process that owns io.puff.Control in puffd's place can make puffctl decode that much, and
    // no more than it could make puffctl wait for anyway.
    static let replyPolicy = DecodePolicy(maxValues: 1 << 25, maxBytes: 128 << 20)

    /// Connects to the bus at `address`, or to the session bus when it is `nil`.
    ///
    /// - Throws: ``ClientError/noBus(_:)`` when there is no bus to connect to.
    public static func connect(address: String?, busName: String = ControlNames.busName) async throws(ClientError)
        -> ControlClient
    {
        do {
            let connection = try await BusConnection.connect(address: address)
            connection.setDecodePolicy(replyPolicy)
            return ControlClient(connection: connection, busName: busName)
        } catch let error as DBusError {
            throw .noBus(error.message)
        } catch {
            throw .noBus("\(error)")
        }
    }

    /// `Status`: the vault and its visible collections.
    public func status() async throws(ClientError) -> VaultStatus {
        try VaultStatus(reply: await call(.status))
    }

    /// `Init`: sets the passcode of a new vault, which creates the unlocked `login` collection
    /// under `policy` with `minimumLength` (puffd's defaults when nil).
    public func initialize(passcode: SecureBytes, policy: PolicyName? = nil, minimumLength: UInt32? = nil)
        async throws(ClientError)
    {
        let options = DBusValue.dictionary(key: "s", value: "v", Self.policyEntries(policy, minimumLength))
        let pipe = try PasscodePipe.readEnd(carrying: passcode)
        _ = try await call(
            .initialize, [options, .unixFD(pipe)], collection: "login", timeout: Self.passcodeCallTimeout)
    }

    /// `Unlock`: opens `collection`, or with `""` whichever hidden collection the passcode opens.
    ///
    /// - Returns: The id of the collection that opened.
    public func unlock(_ collection: String, passcode: SecureBytes) async throws(ClientError) -> String {
        let pipe = try PasscodePipe.readEnd(carrying: passcode)
        let reply = try await call(
            .unlock, [.string(collection), .unixFD(pipe)], collection: collection,
            timeout: Self.passcodeCallTimeout)
        return try Self.string(reply, member: "Unlock")
    }

    /// `Lock`: locks `collections`, or every collection when the list is empty.
    public func lock(_ collections: [String]) async throws(ClientError) {
        _ = try await call(.lock, [.strings(collections)], collection: collections.first)
    }

    /// `ChangePasscode`: re-keys the collection under `new`; `progress` gets the call's
    /// `Progress` signals (records opened and sealed again).
    public func changePasscode(
        of collection: String, old: SecureBytes, new: SecureBytes,
        progress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws(ClientError) {
        let oldPipe = try PasscodePipe.readEnd(carrying: old)
        let newPipe = try PasscodePipe.readEnd(carrying: new)
        _ = try await observingProgress(.changePasscode, progress) { () async throws(ClientError) in
            try await call(
                .changePasscode, [.string(collection), .unixFD(oldPipe), .unixFD(newPipe)], collection: collection,
                timeout: Self.passcodeCallTimeout)
        }
    }

    /// `CreateCollection`: a new collection, unlocked, under its own passcode and `policy` with
    /// `minimumLength` (puffd's defaults when nil).
    ///
    /// - Returns: The new collection's id.
    public func createCollection(
        label: String, isPrivate: Bool, isHidden: Bool, policy: PolicyName? = nil, minimumLength: UInt32? = nil,
        lockedSearch: LockedSearchMode? = nil, passcode: SecureBytes
    ) async throws(ClientError) -> String {
        let options = DBusValue.dictionary(
            key: "s", value: "v",
            [
                .init(.string(ControlKey.isPrivate), .variant(.boolean(isPrivate))),
                .init(.string(ControlKey.hidden), .variant(.boolean(isHidden))),
            ] + Self.policyEntries(policy, minimumLength)
                + (lockedSearch.map { [.init(.string(ControlKey.lockedSearch), .variant(.string($0.rawValue)))] } ?? [])
        )
        let pipe = try PasscodePipe.readEnd(carrying: passcode)
        let reply = try await call(
            .createCollection, [.string(label), options, .unixFD(pipe)], collection: label,
            timeout: Self.passcodeCallTimeout)
        return try Self.string(reply, member: "CreateCollection")
    }

    /// `SetLockedSearch`: whether the collection's items are found while it is locked; needs its
    /// passcode.
    public func setLockedSearch(
        of collection: String, to mode: LockedSearchMode, passcode: SecureBytes
    ) async throws(ClientError) {
        let pipe = try PasscodePipe.readEnd(carrying: passcode)
        _ = try await call(
            .setLockedSearch, [.string(collection), .string(mode.rawValue), .unixFD(pipe)], collection: collection,
            timeout: Self.passcodeCallTimeout)
    }

    /// `DeleteCollection`: sets the collection aside (restorable for a while); a locked one needs
    /// its `passcode`.
    ///
    /// - Returns: What was deleted.
    public func deleteCollection(_ collection: String, passcode: SecureBytes? = nil) async throws(ClientError)
        -> DeletedCollectionSummary
    {
        var options: [DBusValue.DictEntry] = []
        if let passcode {
            options.append(
                .init(.string(ControlKey.passcode), .variant(.unixFD(try PasscodePipe.readEnd(carrying: passcode)))))
        }
        let reply = try await call(
            .deleteCollection, [.string(collection), .dictionary(key: "s", value: "v", options)],
            collection: collection, timeout: Self.passcodeCallTimeout)
        guard let fields = reply.first?.variantDictionary else { throw .unexpectedReply(member: "DeleteCollection") }
        return try DeletedCollectionSummary(ReplyFields(fields, member: "DeleteCollection"))
    }

    /// `DeletedCollections`: the deleted collections still kept, oldest first.
    public func deletedCollections() async throws(ClientError) -> [DeletedCollectionSummary] {
        let reply = try await call(.deletedCollections)
        guard case .array(_, let entries) = reply[0] else { throw .unexpectedReply(member: "DeletedCollections") }
        var list: [DeletedCollectionSummary] = []
        for entry in entries {
            guard let fields = entry.variantDictionary else { throw .unexpectedReply(member: "DeletedCollections") }
            list.append(try DeletedCollectionSummary(ReplyFields(fields, member: "DeletedCollections")))
        }
        return list
    }

    /// `RestoreCollection`: brings back a deleted collection, by its id or its kept name.
    ///
    /// - Returns: Its id, or `""` for a hidden one.
    public func restoreCollection(_ name: String) async throws(ClientError) -> String {
        let reply = try await call(.restoreCollection, [.string(name)], collection: name)
        return try Self.string(reply, member: "RestoreCollection")
    }

    /// `RenameCollection`: sets the collection's display name.
    public func renameCollection(_ collection: String, to label: String) async throws(ClientError) {
        _ = try await call(
            .renameCollection, [.string(collection), .string(label)], collection: collection)
    }

    /// `SetDefault`: points the `default` alias at `collection`.
    public func setDefault(_ collection: String) async throws(ClientError) {
        _ = try await call(.setDefault, [.string(collection)], collection: collection)
    }

    /// `Compact`: rewrites the journal of `collection` (`""` for all) with only its live records.
    ///
    /// `progress` gets the call's `Progress` signals (records opened and sealed again).
    ///
    /// - Returns: The bytes reclaimed.
    public func compact(_ collection: String, progress: (@Sendable (ProgressUpdate) -> Void)? = nil)
        async throws(ClientError) -> UInt64
    {
        let reply = try await observingProgress(.compact, progress) { () async throws(ClientError) in
            try await call(.compact, [.string(collection)], collection: collection)
        }
        guard case .uint64(let reclaimed) = reply[0] else { throw .unexpectedReply(member: "Compact") }
        return reclaimed
    }

    /// `Repair`: keeps what authenticates of a damaged collection's journal.
    ///
    /// - Returns: The records kept, what was lost, and where the old journal is kept.
    public func repair(_ collection: String) async throws(ClientError) -> (kept: UInt64, lost: [String], keptAt: String)
    {
        let reply = try await call(.repair, [.string(collection)], collection: collection)
        guard case .uint64(let kept) = reply[0], case .array(_, let lost) = reply[1], case .string(let at) = reply[2]
        else { throw .unexpectedReply(member: "Repair") }
        return (kept, lost.compactMap(\.string), at)
    }

    /// `ListItems`: the items of a visible collection, never their secrets.
    public func listItems(in collection: String) async throws(ClientError) -> [ItemSummary] {
        let reply = try await call(.listItems, [.string(collection)], collection: collection)
        return try ItemSummary.list(reply: reply, collection: collection)
    }

    /// Sends one call of the contract's `method` and checks the reply's signature against its
    /// `out` arguments. A body of another shape than its `in` arguments is puffctl's own bug, and
    /// is refused before it is sent.
    func call(
        _ method: ControlContract.Method, _ body: [DBusValue] = [], collection: String? = nil,
        timeout: Duration = ControlClient.callTimeout
    ) async throws(ClientError) -> [DBusValue] {
        try Self.check(body, of: method)
        return try await call(
            MemberName(stringLiteral: method.name), on: ControlNames.path, interface: ControlNames.interface, body,
            expecting: method.outputSignature, collection: collection, timeout: timeout)
    }

    /// Refuses a `body` whose signature is not `method`'s `in` signature: puffctl's own bug.
    static func check(_ body: [DBusValue], of method: ControlContract.Method) throws(ClientError) {
        let signature = DBusValue.signature(of: body).rawValue
        guard signature == method.inputSignature else {
            throw .failed(
                name: "", message: "puffctl built \(method.name) as (\(signature)), not (\(method.inputSignature))")
        }
    }

    /// Sends one call to any object of puffd and checks the reply's signature; every error reply
    /// becomes a ``ClientError`` here. The control object is reached under ``busName``, the Secret
    /// Service's objects under ``ControlNames/secretsBusName``: puffd serves them on two connections.
    func call(
        _ member: MemberName, on path: ObjectPath, interface: InterfaceName, _ body: [DBusValue] = [],
        expecting signature: String, collection: String? = nil, timeout: Duration = ControlClient.callTimeout
    ) async throws(ClientError) -> [DBusValue] {
        let destination = path == ControlNames.path ? busName : ControlNames.secretsBusName
        let message = OutgoingMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, body)
        let reply: IncomingMessage
        do {
            reply = try await connection.call(message, timeout: timeout)
        } catch let error as DBusError {
            let mapped = ClientError(error, collection: collection, busName: destination)
            // No puffd to start, but the Secret Service name is taken: another provider runs.
            if case .daemonNotRunning = mapped, destination == busName,
                let secrets = BusName(ControlNames.secretsBusName),
                (try? await connection.nameOwner(of: secrets)) ?? nil != nil
            {
                throw .otherProvider(busName: ControlNames.secretsBusName)
            }
            throw mapped
        } catch {
            throw .failed(name: "", message: "\(error)")
        }
        guard reply.signature.rawValue == signature, reply.undecodedBody == nil else {
            throw .unexpectedReply(member: member.rawValue)
        }
        return reply.arguments
    }

    /// The `policy` (s) and `min_length` (u) options; none for puffd's default.
    private static func policyEntries(_ policy: PolicyName?, _ minimumLength: UInt32?) -> [DBusValue.DictEntry] {
        var entries: [DBusValue.DictEntry] = []
        if let policy { entries.append(.init(.string(ControlKey.policy), .variant(.string(policy.rawValue)))) }
        if let minimumLength {
            entries.append(.init(.string(ControlKey.minimumLength), .variant(.uint32(minimumLength))))
        }
        return entries
    }

    private static func string(_ reply: [DBusValue], member: String) throws(ClientError) -> String {
        guard let value = reply.first?.string else { throw .unexpectedReply(member: member) }
        return value
    }
}
