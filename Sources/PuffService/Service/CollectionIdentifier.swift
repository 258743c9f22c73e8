// SPDX-License-Identifier: Apache-2.0

/// Derives collection identifiers from labels the way gnome-keyring does (secret-service.md §1.3 step 1).
enum CollectionIdentifier {
    /// Characters gnome-keyring's `factory_create_collection` replaces with `_`.
    private static let replaced: Set<Unicode.Scalar> = [":", "/", "\\", "<", ">", "|", "\t", "\n", "\r", "\u{0B}", " "]

    /// The identifier for `label`, with `_1`, `_2`, … appended until `isTaken` says it is free.
    static func make(fromLabel label: String, isTaken: (String) -> Bool) -> String {
        // Scalars, not Characters: "\r\n" is one Character but two replaced bytes.
        var scalars = String.UnicodeScalarView()
        for scalar in label.unicodeScalars {
            scalars.append(replaced.contains(scalar) ? "_" : scalar)
        }
        let base = scalars.isEmpty ? "unnamed" : String(scalars)
        guard isTaken(base) else { return base }
        var suffix = 1
        while isTaken("\(base)_\(suffix)") { suffix += 1 }
        return "\(base)_\(suffix)"
    }

    /// Whether `name` can be an alias: a non-empty run of `[A-Za-z0-9_]`, so it is a valid path element.
    static func isValidAlias(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x5F
            }
    }
}
