// SPDX-License-Identifier: Apache-2.0

/// The `fleet` file (docs/design/fleet.md §3): which spaces of the vault are fleet collections,
/// under which name the shared store keeps each, and how much of its log this vault holds. It
/// holds no secret: names (OpenBao's paths say them too) and counts.
///
/// Contents: the line `fleet 1` (its version; a frame is never empty, so a map of no spaces still
/// has a line), then one line per space, `SPACE GENERATION RECORDS HEADER-VERSION NAME`, sorted
/// by space; SPACE in hex, the numbers in decimal. Framed like the catalog (``ChecksummedFile``,
/// magic `PUFFFLT\x01`).
public struct FleetMap: Sendable, Equatable {
    /// One fleet space.
    public struct Share: Sendable, Equatable {
        /// The collection's name in the shared store.
        public var name: String
        /// Entries of the log this vault holds (1, 2 … applied in order).
        public var generation: UInt64
        /// Records of the local journal once those entries are in: what a restart compares the
        /// journal with, to find an append whose entry was made but not counted here.
        public var records: UInt64
        /// The version of the remote header last read or written: its next replacement expects it.
        public var headerVersion: UInt64

        public init(name: String, generation: UInt64, records: UInt64, headerVersion: UInt64) {
            self.name = name
            self.generation = generation
            self.records = records
            self.headerVersion = headerVersion
        }
    }

    /// The fleet spaces.
    public var shares: [SpaceID: Share]

    public init(shares: [SpaceID: Share] = [:]) {
        self.shares = shares
    }

    /// The space shared under `name`, if any.
    public func space(named name: String) -> SpaceID? {
        shares.first { $0.value.name == name }?.key
    }

    /// Whether `name` can name a fleet collection: 1 to 128 of `A-Z a-z 0-9 . _ -`, not starting
    /// with a dot. It becomes a path in the shared store, which its operators' policies name, so
    /// nothing that could climb out of the prefix (`..`, `/`) or read ambiguously is allowed.
    public static func isValidName(_ name: String) -> Bool {
        guard (1...128).contains(name.utf8.count), !name.hasPrefix(".") else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// The file's contents.
    public func encoded() -> [UInt8] {
        let lines = shares.sorted { $0.key.hex < $1.key.hex }.map { space, share in
            "\(space.hex) \(share.generation) \(share.records) \(share.headerVersion) \(share.name)\n"
        }
        return Array((Self.firstLine + lines.joined()).utf8)
    }

    private static let firstLine = "fleet 1\n"

    /// Reads ``encoded()``; nil when a line is malformed (the whole file is then malformed).
    public init?(decoding bytes: [UInt8]) {
        var shares: [SpaceID: Share] = [:]
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(Self.firstLine) else { return nil }
        for line in text.dropFirst(Self.firstLine.count).split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 5, let space = SpaceID(hex: String(fields[0])), shares[space] == nil,
                let generation = UInt64(fields[1]), let records = UInt64(fields[2]),
                let headerVersion = UInt64(fields[3]), Self.isValidName(String(fields[4]))
            else { return nil }
            shares[space] = Share(
                name: String(fields[4]), generation: generation, records: records, headerVersion: headerVersion)
        }
        guard Set(shares.values.map(\.name)).count == shares.count else { return nil }
        self.shares = shares
    }
}
