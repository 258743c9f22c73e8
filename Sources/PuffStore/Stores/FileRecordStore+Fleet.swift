// SPDX-License-Identifier: Apache-2.0

extension FileRecordStore {
    /// The `fleet` file's path: which spaces are fleet collections (``FleetMap``).
    nonisolated var fleetMapPath: String { "\(folder)/fleet" }

    /// The `fleet` file's contents, or nil when there is none. Not isolated: only
    /// ``FleetRecordStore`` reads and writes it, one at a time, under the vault's lock.
    ///
    /// - Throws: ``StoreError/damaged(file:offset:reason:)`` (a planted file is refused, never
    ///   followed, read or waited on), ``StoreError/readFailed(_:)``.
    nonisolated func fleetMap() throws(StoreError) -> [UInt8]? {
        guard let file = try DurableFiles.readWhole(fleetMapPath) else { return nil }
        return try ChecksummedFile.decode(file, magic: ChecksummedFile.fleetMagic, name: fleetMapPath)
    }

    /// Replaces the `fleet` file atomically.
    ///
    /// - Throws: ``StoreError/writeFailed(_:)``; the old file is then still in place.
    nonisolated func replaceFleetMap(_ bytes: [UInt8]) throws(StoreError) {
        try DurableFiles.replace(
            fleetMapPath, with: ChecksummedFile.encode(bytes, magic: ChecksummedFile.fleetMagic), folder: folder)
    }
}
