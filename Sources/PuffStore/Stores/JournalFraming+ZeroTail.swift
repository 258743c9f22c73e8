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
        /// and others did not. So when the newest head, read from its clear fields, names exactly
        /// the last record before `gap`: a group's
        /// records are flushed together and the head is written only after that flush returns, so
        /// nothing after the record the head names was acknowledged. Such a tail is torn.
        ///
        /// Anything else is damage, to be stepped over: bytes planted over acknowledged records
        /// leave a head naming a later record. A planted file whose head's clear fields were
        /// rewritten to match is cut here, but that head does not authenticate at unlock; the
        /// older, authentic slot of a head names the group before the last, so planting over the
        /// last group and tearing the newer slot rolls back that one group, as any copy of older
        /// files does (docs/vault-format.md, "Not detected"); the cut bytes are kept beside the
        /// journal and `puffctl doctor` fails on them.
        public static func isUnacknowledgedGroup(
            at gap: Int, in bytes: [UInt8], records: [JournalReplay.Record], heads: [[UInt8]]
        ) -> Bool {
            guard let version = JournalFraming.version(of: bytes), version >= 2 else { return false }
            let newest = heads.compactMap { try? JournalHead(decoding: $0) }.max { $0.sequence < $1.sequence }
            // With no record before the gap, nothing says what was acknowledged: damage.
            guard let last = records.last(where: { $0.offset < UInt64(gap) }),
                let record = try? VaultRecord(decoding: last.bytes, format: version), let link = record.link,
                let newest
            else { return false }
            return newest.sequence == link.sequence && newest.tag == record.mac
        }
    }
}
