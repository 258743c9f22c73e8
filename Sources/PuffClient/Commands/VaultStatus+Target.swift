// SPDX-License-Identifier: Apache-2.0

extension VaultStatus {
    /// The collection a command acts on: the one named, or the default one when none is.
    ///
    /// Checked before a passcode is asked for, so a typo costs no typing.
    ///
    /// - Throws: ``ClientError/notInitialized`` before `puffctl init`,
    ///   ``ClientError/noSuchCollection(_:)`` when the named one is not visible (a closed hidden
    ///   collection never is), ``ClientError/noDefaultCollection`` when none is named and none is
    ///   the default.
    func target(_ name: String?) throws(ClientError) -> CollectionStatus {
        guard isInitialized else { throw .notInitialized }
        if let name {
            guard let collection = collection(name) else { throw .noSuchCollection(name) }
            return collection
        }
        guard let collection = defaultCollection else { throw .noDefaultCollection }
        return collection
    }
}
