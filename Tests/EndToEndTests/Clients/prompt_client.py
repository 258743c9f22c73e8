#!/usr/bin/python3
"""prompt_client.py - one prompt, as libsecret and secretstorage drive it, with a deadline.

    /usr/bin/python3 prompt_client.py unlock PATH [--disconnect-when FILE] [--deadline SECONDS]
    /usr/bin/python3 prompt_client.py change PATH [--deadline SECONDS]

`unlock` calls Service.Unlock([PATH]); `change` calls gnome-keyring's
InternalUnsupportedGuiltRiddenInterface.ChangeWithPrompt(PATH). Then Prompt("") on the prompt it
got, and waits for Completed on that path. With --disconnect-when FILE the client leaves the bus
once FILE exists (the prompter's hold point), and prints `left`.

Prints one JSON line: {"dismissed": bool, "result": ..., "seconds": float} (seconds from Prompt()
to Completed), or {"timeout": true} when no Completed came within the deadline (default: the
harness's HANG_GUARD), or
{"prompt": "/"} when no prompt was needed.
"""

import json
import os
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus
import dbus.mainloop.glib
from gi.repository import GLib
from harness import HANG_GUARD

BUS = "org.freedesktop.secrets"
ROOT = "/org/freedesktop/secrets"
SECRET = "org.freedesktop.Secret."
GK = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"


def main():
    action, path = sys.argv[1], sys.argv[2]
    leave_when = sys.argv[sys.argv.index("--disconnect-when") + 1] if "--disconnect-when" in sys.argv else None
    deadline = float(sys.argv[sys.argv.index("--deadline") + 1]) if "--deadline" in sys.argv else HANG_GUARD
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    service = bus.get_object(BUS, ROOT)
    if action == "unlock":
        _unlocked, prompt = service.Unlock([dbus.ObjectPath(path)], dbus_interface=SECRET + "Service")
    else:
        prompt = service.ChangeWithPrompt(dbus.ObjectPath(path), dbus_interface=GK)
    if str(prompt) == "/":
        print(json.dumps({"prompt": "/"}))
        return
    loop = GLib.MainLoop()
    outcome = {"timeout": True}

    def completed(dismissed, result):
        outcome.clear()
        outcome.update({"dismissed": bool(dismissed), "result": str(result), "seconds": time.monotonic() - start})
        loop.quit()

    bus.add_signal_receiver(completed, "Completed", SECRET + "Prompt", BUS, str(prompt))
    start = time.monotonic()
    bus.get_object(BUS, prompt).Prompt("", dbus_interface=SECRET + "Prompt")
    if leave_when:
        while not os.path.exists(leave_when) and time.monotonic() - start < deadline:
            time.sleep(0.05)
        bus.close()
        print("left")
        return
    GLib.timeout_add(int(deadline * 1000), loop.quit)
    loop.run()
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
