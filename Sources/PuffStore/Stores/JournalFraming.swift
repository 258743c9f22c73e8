// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// How records sit in a journal: a 16-byte file preamble, then frames of
/// `u32 length (LE) | 16-byte BLAKE2b checksum of length and payload | payload`
/// (docs/vault-format.md). The checksum tells a torn or corrupted frame from a good one before any
/// key is at hand; the payload's own AEAD authenticates it.
public enum JournalFraming {
    /// `PUFFJNL` and a format byte, then the journal's version and seven zero bytes: the current
    /// version's (``VaultRecord/currentFormat``).
    public static let preamble = preamble(version: VaultRecord.currentFormat)

    /// The preamble of a journal of `version` (1: records unchained; 2: chained).
    public static func preamble(version: UInt8) -> [UInt8] {
        Array("PUFFJNL\u{1}".utf8) + [version, 0, 0, 0, 0, 0, 0, 0]
    }

    /// The version a journal's `bytes` say they are, when they start like a journal of a version
    /// this code reads (1 or 2); nil otherwise.
    public static func version(of bytes: [UInt8]) -> UInt8? {
        guard bytes.count >= 9, let version = Optional(bytes[8]), (1...VaultRecord.currentFormat).contains(version),
            bytes.starts(with: preamble(version: version).prefix(preamble.count))
        else { return nil }
        return version
    }
    /// Bytes before a frame's payload.
    public static let frameOverhead = 20
    /// The largest payload a frame may carry: a 1 MiB secret, 64 KiB of attributes, a 4 KiB label
    /// and sealing overhead fit with room to spare. A larger length is damage, not a torn tail.
    public static let maxPayload = 2 << 20

