// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import PuffService
import PuffStore

/// One fuzz input through the code `puffd` runs on vault files it reads (docs/fuzzing.md): the
/// journal framing `FileRecordStore.replay` uses, the checksummed header and catalog files,
/// header, catalog and record parsing, the record scan done at start-up without a key, and the
/// opening of records (AEAD, then item, collection and deletion payloads) with a fixed key.
///
/// Every parser throws a typed error on bad bytes; ASan and Swift's runtime catch any trap. The
/// checks below add invariants, and throw ``Failure`` (the fuzz build then traps) when one breaks.
///
/// Input: a file that starts with a Puff magic (`PUFFJNL`, `PUFFHDR`, `PUFFCAT`) is read as that
/// file, so the golden vault's files are seeds as they are. Otherwise the first byte picks a
/// structure for the rest (``Mode``), which lets the fuzzer get past the checksums and the AEAD.
enum VaultCheck {
    /// A broken invariant; the text names which, never the bytes of a value.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// How far the input got, for the replay summary.
    enum Outcome: String, CaseIterable {
        /// Every parser refused it.
        case rejected
        /// Some parser accepted it; no record opened.
        case parsed
        /// At least one collection opened with the fixed key.
        case opened
    }

    /// What a non-file input's first byte selects (modulo the number of modes).
    enum Mode: UInt8, CaseIterable {
        /// `u16 length | record` chunks, framed with valid checksums into a journal.
        case records = 0
        /// Record plaintexts (``sealedRecords(_:)``), sealed with the fixed key into a journal.
        case plaintexts = 1
        /// The rest through every payload parser on its own.
        case payloads = 2
        /// `u16 length | header`, then record chunks: one collection as start-up and unlock read it.
        case collection = 3
    }

    static let journalMagic = Array("PUFFJNL".utf8)

    /// Runs every check that applies to `bytes`; throws the first broken invariant.
    static func run(_ bytes: [UInt8]) throws(Failure) -> Outcome {
        if bytes.starts(with: journalMagic) { return try journal(bytes) }
        if bytes.starts(with: ChecksummedFile.headerMagic.prefix(7)) { return try PayloadCheck.headerFile(bytes) }
        if bytes.starts(with: ChecksummedFile.catalogMagic.prefix(7)) { return try PayloadCheck.catalogFile(bytes) }
        var input = InputCursor(bytes)
        guard let selector = input.byte() else { return .rejected }
        switch Mode.allCases[Int(selector) % Mode.allCases.count] {
        case .records:
            return try journal(framed(input.chunks()))
        case .plaintexts:
            return try journal(framed(sealedRecords(&input)))
        case .payloads:
            return try PayloadCheck.payloads(input.rest())
        case .collection:
            return try PayloadCheck.collection(&input)
        }
    }

    /// A journal file holding `records`, framed as `FileRecordStore.append` frames them. Empty
    /// ones are left out: the daemon never appends one, and the reader rightly calls it damage.
    static func framed(_ records: [[UInt8]]) -> [UInt8] {
        records.filter { !$0.isEmpty }.reduce(JournalFraming.preamble) { $0 + JournalFraming.frame($1) }
    }

    /// Records built from `kind | number | tags | u16 length | plaintext` entries and sealed under
    /// the fixed key: `kind` is a control byte (low bits: item, deletion, collection, settings; 4: a `u64`
    /// number follows, else a `u8`; 8: the tags the daemon would write, else `u8 count` tags follow;
    /// 16: app rules instead).
    static func sealedRecords(_ input: inout InputCursor) -> [[UInt8]] {
        let kinds: [VaultRecord.Kind] = [.item, .itemDeleted, .collection, .itemSettings]
        var records: [[UInt8]] = []
        var link = VaultRecord.Link.first(1)
        while let control = input.byte() {
            // 16: an app-rules record (kind 5), whatever the low bits say.
            let kind = control & 16 != 0 ? VaultRecord.Kind.appRules : kinds[Int(control & 3) % kinds.count]
            let number = control & 4 != 0 ? input.u64() : input.byte().map(UInt64.init)
            let ownTags = control & 8 != 0
            let tags = ownTags ? [] : input.take(Int(input.byte() ?? 0) * 16)
            let plaintext = SecureBytes(unwipedCopyOf: input.take(input.u16() ?? 0))
            guard let number else { break }
            var computed = tags
            if ownTags, kind == .item, let fields = try? ItemFields.parse(plaintext, wantsSecret: false) {
                computed = FuzzKeys.tags(of: fields.fields.attributes)
            }
            // Chained as the daemon chains them, so the fuzzer reaches past the chain's checks.
            let record = VaultRecord(
                kind: kind, number: number, tags: computed, plaintext: plaintext, space: FuzzKeys.space,
                sealer: FuzzKeys.sealer, link: link)
            link = VaultRecord.Link(sequence: link.sequence + 1, previous: record.mac)
            records.append(record.encoded())
        }
        return records
    }

    /// A whole journal file: framing as `FileRecordStore.replay` reads it, then its records as a
    /// visible and as a private collection.
    static func journal(_ bytes: [UInt8]) throws(Failure) -> Outcome {
        let parsed: (records: [JournalReplay.Record], goodEnd: Int)
        do {
            parsed = try JournalFraming.parse(bytes, file: "fuzz.journal")
        } catch {
            return .rejected
        }
        try checkFraming(bytes, parsed.records, goodEnd: parsed.goodEnd)
        let visible = try CollectionCheck.run(parsed.records, header: FuzzKeys.visibleHeader, master: FuzzKeys.master)
        let hidden = try CollectionCheck.run(parsed.records, header: FuzzKeys.privateHeader, master: FuzzKeys.master)
        return visible || hidden ? .opened : .parsed
    }

    /// The good part of a journal is the preamble and the records, each framed again byte for
    /// byte; what follows it is the torn tail `replay` would cut.
    static func checkFraming(_ bytes: [UInt8], _ records: [JournalReplay.Record], goodEnd: Int) throws(Failure) {
        guard goodEnd <= bytes.count else { throw Failure("the good part ends past the file") }
        guard bytes.count >= JournalFraming.preamble.count else {
            guard goodEnd == 0, records.isEmpty else { throw Failure("records in a journal shorter than its preamble") }
            return
        }
        var rebuilt = JournalFraming.preamble
        for record in records {
            guard record.offset == UInt64(rebuilt.count) else { throw Failure("a record's offset is not its frame's") }
            guard !record.bytes.isEmpty, record.bytes.count <= JournalFraming.maxPayload else {
                throw Failure("a record of \(record.bytes.count) bytes was accepted")
            }
            rebuilt += JournalFraming.frame(record.bytes)
        }
        guard rebuilt.count == goodEnd, rebuilt.elementsEqual(bytes.prefix(goodEnd)) else {
            throw Failure("the records framed again are not the journal's good part")
        }
    }
}
