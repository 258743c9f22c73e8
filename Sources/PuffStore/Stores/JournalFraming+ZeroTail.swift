// SPDX-License-Identifier: Apache-2.0

extension JournalFraming {
    /// A journal's zero-filled tail (design core-reshaped §6): the committer extends a journal
    /// with zeros ahead of its appends, so a flush rewrites data blocks, not the file's size. A
    /// frame never has length zero, so zeros where a frame should start are the logical end.
    public enum ZeroTail {
        /// Whether `bytes` from `offset` to the end are all zeros.
        public static func isZeros(_ bytes: [UInt8], from offset: Int) -> Bool {
            bytes.withUnsafeBytes { raw in raw[offset...].allSatisfy { $0 == 0 } }
        }

        /// Whether the bad bytes at `gap` (zeros where a frame should start, or a frame that does
        /// not check, with more after it) are a group of appends that was never acknowledged, which
        /// a power cut kept in part: written over the zero tail, some of its blocks reached the disk
        /// and others did not. So when the newest head, read from its clear fields, names a record
        /// before `gap`: a group's records are flushed together and the next group is written only
        /// after that flush returns, so only the last group written can be torn, and it was never
        /// acknowledged. The head is written after its group's flush and flushed once appends
        /// pause, so after a power cut it may name a record some groups before the gap (those
        /// groups were acknowledged, and they are before the gap: kept), never one after it.
        /// Such a tail is torn.
        ///
        /// Anything else is damage, to be stepped over: bytes planted over acknowledged records
        /// leave a head naming a later record. A planted file whose head's clear fields were
        /// rewritten to match is cut here, but that head does not authenticate at unlock; the
        /// older, authentic slot of a head names an earlier record, so planting over the records
        /// after it and tearing the newer slot rolls those back, as putting back an older copy of
        /// the files does (docs/vault-format.md, "Not detected"); the cut bytes are kept beside the
        /// journal and `puffctl doctor` fails on them.
        public static func isUnacknowledgedGroup(
            at gap: Int, in bytes: [UInt8], records: [JournalReplay.Record], heads: [[UInt8]]
        ) -> Bool {
            guard let version = JournalFraming.version(of: bytes), version >= 2,
                let newest = heads.compactMap({ try? JournalHead(decoding: $0) }).max(by: { $0.sequence < $1.sequence })
            else { return false }
            // Newest first: a head a few groups behind is found after a few records. With no
            // record before the gap, nothing says what was acknowledged: damage.
            for last in records.reversed() where last.offset < UInt64(gap) {
                guard let record = try? VaultRecord(decoding: last.bytes, format: version), let link = record.link
                else { return false }
                if link.sequence < newest.sequence { return false }
                if link.sequence == newest.sequence { return newest.tag == record.mac }
            }
            return false
        }
    }
}
