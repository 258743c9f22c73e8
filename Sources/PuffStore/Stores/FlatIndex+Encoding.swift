// SPDX-License-Identifier: Apache-2.0

/// A ``FlatIndex`` in an ``IndexSnapshot``: its three tables as they are in memory, each a `u64`
/// count then that many little-endian words (3 per single, 3 per shared key, 1 per number).
/// Reading copies each table once and checks it in one pass; a table that is out of order, a run
/// outside the postings or a number 0 makes the snapshot unusable (never a trap).
extension FlatIndex {
    func write(to writer: inout ByteWriter) {
        for table in [singles, shared] {
            writer.u64(UInt64(table.count / 3))
            Self.write(table, to: &writer)
        }
        writer.u64(UInt64(postings.count))
        Self.write(postings, to: &writer)
    }

    init(reading reader: inout ByteReader) throws(ByteReader.Malformed) {
        self.init()
        singles = try Self.words(&reader, per: 3, "single keys")
        shared = try Self.words(&reader, per: 3, "shared keys")
        postings = try Self.words(&reader, per: 1, "postings")
        guard isWellFormed else { throw ByteReader.Malformed(offset: reader.offset, what: "index keys") }
    }

    /// Whether both tables are strictly ascending and share no key, each single holds a number,
    /// and the shared keys' runs (two numbers or more, ascending, none 0) follow each other to
    /// the end of the postings.
    var isWellFormed: Bool {
        let singleCount = singles.count / 3
        let sharedCount = shared.count / 3
        for at in 0..<singleCount {
            guard singles[3 * at + 2] != 0 else { return false }
            guard at == 0 || (singles[3 * at - 3], singles[3 * at - 2]) < (singles[3 * at], singles[3 * at + 1])
            else { return false }
        }
        var next = 0
        for at in 0..<sharedCount {
            guard at == 0 || (shared[3 * at - 3], shared[3 * at - 2]) < (shared[3 * at], shared[3 * at + 1]),
                shared[3 * at + 2] >> 32 == UInt64(next)
            else { return false }
            let run = Self.run(shared[3 * at + 2])
            guard run.count >= 2, run.upperBound <= postings.count, postings[run.lowerBound] != 0 else { return false }
            for index in run.dropFirst() where postings[index - 1] >= postings[index] { return false }
            next = run.upperBound
        }
        guard next == postings.count else { return false }
        // No key in both tables: a walk of the two in step.
        var single = 0
        var many = 0
        while single < singleCount, many < sharedCount {
            let a = (singles[3 * single], singles[3 * single + 1])
            let b = (shared[3 * many], shared[3 * many + 1])
            if a == b { return false }
            if a < b { single += 1 } else { many += 1 }
        }
        return true
    }

    private static func write(_ words: [UInt64], to writer: inout ByteWriter) {
        #if _endian(little)
            words.withUnsafeBytes { writer.raw($0) }
        #else
            for word in words { writer.u64(word) }
        #endif
    }

    /// A `u64` count of entries of `per` words, then the words; the count is checked against the
    /// bytes left before anything is allocated.
    private static func words(_ reader: inout ByteReader, per: Int, _ what: String) throws(ByteReader.Malformed)
        -> [UInt64]
    {
        let count = try reader.u64(what)
        guard count <= UInt64(reader.remaining / (8 * per)) else {
            throw ByteReader.Malformed(offset: reader.offset, what: what)
        }
        let words = Int(count) * per
        let bytes = try reader.take(words * 8, what)
        return [UInt64](unsafeUninitializedCapacity: words) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: bytes)
            for at in 0..<words { buffer[at] = UInt64(littleEndian: buffer[at]) }
            initialized = words
        }
    }
}
