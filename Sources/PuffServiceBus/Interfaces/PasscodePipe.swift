// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffService
import PuffSystem
import Synchronization
import SystemPackage

/// Reads a passcode from the read end of a pipe passed as `h` (dbus/io.puff.Control1.xml),
/// straight into locked memory: no passcode sits in the bus daemon's buffers or in a Swift string.
enum PasscodePipe {
    /// The longest passcode accepted, in bytes.
    static let maxBytes = 1024
    /// How long the writer may take to close its end, from the start of the read: one absolute
    /// deadline, which a writer trickling a byte at a time does not move (issue 24 item 10).
    static var timeout: Duration { .milliseconds(timeoutMilliseconds.load(ordering: .relaxed)) }
    /// ``timeout`` in milliseconds: 5 s unless puffd was started with the hidden
    /// `--passcode-pipe-timeout` (tests that hold pipes open on a busy machine), which sets it
    /// once, before serving.
    static let timeoutMilliseconds = Atomic<Int64>(5000)
    /// How long one `poll` waits before the deadline is looked at again.
    static let pollSlice = Duration.milliseconds(100)

    /// The bytes up to end of file, read within ``timeout`` of the call as `clock` measures it.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` when the pipe carries nothing, more than
    ///   ``maxBytes``, or is not closed in time.
    static func read<C: Clock<Duration>>(
        _ descriptor: UnixFD, timeout: Duration = timeout, clock: C = ContinuousClock()
    ) throws(ServiceError) -> SecureBytes {
        let fd = descriptor.rawValue
        let deadline = clock.now.advanced(by: timeout)
        var length = 0
        let buffer = try SecureBytes(count: maxBytes + 1) { (out: UnsafeMutableRawBufferPointer) throws(ServiceError) in
            var filled = 0
            while true {
                let left = clock.now.duration(to: deadline)
                guard left > .zero else { throw .invalidArgument("the passcode pipe was not closed in time") }
                let count: Int
                do throws(Errno) {
                    let slice = Self.milliseconds(min(left, pollSlice))
                    guard try SystemCalls.wait(for: Int16(POLLIN), on: fd, timeout: slice) else { continue }
                    count = try FileDescriptor(rawValue: fd).readSome(
                        into: UnsafeMutableRawBufferPointer(rebasing: out[filled...]))
                } catch .wouldBlock {
                    continue
                } catch {
                    throw .invalidArgument("the passcode pipe could not be read")
                }
                if count == 0 { break }
                filled += count
                guard filled <= maxBytes else {
                    throw .invalidArgument("a passcode may hold at most \(maxBytes) bytes")
                }
            }
            guard filled > 0 else { throw .invalidArgument("the passcode is empty") }
            length = filled
        }
        return buffer.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }

    /// `duration` in whole milliseconds, at least 1 (poll's 0 would spin).
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}

extension SecretServiceBus {
    /// Sets how long a client may take to close a passcode pipe (default 5 s), for every bus
    /// served by this process; puffd calls it once before serving (`--passcode-pipe-timeout`).
    public static func setPasscodePipeTimeout(seconds: Int32) {
        PasscodePipe.timeoutMilliseconds.store(Int64(seconds) * 1000, ordering: .relaxed)
    }
}
