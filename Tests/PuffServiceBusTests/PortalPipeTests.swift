// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import PuffCrypto
import PuffDBus
import Testing

@testable import PuffServiceBus

/// The app's key goes only into a pipe, whole or not at all, and never waits on the app
/// (docs/design/sandboxed-apps.md §2.2 step 5): the app chose the descriptor.
struct PortalPipeTests {
    static let key = SecureBytes(unwipedCopyOf: (0..<64).map { UInt8($0) })

    /// Everything `fd` gives until end of file.
    static func drain(_ fd: UnixFD) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd.rawValue, &chunk, chunk.count)
            if count <= 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    @Test func aPipeGetsTheWholeKeyAndThenItsEnd() throws {
        let ends = try UnixFD.pipe()
        try PortalPipe.write(Self.key, to: ends.write)
        // puffd's copy no longer holds the pipe open: the reader sees the end after the key.
        #expect(Self.drain(ends.read) == Self.key.unprotectedArray())
    }

    @Test func aRegularFileIsRefusedAndGetsNothing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("portal-key-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        #expect(throws: PortalPipe.Failure.notAPipe) { try PortalPipe.write(Self.key, to: UnixFD(taking: fd)) }
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_size == 0, "no byte of the key reached the disk")
    }

    @Test func aSocketIsRefused() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let reader = UnixFD(taking: pair[0])
        #expect(throws: PortalPipe.Failure.notAPipe) { try PortalPipe.write(Self.key, to: UnixFD(taking: pair[1])) }
        _ = fcntl(reader.rawValue, F_SETFL, O_NONBLOCK)
        var byte: UInt8 = 0
        #expect(read(reader.rawValue, &byte, 1) <= 0, "nothing was sent")
    }

    @Test func aFullPipeGivesUpAtOnceAndAddsNothing() throws {
        let ends = try UnixFD.pipe()
        // The app fills its pipe first; a blocking write would then wait for it forever.
        _ = fcntl(ends.write.rawValue, F_SETFL, O_NONBLOCK)
        let filler = [UInt8](repeating: 0xAA, count: 4096)
        var filled = 0
        while true {
            let count = write(ends.write.rawValue, filler, filler.count)
            if count <= 0 { break }
            filled += count
        }
        #expect(throws: PortalPipe.Failure.full) { try PortalPipe.write(Self.key, to: ends.write) }
        let got = Self.drain(ends.read)
        #expect(got.count == filled)
        #expect(got.allSatisfy { $0 == 0xAA }, "no part of the key went in")
    }

    @Test func aReaderThatIsGoneGivesAnErrorNotASignal() throws {
        // puffd ignores SIGPIPE (as libdbus does in any process using it); so does this test.
        signal(SIGPIPE, SIG_IGN)
        let writeEnd = try {
            let ends = try UnixFD.pipe()
            return ends.write
        }()  // the read end closes here
        #expect(throws: PortalPipe.Failure.notWritten(errno: EPIPE)) { try PortalPipe.write(Self.key, to: writeEnd) }
    }
}
