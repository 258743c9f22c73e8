#!/usr/bin/python3
"""portal_standin.py - a stand-in org.freedesktop.impl.portal.Secret backend, for the harness's
own test (SandboxHarnessTests), so that it proves the portal path before puffd serves it.

    DBUS_SESSION_BUS_ADDRESS=... python3 portal_standin.py

Owns org.freedesktop.secrets and serves RetrieveSecret at /org/freedesktop/portal/desktop:
writes 64 bytes derived from the app id (sha512("puff-standin:" + app_id); no real secret) and
answers 0. Logs `RetrieveSecret app_id='ID'` per call, and answers Properties.Get/GetAll
(version 1), which the portal reads at start-up (F3).
"""

import hashlib
import os

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IMPL = "org.freedesktop.impl.portal.Secret"
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])


class Backend(dbus.service.Object):
    @dbus.service.method(IMPL, in_signature="osha{sv}", out_signature="ua{sv}")
    def RetrieveSecret(self, handle, app_id, fd, options):
        print(f"RetrieveSecret app_id={str(app_id)!r}", flush=True)
        raw = fd.take()
        os.write(raw, hashlib.sha512(b"puff-standin:" + str(app_id).encode()).digest())
        os.close(raw)
        return dbus.UInt32(0), dbus.Dictionary({}, signature="sv")

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        return dbus.UInt32(1)

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary({"version": dbus.UInt32(1)}, signature="sv")


Backend(bus, "/org/freedesktop/portal/desktop")
name = dbus.service.BusName("org.freedesktop.secrets", bus, do_not_queue=True)
print("serving", flush=True)
GLib.MainLoop().run()
