// SPDX-License-Identifier: Apache-2.0
import PuffStore

/// Check 5: whether the vault's contents are whole. puffd's `Status` says which collections did
/// not open and what else is wrong (a damaged catalog, a file that is not a regular file); the
/// files themselves, read without a key and changed in nothing (``VaultFileCheck``), show
/// damage puffd has not read yet (a private collection, puffd not running), journals cut before,
/// and torn appends puffd will cut.
enum VaultDamageCheck {
    /// The findings from puffd's `status` (nil when puffd does not run this vault) and the files'
    /// `files`; a file puffd already names is not reported twice.
    static func findings(status: VaultStatus?, files: [VaultFileCheck.Finding]) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        var named: [String] = []
        let keep = "keep a copy of the vault folder before changing anything; the other collections keep working"
        for collection in status?.collections ?? [] where !collection.damage.isEmpty {
            findings.append(
                DoctorFinding(.fail, "collection \(collection.id) is damaged: \(collection.damage)", next: keep))
            named.append(collection.damage)
        }
        for problem in status?.problems ?? [] {
            findings.append(DoctorFinding(.fail, problem, next: keep))
            named.append(problem)
        }
        for file in files where !named.contains(where: { $0.contains(file.file) }) {
            switch file.kind {
            case .damaged:
                findings.append(
                    DoctorFinding(.fail, "\(file.file) is damaged at offset \(file.offset): \(file.what)", next: keep))
            case .refused:
                findings.append(
                    DoctorFinding(
                        .fail, "\(file.file) is \(file.what)",
                        next: "puffd never makes one: find out where it came from and move it out of the vault folder"))
            case .cut:
                findings.append(
                    DoctorFinding(
                        .fail, file.what, details: [file.file],
                        next: "check that nothing is missing (`puffctl list`), then delete \(file.file)"))
            case .torn:
                findings.append(
                    DoctorFinding(
                        .warn, "\(file.file) \(file.what) at offset \(file.offset)",
                        next: "puffd cuts it off, keeping the bytes beside the journal, when it next reads it"))
            }
        }
        if findings.isEmpty {
            findings.append(DoctorFinding(.ok, "every vault file is whole: checksums match, nothing was cut"))
        }
        return findings
    }
}
