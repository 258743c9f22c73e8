// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffService
import PuffTesting
import Synchronization
import Testing

@testable import PuffServiceBus

/// A passcode pipe is read within one absolute deadline from the start of the read: a writer
/// that trickles a byte at a time and never closes does not move it (issue 24 item 10; it
/// restarted its 5 s on every byte, so eight such writers held every call slot).
struct PasscodePipeTests {
    @Test func aWriterTricklingBytesWithoutClosingIsCutOffAtTheDeadline() async throws {
        let ends = try UnixFD.pipe()
        let clock = ManualClock()
        let ended = Atomic<Bool>(false)
        let reader = Task {
            await BlockingWork.result { () throws(ServiceError) in
                defer { ended.store(true, ordering: .relaxed) }
                return try PasscodePipe.read(ends.read, timeout: .seconds(5), clock: clock)
            }
        }
        // One byte per second of the reader's clock until the read ends, or past the most a pipe
        // may carry (a timeout restarted by every byte would end there, with another error).
        var written = 0
        while !ended.load(ordering: .relaxed), written <= PasscodePipe.maxBytes {
            var byte = UInt8(ascii: "x")
            guard write(ends.write.rawValue, &byte, 1) == 1 else { break }
            written += 1
            clock.advance(by: .seconds(1))
            // Lets the reader take the byte before the clock moves again (it polls in 100 ms slices).
            try await Task.sleep(for: .milliseconds(20))
        }
        let result = await reader.value
        guard case .failure(let error) = result else {
            Issue.record("the read returned a passcode from a pipe that was never closed")
            return
        }
        #expect(error == .invalidArgument("the passcode pipe was not closed in time"))
        #expect(written < PasscodePipe.maxBytes, "cut off after \(written) bytes")
    }

    @Test func aPipeClosedBeforeTheDeadlineGivesItsBytes() async throws {
        let readEnd: UnixFD
        do {
            let ends = try UnixFD.pipe()
            var bytes = Array("pass".utf8)
            #expect(write(ends.write.rawValue, &bytes, bytes.count) == 4)
            readEnd = ends.read
        }  // the write end closes here
        let passcode = try PasscodePipe.read(readEnd, clock: ManualClock())
        #expect(passcode.unprotectedArray() == Array("pass".utf8))
    }
}
