// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// One audit log entry as stored (docs/vault-format.md): `u64 sequence | XChaCha20-Poly1305 box`.
///
/// The box is bound to the collection's space, the sequence number and the format version, so an
/// entry moved to another log or another position fails to open, and a reader that sees the
/// sequence go backwards knows entries were reordered. The sequence is in the clear so the log can
/// be continued after a restart without a key; it tells a thief only how many entries there were.
public struct AuditRecord: Sendable {
    /// The entry's position in its collection's log, counting from 1 over rotations.
    public let sequence: UInt64
    /// Nonce, ciphertext and MAC.
    public let box: [UInt8]

    /// The version in the associated data of the entries written: 2 adds the caller's app.
    /// Version 1 entries (no app) are still read; a reader that knows only version 1 finds a
    /// version 2 entry does not open, and says so, rather than misread it.
    public static let formatVersion: UInt16 = 2

    /// Seals `fields` as entry `sequence` of `space`'s log.
    public init(sequence: UInt64, fields: AuditFields, space: SpaceID, sealer: SecretSealer) {
        self.sequence = sequence
        box = sealer.seal(
            SecureBytes(unwipedCopyOf: fields.plaintext()),
            associatedData: Self.associatedData(sequence, space, version: Self.formatVersion))
    }

    /// Parses an entry's bytes as a store returned them.
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(decoding bytes: [UInt8]) throws(VaultFormatError) {
        (sequence, box) = try parsing(bytes) { reader in
            let sequence = try reader.u64("sequence")
            let box = Array(try reader.take(reader.remaining, "box"))
            guard box.count >= SecretSealer.overhead else { throw ByteReader.Malformed(offset: 8, what: "box") }
            return (sequence, box)
        }
    }

    /// The entry's bytes, for the store.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 8 + box.count)
        writer.u64(sequence)
        writer.raw(box)
        return writer.bytes
    }

    /// The fields, if `sealer` holds the log's key and the entry is where it was written; nil
    /// when the key, space or sequence differ, the bytes were altered or they do not parse.
    public func open(space: SpaceID, sealer: SecretSealer) -> AuditFields? {
        // The version is sealed, not stored: the entry opens under the one it was written with.
        for version in [Self.formatVersion, 1] {
            guard
                let plaintext = try? sealer.open(
                    box, associatedData: Self.associatedData(sequence, space, version: version))
            else { continue }
            return try? AuditFields(parsing: plaintext.unprotectedArray(), version: version)
        }
        return nil
    }

    /// `"puff.audit" | u16 version | u64 sequence | u32 length | space hex`.
    static func associatedData(_ sequence: UInt64, _ space: SpaceID, version: UInt16) -> [UInt8] {
        var writer = ByteWriter()
        writer.raw("puff.audit".utf8)
        writer.u16(version)
        writer.u64(sequence)
        writer.string(space.hex)
        return writer.bytes
    }
}

/// What an audit entry says, sealed: never a secret or an attribute value.
///
/// `u8 action | u8 result | u64 time | u64 item number | string label | string executable |
/// string client | u32 pid | string app` (version 2; version 1 ends at `pid`); `""` and 0 mean
/// unknown or none. Actions and results are numbers the service names (`PuffService`'s
/// `AuditAction` and `AuditResult`).
public struct AuditFields: Sendable, Equatable {
    public var action: UInt8
    public var result: UInt8
    /// Seconds since the epoch.
    public var time: UInt64
    public var item: UInt64
    /// The item's label when the entry was made.
    public var label: String
    public var executable: String
    /// The caller's unique bus name.
    public var client: String
    public var pid: UInt32
    /// The Flatpak app id of a sandboxed caller (`org.example.App`); `""` for any other.
    public var app: String

    public init(
        action: UInt8, result: UInt8, time: UInt64, item: UInt64, label: String, executable: String,
        client: String, pid: UInt32, app: String = ""
    ) {
        self.action = action
        self.result = result
        self.time = time
        self.item = item
        self.label = label
        self.executable = executable
        self.client = client
        self.pid = pid
        self.app = app
    }

    /// Parses an opened entry of format `version` (1 or 2).
    ///
    /// - Throws: ``VaultFormatError/malformed(offset:what:)``.
    public init(parsing bytes: [UInt8], version: UInt16 = AuditRecord.formatVersion) throws(VaultFormatError) {
        self = try parsing(bytes) { reader in
            let fields = AuditFields(
                action: try reader.u8("action"), result: try reader.u8("result"), time: try reader.u64("time"),
                item: try reader.u64("item number"), label: try reader.string("label"),
                executable: try reader.string("executable"), client: try reader.string("client"),
                pid: try reader.u32("pid"), app: version >= 2 ? try reader.string("app") : "")
            try reader.expectEnd("audit entry")
            return fields
        }
    }

    /// The entry's plaintext.
    func plaintext() -> [UInt8] {
        var writer = ByteWriter()
        writer.u8(action)
        writer.u8(result)
        writer.u64(time)
        writer.u64(item)
        writer.string(label)
        writer.string(executable)
        writer.string(client)
        writer.u32(pid)
        writer.string(app)
        return writer.bytes
    }
}
