#!/usr/bin/python3
"""items_convergence.py - a long-lived client keeps a collection's Items the
way libsecret does while another client writes a thousand items.

    /usr/bin/python3 items_convergence.py

The listener (its own connection, on a GLib main loop) behaves like
libsecret's SecretCollection proxy (secret-service.md section 7, "Cost at
large N"): it subscribes to PropertiesChanged on
/org/freedesktop/secrets/collection/login (arg0 org.freedesktop.Secret.Collection)
and to ItemCreated/ItemDeleted there, sender org.freedesktop.secrets, then reads
Items once, and from then on updates its cached Items ONLY from the Items
values that PropertiesChanged carries. The writer (a second connection on the
same main loop, so both run interleaved) creates 1,000 items through
/org/freedesktop/secrets/aliases/default, one after another, then deletes 10.

Cases:
  * the writer's 1,000 CreateItem and 10 Delete calls are all served;
  * "items converge (N signals)": after the last write (polling the main loop,
    no fixed sleep; HANG_GUARD ends a wait that never converges) the
    listener's cache is exactly the final set
    (the Items read at the start + 990); N = how many PropertiesChanged{Items}
    arrived in all (coalescing aims at fewer than 1,000; not asserted);
  * an ItemCreated arrived for each of the 1,000 items and an ItemDeleted for
    each of the 10, each once;
  * every ItemCreated arrived before the first PropertiesChanged{Items} that
    contains its item;
  * no PropertiesChanged invalidates Items (libsecret would then lose it).
The final set and the signal counts assume no other client writes to login
meanwhile: run it against a daemon of its own (the end-to-end test does).
Never prints secret or attribute values.
"""

import os
import sys
import time
import uuid

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus  # noqa: E402
import dbus.bus  # noqa: E402
from dbus.mainloop.glib import DBusGMainLoop  # noqa: E402
from gi.repository import GLib  # noqa: E402

from harness import HANG_GUARD, Failure, Runner, check, need  # noqa: E402

BUS = "org.freedesktop.secrets"
SS = "/org/freedesktop/secrets"
LOGIN = SS + "/collection/login"
DEFAULT = SS + "/aliases/default"
IFACE = "org.freedesktop.Secret."
COLLECTION = IFACE + "Collection"
PROPS = "org.freedesktop.DBus.Properties"
CREATES, DELETES = 1000, 10
SETTLE = HANG_GUARD  # seconds after the last write for the listener to converge: a hang guard
MAINLOOP = DBusGMainLoop()


def connect():
    return dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"], mainloop=MAINLOOP)


def pump_until(done, timeout):
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


class Listener:
    """A libsecret-like holder of login's Items."""

    def __init__(self):
        self.conn = connect()
        self.seq = 0                  # arrival order of every signal received
        self.created = {}             # item -> seq of its ItemCreated (first one)
        self.created_twice = 0
        self.deleted = {}             # item -> seq of its ItemDeleted
        self.first_listed = {}        # item -> seq of the first PropertiesChanged{Items} listing it
        self.items_signals = 0        # PropertiesChanged carrying Items
        self.invalidations = 0        # PropertiesChanged invalidating Items
        self.cache = None
        self.last_change = None       # monotonic time the cache last changed
        # subscribe first, then read (GDBusProxy does the same)
        self.conn.add_signal_receiver(self.on_properties_changed, signal_name="PropertiesChanged",
                                      dbus_interface=PROPS, bus_name=BUS, path=LOGIN, arg0=COLLECTION)
        self.conn.add_signal_receiver(self.on_created, signal_name="ItemCreated", dbus_interface=COLLECTION,
                                      bus_name=BUS, path=LOGIN)
        self.conn.add_signal_receiver(self.on_deleted, signal_name="ItemDeleted", dbus_interface=COLLECTION,
                                      bus_name=BUS, path=LOGIN)
        items = self.conn.call_blocking(BUS, LOGIN, PROPS, "Get", "ss", (COLLECTION, "Items"), timeout=HANG_GUARD)
        self.initial = {str(p) for p in items}
        self.cache = set(self.initial)

    def on_properties_changed(self, interface, changed, invalidated):
        self.seq += 1
        if "Items" in [str(name) for name in invalidated]:
            self.invalidations += 1
        if "Items" in changed:
            self.items_signals += 1
            listed = [str(p) for p in changed["Items"]]
            for path in listed:
                self.first_listed.setdefault(path, self.seq)
            self.cache = set(listed)
            self.last_change = time.monotonic()

    def on_created(self, item):
        self.seq += 1
        if str(item) in self.created:
            self.created_twice += 1
        self.created.setdefault(str(item), self.seq)

    def on_deleted(self, item):
        self.seq += 1
        self.deleted.setdefault(str(item), self.seq)


