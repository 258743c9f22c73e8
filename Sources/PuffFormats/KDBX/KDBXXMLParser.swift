// SPDX-License-Identifier: Apache-2.0
import PuffCrypto

/// Reads a KDBX database's XML into a ``KDBXDocument`` with expat (``ExpatReader``; external
/// entities are not resolved). Every element marked `Protected="True"` is decrypted with
/// the inner stream in document order, history entries included, because the stream runs through
/// them all; only entries outside `<History>` are kept.
final class KDBXXMLParser: ExpatEvents {
    private var document = KDBXDocument()
    private var stream: StreamCipher?
    private var failure: ForeignFormatError?

    private var path: [String] = []
    private var attributes: [[String: String]] = []
    private var text = ""
    private var groups: [String] = []
    private var historyDepth = 0
    private var entry: KDBXDocument.Entry?
    private var fieldKey = ""
    private var fieldValue: KDBXDocument.FieldValue?
    private var binaryReference: KDBXDocument.BinaryReference?
    private var protectedValue: SecureBytes?
    private var sawRoot = false
    private(set) var stopRequested = false

    private init(stream: StreamCipher?) {
        self.stream = stream
    }

    /// Whether `bytes` are well-formed UTF-8, checked in place (no copy of the decrypted XML).
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Parses `xml` (the decrypted bytes, read in place without a copy).
    static func parse(_ xml: UnsafeRawBufferPointer, stream: StreamCipher?) throws(ForeignFormatError) -> KDBXDocument {
        guard xml.count > 0 else { throw .damaged("the database's XML is empty") }
        // KeePass writes UTF-8; FoundationXML, the parser before expat, trapped on a name that was not
        // (a fuzzer's find), so nothing else reaches the parser.
        guard isUTF8(xml) else { throw .damaged("the database's XML is not UTF-8") }
        let delegate = KDBXXMLParser(stream: stream)
        do {
            try ExpatReader.read(xml, into: delegate)
        } catch {
            if let failure = delegate.failure { throw failure }
            throw .damaged("the database's XML is malformed at line \(error.line)")
        }
        if let failure = delegate.failure { throw failure }
        guard delegate.sawRoot else { throw .damaged("the database's XML has no Root") }
        return delegate.document
    }

    private func fail(_ error: ForeignFormatError) {
        if failure == nil { failure = error }
        stopRequested = true
    }

    private var parent: String? { path.count >= 2 ? path[path.count - 2] : nil }

    func start(_ name: String, attributes attributeDict: [String: String]) {
        path.append(name)
        attributes.append(attributeDict)
        text = ""
        switch name {
        case "Root" where path.count == 2: sawRoot = true
        case "Group": groups.append("")
        case "History": historyDepth += 1
        case "Entry" where historyDepth == 0: entry = KDBXDocument.Entry(groups: groups)
        case "String", "Binary":
            fieldKey = ""
            fieldValue = nil
            binaryReference = nil
        default: break
        }
    }

    // Expat hands CDATA sections over as characters too.
    func characters(_ string: String) {
        text += string
    }

    func end(_ name: String) {
        let attributeDict = attributes.last ?? [:]
        defer {
            path.removeLast()
            attributes.removeLast()
            text = ""
        }
        protectedValue = nil
        if attributeDict["Protected"]?.lowercased() == "true" {
            do throws(ForeignFormatError) {
                protectedValue = try unprotect(text)
            } catch {
                return fail(error)
            }
        }
        let inEntry = entry != nil && historyDepth == 0
        switch (name, parent) {
        case ("UUID", "Group"): groups[groups.count - 1] = text
        case ("Name", "Group") where groups.count == 1: document.rootGroupName = text
        case ("Group", _): groups.removeLast()
        case ("History", _): historyDepth -= 1
        case ("DatabaseName", "Meta"): document.databaseName = text
        case ("RecycleBinUUID", "Meta"): document.recycleBinUUID = text
        case ("RecycleBinEnabled", "Meta"): document.recycleBinEnabled = text.lowercased() != "false"
        case ("Binary", "Binaries"):
            do throws(ForeignFormatError) {
                try readPoolBinary(attributeDict)
            } catch {
                return fail(error)
            }
        case ("CreationTime", "Times") where inEntry && path.count >= 3 && path[path.count - 3] == "Entry":
            entry?.created = KDBXDocument.parseTime(text)
        case ("LastModificationTime", "Times") where inEntry && path.count >= 3 && path[path.count - 3] == "Entry":
            entry?.modified = KDBXDocument.parseTime(text)
        case ("Key", "String"), ("Key", "Binary"): fieldKey = text
        case ("Value", "String"):
            fieldValue = protectedValue.map { .protected($0) } ?? .plain(text)
        case ("Value", "Binary"):
            if let ref = attributeDict["Ref"] {
                guard let index = Int(ref) else {
                    return fail(.damaged("an attachment reference is not a number"))
                }
                binaryReference = .pool(index)
            } else if let protectedValue {
                binaryReference = .inline(protectedValue)
            } else {
                guard let bytes = Base64.decode(text) else {
                    return fail(.damaged("an attachment is not base64"))
                }
                binaryReference = .inline(SecureBytes(unwipedCopyOf: bytes))
            }
        case ("String", "Entry") where inEntry:
            entry?.strings.append((fieldKey, fieldValue ?? .plain("")))
        case ("Binary", "Entry") where inEntry:
            guard let binaryReference else { return fail(.damaged("an attachment has no value")) }
            entry?.binaries.append((fieldKey, binaryReference))
        case ("Entry", _) where historyDepth == 0:
            if let entry { document.entries.append(entry) }
            entry = nil
        default: break
        }
    }

    /// Decrypts a protected element's base64 text with the next bytes of the inner stream.
    private func unprotect(_ text: String) throws(ForeignFormatError) -> SecureBytes {
        guard let ciphertext = Base64.decode(text) else { throw .damaged("a protected value is not base64") }
        guard !ciphertext.isEmpty else { return .empty }
        guard stream != nil else { throw .damaged("a value is protected but the database names no inner stream") }
        do { return try stream!.decrypt(ciphertext) } catch { throw .damaged("the inner stream failed (\(error))") }
    }

    /// KDBX 3.1's Meta/Binaries/Binary: base64, optionally protected, optionally gzip-compressed.
    private func readPoolBinary(_ attributeDict: [String: String]) throws(ForeignFormatError) {
        guard let id = attributeDict["ID"].flatMap({ Int($0) }) else { throw .damaged("a pooled attachment has no ID") }
        var data: SecureBytes
        if let protectedValue {
            data = protectedValue
        } else {
            guard let bytes = Base64.decode(text) else { throw .damaged("attachment \(id) is not base64") }
            data = SecureBytes(unwipedCopyOf: bytes)
        }
        if attributeDict["Compressed"]?.lowercased() == "true" {
            do {
                data = try Gzip.decompress(data, limit: ForeignInflateLimit.bytes(forCompressed: data.count))
            } catch { throw .damaged("attachment \(id) does not decompress") }
        }
        document.metaBinaries[id] = data
    }
}
