// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// gnome-keyring's keyring files for `import` and `export`: a binary keyring (a collection with a
/// password) or a textual one (an empty password), told apart by their content; exports are
/// binary (docs/migration.md).
public enum GnomeKeyringFile: ForeignFileReader, ForeignFileWriter {
    public static let format = ForeignFormat.gnomeKeyring

    public static func recognises(_ prefix: [UInt8]) -> Bool {
        GnomeKeyringBinary.recognises(prefix) || GnomeKeyringTextual.recognises(prefix)
    }

    /// A binary keyring needs its password; a textual one has none.
    public static func needsPasscode(_ bytes: [UInt8]) -> Bool { GnomeKeyringBinary.recognises(bytes) }

    public static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection {
        try read(bytes, passcode: passcode, salvage: false).collection
    }

    /// Reads either kind; `salvage` reads the intact items of a damaged textual keyring and lists
    /// the others in ``GnomeKeyringTextual/Reading/skipped`` (`puffctl import --salvage`).
    public static func read(
        _ bytes: [UInt8], passcode: SecureBytes?, salvage: Bool
    ) throws(ForeignFormatError) -> GnomeKeyringTextual.Reading {
        if GnomeKeyringTextual.recognises(bytes) { return try GnomeKeyringTextual.read(bytes, salvage: salvage) }
        return GnomeKeyringTextual.Reading(
            collection: try GnomeKeyringBinary.read(bytes, passcode: passcode), skipped: [])
    }

    public static func write(_ collection: PortableCollection, passcode: SecureBytes) throws(ForeignFormatError)
        -> [UInt8]
    {
        try GnomeKeyringBinary.write(collection, passcode: passcode)
    }
}
