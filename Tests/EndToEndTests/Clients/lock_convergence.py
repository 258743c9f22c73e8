#!/usr/bin/python3
"""lock_convergence.py - a libsecret client holding item proxies converges when
another client unlocks and locks their collection, and a client holding none
receives no item signal (issue 27 item 2, secret-service.md section 7).

    /usr/bin/python3 lock_convergence.py --puffctl PATH [--items N]

Needs a puffd on DBUS_SESSION_BUS_ADDRESS whose vault has no passcode yet: the
driver sets one itself with `puffctl init --stdin` (a random one that only ever
goes through puffctl's stdin), writes N items (1,000 by default) into login from
a connection of its own, and locks login. Then:
  * client H (real libsecret through gi `Secret`, on this process's GLib main
    loop) loads login's items while it is locked: one SecretItem proxy each,
    which reads the item's properties (GetAll);
  * client N (a dbus-python connection of its own) reads no item property; it
    adds a match rule for every signal of org.freedesktop.secrets and counts
    what arrives;
  * a third client (`puffctl unlock --stdin`, `puffctl lock`, Control1) unlocks
    login, locks it and unlocks it again.
Cases, after each of the three changes:
  (1) every item H holds reports the new Locked (get_locked), and after the
      unlocks a LOAD_SECRETS search hands H each item's secret;
  (2) N receives no PropertiesChanged on an item path and no ItemChanged, but
      does receive the collection's PropertiesChanged{Locked} (so its match
      rule is known to work);
  (3) H receives one PropertiesChanged{Locked} on each held item's path.
A daemon that broadcasts per-item signals fails (2); one that sends only the
collection's signals fails (1) and (3). Never prints secrets or attribute values.
"""

import argparse
import os
import secrets
import subprocess
import sys
import time
import uuid

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus  # noqa: E402
import dbus.bus  # noqa: E402
import gi  # noqa: E402
from dbus.mainloop.glib import DBusGMainLoop  # noqa: E402

gi.require_version("Secret", "1")
from gi.repository import Gio, GLib, Secret  # noqa: E402

from harness import HANG_GUARD, Runner, check, need  # noqa: E402

BUS = "org.freedesktop.secrets"
SS = "/org/freedesktop/secrets"
LOGIN = SS + "/collection/login"
IFACE = "org.freedesktop.Secret."
PROPS = "org.freedesktop.DBus.Properties"
MAINLOOP = DBusGMainLoop()


def pump_until(done, timeout=HANG_GUARD):
    """Iterate the GLib main loop until done() or `timeout` seconds; returns done()."""
    ctx = GLib.MainContext.default()
    tick = GLib.timeout_add(50, lambda: True)  # wake up to look at the clock
    deadline = time.monotonic() + timeout
    try:
        while not done() and time.monotonic() < deadline:
            ctx.iteration(True)
    finally:
        GLib.source_remove(tick)
    return done()


def is_item_path(path):
    return path.startswith(LOGIN + "/")


class Bystander:
    """Client N: reads no item property, counts every signal of the service."""

    def __init__(self):
        self.conn = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"], mainloop=MAINLOOP)
        self.reset()
        self.conn.add_signal_receiver(self.on_signal, bus_name=BUS, path_keyword="path", member_keyword="member",
                                      interface_keyword="interface")

    def reset(self):
        self.item_changes = 0       # PropertiesChanged on an item path
        self.item_changed = 0       # Collection.ItemChanged
        self.collection_locked = 0  # PropertiesChanged{Locked} on login

    def on_signal(self, *args, path=None, member=None, interface=None):
        if member == "PropertiesChanged" and is_item_path(path):
            self.item_changes += 1
        elif member == "ItemChanged":
            self.item_changed += 1
        elif member == "PropertiesChanged" and path == LOGIN and len(args) > 1 and "Locked" in args[1]:
            self.collection_locked += 1

    def round_trip(self):
        """A reply from the service comes after every signal it sent this connection before."""
        state = {}
        self.conn.call_async(BUS, LOGIN, PROPS, "Get", "ss", (IFACE + "Collection", "Locked"),
                             lambda value: state.setdefault("done", True),
                             lambda error: state.setdefault("done", True), timeout=HANG_GUARD)
        pump_until(lambda: "done" in state)


class Holder:
    """Client H: libsecret holding login's items, counting the item signals it receives."""

    def __init__(self):
        self.service = Secret.Service.get_sync(
            Secret.ServiceFlags.OPEN_SESSION | Secret.ServiceFlags.LOAD_COLLECTIONS, None)
        self.changes = {}
        connection = self.service.get_connection()
        connection.signal_subscribe(BUS, PROPS, "PropertiesChanged", None, None, Gio.DBusSignalFlags.NONE,
                                    self.on_properties_changed)

    def on_properties_changed(self, _conn, _sender, path, _iface, _member, parameters):
        interface, changed, _invalidated = parameters.unpack()
        if is_item_path(path) and interface == IFACE + "Item" and "Locked" in changed:
            self.changes[path] = self.changes.get(path, 0) + 1

    def load(self):
        login = [c for c in self.service.get_collections() if c.get_object_path() == LOGIN]
        check(len(login) == 1, "libsecret does not list login")
        self.collection = login[0]
        check(self.collection.get_locked(), "login is not locked while H loads its items")
        self.collection.load_items_sync(None)
        self.items = self.collection.get_items()
        return self.items


