// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// The other stores' formats puffctl reads (`import`) and writes (`export`), by the names the
/// command line takes.
public enum ForeignFormat: String, CaseIterable, Sendable {
    /// gnome-keyring's binary (version 0) or textual keyring file.
    case gnomeKeyring = "gnome-keyring"
    /// libsecret's file backend and oo7's keyrings (file format version 1).
    case libsecret
    /// KeePass and KeePassXC databases, KDBX 3.1 and 4.
    case kdbx
    /// The standard Unix password store, a folder of gpg-encrypted files.
    case pass
    /// Bitwarden's unencrypted JSON export.
    case bitwarden
}

/// A reader of one file format: recognises it from its first bytes (never the file's name) and
/// reads it whole.
public protocol ForeignFileReader {
    /// The format it reads.
    static var format: ForeignFormat { get }

    /// Whether `prefix`, the first bytes of a file (up to 64 KiB), is this format.
    static func recognises(_ prefix: [UInt8]) -> Bool

    /// Whether opening the file needs a passcode (the source's password).
    static func needsPasscode(_ bytes: [UInt8]) -> Bool

    /// Reads the whole file, opening it with `passcode` where it is encrypted.
    ///
    /// - Throws: ``ForeignFormatError`` naming what failed; nothing secret in it.
    static func read(_ bytes: [UInt8], passcode: SecureBytes?) throws(ForeignFormatError) -> PortableCollection
}

/// A writer of one file format: the file another provider opens (docs/migration.md).
public protocol ForeignFileWriter {
    /// The format it writes.
    static var format: ForeignFormat { get }

    /// The file's bytes holding `collection`, encrypted under `passcode`.
    ///
    /// - Throws: ``ForeignFormatError/cannotCross(_:)`` when something of the collection cannot be
    ///   written in this format (said before anything is written).
    static func write(_ collection: PortableCollection, passcode: SecureBytes) throws(ForeignFormatError) -> [UInt8]
}

/// Why another store's file could not be read or written. Messages name the damage, never a
/// secret, label or value.
public enum ForeignFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The source's password does not open it.
    case wrongPasscode
    /// The bytes are not this format (a `--format` that does not fit).
    case notThisFormat(ForeignFormat)
    /// The file is this format but damaged; says where and what.
    case damaged(String)
    /// The file uses a part of the format this reader does not handle (a cipher, a version).
    case unsupported(String)
    /// Something cannot be written in the target format.
    case cannotCross(String)

    public var description: String {
        switch self {
        case .wrongPasscode: "the password does not open this file"
        case .notThisFormat(let format): "this is not a \(format.rawValue) file"
        case .damaged(let what): "the file is damaged: \(what)"
        case .unsupported(let what): "not supported: \(what)"
        case .cannotCross(let what): "cannot be written in this format: \(what)"
        }
    }
}
