"""puffd_process.py - start and stop the built puffd on a file vault, and run puffctl, for the
drivers that restart the daemon themselves (crash_rounds.py, full_disk.py)."""

import os
import resource
import signal
import subprocess
import time

from jeepney import DBusAddress, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

from harness import HANG_GUARD

PASSCODE = b"vault driver passcode\n"


class Puffd:
    """One run of the daemon on the shared vault, logging to a file beside it."""

    def __init__(self, args, log, file_size_limit=None):
        def limit():
            # A full disk, as the process sees it: writes past the limit fail with EFBIG.
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

        self.process = subprocess.Popen(
            [args.puffd, "--address", os.environ["DBUS_SESSION_BUS_ADDRESS"], "--data-dir", args.data_dir,
             "--kdf", "interactive", "--log-level", getattr(args, "log_level", "info")],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=limit if file_size_limit is not None else None)
        bus = open_dbus_connection(bus="SESSION")
        try:
            dbus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                               interface="org.freedesktop.DBus")
            deadline = time.monotonic() + HANG_GUARD
            while time.monotonic() < deadline:
                # The owner must be this process: a killed predecessor can hold the name until
                # the bus notices its socket closed.
                owner = bus.send_and_get_reply(
                    new_method_call(dbus, "GetNameOwner", "s", ("org.freedesktop.secrets",)))
                if owner.header.message_type == MessageType.method_return:
                    pid = bus.send_and_get_reply(
                        new_method_call(dbus, "GetConnectionUnixProcessID", "s", (owner.body[0],)))
                    if pid.header.message_type == MessageType.method_return and pid.body[0] == self.process.pid:
                        return
                if self.process.poll() is not None:
                    raise RuntimeError(f"puffd exited during start-up with {self.process.returncode}")
                time.sleep(0.025)
            raise RuntimeError(f"puffd did not own its name within {HANG_GUARD:g} s")
        finally:
            bus.close()

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def is_running(self):
        return self.process.poll() is None

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(HANG_GUARD)


def puffctl(args, *arguments):
    return subprocess.run([args.puffctl, *arguments], input=PASSCODE, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=HANG_GUARD).returncode
