// SPDX-License-Identifier: Apache-2.0
internal import CFido2
import Dispatch
import PuffService
import Synchronization

/// One transaction with a security key: the libfido2 device it opened, and what a cancellation
/// arriving on another thread may do with it (send CTAPHID CANCEL while it is open, or keep it
/// from opening at all).
final class SecurityKeyCall: Sendable {
    /// A libfido2 device as the cancelling thread uses it: only for `fido_dev_cancel`, under the lock.
    private struct CancellableDevice: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private struct State: ~Copyable {
        /// The open device while the transaction runs; nil before it opens and once it closes.
        var device: CancellableDevice?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// libfido2's global set-up, once per process.
    private static let library: Void = fido_init(0)

    /// How often a cancellation repeats CTAPHID CANCEL while the transaction has not ended: a
    /// CANCEL that reaches the key between the request's sending and its arrival is lost.
    private static let cancelRepeat = DispatchTimeInterval.milliseconds(200)

    /// Marks the transaction cancelled and, while its device is open, sends CTAPHID CANCEL (again
    /// every ``cancelRepeat`` until the transaction ends).
    func cancel() {
        let open = state.withLock { state -> Bool in
            state.cancelled = true
            guard let device = state.device else { return false }
            // Under the lock: the device cannot be closed and freed meanwhile.
            _ = fido_dev_cancel(device.pointer)
            return true
        }
        if open {
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.cancelRepeat) { self.cancel() }
        }
    }

    /// Opens `device` (see ``SecurityKeyDevice/device``; a name ``SecurityKeyDevice/accepts(device:)``
    /// took), runs `body` with it and closes it. A `unix:` socket that does not take the connection
    /// at once is unavailable (the shim connects without waiting). A failure of a cancelled
    /// transaction is ``HardwareError/cancelled``, whatever libfido2 said.
    func run<Value>(
        device: String?, timeoutMilliseconds: Int32, _ body: (OpenSecurityKey) throws(HardwareError) -> Value
    ) throws(HardwareError) -> Value {
        _ = Self.library
        let name: String
        if let device { name = device } else { name = try Self.discover() }
        guard let handle = fido_dev_new() else { throw .failed("libfido2 could not allocate a device") }
        defer {
            var freed: OpaquePointer? = handle
            fido_dev_free(&freed)
        }
        var path = name
        if name.hasPrefix("unix:") {
            path = String(name.dropFirst("unix:".count))
            guard puff_fido_use_unix_socket(handle) == FIDO_OK else { throw .failed("libfido2 refused the I/O hooks") }
        }
        _ = fido_dev_set_timeout(handle, timeoutMilliseconds)
        let opened = fido_dev_open(handle, path)
        guard opened == FIDO_OK else {
            throw .unavailable("no security key answered at \(name) (\(SecurityKeyStatus.words(opened)))")
        }
        let started = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.device = CancellableDevice(pointer: handle)
            return true
        }
        defer {
            state.withLock { $0.device = nil }
            _ = fido_dev_close(handle)
        }
        guard started else { throw .cancelled }
        do {
            return try body(OpenSecurityKey(handle: handle))
        } catch {
            throw state.withLock { $0.cancelled } ? .cancelled : error
        }
    }

    /// The path of the first FIDO2 key libfido2's discovery finds.
    private static func discover() throws(HardwareError) -> String {
        let capacity = 16
        guard let list = fido_dev_info_new(capacity) else { throw .failed("libfido2 could not allocate a list") }
        defer {
            var freed: OpaquePointer? = list
            fido_dev_info_free(&freed, capacity)
        }
        var found = 0
        guard fido_dev_info_manifest(list, capacity, &found) == FIDO_OK, found > 0,
            let first = fido_dev_info_ptr(list, 0), let path = fido_dev_info_path(first)
        else {
            throw .unavailable("no FIDO2 security key found: is one plugged in?")
        }
        return String(cString: path)
    }
}
