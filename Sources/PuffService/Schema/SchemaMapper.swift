// SPDX-License-Identifier: Apache-2.0
import PuffProtocol

/// Turns an item's attributes into a ``TypedRecord`` (architecture.md Part A item 4: a plugin,
/// compiled in, chosen by configuration as `[items] mappers`).
///
/// Pure and synchronous, and per item O(attributes) at most (the built-in ones read a fixed number
/// of names), so that mapping never makes a write cost grow with the number of items.
public protocol SchemaMapper: Sendable {
    /// The name configuration uses for it, such as `internet`.
    var name: String { get }
    /// The `xdg:schema` values this mapper owns: an item carrying one is this mapper's, however
    /// few of the expected attributes it has.
    var schemas: Set<String> { get }
    /// The record of an item carrying one of ``schemas`` (never nil then), or of any other item
    /// whose attributes have this mapper's shape; nil when the shape does not match.
    func record(from attributes: Attributes) -> TypedRecord?
}

/// The active mappers, in the order configuration gives them, with the pass-through `other`
/// behind them all.
public struct SchemaMappers: Sendable {
    /// gnome-keyring's schema for untyped items (secret-service.md §9.2): it says nothing about
    /// which attributes an item has, so items carrying it are recognised by shape like items
    /// with no schema.
    public static let untypedSchema = SecretServiceContract.genericSchema

    /// Every built-in mapper, in the default order.
    public static let builtIn: [any SchemaMapper] = [InternetMapper(), GenericMapper(), NoteMapper()]

    /// The names `[items] mappers` accepts.
    public static var names: [String] { builtIn.map(\.name) }

    /// Every built-in mapper active (the default).
    public static let standard = SchemaMappers(builtIn)

    /// The active mappers, in order.
    public let active: [any SchemaMapper]

    /// Activates `mappers`, in that order.
    public init(_ mappers: [any SchemaMapper]) {
        active = mappers
    }

    /// The built-in mappers called `names`, in that order; nil when a name is unknown.
    public init?(named names: [String]) {
        var mappers: [any SchemaMapper] = []
        for name in names {
            guard let mapper = Self.builtIn.first(where: { $0.name == name }) else { return nil }
            mappers.append(mapper)
        }
        self.init(mappers)
    }

    /// The typed view of `attributes`.
    ///
    /// An item whose `xdg:schema` an active mapper owns is that mapper's. One with another schema
    /// is `other`: the schema is its client's own, and attributes named like ours may mean
    /// something else there. Items with no schema, or the untyped one, go to the first active
    /// mapper whose shape they have, else `other`.
    public func record(from attributes: Attributes) -> TypedRecord {
        if let schema = attributes["xdg:schema"], schema != Self.untypedSchema {
            guard let owner = active.first(where: { $0.schemas.contains(schema) }) else { return .other }
            return owner.record(from: attributes) ?? .other
        }
        for mapper in active {
            if let record = mapper.record(from: attributes) { return record }
        }
        return .other
    }
}

/// `note`: `org.gnome.keyring.Note` (libsecret's `SECRET_SCHEMA_NOTE`), which has no attributes
/// of its own; a note is shown by its label.
public struct NoteMapper: SchemaMapper {
    /// libsecret's note schema.
    public static let noteSchema = "org.gnome.keyring.Note"

    /// Creates the mapper.
    public init() {}

    /// `note`.
    public var name: String { "note" }
    /// The note schema.
    public var schemas: Set<String> { [Self.noteSchema] }

    /// ``TypedRecord/note`` for the note schema; no shape without it.
    public func record(from attributes: Attributes) -> TypedRecord? {
        attributes["xdg:schema"] == Self.noteSchema ? .note : nil
    }
}