class Driver:
    def __init__(self, runner, puffctl, count):
        self.r = runner
        self.puffctl = puffctl
        self.count = count
        self.passcode = secrets.token_urlsafe(18)
        self.run = uuid.uuid4().hex
        self.holder = None
        self.bystander = None
        self.expected = {}  # "n" attribute -> secret text

    def puffctl_run(self, *args, passcode=False):
        """Runs puffctl while the main loop keeps both clients reading."""
        process = subprocess.Popen([self.puffctl, *args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        process.stdin.write((self.passcode + "\n").encode() if passcode else b"")
        process.stdin.close()
        check(pump_until(lambda: process.poll() is not None), f"puffctl {args[0]} did not finish")
        error = process.stderr.read().decode(errors="replace").strip().splitlines()
        check(process.returncode == 0, f"puffctl {args[0]} exited {process.returncode}: {error[-1:] or ''}")

    def prepare(self):
        self.puffctl_run("init", "--stdin", passcode=True)
        writer = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
        _out, session = writer.call_blocking(BUS, SS, IFACE + "Service", "OpenSession", "sv",
                                             ("plain", dbus.String("", variant_level=1)), timeout=HANG_GUARD)
        for i in range(self.count):
            value = f"lock-{i}-{self.run}"
            self.expected[str(i)] = value
            props = dbus.Dictionary({
                IFACE + "Item.Label": dbus.String(f"lock convergence {i}", variant_level=1),
                IFACE + "Item.Attributes": dbus.Dictionary({"puff-e2e-lock": self.run, "n": str(i)}, signature="ss",
                                                           variant_level=1),
            }, signature="sv")
            secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(value.encode()), "text/plain"),
                                 signature="oayays")
            writer.call_blocking(BUS, LOGIN, IFACE + "Collection", "CreateItem", "a{sv}(oayays)b",
                                 (props, secret, False), timeout=HANG_GUARD)
        writer.close()
        self.puffctl_run("lock", "login")

    def clients(self):
        self.bystander = Bystander()
        self.holder = Holder()
        items = self.holder.load()
        check(len(items) == self.count, f"H holds {len(items)} items, expected {self.count}")

    def change(self, verb):
        """The third client locks or unlocks login; waits until H has all its signals
        (or the hang guard), then makes N's connection catch up."""
        holder, bystander = need(self.holder, "clients"), need(self.bystander, "clients")
        holder.changes.clear()
        bystander.reset()
        if verb == "unlock":
            self.puffctl_run("unlock", "--stdin", "login", passcode=True)
        else:
            self.puffctl_run("lock", "login")
        # A hang guard, shorter than the case's: the cases after this one give the verdict.
        pump_until(lambda: len(holder.changes) >= self.count and bystander.collection_locked > 0, HANG_GUARD / 2)
        bystander.round_trip()

    def holder_converged(self, locked):
        holder = need(self.holder, "clients")
        stale = [item for item in holder.items if item.get_locked() != locked]
        check(not stale, f"{len(stale)} of {len(holder.items)} items H holds still report Locked={not locked}")
        if locked:
            return
        found = Secret.Service.search_sync(holder.service, None, {"puff-e2e-lock": self.run},
                                           Secret.SearchFlags.ALL | Secret.SearchFlags.LOAD_SECRETS, None)
        check(len(found) == self.count, f"the search found {len(found)} items, expected {self.count}")
        held = {item.get_object_path(): item for item in holder.items}
        reused = sum(1 for item in found if held.get(item.get_object_path()) is item)
        check(reused == self.count, f"the search reused {reused} of the {self.count} proxies H holds")
        wrong = 0
        for item in found:
            value = item.get_secret()
            if value is None or value.get_text() != self.expected.get(item.get_attributes().get("n")):
                wrong += 1
        check(wrong == 0, f"{wrong} of {len(found)} items gave H no secret or a wrong one")

    def bystander_quiet(self):
        bystander = need(self.bystander, "clients")
        check(bystander.collection_locked > 0, "N received no PropertiesChanged{Locked} on login: its match rule "
                                               "does not work, so the next checks would prove nothing")
        check(bystander.item_changes == 0, f"N, which read no item, received {bystander.item_changes} "
                                           "PropertiesChanged on item paths")
        check(bystander.item_changed == 0, f"N received {bystander.item_changed} ItemChanged")

    def holder_signals(self):
        holder = need(self.holder, "clients")
        held = {item.get_object_path() for item in holder.items}
        missing = len(held - set(holder.changes))
        extra = len(set(holder.changes) - held)
        repeated = sum(1 for n in holder.changes.values() if n > 1)
        check(missing == 0 and extra == 0 and repeated == 0,
              f"H: {missing} held items got no PropertiesChanged{{Locked}}, {extra} unheld ones did, "
              f"{repeated} got more than one")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--puffctl", required=True)
    parser.add_argument("--items", type=int, default=1000)
    options = parser.parse_args()
    r = Runner()
    d = Driver(r, options.puffctl, options.items)
    r.case(f"puffctl init, {options.items:,} items in login, login locked", d.prepare, timeout=HANG_GUARD * 3)
    r.case("H loads login's items while locked; N reads none", d.clients)
    for verb, locked in [("unlock", False), ("lock", True), ("unlock", False)]:
        r.case(f"a third client's {verb} of login", d.change, verb)
        what = "every held item reports locked" if locked else \
            "every held item reports unlocked and a LOAD_SECRETS search gives each secret"
        r.case(f"after the {verb}, H: {what}", d.holder_converged, locked)
        r.case(f"after the {verb}, N receives no item PropertiesChanged and no ItemChanged", d.bystander_quiet)
        r.case(f"after the {verb}, H receives one PropertiesChanged per held item", d.holder_signals)
    r.finish()


if __name__ == "__main__":
    main()
