// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto
public import PuffDBus
import PuffProtocol

/// What `Backup` and `Restore` answered.
public struct BackupOutcome: Sendable, Equatable {
    public var files: UInt32
    public var collections: UInt32
    public var bytes: UInt64
    /// Items of the collections whose items are known (`Backup` only).
    public var items: UInt64
    /// Collections whose items are unknown while locked (`Backup` only).
    public var unknown: UInt32
    /// Where the vault as it was is kept (`Restore` only; "" when none was kept).
    public var snapshot: String
    /// The visible collections after a restore.
    public var restored: [String]
}

/// What `Verify` found.
public struct VerifyOutcome: Sendable, Equatable {
    public struct Finding: Sendable, Equatable {
        public var file: String
        public var offset: UInt64?
        public var what: String
        public var isWarning: Bool
    }

    public var findings: [Finding]
    public var checked: [String]
    public var records: UInt64
    public var locked: [String]
}

extension ControlClient {
    /// How long a backup, restore or verify may take: a large vault's files are copied or read whole.
    static let archiveCallTimeout: Duration = .seconds(600)

    /// `Backup`: puffd writes the archive into `archive`, a regular file open for writing.
    /// `progress` gets the call's `Progress` signals (bytes of the vault's files copied).
    public func backup(into archive: UnixFD, progress: (@Sendable (ProgressUpdate) -> Void)? = nil)
        async throws(ClientError) -> BackupOutcome
    {
        let reply = try await observingProgress(.backup, progress) { () async throws(ClientError) in
            try await call(.backup, [.unixFD(archive)], timeout: Self.archiveCallTimeout)
        }
        return try Self.outcome(reply, member: "Backup")
    }

    /// `Restore`: puffd replaces the vault with the archive in `archive` (open for reading). The
    /// person agrees with the `passcode` of `collection` (the default collection when nil), or,
    /// with no passcode, by answering puffd's prompter. `progress` gets the call's `Progress`
    /// signals (bytes of the archive read, then of the vault kept as a snapshot).
    public func restore(
        from archive: UnixFD, name: String, passcode: SecureBytes? = nil, collection: String? = nil,
        progress: (@Sendable (ProgressUpdate) -> Void)? = nil
    ) async throws(ClientError) -> BackupOutcome {
        var entries: [DBusValue.DictEntry] = [.init(.string(ControlKey.name), .variant(.string(name)))]
        if let passcode {
            entries.append(
                .init(.string(ControlKey.passcode), .variant(.unixFD(try PasscodePipe.readEnd(carrying: passcode)))))
        }
        if let collection { entries.append(.init(.string(ControlKey.collection), .variant(.string(collection)))) }
        let options = DBusValue.dictionary(key: "s", value: "v", entries)
        let reply = try await observingProgress(.restore, progress) { () async throws(ClientError) in
            try await call(
                .restore, [.unixFD(archive), options], timeout: Self.archiveCallTimeout)
        }
        return try Self.outcome(reply, member: "Restore")
    }

    /// `Verify`: every vault file's frames, and every record of the unlocked collections;
    /// `progress` gets the call's `Progress` signals (bytes checked).
    public func verify(progress: (@Sendable (ProgressUpdate) -> Void)? = nil) async throws(ClientError)
        -> VerifyOutcome
    {
        let reply = try await observingProgress(.verify, progress) { () async throws(ClientError) in
            try await call(.verify, timeout: Self.archiveCallTimeout)
        }
        guard case .array(_, let entries) = reply[0], case .array(_, let checked) = reply[1],
            case .uint64(let records) = reply[2], case .array(_, let locked) = reply[3]
        else { throw .unexpectedReply(member: "Verify") }
        var findings: [VerifyOutcome.Finding] = []
        for entry in entries {
            guard let fields = entry.variantDictionary, let file = fields[ControlKey.file]?.string,
                let what = fields[ControlKey.what]?.string
            else { throw .unexpectedReply(member: "Verify") }
            var offset: UInt64?
            if case .uint64(let value)? = fields[ControlKey.offset] { offset = value }
            findings.append(
                .init(file: file, offset: offset, what: what, isWarning: fields[ControlKey.warning]?.bool ?? false))
        }
        return VerifyOutcome(
            findings: findings, checked: checked.compactMap(\.string), records: records,
            locked: locked.compactMap(\.string))
    }

    private static func outcome(_ reply: [DBusValue], member: String) throws(ClientError) -> BackupOutcome {
        guard let fields = reply.first?.variantDictionary else { throw .unexpectedReply(member: member) }
        func number<T: FixedWidthInteger>(_ key: String, _: T.Type) -> T {
            switch fields[key] {
            case .uint32(let value)?: T(clamping: value)
            case .uint64(let value)?: T(clamping: value)
            default: 0
            }
        }
        var restored: [String] = []
        if case .array(_, let names)? = fields[ControlKey.restored] { restored = names.compactMap(\.string) }
        return BackupOutcome(
            files: number(ControlKey.files, UInt32.self), collections: number(ControlKey.collections, UInt32.self),
            bytes: number(ControlKey.bytes, UInt64.self), items: number(ControlKey.items, UInt64.self),
            unknown: number(ControlKey.unknown, UInt32.self), snapshot: fields[ControlKey.snapshot]?.string ?? "",
            restored: restored)
    }
}
