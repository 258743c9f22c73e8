// SPDX-License-Identifier: Apache-2.0
public import PuffStore

/// What tests read and change in a store behind the service's back, through the store's own
/// calls: what someone with the files could do, on any store.
extension RecordStore {
    /// Every record of `space`'s journal; none when it cannot be read.
    public func records(of space: SpaceID) async -> [[UInt8]] {
        (try? await replay(space))?.records.map(\.bytes) ?? []
    }

    /// Replaces `space`'s records as someone writing the files would: no head change.
    public func tamper(_ space: SpaceID, records: [[UInt8]]) async throws {
        let version = try await replay(space).version
        _ = try await rewrite(space, records: records, version: version, keepingOldAs: nil)
    }
}
