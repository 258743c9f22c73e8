// SPDX-License-Identifier: Apache-2.0

/// How `show`, `get` and `copy` name an item: an object path, `COLLECTION/NUMBER`, or one or more
/// `name=value` attributes that must match exactly one item.
///
/// Which form an argument is follows from its first character and its `=`: a leading `/` is a
/// path, any `=` makes an attribute, and what is left is `COLLECTION/NUMBER`. A collection whose id
/// holds `=` is therefore named by path.
public enum ItemReference: Sendable, Equatable {
    /// `/org/freedesktop/secrets/collection/<c>/<n>`, as `puffctl list` and `secret-tool search` print it.
    case path(String)
    /// A collection id (as `puffctl status` shows it) and an item number.
    case number(collection: String, number: UInt64)
    /// Every pair must be among the item's attributes with exactly this value; the item may have more.
    case attributes([String: String])

    /// Reads the `ITEM` arguments of a command.
    ///
    /// - Throws: ``ClientError/usage(_:)`` when they fit none of the forms, mix them, or name one
    ///   attribute twice with different values.
    public init(arguments: [String]) throws(ClientError) {
        guard let first = arguments.first else { throw .usage("name an item: a path, COLLECTION/NUMBER or attr=value") }
        if first.hasPrefix("/") {
            guard arguments.count == 1 else { throw .usage("give one item path, not \(arguments.count) arguments") }
            guard SecretPaths.itemParts(of: first) != nil else {
                throw .usage("'\(first)' is not an item path (\(SecretPaths.collectionPrefix)C/N)")
            }
            self = .path(first)
        } else if first.contains("=") {
            self = .attributes(try Self.attributes(arguments))
        } else {
            guard arguments.count == 1 else {
                throw .usage("give one COLLECTION/NUMBER, or attributes as attr=value")
            }
            guard let slash = first.lastIndex(of: "/"), let number = UInt64(first[first.index(after: slash)...]),
                slash != first.startIndex
            else {
                throw .usage("'\(first)' is not an item: give a path, COLLECTION/NUMBER or attr=value")
            }
            self = .number(collection: String(first[..<slash]), number: number)
        }
    }

    /// The reference as the user could have typed it, for messages; attributes sorted by name.
    public var text: String {
        switch self {
        case .path(let path): path
        case .number(let collection, let number): "\(collection)/\(number)"
        case .attributes(let pairs):
            pairs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    /// `attr=value` arguments as pairs (also `add`'s and `edit --set`'s).
    ///
    /// - Throws: ``ClientError/usage(_:)`` for an argument without `=` or with an empty name, or
    ///   a name given twice with different values.
    static func attributes(_ arguments: [String]) throws(ClientError) -> [String: String] {
        var pairs: [String: String] = [:]
        for argument in arguments {
            // The first `=` splits: values may hold `=` (URLs, base64), names may not.
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw .usage("'\(argument)' is not an attribute: give every one as attr=value")
            }
            let name = String(argument[..<equals])
            let value = String(argument[argument.index(after: equals)...])
            if let earlier = pairs[name], earlier != value {
                throw .usage("attribute '\(name)' is given twice with different values")
            }
            pairs[name] = value
        }
        return pairs
    }
}
