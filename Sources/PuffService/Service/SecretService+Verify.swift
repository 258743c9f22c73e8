// SPDX-License-Identifier: Apache-2.0
import Glibc
import Logging
public import PuffStore

/// What `puffctl verify` found.
public struct VerifyReport: Sendable, Equatable {
    /// One problem, naming the file and, where known, the offset.
    public struct Finding: Sendable, Equatable {
        public var file: String
        public var offset: UInt64?
        public var what: String
        /// A torn append puffd cuts off at its next read: reported, not damage.
        public var isWarning: Bool
    }

    public var findings: [Finding]
    /// Unlocked collections whose every record was opened and checked in its place in the chain.
    public var checked: [CollectionID]
    /// Records that authenticated in those.
    public var records: Int
    /// Visible collections that are locked: only their files' frames and checksums were checked.
    public var locked: [CollectionID]
}

extension SecretService {
    /// Checks the whole vault: every vault file's frames and checksums without a key
    /// (``VaultFileCheck``, as `puffctl doctor` does), and for every unlocked collection every
    /// record authenticating in its place in the chain and against the head (as `puffctl repair`
    /// keeps them). Changes nothing but what reading a journal always does (a torn tail is cut
    /// off and kept aside).
    ///
    /// `progress` is told bytes: every vault file's as it is checked, then the records' of each
    /// unlocked collection as they are opened (estimated by its journal's size until it is read).
    public func verify(progress: ProgressHandler? = nil) async -> VerifyReport {
        var report = VerifyReport(findings: [], checked: [], records: 0, locked: [])
        let meter = meter(.bytes, progress)
        let journals = expectVerifying(meter)
        if let folder = store.location {
            let files = await BlockingWork.run {
                VaultFileCheck.findings(folder: folder, counting: { meter.advance(by: $0) })
            }
            report.findings += files.map {
                VerifyReport.Finding(file: $0.file, offset: $0.offset, what: $0.what, isWarning: $0.kind == .torn)
            }
        }
        for problem in damaged {
            report.findings.append(
                VerifyReport.Finding(file: problem.name, offset: nil, what: problem.reason, isWarning: false))
        }
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id], let space = vault.space else { continue }
            guard let sealer = vault.sealer, !vault.isLocked else {
                if !vault.isHidden { report.locked.append(id) }
                continue
            }
            let file = store.name(of: .journal(space))
            // Under the write turn, so no append is read half-written.
            await beginWrite()
            let journal: JournalReplay
            do {
                journal = try await store.replay(space)
            } catch {
                endWrite()
                report.findings.append(
                    VerifyReport.Finding(file: file, offset: nil, what: "\(error)", isWarning: false))
                continue
            }
            endWrite()
            meter.revise(journals[space] ?? 0, to: journal.records.reduce(0) { $0 + $1.bytes.count })
            let checked = await BlockingWork.run {
                JournalResealing.authenticated(
                    journal, space: space, sealer: sealer, file: file, counting: { meter.advance(by: $0) })
            }
            report.findings += checked.damage.map {
                VerifyReport.Finding(file: file, offset: nil, what: $0, isWarning: false)
            }
            report.records += checked.good.count
            report.checked.append(id)
        }
        // Each journal was read whole and its records copied and opened on worker threads, whose
        // arenas glibc keeps once freed: three verifies of 100,000 items left puffd at 415 MiB.
        MemoryTrim.trim()
        meter.finish()
        logger.info(
            "Vault verified",
            metadata: [
                "problems": "\(report.findings.count { !$0.isWarning })", "checked": "\(report.checked.count)",
                "records": "\(report.records)",
            ])
        return report
    }

    /// Tells `meter` what ``verify(progress:)`` reads: the vault files, then the journal of every
    /// unlocked collection again (their sizes now, by space, to be revised once read).
    private func expectVerifying(_ meter: ProgressMeter) -> [SpaceID: Int] {
        guard let folder = store.location else { return [:] }
        var journals: [SpaceID: Int] = [:]
        for id in collectionOrder where id != .session {
            guard let vault = collectionStates[id], let space = vault.space, vault.sealer != nil, !vault.isLocked
            else { continue }
            var info = stat()
            journals[space] = lstat(store.name(of: .journal(space)), &info) == 0 ? Int(info.st_size) : 0
        }
        meter.expect(Int(clamping: VaultFileCheck.bytes(folder: folder)) + journals.values.reduce(0, +))
        meter.advance(by: 0)
        return journals
    }
}