    /// `payload` framed for appending.
    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var framed: [UInt8] = []
        framed.reserveCapacity(payload.count + frameOverhead)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { framed.append(contentsOf: $0) }
        var cost = FramingCost()
        framed.append(contentsOf: checksum(length: framed, payload: payload[...], cost: &cost))
        framed.append(contentsOf: payload)
        return framed
    }

    /// The records of a whole journal file's `bytes`, and where its good part ends.
    ///
    /// A frame that runs past the end, or fails its checksum and is the last one (only zeros after
    /// it), is a torn tail: the good part ends before it; zeros where a frame should start end the
    /// records (a zero tail). Anything else wrong is damage.
    ///
    /// - Parameter preamble: What the file starts with: a journal's, or an audit log's
    ///   (``AuditFraming/preamble``), whose frames are the same.
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` naming `file` and the offset.
    public static func parse(
        _ bytes: [UInt8], file: String, preamble: [UInt8] = preamble
    ) throws(StoreError) -> (records: [JournalReplay.Record], goodEnd: Int) {
        var cost = FramingCost()
        return try parse(bytes, file: file, preamble: preamble, cost: &cost)
    }

    /// ``parse(_:file:preamble:)``, adding what its checksums cost to `cost`: the seam that shows
    /// the work is linear in the file's size whatever its bytes.
    package static func parse(
        _ bytes: [UInt8], file: String, preamble: [UInt8] = preamble, cost: inout FramingCost
    ) throws(StoreError) -> (records: [JournalReplay.Record], goodEnd: Int) {
        var records: [JournalReplay.Record] = []
        let goodEnd = try walk(bytes, file: file, preamble: preamble, cost: &cost) { offset, payload in
            records.append(JournalReplay.Record(offset: UInt64(offset), bytes: Array(payload)))
        }
        return (records, goodEnd)
    }

    /// Where the good part of a whole journal file's `bytes` ends, checked as
    /// ``parse(_:file:preamble:)`` checks it but copying no record out: what `puffctl verify` and
    /// `doctor` need of a file (a copy of each record of a 100,000-item journal is 45 MB in
    /// 100,000 blocks, which glibc keeps once freed).
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` as `parse` does.
    public static func goodEnd(of bytes: [UInt8], file: String, preamble: [UInt8] = preamble) throws(StoreError)
        -> Int
    {
        var cost = FramingCost()
        return try walk(bytes, file: file, preamble: preamble, cost: &cost) { _, _ in }
    }

    /// Checks the frames of `bytes` as ``parse(_:file:preamble:)`` describes, handing each good
    /// record's offset and payload (a slice of `bytes`) to `record`; returns where the good part ends.
    private static func walk(
        _ bytes: [UInt8], file: String, preamble: [UInt8], cost: inout FramingCost,
        each record: (Int, ArraySlice<UInt8>) -> Void
    ) throws(StoreError) -> Int {
        guard bytes.count >= preamble.count else {
            // A journal is created with its preamble durable, so a short one was torn at creation.
            guard preamble.starts(with: bytes) else {
                throw .damaged(
                    file: file, offset: 0, reason: "not a Puff \(preamble == Self.preamble ? "journal" : "file")")
            }
            return 0
        }
        guard bytes.starts(with: preamble) else {
            throw .damaged(file: file, offset: 0, reason: "not a Puff journal of this format version")
        }
        var offset = preamble.count
        while offset < bytes.count {
            let remaining = bytes.count - offset
            guard remaining >= frameOverhead else { return offset }
            let length = lengthField(at: offset, in: bytes)
            guard length <= maxPayload, length > 0 else {
                if bytes[offset...].allSatisfy({ $0 == 0 }) { return offset }  // a zero-filled torn tail
                throw .damaged(file: file, offset: UInt64(offset), reason: "record length \(length) is impossible")
            }
            guard remaining - frameOverhead >= length else {
                // Past the end: a torn last append, unless a whole frame follows (then a flipped
                // length in the middle would cut acknowledged records off).
                guard let later = frameFollowing(offset, in: bytes, cost: &cost) else { return offset }
                throw .damaged(
                    file: file, offset: UInt64(offset),
                    reason: "record length \(length) runs past the end, but a record follows at \(later)")
            }
            let payloadStart = offset + frameOverhead
            let end = payloadStart + length
            let payload = bytes[payloadStart..<end]
            guard
                checksum(length: Array(bytes[offset..<offset + 4]), payload: payload, cost: &cost)[...]
                    == bytes[offset + 4..<payloadStart]
            else {
                // The last frame, or the last before a zero tail: a torn append.
                if end == bytes.count || ZeroTail.isZeros(bytes, from: end) { return offset }
                throw .damaged(file: file, offset: UInt64(offset), reason: "record checksum does not match")
            }
            record(offset, payload)
            offset = end
        }
        return offset
    }

    /// What ``salvage(_:file:preamble:)`` found: the records that read, where the good part ends,
    /// and each stretch of damage it stepped over (its offset and why).
    public struct Salvaged: Sendable {
        public var records: [JournalReplay.Record]
        public var goodEnd: Int
        public var damaged: [JournalReplay.Damage]
    }

    /// ``parse(_:file:preamble:)`` that steps over damage in the middle instead of stopping at it
    /// (issue 24 item 20): a bad frame is noted and reading goes on at the next good frame, so
    /// every record before and after it still reads. The next good frame is the one the bad
    /// frame's own length points at, or else the nearest one found within ``scanBudget`` times
    /// the rest's size of hashing (linear, as for a torn tail); a rest without one is damage to
    /// the end, and nothing of it is cut off. A torn tail is found as by `parse`.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` only when the file does not start as
    ///   a Puff journal.
    public static func salvage(_ bytes: [UInt8], file: String, preamble: [UInt8]) throws(StoreError) -> Salvaged {
        var result = Salvaged(records: [], goodEnd: 0, damaged: [])
        // Each segment between two damaged frames is parsed as a journal of its own (the preamble
        // put before it), its offsets shifted back; segments are disjoint, so this stays linear.
        var start = preamble.count
        var cost = FramingCost()
        while true {
            let segment = start == preamble.count ? bytes : preamble + bytes[start...]
            let shift = start - preamble.count
            let shifted = { (records: [JournalReplay.Record]) in
                records.map { JournalReplay.Record(offset: $0.offset + UInt64(shift), bytes: $0.bytes) }
            }
            do {
                let parsed = try parse(segment, file: file, preamble: preamble, cost: &cost)
                result.records += shifted(parsed.records)
                result.goodEnd = parsed.goodEnd + shift
                return result
            } catch {
                guard case .damaged(_, let at, let reason) = error, at >= UInt64(preamble.count) else { throw error }
                let before = try parse(Array(segment[..<Int(at)]), file: file, preamble: preamble, cost: &cost)
                result.records += shifted(before.records)
                let bad = Int(at) + shift
                guard let next = nextGoodFrame(after: bad, in: bytes) else {
                    result.damaged.append(
                        JournalReplay.Damage(offset: UInt64(bad), reason: "\(reason); no readable record follows"))
                    result.goodEnd = bytes.count
                    return result
                }
                result.damaged.append(JournalReplay.Damage(offset: UInt64(bad), reason: reason))
                start = next
            }
        }
    }

    /// The start of the next whole, good frame after a bad one at `offset`: where its length
    /// field points if a good frame starts there, else the nearest one within the budget.
    static func nextGoodFrame(after offset: Int, in bytes: [UInt8]) -> Int? {
        var cost = FramingCost()
        let pointed = offset + frameOverhead + lengthField(at: offset, in: bytes)
        if offset + frameOverhead <= bytes.count, pointed <= bytes.count, pointed > offset,
            isGoodFrame(at: pointed, in: bytes, cost: &cost)
        {
            return pointed
        }
        var budget = scanBudget * (bytes.count - offset)
        var candidate = offset + 1
        while candidate + frameOverhead < bytes.count {
            defer { candidate += 1 }
            let length = lengthField(at: candidate, in: bytes)
            guard length > 0, length <= maxPayload, candidate + frameOverhead + length <= bytes.count else { continue }
            guard budget >= length else { return nil }
            budget -= length
            if isGoodFrame(at: candidate, in: bytes, cost: &cost) { return candidate }
        }
        return nil
    }

    /// Whether a whole frame with a matching checksum starts at `start`.
    private static func isGoodFrame(at start: Int, in bytes: [UInt8], cost: inout FramingCost) -> Bool {
        guard start + frameOverhead < bytes.count else { return false }
        let length = lengthField(at: start, in: bytes)
        guard length > 0, length <= maxPayload, start + frameOverhead + length <= bytes.count else { return false }
        let sum = checksum(
            length: Array(bytes[start..<start + 4]),
            payload: bytes[start + frameOverhead..<start + frameOverhead + length], cost: &cost)
        return sum[...] == bytes[start + 4..<start + frameOverhead]
    }

    /// Where a whole, good frame starts after `offset`, if anywhere.
    ///
    /// One append writes one frame, so a torn tail is shorter than the largest frame and holds no
    /// whole frame after its start; a longer rest counts as a frame found. Only a tail that looks
    /// torn is scanned. Every later position whose length field makes a whole frame is a
    /// candidate; they are checked shortest first (by the bit length of their length field), and
    /// the checksums may hash at most ``scanBudget`` times the rest's size: a planted tail crafted
    /// so that every position reads as a long frame would otherwise cost its size squared (a
    /// 512 KiB tail took 53 s). Records that follow a flipped length are mostly short, so the
    /// first short candidates hold one of them; a rest whose candidates spend the budget without a
    /// good frame is torn.
    static func frameFollowing(_ offset: Int, in bytes: [UInt8], cost: inout FramingCost) -> Int? {
        let rest = bytes.count - offset
        guard rest <= frameOverhead + maxPayload else { return bytes.count }
        // Lengths are at most maxPayload (2^21), so at most 22 bits wide.
        var byWidth = [[UInt32]](repeating: [], count: UInt32.bitWidth + 1)
        var candidate = offset + 1
        while candidate + frameOverhead < bytes.count {
            defer { candidate += 1 }
            let length = lengthField(at: candidate, in: bytes)
            guard length > 0, candidate + frameOverhead + length <= bytes.count else { continue }
            byWidth[Int.bitWidth - length.leadingZeroBitCount].append(UInt32(candidate))
        }
        var budget = scanBudget * rest
        for candidates in byWidth {
            for start in candidates.map(Int.init) {
                let length = lengthField(at: start, in: bytes)
                guard budget >= length else { return nil }
                budget -= length
                let sum = checksum(
                    length: Array(bytes[start..<start + 4]),
                    payload: bytes[start + frameOverhead..<start + frameOverhead + length], cost: &cost)
                if sum[...] == bytes[start + 4..<start + frameOverhead] { return start }
            }
        }
        return nil
    }

    /// How many times its own size a torn-looking tail's search for a following frame may hash.
    static let scanBudget = 8

    /// The little-endian `u32` length that starts a frame at `offset`.
    private static func lengthField(at offset: Int, in bytes: [UInt8]) -> Int {
        Int(
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24)
    }

    /// Hashes the length and the payload in place: replaying a journal copies no frame twice.
    private static func checksum(length: [UInt8], payload: ArraySlice<UInt8>, cost: inout FramingCost) -> [UInt8] {
        cost.checksums += 1
        cost.bytesHashed += length.count + payload.count
        return length.withUnsafeBytes { lengthBytes in
            payload.withUnsafeBytes { Checksum.digest(of: [lengthBytes, $0]) }
        }
    }
}

/// What reading frames cost: checksums computed and the bytes they hashed.
package struct FramingCost: Sendable, Equatable {
    package var checksums = 0
    package var bytesHashed = 0

    package init() {}
}
