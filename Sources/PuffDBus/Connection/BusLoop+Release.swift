// SPDX-License-Identifier: Apache-2.0
import CDBus

/// The libdbus data slot that carries a ``ReleaseNote`` on a message, allocated once.
private let releaseSlot: Int32 = {
    var slot: Int32 = -1
    _ = dbus_message_allocate_data_slot(&slot)
    return slot
}()

/// Rides on a sent message until libdbus frees it: libdbus keeps a message queued until the socket
/// has taken all of it, which for a list of 100,000 paths takes several rounds of the loop.
private final class ReleaseNote {
    let loop: BusLoop
    let released: @Sendable () -> Void

    init(loop: BusLoop, released: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.released = released
    }
}

extension BusLoop {
    /// Arranges for `released` to run once libdbus frees `message` (written out, or dropped with
    /// the connection), at the loop's next ``runReleased()``. Loop thread only.
    func noteRelease(of message: OpaquePointer, _ released: @escaping @Sendable () -> Void) {
        let note = Unmanaged.passRetained(ReleaseNote(loop: self, released: released)).toOpaque()
        let attached =
            releaseSlot >= 0
            && dbus_message_set_data(
                message, releaseSlot, note,
                { data in
                    // libdbus frees a message on the thread that unrefs it, which is the loop's.
                    let note = Unmanaged<ReleaseNote>.fromOpaque(data!).takeRetainedValue()
                    note.loop.releasedMessages.append(note.released)
                }) != 0
        if !attached {
            Unmanaged<ReleaseNote>.fromOpaque(note).release()
            releasedMessages.append(released)
        }
    }

    /// Runs the `released` callbacks of messages freed so far: called where the loop holds no
    /// message of its own (after a batch of jobs is done with).
    func runReleased() {
        guard !releasedMessages.isEmpty else { return }
        let callbacks = releasedMessages
        releasedMessages.removeAll()
        for released in callbacks { released() }
    }
}
