// SPDX-License-Identifier: Apache-2.0
import CDBus
import Glibc

extension BusLoop {
    /// Registers the watch, timeout and wake-up callbacks; libdbus calls them on whichever thread
    /// is inside libdbus at the time, which after start-up is always the loop thread.
    func installCallbacks() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            connectionPointer,
            { watch, data in BusLoop.from(data).addWatch(watch) },
            { watch, data in BusLoop.from(data).removeWatch(watch) },
            { _, _ in },  // enabled flags are read from each watch on every poll
            context,
            nil
        )
        dbus_connection_set_timeout_functions(
            connectionPointer,
            { timeout, data in BusLoop.from(data).addTimeout(timeout) },
            { timeout, data in BusLoop.from(data).removeTimeout(timeout) },
            { timeout, data in _ = BusLoop.from(data).addTimeout(timeout) },
            context,
            nil
        )
        dbus_connection_set_wakeup_main_function(
            connectionPointer, { data in BusLoop.from(data).wakeFromLibdbus() }, context, nil)
    }

    private static func from(_ data: UnsafeMutableRawPointer?) -> BusLoop {
        // The loop outlives its connection's callbacks: it unrefs the connection before it goes away.
        Unmanaged<BusLoop>.fromOpaque(data!).takeUnretainedValue()
    }

    /// Waits for the next watch, timeout or wake-up and lets libdbus handle it.
    func pollOnce() {
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        var polled: [OpaquePointer] = []
        for watch in watchList where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
            polled.append(watch)
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), nextTimeoutMilliseconds())
        if ready > 0 {
            if descriptors[0].revents != 0 { drainWakeups() }
            for (index, watch) in polled.enumerated() {
                let revents = descriptors[index + 1].revents
                guard revents != 0 else { continue }
                var flags: UInt32 = 0
                if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                // A watch removed by an earlier handle() in this round must not be touched.
                if watchList.contains(watch) { dbus_watch_handle(watch, flags) }
            }
        }
        fireDueTimeouts()
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeDescriptor, &buffer, buffer.count) > 0 {}
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        guard let next = timeoutDeadlines.values.min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    private func fireDueTimeouts() {
        let now = ContinuousClock.now
        for (timeout, deadline) in timeoutDeadlines where deadline <= now {
            guard timeoutDeadlines[timeout] != nil else { continue }
            resetDeadline(timeout)
            dbus_timeout_handle(timeout)
        }
    }
}
