#!/usr/bin/python3
"""libsecret_portal.py - libsecret's own portal path, as a Flatpak app uses it (issue 28's third
check; ported from /work/notes/issue28/libsecret_flow.py). Run by sandbox.py with
SECRET_BACKEND=file: libsecret keeps the item in $HOME/.local/share/keyrings/default.keyring,
encrypted with the secret org.freedesktop.portal.Secret hands this app.

    sandbox.py ... -- /usr/bin/python3 libsecret_portal.py store|matches|absent|cancelled

Standard input: one line, the value to store or to compare with (never printed).
  store      secret_password_store stores it, and the keyring file exists afterwards
  matches    secret_password_lookup (a new process) returns the same value
  absent     secret_password_lookup returns no value, and no error (F8: another app's secret)
  cancelled  secret_password_store fails with G_IO_ERROR_CANCELLED (the portal answered 1)

libsecret 0.20.5 (Debian 12) subscribes to the portal's Request.Response only once the
RetrieveSecret reply is back (libsecret issue 58, fixed in 0.21.4 by "file-backend: Subscribe
before calling dbus"), so a fast backend's Response can arrive first, and libsecret then waits for
ever. Behind xdg-dbus-proxy that happened in 2 of 20 runs with a stand-in backend, and in 1 of 40
with this client's own earlier subscription to the portal's Responses. So each operation runs in
a child process of its own that watches for the Response itself: when the Response came and
libsecret has not finished HANG_GUARD (a hang guard) later, the child says `lost`, and the
operation runs again in a new child, three times at most. Any other outcome is the verdict.
"""

import os
import sys

import gi

gi.require_version("Secret", "1")
from gi.repository import Gio, GLib, Secret  # noqa: E402

from harness import DRIVER_HANG_GUARD, HANG_GUARD, Failure, Runner  # noqa: E402

PORTAL = "org.freedesktop.portal.Desktop"
SCHEMA = Secret.Schema.new("org.example.App.Password", Secret.SchemaFlags.NONE,
                           {"account": Secret.SchemaAttributeType.STRING})
ATTRIBUTES = {"account": "alice"}
KEYRING = os.path.join(os.environ.get("HOME", ""), ".local/share/keyrings/default.keyring")
ATTEMPTS = 3


def watch_responses(connection, state, loop):
    """Subscribes to the portal's Responses to this connection's requests, and waits until GDBus
    knows who owns the portal's name (it delivers a well-known sender's signals only then)."""
    sender = connection.get_unique_name()[1:].replace(".", "_")
    prefix = f"/org/freedesktop/portal/desktop/request/{sender}/"

    def lost():
        state["verdict"] = "lost"
        loop.quit()

    def on_response(_connection, _sender, path, *_):
        if path.startswith(prefix) and "guard" not in state:
            state["guard"] = GLib.timeout_add_seconds(int(HANG_GUARD), lost)

    connection.signal_subscribe(PORTAL, "org.freedesktop.portal.Request", "Response", None, None,
                                Gio.DBusSignalFlags.NONE, on_response)
    connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                    GLib.Variant("(s)", (PORTAL,)), None, Gio.DBusCallFlags.NONE, -1, None,
                    lambda *_: loop.quit())
    loop.run()


def run_operation(mode, value):
    """Runs libsecret's asynchronous call for `mode` on this process's main loop; returns the
    verdict: "ok", "lost" or "fail REASON"."""
    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    loop = GLib.MainLoop()
    state = {}
    watch_responses(connection, state, loop)

    def finish(verdict):
        state.setdefault("verdict", verdict)
        loop.quit()

    def stored(_source, result):
        try:
            ok = Secret.password_store_finish(result)
        except GLib.Error as error:
            if mode == "cancelled" and error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED):
                return finish("ok")
            return finish(f"fail libsecret error {error.domain} {error.code}")
        if mode == "cancelled":
            return finish("fail the store succeeded")
        return finish("ok" if ok and os.path.isfile(KEYRING) else "fail not stored, or no keyring file")

    def looked_up(_source, result):
        try:
            found = Secret.password_lookup_finish(result)
        except GLib.Error as error:
            return finish(f"fail libsecret error {error.domain} {error.code}")
        if mode == "absent":
            return finish("ok" if found is None else "fail a value was found")
        if found is None:
            return finish("fail no value found")
        return finish("ok" if found == value else "fail the value found differs from the one stored")

    if mode in ("store", "cancelled"):
        Secret.password_store(SCHEMA, ATTRIBUTES, None, "example", value, None, stored)
    else:
        Secret.password_lookup(SCHEMA, ATTRIBUTES, None, looked_up)
    # A hang guard for a portal that never answers (F6: it has no timeout of its own).
    GLib.timeout_add_seconds(int(2 * HANG_GUARD), lambda: finish("fail no Response from the portal"))
    loop.run()
    return state["verdict"]


def in_child(mode, value):
    """Runs one attempt in a new process (a fresh libsecret and bus connection); its verdict."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        try:
            verdict = run_operation(mode, value)
        except Exception as error:  # noqa: BLE001 - reported as the verdict
            verdict = f"fail {type(error).__name__}"
        os.write(write_end, verdict.encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        verdict = pipe.read().decode() or "fail the attempt ended without a verdict"
    os.waitpid(child, 0)
    return verdict


def operation(mode, value):
    if mode in ("store", "cancelled") and not value:
        raise Failure("no value on standard input")
    if mode == "absent" and not os.path.isfile(KEYRING):
        raise Failure("no keyring file to read")
    for attempt in range(1, ATTEMPTS + 1):
        verdict = in_child(mode, value)
        if verdict != "lost":
            break
        print(f"note: attempt {attempt}: libsecret lost the portal's Response (libsecret issue 58)", flush=True)
    if verdict != "ok":
        raise Failure(verdict.removeprefix("fail "))


CASES = {
    "store": "secret_password_store stores the item in the app's keyring file",
    "matches": "secret_password_lookup in a new process returns the stored value",
    "absent": "secret_password_lookup finds nothing in a keyring sealed for another app",
    "cancelled": "secret_password_store fails with G_IO_ERROR_CANCELLED",
}
mode = sys.argv[1]
value = sys.stdin.readline().rstrip("\n")
runner = Runner(case_timeout=DRIVER_HANG_GUARD)
runner.case(CASES[mode], operation, mode, value)
runner.finish()
