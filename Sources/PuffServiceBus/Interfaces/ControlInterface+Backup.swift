// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffConcurrency
import PuffDBus
import PuffProtocol
import PuffService

/// `Backup`, `Restore` and `Verify` of `io.puff.Control1` (dbus/io.puff.Control1.xml, docs/backup.md).
extension SecretInterfaces {
    static func backupMethods(_ context: BusContext) -> [Method] {
        let service = context.service
        return [
            controlMethod(.backup, in: .unixFD("archive")) { call, descriptor in
                let archive = try Self.regularFile(descriptor, writable: true)
                let progress = context.progress(of: .backup, for: call)
                let report = try await CallSlot.released { () async throws(ServiceError) in
                    try await service.backup(into: archive.rawValue, name: "the backup", progress: progress)
                }
                return [
                    .variantDictionary([
                        ControlKey.files: .uint32(UInt32(clamping: report.files)),
                        ControlKey.collections: .uint32(UInt32(clamping: report.collections)),
                        ControlKey.bytes: .uint64(report.bytes), ControlKey.items: .uint64(UInt64(report.items)),
                        ControlKey.unknown: .uint32(UInt32(clamping: report.unknownCollections)),
                    ])
                ]
            },
            controlMethod(.restore, in: .unixFD("archive"), .variantDictionary("options")) {
                call, descriptor, options in
                let archive = try Self.regularFile(descriptor, writable: false)
                let name = options[ControlKey.name]?.string ?? "a backup"
                // The person's consent: options["passcode"] (a pipe) of options["collection"] (the
                // default collection when absent), else a yes through the prompter chain.
                let consent = try await call.consent(options)
                let collection = options[ControlKey.collection]?.string.flatMap { $0.isEmpty ? nil : CollectionID($0) }
                let progress = context.progress(of: .restore, for: call)
                let report = try await CallSlot.released { () async throws(ServiceError) in
                    try await service.restore(
                        from: archive.rawValue, name: name, caller: call.caller, consent: consent,
                        collection: collection, progress: progress)
                }
                return [
                    .variantDictionary([
                        ControlKey.files: .uint32(UInt32(clamping: report.files)),
                        ControlKey.collections: .uint32(UInt32(clamping: report.headers)),
                        ControlKey.bytes: .uint64(report.bytes), ControlKey.snapshot: .string(report.snapshot ?? ""),
                        ControlKey.restored: .strings(report.collections.map(\.rawValue)),
                    ])
                ]
            },
            controlMethod(.verify) { call in
                let progress = context.progress(of: .verify, for: call)
                let report = await CallSlot.released { await service.verify(progress: progress) }
                let findings = report.findings.map { finding -> DBusValue in
                    var fields: [String: DBusValue] = [
                        ControlKey.file: .string(finding.file), ControlKey.what: .string(finding.what),
                        ControlKey.warning: .boolean(finding.isWarning),
                    ]
                    if let offset = finding.offset { fields[ControlKey.offset] = .uint64(offset) }
                    return .variantDictionary(fields)
                }
                return [
                    .array(element: "a{sv}", findings), .strings(report.checked.map(\.rawValue)),
                    .uint64(UInt64(report.records)), .strings(report.locked.map(\.rawValue)),
                ]
            },
        ]
    }

    /// `descriptor`, when it is a regular file open for writing (or reading). Anything else (a
    /// pipe, a FIFO, a socket) is refused: puffd never waits on a reader.
    private static func regularFile(_ descriptor: UnixFD, writable: Bool) throws(ServiceError) -> UnixFD {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .invalidArgument("the archive must be a regular file")
        }
        let mode = fcntl(descriptor.rawValue, F_GETFL) & O_ACCMODE
        guard writable ? mode == O_WRONLY || mode == O_RDWR : mode == O_RDONLY || mode == O_RDWR else {
            throw .invalidArgument("the archive must be open for \(writable ? "writing" : "reading")")
        }
        return descriptor
    }
}
