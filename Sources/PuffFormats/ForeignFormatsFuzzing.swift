// SPDX-License-Identifier: Apache-2.0
public import PuffCrypto

/// What the `PuffFuzzFormats` libFuzzer target runs on each input (docs/fuzzing.md): the file
/// readers a person's import runs on a file someone else may have made. The first byte picks the
/// way in; every other byte is the attacker's:
///
/// * 0: the rest as a whole file to every registered reader, with the fixed passcode and without;
/// * 1: the rest as a gnome-keyring binary keyring's decrypted part (its items);
/// * 2: the rest as one decrypted libsecret item (a GVariant);
/// * 3: the rest as a KDBX XML document, with and without a protected-value stream;
/// * 4: the rest as a KDBX 3.1 hashed block stream, and as gzip;
/// * 5: the rest as JSON and, when it is a list, as a Bitwarden export's items (an unencrypted
///   export has no password or MAC, so this is the whole file without its detection).
///
/// Ways 1-4 reach what lies behind a password check or MAC directly: the author of a hostile file
/// knows its password, so those bytes are theirs too. Errors are answers; a trap, a hang or an
/// allocation beyond the input's scale is what the fuzzer looks for.
package enum ForeignFormatsFuzzing {
    /// The passcode every input is opened with.
    package static let passcode: [UInt8] = Array("fuzz".utf8)

    /// Runs one input; returns how far it got (for the replay tool), never throws.
    @discardableResult
    package static func run(_ input: [UInt8]) -> String {
        guard let way = input.first else { return "empty" }
        let rest = Array(input.dropFirst())
        let key = SecureBytes(unwipedCopyOf: passcode)
        switch way % 6 {
        case 0:
            var opened: [String] = []
            for reader in ForeignFormats.readers {
                if (try? reader.read(rest, passcode: key)) != nil { opened.append(reader.format.rawValue) }
                _ = try? reader.read(rest, passcode: nil)
                _ = reader.needsPasscode(rest)
            }
            _ = try? ForeignFormats.reader(for: rest, format: nil)
            return opened.isEmpty ? "refused" : "opened by \(opened.joined(separator: ", "))"
        case 1:
            let count = Int(rest.first ?? 0) % 8
            let read = rest.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                var reader = GnomeKeyringBufferReader(raw, offset: min(1, raw.count), part: "fuzz")
                for number in stride(from: 1, through: count, by: 1) {
                    let type = UInt32(number % 3)
                    guard (try? GnomeKeyringBinary.readItem(&reader, type: type, number: number, of: count)) != nil
                    else { return false }
                }
                return true
            }
            return read ? "items read" : "items refused"
        case 2:
            return (try? LibsecretFile.item(from: SecureBytes(unwipedCopyOf: rest), index: 0)) != nil
                ? "item read" : "item refused"
        case 3:
            let plain = rest.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                (try? KDBXXMLParser.parse(raw, stream: nil)) != nil
            }
            let stream = try? KDBXReader.innerStream(3, key: key)
            _ = rest.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
                (try? KDBXXMLParser.parse(raw, stream: stream ?? nil)) != nil
            }
            return plain ? "xml read" : "xml refused"
        case 4:
            let blocks = (try? KDBXBlocks.readHashedStream(SecureBytes(unwipedCopyOf: rest), from: 0)) != nil
            _ = try? Gzip.decompress(
                SecureBytes(unwipedCopyOf: rest), limit: ForeignInflateLimit.bytes(forCompressed: rest.count))
            return blocks ? "blocks read" : "blocks refused"
        default:
            guard let document = try? JSONDocument(rest) else { return "json refused" }
            let mapped = try? BitwardenExport.collection(document.root.elements ?? [], folders: [:], in: document)
            return mapped == nil ? "json read" : "items read"
        }
    }

    /// Seeds for the fuzzer: files the writers make with the fixed passcode at the cheapest
    /// costs, and the inner parts each way reads. Named `<way>-<what>`.
    package static func seeds() -> [(name: String, bytes: [UInt8])] {
        let key = SecureBytes(unwipedCopyOf: passcode)
        var items: [PortableItem] = []
        for (index, label) in ["Login ✓", "", "wifi"].enumerated() {
            items.append(
                PortableItem(
                    label: label, attributes: ["user": "u\(index)", "xdg:schema": "org.example.Password", "": ""],
                    secret: SecureBytes(unwipedCopyOf: Array(repeating: UInt8(index), count: index * 7)),
                    contentType: index == 2 ? "application/octet-stream" : "text/plain", created: 100, modified: 200))
        }
        let collection = PortableCollection(label: "fuzz", items: items, created: 100, modified: 200)
        var seeds: [(String, [UInt8])] = []
        if let file = try? GnomeKeyringBinary.write(
            collection, passcode: key, iterations: 2, salt: [UInt8](repeating: 1, count: 8))
        {
            seeds.append(("0-gnome-keyring-binary", [0] + file))
        }
        let textual = """
            [keyring]
            display-name=plain
            ctime=1551675967
            mtime=0
            lock-on-idle=false
            lock-after=false

            [6]
            item-type=1
            display-name=n\\se\\t
            secret=net
            mtime=1551675968
            ctime=1551675968

            [6:attribute0]
            name=port
            type=uint32
            value=993

            [4]
            item-type=0
            display-name=
            binary-secret=00010aFF
            mtime=1551675968
            ctime=1551675967

            [4:acl0]
            display-name=seahorse
            path=/usr/bin/seahorse

            """
        seeds.append(("0-gnome-keyring-textual", [0] + Array(textual.utf8)))
        if let file = try? LibsecretFile.write(collection, passcode: key, iterations: 2) {
            seeds.append(("0-libsecret", [0] + file))
        }
        // KeePass has no field with an empty name.
        var keepass = collection
        for index in keepass.items.indices { keepass.items[index].attributes[""] = nil }
        let kdbx: [(String, Argon2.Variant, KDBXWriter.Settings.Cipher)] = [
            ("0-kdbx-argon2d-chacha", .d, .chacha20), ("0-kdbx-argon2id-aes", .id, .aes256),
        ]
        for (name, variant, cipher) in kdbx {
            let settings = KDBXWriter.Settings(
                argon2: variant, parameters: .init(iterations: 1, memoryKiB: 8, parallelism: 1), cipher: cipher)
            if let file = try? KDBXWriter.write(keepass, passcode: key, settings: settings) {
                seeds.append((name, [0] + file))
            }
        }
        let xml = """
            <?xml version="1.0" encoding="utf-8"?><KeePassFile><Meta><Binaries><Binary ID="0" Compressed="False">\
            AAEC</Binary></Binaries></Meta><Root><Group><Name>g</Name><Entry><String><Key>Title</Key><Value>t</Value>\
            </String><String><Key>Password</Key><Value Protected="True">AAAA</Value></String><Binary><Key>\
            FDO_SECRETS_DATA</Key><Value Ref="0"/></Binary><Times><CreationTime>2020-01-01T00:00:00Z</CreationTime>\
            </Times></Entry></Group></Root></KeePassFile>
            """
        seeds.append(("3-kdbx-xml", [3] + Array(xml.utf8)))
        let bitwarden = #"""
            {"encrypted": false, "folders": [{"id": "f", "name": "F\u00f6"}], "items": [{"type": 1, "name": "L",
            "folderId": "f", "login": {"username": "u", "password": "p\"\\", "uris": [{"uri": "https://a"}]},
            "creationDate": "2020-01-01T00:00:00.000Z", "fields": [{}]}, {"type": 2, "name": "",
            "notes": "n\ud83d\udd11"}, {"type": 3, "name": "c"},
            {"type": 1, "name": "t", "deletedDate": "2020-01-01T00:00:00.000Z"}]}
            """#
        seeds.append(("0-bitwarden", [0] + Array(bitwarden.utf8)))
        seeds.append(("5-bitwarden-items", [5] + Array(#"[{"type": 1, "name": "\u00e9", "login": null}]"#.utf8)))
        seeds.append(("4-hashed-blocks", [4] + [UInt8](repeating: 0, count: 40)))
        return seeds
    }
}
