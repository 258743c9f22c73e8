#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A fake Secret Service provider for LiveImportTests: owns org.freedesktop.secrets on the bus in
DBUS_SESSION_BUS_ADDRESS and serves one unlocked collection holding one item, answering the way
MODE says. Prints `ready` once it owns the name; runs until stdin closes or SIGTERM.

    hostile_provider.py MODE

MODE:
    plain               refuses the DH session (NotSupported) and serves the item in plain:
                        an honest but old provider, which puffctl must still read, and say so
    huge-label          the item's properties carry 56 MiB: a 32 MiB Label and 24 attribute values
                        of 1 MiB (a dbus-daemon passes messages up to about 63 MiB)
    malformed           the item's Attributes are an array of strings, not a{ss}
    bad-ciphertext      a DH session, then a secret of 15 bytes (no AES block)
    oversized-secret    a plain session, then a secret of 20 MiB
    extra-secret        a DH session whose GetSecrets reply leaves the item out and adds another
    locked              the collection is locked until Unlock's prompt runs, which then unlocks it
                        (plain session, as in `plain`); prints `unlock asked` when Unlock is called
    locked-dismissed    the same, but the person dismisses the prompt
"""

import os
import secrets
import signal
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

SS = "org.freedesktop.Secret."
PROPS = "org.freedesktop.DBus.Properties"
BASE = "/org/freedesktop/secrets"
COLLECTION = BASE + "/collection/fake"
ITEM = COLLECTION + "/1"
SESSION = BASE + "/session/1"
# RFC 2409's second Oakley group, the one the spec's DH algorithm uses.
PRIME = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)
MODE = sys.argv[1]
PLAIN_MODES = ("plain", "oversized-secret", "locked", "locked-dismissed")
PROMPT = BASE + "/prompt/1"
STATE = {"locked": MODE.startswith("locked")}


class Service(dbus.service.Object):
    @dbus.service.method(SS + "Service", in_signature="sv", out_signature="vo")
    def OpenSession(self, algorithm, _input):
        if MODE in PLAIN_MODES:
            if algorithm != "plain":
                raise dbus.exceptions.DBusException("only plain here", name="org.freedesktop.DBus.Error.NotSupported")
            return dbus.String("", variant_level=1), dbus.ObjectPath(SESSION)
        # A real public key, so the exchange itself succeeds.
        public = pow(2, secrets.randbits(256), PRIME).to_bytes(128, "big")
        return dbus.ByteArray(public, variant_level=1), dbus.ObjectPath(SESSION)

    @dbus.service.method(SS + "Service", in_signature="aoo", out_signature="a{o(oayays)}")
    def GetSecrets(self, items, session):
        if MODE in ("plain", "locked", "locked-dismissed"):
            value, parameters = b"plain secret", b""
        elif MODE == "oversized-secret":
            value, parameters = b"s" * (20 << 20), b""
        elif MODE == "extra-secret":
            return {dbus.ObjectPath(COLLECTION + "/other"): (session, b"\0" * 16, b"\0" * 16, "text/plain")}
        else:
            value, parameters = b"\1" * 15, b"\0" * 16
        return {dbus.ObjectPath(ITEM): (session, dbus.ByteArray(parameters), dbus.ByteArray(value), "text/plain")}

    @dbus.service.method(SS + "Service", in_signature="ao", out_signature="aoo")
    def Unlock(self, objects):
        print("unlock asked", flush=True)
        return dbus.Array([], signature="o"), dbus.ObjectPath(PROMPT)

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return dbus.Array([dbus.ObjectPath(COLLECTION)], signature="o", variant_level=1)


class Collection(dbus.service.Object):
    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"Label": dbus.String("fake"), "Locked": dbus.Boolean(STATE["locked"]),
                "Items": dbus.Array([dbus.ObjectPath(ITEM)], signature="o"),
                "Created": dbus.UInt64(1), "Modified": dbus.UInt64(2)}


class Item(dbus.service.Object):
    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        label = "x" * (32 << 20) if MODE == "huge-label" else "fake item"
        attributes = (dbus.Array(["not", "a", "dictionary"], signature="s") if MODE == "malformed"
                      else dbus.Dictionary({"kind": "fake"}, signature="ss"))
        if MODE == "huge-label":
            attributes = dbus.Dictionary({f"a{i}": "v" * (1 << 20) for i in range(24)}, signature="ss")
        return {"Label": dbus.String(label), "Attributes": attributes, "Locked": dbus.Boolean(False),
                "Created": dbus.UInt64(1_500_000_000), "Modified": dbus.UInt64(1_500_000_001)}


class Prompt(dbus.service.Object):
    @dbus.service.method(SS + "Prompt", in_signature="s", out_signature="")
    def Prompt(self, window):
        GLib.idle_add(self.answer)

    def answer(self):
        dismissed = MODE == "locked-dismissed"
        STATE["locked"] = dismissed
        unlocked = [] if dismissed else [dbus.ObjectPath(COLLECTION)]
        self.Completed(dismissed, dbus.Array(unlocked, signature="o", variant_level=1))
        return False

    @dbus.service.signal(SS + "Prompt", signature="bv")
    def Completed(self, dismissed, result):
        pass


class Session(dbus.service.Object):
    @dbus.service.method(SS + "Session", in_signature="", out_signature="")
    def Close(self):
        pass


def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    objects = [Service(bus, BASE), Collection(bus, COLLECTION), Item(bus, ITEM), Session(bus, SESSION),
               Prompt(bus, PROMPT)]
    reply = bus.request_name("org.freedesktop.secrets", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        print("FAIL could not own org.freedesktop.secrets", flush=True)
        return 1
    loop = GLib.MainLoop()
    signal.signal(signal.SIGTERM, lambda *_: loop.quit())
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_HUP | GLib.IO_IN, lambda *_: loop.quit())
    print("ready", flush=True)
    loop.run()
    del objects
    return 0


if __name__ == "__main__":
    sys.exit(main())
