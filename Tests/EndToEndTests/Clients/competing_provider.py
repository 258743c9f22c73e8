"""A stand-in for another Secret Service provider (gnome-keyring, KWallet, ...): owns
org.freedesktop.secrets on the session bus, serves no /io/puff/Control, prints `ready` once it
owns the name and runs until its standard input closes or it gets SIGTERM.

Used by DoctorTests: `puffctl doctor` must name this process's executable (python3) and say it
is not puffd.
"""

import os
import signal
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    reply = bus.request_name("org.freedesktop.secrets", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        print("FAIL could not own org.freedesktop.secrets", flush=True)
        return 1
    loop = GLib.MainLoop()
    signal.signal(signal.SIGTERM, lambda *_: loop.quit())
    # End with the test that started us, even if it never sends SIGTERM.
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_HUP | GLib.IO_IN, lambda *_: loop.quit())
    print("ready", flush=True)
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
