// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// `--json` results of `backup`, `restore` and `verify`: one object on standard output (their
/// progress lines go to standard error).
enum BackupOutput {
    private struct Backup: Encodable {
        var path: String
        var collections: UInt32
        var items: UInt64
        /// Collections whose items are unknown while locked.
        var unknown: UInt32
        var files: UInt32
        var bytes: UInt64
    }

    private struct Restore: Encodable {
        var path: String
        var collections: [String]
        var files: UInt32
        var bytes: UInt64
        /// Where the vault as it was is kept; "" when nowhere.
        var snapshot: String
    }

    private struct Verify: Encodable {
        struct Finding: Encodable {
            var file: String
            var offset: UInt64?
            var what: String
            var warning: Bool
        }
        var findings: [Finding]
        var checked: [String]
        var records: UInt64
        var locked: [String]
    }

    private struct VerifyBackup: Encodable {
        var path: String
        var files: Int
        var findings: [Verify.Finding]
    }

    /// `{"bytes":…,"collections":…,"files":…,"items":…,"path":…,"unknown":…}`.
    static func json(backup outcome: BackupOutcome, to path: String) -> String {
        ImportOutput.line(
            Backup(
                path: path, collections: outcome.collections, items: outcome.items, unknown: outcome.unknown,
                files: outcome.files, bytes: outcome.bytes))
    }

    /// `{"bytes":…,"collections":[…],"files":…,"path":…,"snapshot":…}`.
    static func json(restore outcome: BackupOutcome, from path: String) -> String {
        ImportOutput.line(
            Restore(
                path: path, collections: outcome.restored, files: outcome.files, bytes: outcome.bytes,
                snapshot: outcome.snapshot))
    }

    /// `{"checked":[…],"findings":[{"file":…,"offset":…,"warning":…,"what":…}],"locked":[…],"records":…}`.
    static func json(verify outcome: VerifyOutcome) -> String {
        ImportOutput.line(
            Verify(
                findings: outcome.findings.map {
                    .init(file: $0.file, offset: $0.offset, what: $0.what, warning: $0.isWarning)
                }, checked: outcome.checked, records: outcome.records, locked: outcome.locked))
    }

    /// `{"files":…,"findings":[…],"path":…}` for `verify --backup`.
    static func json(verifyBackup path: String, files: Int, findings: [VerifyOutcome.Finding]) -> String {
        ImportOutput.line(
            VerifyBackup(
                path: path, files: files,
                findings: findings.map { .init(file: $0.file, offset: $0.offset, what: $0.what, warning: $0.isWarning) }
            ))
    }
}
