// SPDX-License-Identifier: Apache-2.0
import PuffCrypto
import Testing

@testable import PuffFormats

/// gnome-keyring's textual keyring on bytes; the daemon writing them is in
/// EndToEndTests/GnomeKeyringFileTests.
@Suite struct GnomeKeyringTextualTests {
    /// Parts of a plain.keyring gnome-keyring-daemon 42.1 wrote (empty password).
    static let intact = Array(
        """
        [keyring]
        display-name=plain
        ctime=1551675967
        mtime=0
        lock-on-idle=false
        lock-after=false

        [6]
        item-type=1
        display-name=network
        secret=net
        mtime=1551675968
        ctime=1551675968

        [6:attribute0]
        name=protocol
        type=string
        value=imap

        [7]
        item-type=2
        display-name=note
        mtime=1551675968
        ctime=1551675968

        [7:attribute0]
        name=
        type=string
        value=empty name

        [7:attribute1]
        name=ünï
        type=string
        value=cödé

        [8]
        item-type=0
        display-name=
        secret=  leading spaces, a \\ backslash and a tab\t
        mtime=1551675968
        ctime=1551675967

        [8:attribute0]
        name=port
        type=uint32
        value=993

        [8:acl0]
        display-name=seahorse
        path=/usr/bin/seahorse
        read-access=true
        write-access=true
        remove-access=true

        [4]
        item-type=0
        display-name=every\\sbyte\\n
        binary-secret=00010aFF
        mtime=1551675968
        ctime=1551675967

        """.utf8)

    /// The plain.keyring gnome-keyring-daemon 42.1 wrote after storing "first line\n[phantom]\n
    /// second=line" as the secret of "broken"; it then serves a phantom item.
    static let corrupted = Array(
        """
        [keyring]
        display-name=plain
        ctime=1551675967
        mtime=0
        lock-on-idle=false
        lock-after=false

        [2]
        item-type=0
        display-name=broken
        secret=first line
        [phantom]
        second=line
        mtime=1551675968
        ctime=1551675968

        [2:attribute0]
        name=n
        type=string
        value=2

        [3]
        item-type=0
        display-name=after
        secret=intact two
        mtime=1551675968
        ctime=1551675968

        [3:attribute0]
        name=n
        type=string
        value=3

        [1]
        item-type=0
        display-name=before
        secret=intact one
        mtime=1551675968
        ctime=1551675968

        [1:attribute0]
        name=n
        type=string
        value=1

        """.utf8)

    @Test func anIntactKeyringReadsWithRawSecretsAndEscapedValues() throws {
        let collection = try GnomeKeyringTextual.read(Self.intact, passcode: nil)
        #expect(collection.label == "plain")
        #expect(collection.created == 1_551_675_967)
        #expect(collection.modified == 0)
        #expect(collection.items.map(\.label) == ["network", "note", "", "every byte\n"])
        let network = collection.items[0]
        #expect(network.attributes == ["protocol": "imap", "xdg:schema": "org.gnome.keyring.NetworkPassword"])
        #expect(network.secret.unprotectedArray() == Array("net".utf8))
        #expect(network.created == 1_551_675_968)
        #expect(
            collection.items[1].attributes == ["": "empty name", "ünï": "cödé", "xdg:schema": "org.gnome.keyring.Note"])
        #expect(collection.items[1].secret.isEmpty, "no secret line is an empty secret, as the daemon serves it")
        // Written raw, read raw: the leading spaces, the backslash and the tab stay.
        let raw = collection.items[2]
        #expect(raw.secret.unprotectedArray() == Array("  leading spaces, a \\ backslash and a tab\t".utf8))
        #expect(
            raw.attributes == [
                "port": "993", "gkr:compat:uint32:port": "", "xdg:schema": "org.freedesktop.Secret.Generic",
            ])
        #expect(raw.created == 1_551_675_967)
        #expect(raw.modified == 1_551_675_968)
        #expect(raw.leftBehind == ["an access list of 1 application(s)"])
        #expect(network.leftBehind.isEmpty)
        #expect(collection.items[3].secret.unprotectedArray() == [0, 1, 0x0a, 0xff])
    }

    @Test func aSecretHoldingANewlineIsRefusedNamingTheDamageAndNoValue() {
        do {
            _ = try GnomeKeyringTextual.read(Self.corrupted, passcode: nil)
            Issue.record("a corrupted keyring was read")
        } catch .damaged(let message) {
            #expect(message.contains("the item at line 8"))
            #expect(message.contains("it has no mtime"))
            #expect(message.contains("a phantom item at line 12"))
            #expect(message.contains("salvaging reads the 2 intact item(s)"))
            for value in ["phantom]", "first line", "second", "broken", "intact one", "intact two"] {
                #expect(!message.contains(value), "the message shows \(value)")
            }
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func salvagingReadsTheIntactItemsAndListsTheDamagedOne() throws {
        let reading = try GnomeKeyringTextual.read(Self.corrupted, salvage: true)
        #expect(reading.collection.items.map(\.label) == ["after", "before"])
        #expect(reading.collection.items[0].secret.unprotectedArray() == Array("intact two".utf8))
        #expect(reading.skipped.count == 1)
        #expect(reading.skipped.first?.hasPrefix("the item at line 8:") == true)
    }

    @Test func aSecretEndingInANewlineOrRunningIntoKeysOrAnUnparsableLineIsDamage() {
        func damaged(_ secretLines: String) -> Bool {
            let file = Array(
                "[keyring]\ndisplay-name=k\n\n[1]\nitem-type=0\ndisplay-name=a\nsecret=\(secretLines)\nmtime=1\nctime=1\n"
                    .utf8)
            do {
                _ = try GnomeKeyringTextual.read(file, passcode: nil)
                return false
            } catch .damaged {
                return true
            } catch {
                return false
            }
        }
        #expect(!damaged("plain"), "the intact layout reads")
        #expect(damaged("ends in a newline\n"))
        #expect(damaged("two\nuser=lines"))
        #expect(damaged("two\nlines without an equals sign"))
        #expect(damaged("a\nmtime=5"))
        #expect(damaged("a\n[9]\nitem-type=0"))
    }

    @Test func bothKindsAreOneFormatToTheRegistryAndLibsecretFilesAreNotTaken() throws {
        let binary = GnomeKeyringBinaryTests.daemonWritten
        let file = ObjectIdentifier(GnomeKeyringFile.self)
        #expect(ForeignFormats.detect(Self.intact).map { ObjectIdentifier($0) } == file)
        #expect(ForeignFormats.detect(binary).map { ObjectIdentifier($0) } == file)
        #expect(!GnomeKeyringFile.needsPasscode(Self.intact))
        #expect(GnomeKeyringFile.needsPasscode(binary))
        #expect(!GnomeKeyringBinary.recognises(GnomeKeyringBinary.magic + [1, 0]), "libsecret's version 1")
        let read = try GnomeKeyringFile.read(binary, passcode: GnomeKeyringBinaryTests.password)
        #expect(read.items.count == 1)
        #expect {
            try GnomeKeyringFile.read(Self.corrupted, passcode: nil)
        } throws: { error in
            if case ForeignFormatError.damaged = error { true } else { false }
        }
        #expect(try GnomeKeyringFile.read(Self.corrupted, passcode: nil, salvage: true).collection.items.count == 2)
    }
}
