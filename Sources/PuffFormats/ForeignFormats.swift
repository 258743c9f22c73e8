// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// The registry of readers and writers puffctl's `import` and `export` use: one line per format
/// here, nothing else to change. Readers are asked in order, so a reader that recognises a
/// broader prefix goes after the narrower ones (gnome-keyring's binary keyrings and libsecret's
/// files share their magic and differ in the version byte after it).
public enum ForeignFormats {
    /// Every file reader, in the order content detection asks them.
    public static let readers: [any ForeignFileReader.Type] = [
        LibsecretFile.self,
        GnomeKeyringFile.self,
        KDBXReader.self,
        BitwardenExport.self,
    ]

    /// Every file writer.
    public static let writers: [any ForeignFileWriter.Type] = [
        LibsecretFile.self,
        GnomeKeyringFile.self,
        KDBXWriter.self,
    ]

    /// How many bytes of a file content detection looks at.
    public static let prefixLength = 64 * 1024

    /// The reader of `format`, or nil where Puff cannot read it from a file.
    public static func reader(for format: ForeignFormat) -> (any ForeignFileReader.Type)? {
        readers.first { $0.format == format }
    }

    /// The writer of `format`, or nil where Puff cannot write it.
    public static func writer(for format: ForeignFormat) -> (any ForeignFileWriter.Type)? {
        writers.first { $0.format == format }
    }

    /// The reader whose format `prefix` (a file's first bytes, up to ``prefixLength``) is; nil
    /// when no reader recognises it. Never looks at the file's name.
    public static func detect(_ prefix: [UInt8]) -> (any ForeignFileReader.Type)? {
        readers.first { $0.recognises(prefix) }
    }

    /// The reader to open `bytes` with: `format`'s when given (failing with
    /// ``ForeignFormatError/notThisFormat(_:)`` when the bytes are not that format), else the one
    /// content detection finds.
    ///
    /// - Throws: ``ForeignFormatError/notThisFormat(_:)``, or ``ForeignFormatError/unsupported(_:)``
    ///   when no reader recognises the content or `format` has no file reader.
    public static func reader(
        for bytes: [UInt8], format: ForeignFormat?
    ) throws(ForeignFormatError) -> any ForeignFileReader.Type {
        var prefix = Array(bytes.prefix(prefixLength))
        // The prefix of an unencrypted export is secrets in the clear.
        defer { SecureBytes.wipe(&prefix) }
        guard let format else {
            guard let found = detect(prefix) else { throw .unsupported("a file of no format Puff reads") }
            return found
        }
        guard let reader = reader(for: format) else { throw .unsupported("reading \(format.rawValue) files") }
        guard reader.recognises(prefix) else { throw .notThisFormat(format) }
        return reader
    }
}
