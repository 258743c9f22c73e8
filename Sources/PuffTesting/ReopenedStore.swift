// SPDX-License-Identifier: Apache-2.0
public import PuffStore

extension FileRecordStore {
    /// Opens the vault in `folder`, waiting while a store the test dropped a moment ago still holds
    /// the folder's lock.
    ///
    /// A test that "restarts" over the same folder drops its first store and opens another. The
    /// first lets go of its `flock` only when its last reference goes, and an actor's last reference
    /// can outlive the `await` that used it (the job that ran on it releases it a moment later, much
    /// later on a busy machine). Any other reason the folder is busy still fails, after `limit`: a
    /// hang guard, not a speed target.
    public static func reopening(folder: String, limit: Duration = .seconds(120)) async throws -> FileRecordStore {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while clock.now < deadline {
            if let store = try? FileRecordStore(folder: folder) { return store }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try FileRecordStore(folder: folder)
    }
}
