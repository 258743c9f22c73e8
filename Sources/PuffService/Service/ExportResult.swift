// SPDX-License-Identifier: Apache-2.0
public import PuffFormats

/// What `puffctl export` gets from puffd (``SecretService/exportItems(of:consent:caller:progress:)``):
/// the collection as another store's writer takes it, and the items the access gate kept back.
public struct ExportResult: Sendable {
    /// An item of the collection that is not in ``collection``, and why.
    public struct LeftOut: Sendable, Equatable {
        /// The item.
        public var item: ItemID
        /// Its label (never its secret).
        public var label: String
        /// Why the gate kept it back, in the words a refused `GetSecret` has.
        public var reason: String

        /// An item left out.
        public init(item: ItemID, label: String, reason: String) {
            self.item = item
            self.label = label
            self.reason = reason
        }
    }

    /// The collection's label and times, and every item the gate let through, in the
    /// collection's order, secrets in locked memory.
    public var collection: PortableCollection
    /// The items kept back, in the collection's order.
    public var leftOut: [LeftOut]

    /// A result.
    public init(collection: PortableCollection, leftOut: [LeftOut]) {
        self.collection = collection
        self.leftOut = leftOut
    }
}
