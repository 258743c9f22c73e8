// SPDX-License-Identifier: Apache-2.0

extension SecretService {
    /// Checks a label (or `Type`) against ``ServiceLimits/labelBytes``.
    func checkLabel(_ label: String) throws(ServiceError) {
        guard label.utf8.count <= limits.labelBytes else {
            throw .limitExceeded("a label may hold at most \(limits.labelBytes) bytes")
        }
    }

    /// Checks an item's attributes against the per-item limits.
    func checkAttributes(_ attributes: Attributes) throws(ServiceError) {
        guard attributes.count <= limits.attributesPerItem else {
            throw .limitExceeded("an item may have at most \(limits.attributesPerItem) attributes")
        }
        let bytes = attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= limits.attributeBytesPerItem else {
            throw .limitExceeded("an item's attributes may hold at most \(limits.attributeBytesPerItem) bytes")
        }
    }

    /// Checks a search query's size.
    func checkQuery(_ query: Attributes) throws(ServiceError) {
        guard query.count <= limits.attributesPerItem else {
            throw .limitExceeded("a search may name at most \(limits.attributesPerItem) attributes")
        }
    }

    /// Checks a secret's size (what the transport carries, and again after decoding).
    func checkSecretSize(_ count: Int) throws(ServiceError) {
        guard count <= limits.secretBytes else {
            throw .limitExceeded("a secret may hold at most \(limits.secretBytes) bytes")
        }
    }

    /// Checks there is room for one more collection. What clients can see counts (the loaded
    /// collections, open hidden ones among them); a closed hidden collection does not, or a client
    /// creating collections until refused could count them (issue 24 item 12). Hidden
    /// collections, which only `puffctl` makes, have their own bound of the same number.
    func checkRoomForCollection(hidden: Bool) throws(ServiceError) {
        guard collectionStates.count < limits.collections else {
            throw .limitExceeded("at most \(limits.collections) collections may exist")
        }
        guard hidden else { return }
        let openHidden = collectionStates.values.count { $0.isHidden }
        guard hiddenHeaders.count + openHidden < limits.collections else {
            throw .limitExceeded("at most \(limits.collections) hidden collections may exist")
        }
    }
}
