// SPDX-License-Identifier: Apache-2.0

/// The `attempts` file (issue 24 item 11): per collection, how many wrong passcodes came in a row
/// and when the last did, so the wrong-passcode delay survives a restart of puffd. It holds no
/// secret and nothing derived from one: collection names (the catalog names them too) and "" for
/// the passcode tried on the hidden collections.
///
/// Contents: one line per collection, `COUNT SECONDS NAME`, sorted by name; SECONDS since the Unix
/// epoch. The file is framed like the catalog (``ChecksummedFile``, magic `PUFFATT\x01`).
public struct PasscodeAttempts: Sendable, Equatable {
    /// One collection's record.
    public struct Failures: Sendable, Equatable {
        /// Wrong passcodes in a row.
        public var count: Int
        /// When the last one came, in seconds since the Unix epoch.
        public var last: UInt64

        public init(count: Int, last: UInt64) {
            self.count = count
            self.last = last
        }
    }

    /// The records by collection name; "" is the hidden collections' passcode.
    public var failures: [String: Failures]

    public init(failures: [String: Failures] = [:]) {
        self.failures = failures
    }

    /// The file's contents.
    public func encoded() -> [UInt8] {
        let lines = failures.sorted { $0.key < $1.key }.map { "\($0.value.count) \($0.value.last) \($0.key)\n" }
        return Array(lines.joined().utf8)
    }

    /// Reads ``encoded()``; a malformed line makes the whole file malformed.
    public init?(decoding bytes: [UInt8]) {
        var failures: [String: Failures] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2, let count = Int(fields[0]), count > 0, let last = UInt64(fields[1]) else {
                return nil
            }
            failures[fields.count == 3 ? String(fields[2]) : ""] = Failures(count: count, last: last)
        }
        self.failures = failures
    }
}