class Writer:
    """Creates CREATES items one after another, then deletes DELETES of them,
    each call sent from the main loop when the previous one is answered."""

    def __init__(self, run):
        self.conn = connect()
        self.run = run
        _out, self.session = self.conn.call_blocking(BUS, SS, IFACE + "Service", "OpenSession", "sv",
                                                     ("plain", dbus.String("", variant_level=1)), timeout=HANG_GUARD)
        self.items = []
        self.doomed = []
        self.errors = {}
        self.done = False
        self.finished_at = None

    def start(self):
        self.create(0)

    def fail(self, exc):
        name = exc.get_dbus_name() if isinstance(exc, dbus.DBusException) else type(exc).__name__
        self.errors[name] = self.errors.get(name, 0) + 1
        self.done = True
        self.finished_at = time.monotonic()

    def create(self, i):
        if i == CREATES:
            # every 100th item, from the first to the last hundred
            self.doomed = self.items[50::CREATES // DELETES][:DELETES]
            return self.delete(0)
        props = dbus.Dictionary({
            IFACE + "Item.Label": dbus.String(f"convergence {i}", variant_level=1),
            IFACE + "Item.Attributes": dbus.Dictionary({"puff-e2e-conv": self.run, "n": str(i)}, signature="ss",
                                                       variant_level=1),
        }, signature="sv")
        secret = dbus.Struct((self.session, dbus.ByteArray(b""), dbus.ByteArray(b"c"), "text/plain"),
                             signature="oayays")

        def on_reply(item, prompt):
            self.items.append(str(item))
            self.create(i + 1)
        self.conn.call_async(BUS, DEFAULT, COLLECTION, "CreateItem", "a{sv}(oayays)b", (props, secret, False),
                             on_reply, self.fail, timeout=HANG_GUARD)

    def delete(self, k):
        if k == len(self.doomed):
            self.done = True
            self.finished_at = time.monotonic()
            return
        self.conn.call_async(BUS, self.doomed[k], IFACE + "Item", "Delete", "", (),
                             lambda prompt: self.delete(k + 1), self.fail, timeout=HANG_GUARD)

    def cleanup(self):
        """Delete what is left, at most 64 calls in flight (puffd refuses calls
        beyond 256 waiting per connection); not part of the verdict."""
        left = [p for p in self.items if p not in self.doomed]
        state = {"sent": 0, "done": 0}

        def refill(*_args):
            if _args:
                state["done"] += 1
            while state["sent"] < len(left) and state["sent"] - state["done"] < 64:
                path = left[state["sent"]]
                state["sent"] += 1
                self.conn.call_async(BUS, path, IFACE + "Item", "Delete", "", (), refill, refill, timeout=HANG_GUARD)
        refill()
        pump_until(lambda: state["done"] == len(left), HANG_GUARD)
        self.conn.close()


class Driver:
    def __init__(self, runner):
        self.r = runner
        self.run = uuid.uuid4().hex
        self.listener = None
        self.writer = None
        self.wrote = None         # True once every write was served
        self.converged = False

    def subscribe(self):
        self.listener = Listener()

    def write(self):
        listener = need(self.listener, "listener")
        self.writer = Writer(self.run)
        self.writer.start()
        check(pump_until(lambda: self.writer.done, HANG_GUARD), f"the writer did not finish within {HANG_GUARD:g} s")
        errors = ", ".join(f"{n}x {k}" for k, n in sorted(self.writer.errors.items()))
        check(not self.writer.errors, f"the writer's calls failed: {errors} after {len(self.writer.items)} items")
        check(len(self.writer.items) == CREATES and len(set(self.writer.items)) == CREATES,
              f"{len(set(self.writer.items))} distinct item paths from {CREATES} CreateItem")
        check(not set(self.writer.items) & listener.initial, "a new item reused a path already in Items")
        self.wrote = True

    def expected(self):
        return self.listener.initial | (set(self.writer.items) - set(self.writer.doomed))

    def settle(self):
        """Pump the listener's loop until its cache is the final set or SETTLE
        seconds after the last write. Not a case, so that the next case's name
        can carry the signal count; never raises."""
        try:
            if self.wrote:
                expected = self.expected()
                self.converged = pump_until(lambda: self.listener.cache == expected,
                                            max(0.0, self.writer.finished_at + SETTLE - time.monotonic()))
        except Exception:  # noqa: BLE001 - reported by the convergence case
            self.converged = False
        return self.listener.items_signals if self.listener else 0

    def convergence(self):
        need(self.wrote, "the writes")
        listener = self.listener
        expected = self.expected()
        if not self.converged:
            cache = listener.cache
            raise Failure(f"{SETTLE:g} s after the last write the cached Items has {len(cache)} paths, expected "
                          f"{len(expected)} ({len(expected - cache)} missing, {len(cache - expected)} extra); "
                          f"{listener.items_signals} PropertiesChanged{{Items}} arrived")
        check(listener.cache == expected, "cache differs from the final set")

    def item_signals(self):
        need(self.wrote, "the writes")
        listener, writer = self.listener, self.writer
        missing = [p for p in writer.items if p not in listener.created]
        check(not missing, f"no ItemCreated for {len(missing)} of {CREATES} items")
        check(listener.created_twice == 0, f"{listener.created_twice} ItemCreated arrived twice")
        stray = set(listener.created) - set(writer.items)
        check(not stray, f"{len(stray)} ItemCreated for items the writer did not create")
        gone = [p for p in writer.doomed if p not in listener.deleted]
        check(not gone, f"no ItemDeleted for {len(gone)} of {DELETES} deleted items")
        check(set(listener.deleted) == set(writer.doomed),
              f"{len(set(listener.deleted) - set(writer.doomed))} ItemDeleted for items not deleted")

    def order(self):
        need(self.wrote, "the writes")
        listener, writer = self.listener, self.writer
        late = [p for p in writer.items if p in listener.first_listed
                and listener.first_listed[p] < listener.created.get(p, float("inf"))]
        check(not late, f"{len(late)} items were listed by a PropertiesChanged{{Items}} before their ItemCreated")

    def no_invalidation(self):
        need(self.wrote, "the writes")
        listener = self.listener
        check(listener.invalidations == 0, f"{listener.invalidations} PropertiesChanged invalidated Items")

    def finish(self):
        if self.listener:
            self.listener.conn.close()
        if self.writer:
            self.writer.cleanup()


def main():
    r = Runner()
    d = Driver(r)
    r.case("listener subscribes to login's signals and reads Items once", d.subscribe)
    r.case(f"a second client creates {CREATES:,} items through alias default and deletes {DELETES}", d.write)
    signals = d.settle()
    r.case(f"items converge ({signals} signals)", d.convergence)
    r.case("one ItemCreated per created item, one ItemDeleted per deleted item", d.item_signals)
    r.case("every ItemCreated arrived before the first PropertiesChanged{Items} listing its item", d.order)
    r.case("no PropertiesChanged invalidates Items", d.no_invalidation)
    d.finish()
    r.finish()


if __name__ == "__main__":
    main()
