// SPDX-License-Identifier: Apache-2.0
import PuffSystem
import Testing

/// Issue 28: `/.flatpak-info` is read as GLib reads it, and only the shape flatpak writes names an
/// app; anything else names none, so a caller is never taken for an app it may not be.
@Suite struct FlatpakInfoTests {
    /// The file flatpak 1.14 writes, trimmed to the groups that matter.
    static let flatpakShape = """
        [Application]
        name=org.example.App
        runtime=runtime/org.freedesktop.Platform/x86_64/23.08

        [Instance]
        instance-id=1234567890
        app-path=/var/lib/flatpak/app/org.example.App/x86_64/stable/active/files
        session-bus-proxy=true

        [Context]
        shared=network;ipc;
        """

    private func parse(_ text: String) -> FlatpakInfo? { FlatpakInfo(parsing: Array(text.utf8)) }

    @Test func flatpaksOwnFileNamesTheAppAndItsInstance() {
        let info = parse(Self.flatpakShape)
        #expect(info?.app.rawValue == "org.example.App")
        #expect(info?.instance == "1234567890")
    }

    @Test func aFileWithoutAnInstanceStillNamesTheApp() {
        let info = parse("[Application]\nname=org.example.App\n")
        #expect(info?.app.rawValue == "org.example.App")
        #expect(info?.instance == nil)
    }

    @Test func commentsBlankLinesAndBlanksAroundTheEqualsSignAreReadAsGLibReadsThem() {
        let info = parse("# written by flatpak\n\n  [Application]  \n  name = org.example.App\n")
        #expect(info?.app.rawValue == "org.example.App")
    }

    @Test func anInstanceIdThatIsNoPlainTokenIsLeftOut() {
        let info = parse("[Application]\nname=org.example.App\n[Instance]\ninstance-id=12 34\u{1b}[2J\n")
        #expect(info?.app.rawValue == "org.example.App")
        #expect(info?.instance == nil)
    }

    @Test(arguments: [
        ("no name", "[Application]\nruntime=runtime/x\n"),
        ("a name in another group", "[Runtime]\nname=org.example.App\n"),
        ("a key before any group", "name=org.example.App\n[Application]\nname=org.example.App\n"),
        ("a line that is neither", "[Application]\nname=org.example.App\nnonsense\n"),
        ("the name twice", "[Application]\nname=org.example.App\nname=org.example.Other\n"),
        ("the name twice across repeated groups", "[Application]\nname=org.example.App\n[Application]\nname=org.x.Y\n"),
        ("an id flatpak refuses", "[Application]\nname=org.example\n"),
        ("a trailing blank", "[Application]\nname=org.example.App \n"),
        ("a carriage return", "[Application]\r\nname=org.example.App\r\n"),
        ("an unclosed group", "[Application\nname=org.example.App\n"),
        ("text after a group", "[Application] x\nname=org.example.App\n"),
        ("an empty key", "[Application]\n=org.example.App\nname=org.example.App\n"),
        ("an empty file", ""),
    ])
    func aFileFlatpakWouldNotWriteNamesNoApp(_ what: String, _ text: String) {
        #expect(parse(text) == nil, "\(what)")
    }

    @Test func aNulByteOrInvalidUTF8NamesNoApp() {
        var withNul = Array("[Application]\nname=org.example.App\n".utf8)
        withNul.insert(0, at: 5)
        #expect(FlatpakInfo(parsing: withNul) == nil)
        var invalid = Array("[Application]\nname=org.example.App\n".utf8)
        invalid.append(0xFF)
        #expect(FlatpakInfo(parsing: invalid) == nil)
    }
}
