// SPDX-License-Identifier: Apache-2.0

extension FileRecordStore {
    /// The object's path in the vault folder.
    public nonisolated func name(of object: StoreObject) -> String {
        "\(folder)/\(object.localName)"
    }

    /// The journal's generation as its committer keeps it: moved on by each failed append.
    public nonisolated func generation(of space: SpaceID) -> UInt64 {
        committer.generation(of: space)
    }
}
