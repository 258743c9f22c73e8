// SPDX-License-Identifier: Apache-2.0

/// What an import did, or (in a dry run) would do, with one item of the source
/// (docs/migration.md, "Importing twice").
public struct ImportOutcome: Sendable, Equatable {
    /// The four things that can happen to a source item.
    public enum Kind: String, Sendable {
        /// No item had its label and attributes: it was added, with the source's times.
        case added
        /// An item had the same label and attributes but another secret or content type: that
        /// item now holds the source's secret (its `Created` kept, `Modified` the source's).
        case replaced
        /// An item had the same label, attributes, content type and secret: nothing changed.
        case unchanged
        /// Not imported; ``ImportOutcome/reason`` says why.
        case skipped
    }

    /// What happened.
    public var kind: Kind
    /// The source item's position in the batch, from 0.
    public var index: Int
    /// The item's label (never its secret).
    public var label: String
    /// Why it was skipped; empty otherwise.
    public var reason: String
    /// The item it became or matched; nil when skipped, or added in a dry run.
    public var item: ItemID?

    /// An outcome.
    public init(kind: Kind, index: Int, label: String, reason: String = "", item: ItemID? = nil) {
        self.kind = kind
        self.index = index
        self.label = label
        self.reason = reason
        self.item = item
    }
}
