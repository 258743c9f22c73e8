// SPDX-License-Identifier: Apache-2.0
import Foundation
import PuffSystem
import SystemPackage
import Testing

/// Whole reads and writes: short transfers are continued, the end is reported, errors keep their
/// `Errno`.
@Suite struct DescriptorTests {
    func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        let ends = try FileDescriptor.pipe()
        return (ends.readEnd, ends.writeEnd)
    }

    @Test func readFullyGathersPiecesUntilTheBufferIsFull() throws {
        let ends = try pipe()
        let written = Received()
        let writer = Thread {
            for piece in 0..<8 { _ = try? ends.write.writeAll([UInt8](repeating: UInt8(piece), count: 1000)) }
            try? ends.write.close()
            written.done.signal()
        }
        writer.start()
        var buffer = [UInt8](repeating: 0xFF, count: 5000)
        let count = try buffer.withUnsafeMutableBytes { try ends.read.readFully(into: $0) }
        // The read end stays open until the writer is done: a write to a pipe nobody reads
        // raises SIGPIPE, which ends the whole test process (CI ci65 died of signal 13).
        written.done.wait()
        try ends.read.close()
        #expect(count == 5000)
        #expect(buffer[999] == 0 && buffer[1000] == 1 && buffer[4999] == 4)
    }

    @Test func readFullyStopsAtTheEndAndSaysHowMuchCame() throws {
        let ends = try pipe()
        defer { try? ends.read.close() }
        _ = try ends.write.writeAll([1, 2, 3])
        try ends.write.close()
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(try buffer.withUnsafeMutableBytes { try ends.read.readFully(into: $0) } == 3)
        #expect(Array(buffer.prefix(3)) == [1, 2, 3])
    }

    @Test func readToEndRefusesMoreThanItsLimit() throws {
        let small = try pipe()
        _ = try small.write.writeAll([UInt8](repeating: 7, count: 100))
        try small.write.close()
        #expect(try small.read.readToEnd(limit: 100) == [UInt8](repeating: 7, count: 100))
        try small.read.close()

        let large = try pipe()
        _ = try large.write.writeAll([UInt8](repeating: 7, count: 101))
        try large.write.close()
        #expect(try large.read.readToEnd(limit: 100) == nil)
        try large.read.close()
    }

    @Test func aClosedDescriptorFailsWithItsErrno() throws {
        let ends = try pipe()
        try ends.read.close()
        try ends.write.close()
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(throws: Errno.badFileDescriptor) {
            _ = try ends.read.readFully(into: &buffer)
        }
    }

    @Test func writeFullyWritesMoreThanAPipeHoldsAtOnce() throws {
        let ends = try pipe()
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0) }
        let received = Received()
        let reader = Thread {
            received.bytes = try? ends.read.readToEnd(limit: 1 << 20)
            try? ends.read.close()
            received.done.signal()
        }
        reader.start()
        try bytes.withUnsafeBytes { try ends.write.writeFully($0) }
        try ends.write.close()
        received.done.wait()
        #expect(received.bytes == bytes)
    }

    @Test func readFullyAtAnOffsetLeavesTheDescriptorsOwnOffsetAlone() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("puff-system-\(UUID())").path
        let file = try FileDescriptor.open(
            path, .readWrite, options: [.create, .exclusiveCreate], permissions: .ownerReadWrite)
        defer {
            try? file.close()
            unlink(path)
        }
        _ = try file.writeAll(Array(0..<100))
        _ = try file.seek(offset: 0, from: .start)
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(try buffer.withUnsafeMutableBytes { try file.readFully(fromAbsoluteOffset: 95, into: $0) } == 5)
        #expect(Array(buffer.prefix(5)) == [95, 96, 97, 98, 99])
        var first = [UInt8](repeating: 0, count: 1)
        #expect(try first.withUnsafeMutableBytes { try file.read(into: $0) } == 1)
        #expect(first == [0])
    }
}

/// What a reader thread got, handed over when `done` is signalled.
final class Received: @unchecked Sendable {
    var bytes: [UInt8]?
    let done = DispatchSemaphore(value: 0)
}
