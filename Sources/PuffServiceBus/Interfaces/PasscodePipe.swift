// SPDX-License-Identifier: Apache-2.0
import Glibc
import PuffCrypto
import PuffDBus
import PuffService

/// Reads a passcode from the read end of a pipe passed as `h` (dbus/io.puff.Control1.xml),
/// straight into locked memory: no passcode sits in the bus daemon's buffers or in a Swift string.
enum PasscodePipe {
    /// The longest passcode accepted, in bytes.
    static let maxBytes = 1024
    /// How long the writer may take to close its end.
    static let timeoutMilliseconds: Int32 = 5000

    /// The bytes up to end of file.
    ///
    /// - Throws: ``ServiceError/invalidArgument(_:)`` when the pipe carries nothing, more than
    ///   ``maxBytes``, or is not closed in time.
    static func read(_ descriptor: UnixFD) throws(ServiceError) -> SecureBytes {
        let fd = descriptor.rawValue
        var length = 0
        let buffer = try SecureBytes(count: maxBytes + 1) { (out: UnsafeMutableRawBufferPointer) throws(ServiceError) in
            var filled = 0
            while true {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, timeoutMilliseconds)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { throw .invalidArgument("the passcode pipe was not closed in time") }
                let count = Glibc.read(fd, out.baseAddress! + filled, out.count - filled)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count >= 0 else { throw .invalidArgument("the passcode pipe could not be read") }
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
}
