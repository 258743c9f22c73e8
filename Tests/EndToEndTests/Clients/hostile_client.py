#!/usr/bin/python3
"""hostile_client.py - a hostile client against puffd on a real bus: huge
messages, thousands of sessions and prompts, a flood of calls. Each case
expects one outcome, decided from puffd's limits (bad_input.py lists them):
the call is refused with org.freedesktop.DBus.Error.LimitsExceeded whose
message names the limit, or it is served correctly.

    /usr/bin/python3 hostile_client.py [--pid N] [--only a,c,g1]

Cases, all from one hostile connection unless said otherwise:
  a   a 100,000-element 'aay' as the input variant of a plain OpenSession is
      within both decode limits and plain takes any input: served, and the
      session works; the same input for the DH algorithm -> InvalidArgs; the
      same 'aay' as SearchItems' argument (wrong signature) -> InvalidArgs; a
      300,000-element 'aay' -> LimitsExceeded (262,144 decoded values).
  b   Service and Collection SearchItems with 100,000 attributes ->
      LimitsExceeded (256 attributes per search: the 200,000 strings are
      within the 262,144-value decode limit, as dict entries are not counted
      as values); with 1,000 attributes -> the same.
  e   CreateItem with an 8 MiB label, and Set of an 8 MiB Label ->
      LimitsExceeded (4 MiB decode limit); nothing stored or changed; a
      SearchItems carrying 4,000,000 bytes of strings (under 4 MiB) is served.
  f   CreateItem with a 2 MiB and a 1 MiB + 1 byte secret (plain) and
      SetSecret of 2 MiB -> LimitsExceeded (1 MiB secret); exactly 1 MiB over
      plain and over DH is stored and a fresh client reads it back byte-exact.
  c   10,000 plain OpenSession calls: all served, and the client keeps its 64
      most recent (a client at its 64 sessions loses its least recently used
      one: python-secretstorage opens a session per Item and never closes
      them); the 9,936 oldest answer NoSuchObject, the newest 64 carry a
      secret, and one more OpenSession closes the least recently used.
  d   10,000 Unlock calls on a locked collection, prompts never started: 64
      prompts, then LimitsExceeded (64 prompts); dismissing one lets exactly
      one more be made.
  g1  the hostile client disconnects: every session and prompt path it got
      answers NoSuchObject (within 10 s).
  g2  a new client can open 64 sessions and make 64 prompts again; its 65th
      session closes its first, its 65th prompt is refused (64 prompts).
  h   64 connections x 64 sessions = 4,096; the next one is refused (4,096
      sessions, service-wide); closing one lets exactly one more open.
  i   64 connections x 64 prompts = 4,096; the next one is refused (4,096
      prompts, service-wide); dismissing one lets exactly one more be made.
  j   with 500 items stored, 3,000 SearchItems finding all 500 sent at once
      on one connection: every one is answered with the 500 items (3,000 is
      under the 16,384 calls a connection may have waiting; libsecret sends
      bursts like it when it loads a large collection).
After every case, "<case> / still serving": puffd's PID (GetConnectionUnixProcessID
of org.freedesktop.secrets) is the one seen at the start (and the --pid given),
and a fresh connection reads the item stored at the start byte-exact through
GetSecret on a plain session.

Cases h and i count every session and prompt of the daemon: run this driver
against a daemon no other client uses (the end-to-end test starts its own).
Messages are built with python-dbus (libdbus marshals a 100,000-entry a{ss}
in 0.18 s, jeepney in 0.29 s); calls that are pipelined go through
call_async on a GLib main loop. --only runs a subset (for development).
Never prints secret or attribute values (nor daemon error messages).
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
import bad_input as bi  # noqa: E402  (shared D-Bus helpers, DH, puffd's limits)
from bad_input import (  # noqa: E402
    ALL_PROMPTS, ALL_SESSIONS, ATTRIBUTES, BUS, DECODED_BYTES, DECODED_VALUES, DEFAULT, DH_ALGO, E, IFACE,
    LIMITS, P, PROMPTS, PROPS, QUEUED_CALLS, SE, SECRET_BYTES, SS, call, expect_error,
    expect_limit, props, search,
)

SERVICE = IFACE + "Service"
COLLECTION = IFACE + "Collection"
ITEM = IFACE + "Item"
SESSION = IFACE + "Session"
PROMPT = IFACE + "Prompt"
NO_SUCH_OBJECT = SE + "NoSuchObject"
MIB = 1 << 20
MAINLOOP = DBusGMainLoop()
# One client public key for every DH session: g^x mod p (the service does not care).
DH_PUBLIC = dbus.ByteArray(pow(2, int.from_bytes(os.urandom(128), "big") % (P - 3) + 2, P).to_bytes(128, "big"),
                           variant_level=1)
OPEN_DH = (SS, SERVICE, "OpenSession", "sv", (DH_ALGO, DH_PUBLIC))
OPEN_PLAIN = (SS, SERVICE, "OpenSession", "sv", ("plain", dbus.String("", variant_level=1)))


def connect():
    """A private connection on the GLib main loop (call_async needs one)."""
    return bi.connect(mainloop=MAINLOOP)


def request(conn, req, timeout=HANG_GUARD):
    path, iface, method, sig, args = req
    return call(conn, path, iface, method, sig, *args, timeout=timeout)


def daemon_pid(conn):
    try:
        return int(conn.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetConnectionUnixProcessID", "s", (BUS,), timeout=HANG_GUARD))
    except dbus.DBusException as exc:
        raise Failure(f"no PID for {BUS} ({exc.get_dbus_name()}): puffd is gone")


def pump(done, timeout, what):
    """Run the GLib main loop until done() or `timeout` seconds."""
    ctx = GLib.MainContext.default()
    tick = GLib.timeout_add(50, lambda: True)  # wake up to check the deadline
    deadline = time.monotonic() + timeout
    try:
        while not done():
            check(time.monotonic() < deadline, f"{what}: not finished within {timeout:g} s")
            ctx.iteration(True)
    finally:
        GLib.source_remove(tick)


def pipeline(conn, requests, window=128, timeout=HANG_GUARD, what="pipelined calls"):
    """Send `requests` (path, iface, method, sig, args) keeping at most `window`
    unanswered; return, in order, each reply tuple or DBusException."""
    results = [None] * len(requests)
    state = {"sent": 0, "done": 0}

    def send(i):
        path, iface, method, sig, args = requests[i]

        def on_reply(*reply):
            results[i] = reply
            state["done"] += 1
            refill()

        def on_error(exc):
            results[i] = exc
            state["done"] += 1
            refill()
        conn.call_async(BUS, path, iface, method, sig, args, on_reply, on_error, timeout=timeout, byte_arrays=True)

    def refill():
        while state["sent"] < len(requests) and state["sent"] - state["done"] < window:
            state["sent"] += 1
            send(state["sent"] - 1)

    refill()
    pump(lambda: state["done"] == len(requests), timeout, what)
    return results


def is_error(result):
    return isinstance(result, dbus.DBusException)


def tally_refusals(results, limits, what):
    """Problems (value-free) with `results` that must all be LimitsExceeded naming one of `limits`."""
    limits = limits if isinstance(limits, tuple) else (limits,)
    wanted = " or ".join(str(lim) for lim in limits)
    served = sum(1 for r in results if not is_error(r))
    others, unnamed = {}, 0
    for r in results:
        if not is_error(r):
            continue
        name = r.get_dbus_name()
        if name != LIMITS:
            others[name] = others.get(name, 0) + 1
        elif not any(lim.named_by(r.get_dbus_message()) for lim in limits):
            unnamed += 1
    problems = []
    if served:
        problems.append(f"{served} of {len(results)} {what} served, expected LimitsExceeded ({wanted})")
    if others:
        problems.append(f"{what} answered " + ", ".join(f"{n}x {k}" for k, n in sorted(others.items())))
    if unnamed:
        problems.append(f"{unnamed} LimitsExceeded messages for {what} do not name the {wanted} limit")
    return problems


class Problems:
    """Collects value-free failures of the steps of one case, so that every
    step still runs (the hostile load is sent even after a first deviation)."""

    def __init__(self):
        self.items = []

    def step(self, label, fn, /, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Failure as exc:
            self.items.append(str(exc))
        except dbus.DBusException as exc:
            self.items.append(f"{label}: {exc.get_dbus_name()}")
        return None

    def add(self, problems):
        self.items.extend(problems)

    def verdict(self):
        check(not self.items, "; ".join(self.items))


def wait_all_gone(conn, paths, what, timeout=HANG_GUARD):
    """Poll Properties.GetAll on every (path, interface) until each answers
    NoSuchObject; any other error, or anything left at `timeout`, fails."""
    deadline = time.monotonic() + timeout
    remaining = list(paths)
    while remaining:
        results = pipeline(conn, [(p, PROPS, "GetAll", "s", (IFACE + iface,)) for p, iface in remaining],
                           what=f"GetAll on {what}")
        wrong = {}
        still = []
        for target, r in zip(remaining, results):
            if not is_error(r):
                still.append(target)
            elif r.get_dbus_name() != NO_SUCH_OBJECT:
                wrong[r.get_dbus_name()] = wrong.get(r.get_dbus_name(), 0) + 1
        check(not wrong, f"{what}: GetAll answered " + ", ".join(f"{n}x {k}" for k, n in sorted(wrong.items()))
              + f", expected {NO_SUCH_OBJECT}")
        remaining = still
        if remaining:
            check(time.monotonic() < deadline,
                  f"{len(remaining)} of {len(paths)} {what} still exist {timeout:g} s later")
            time.sleep(0.05)


class Driver:
    def __init__(self, runner, expected_pid):
        self.r = runner
        self.expected_pid = expected_pid
        self.run = uuid.uuid4().hex
        self.ref_attrs = {"puff-e2e-hostile": self.run, "role": "reference"}
        self.ref_label = "Puff hostile-client reference"
        self.ref_secret = b"\x00\xffref\x80" + os.urandom(59)
        self.ref_path = None
        self.pid = None
        self.coll = None            # a collection this driver created and locked (for prompts)
        self.hostile = None         # the hostile client's connection
        self.hostile_sessions = []  # session paths it was given
        self.hostile_prompts = []   # prompt paths it was given

    def case(self, name, fn, timeout=None):
        self.r.case(name, fn, timeout=timeout)
        self.r.case(f"{name} / still serving", self.intact)

    # -- still serving: same PID, a second client reads the reference item
    def intact(self):
        conn = bi.connect()
        try:
            pid = daemon_pid(conn)
            check(pid == need(self.pid, "store reference item"),
                  f"puffd's PID changed from {self.pid} to {pid} (it restarted)")
            _out, session = call(conn, SS, SERVICE, "OpenSession", "sv", "plain", dbus.String("", variant_level=1))
            secret = call(conn, self.ref_path, ITEM, "GetSecret", "o", session)
            check(str(secret[0]) == str(session) and len(secret[1]) == 0, "GetSecret's Secret is not a plain one")
            check(bytes(secret[2]) == self.ref_secret,
                  f"reference secret differs (length {len(secret[2])}, expected {len(self.ref_secret)})")
            call(conn, session, SESSION, "Close")  # so it does not count against the session limits
        finally:
            conn.close()

    # -- setup
    def setup(self):
        conn = bi.connect()
        self.pid = daemon_pid(conn)
        if self.expected_pid is not None:
            check(self.pid == self.expected_pid,
                  f"{BUS} is owned by PID {self.pid}, not by the daemon under test ({self.expected_pid})")
        s = bi.Session(conn)
        self.ref_path = bi.create_item(conn, DEFAULT, self.ref_label, self.ref_attrs, s.encode(self.ref_secret))
        s.close()
        label = dbus.String(f"Puff hostile {self.run[:8]}", variant_level=1)
        path, prompt = call(conn, SS, SERVICE, "CreateCollection", "a{sv}s",
                            dbus.Dictionary({COLLECTION + ".Label": label}, signature="sv"), "")
        check(str(prompt) == "/" and str(path) != "/", "CreateCollection prompted")
        self.coll = str(path)
        locked, _prompt = call(conn, SS, SERVICE, "Lock", "ao", [self.coll])
        check([str(p) for p in locked] == [self.coll], "Lock did not echo the collection")
        conn.close()
        self.hostile = connect()
        self.intact()

    def unlock_request(self):
        return (SS, SERVICE, "Unlock", "ao", (dbus.Array([need(self.coll, "store reference item")], signature="o"),))

    def new_prompt(self, conn):
        unlocked, prompt = request(conn, self.unlock_request())
        check(len(unlocked) == 0 and str(prompt) != "/", "Unlock of the locked collection gave no prompt")
        return str(prompt)

    # -- a: 100,000-element aay
    def big_aay(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        elements = [dbus.ByteArray(b"\x01")] * 100000
        as_input = dbus.Array(elements, signature="ay", variant_level=1)

        def plain_with_aay():
            _out, session = call(h, SS, SERVICE, "OpenSession", "sv", "plain", as_input, timeout=HANG_GUARD)
            try:
                secret = call(h, self.ref_path, ITEM, "GetSecret", "o", session)
                check(bytes(secret[2]) == self.ref_secret, "the session opened with an aay input reads wrong bytes")
            finally:
                call(h, session, SESSION, "Close")
        ps.step("plain OpenSession with a 100,000-element aay input (expected a session)", plain_with_aay)
        ps.step("DH OpenSession with a 100,000-element aay input", expect_error, E + "InvalidArgs", call, h, SS,
                SERVICE, "OpenSession", "sv", DH_ALGO, as_input, timeout=HANG_GUARD,
                what="DH OpenSession with a 100,000-element aay input")
        ps.step("SearchItems(aay)", expect_error, E + "InvalidArgs", call, h, SS, SERVICE, "SearchItems", "aay",
                dbus.Array(elements, signature="ay"), timeout=HANG_GUARD, what="SearchItems with a 100,000-element aay")
        ps.step("300,000-element aay", expect_limit, DECODED_VALUES, call, h, SS, SERVICE, "OpenSession", "sv",
                "plain", dbus.Array(elements * 3, signature="ay", variant_level=1), timeout=HANG_GUARD,
                what="plain OpenSession with a 300,000-element aay input")
        ps.verdict()

    # -- b: 100,000 attributes in a search
    def big_search(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        huge = {f"a{i:06d}": "" for i in range(100000)}
        ps.step("Service.SearchItems", expect_limit, ATTRIBUTES, call, h, SS, SERVICE, "SearchItems", "a{ss}", huge,
                timeout=HANG_GUARD, what="Service.SearchItems with 100,000 attributes")
        ps.step("Collection.SearchItems", expect_limit, ATTRIBUTES, call, h, DEFAULT, COLLECTION, "SearchItems",
                "a{ss}", huge, timeout=HANG_GUARD, what="Collection.SearchItems with 100,000 attributes")
        ps.step("1,000 attributes", expect_limit, ATTRIBUTES, call, h, SS, SERVICE, "SearchItems", "a{ss}",
                {f"a{i:04d}": "" for i in range(1000)}, what="Service.SearchItems with 1,000 attributes")
        ps.verdict()

    # -- e: 8 MiB label
    def big_label(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        s = bi.Session(h)
        try:
            label = "L" * (8 * MIB)
            attrs = {"puff-e2e-hostile": self.run, "role": "8-mib-label"}
            ps.step("CreateItem", expect_limit, DECODED_BYTES, call, h, DEFAULT, COLLECTION, "CreateItem",
                    "a{sv}(oayays)b", props(label, attrs), s.encode(b"x"), False, timeout=HANG_GUARD,
                    what="CreateItem with an 8 MiB label")
            ps.step("Set Label", expect_limit, DECODED_BYTES, bi.set_prop, h, self.ref_path, "Item", "Label",
                    dbus.String(label, variant_level=1), what="Set of an 8 MiB Label")
            under = {f"k{i}": "v" * 20000 for i in range(200)}  # 4,000,000 bytes of values, 4,000,590 in all

            def served_under():
                unlocked, locked = call(h, SS, SERVICE, "SearchItems", "a{ss}", under, timeout=HANG_GUARD)
                check(len(unlocked) == 0 and len(locked) == 0, "a search for 200 random attributes found items")
            ps.step("SearchItems with 4,000,590 bytes of strings (expected a reply)", served_under)
            other = bi.connect()
            try:
                ps.step("search", lambda: check(search(other, attrs) == ([], []),
                                                "the refused CreateItem stored an item"))
                ps.step("Get Label", lambda: check(str(bi.get_prop(other, self.ref_path, "Item", "Label"))
                                                   == self.ref_label, "the refused Set changed the label"))
            finally:
                other.close()
        finally:
            s.close()
        ps.verdict()

    # -- f: 2 MiB and 1 MiB secrets
    def big_secrets(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        plain, dh = bi.Session(h), bi.Session(h, DH_ALGO)
        made = []
        try:
            for size, label in ((2 * MIB, "2 MiB"), (MIB + 1, "1 MiB + 1 byte")):
                attrs = {"puff-e2e-hostile": self.run, "role": f"secret-{size}"}
                ps.step(label, expect_limit, SECRET_BYTES, call, h, DEFAULT, COLLECTION, "CreateItem",
                        "a{sv}(oayays)b", props(label, attrs), plain.encode(os.urandom(size)), False, timeout=HANG_GUARD,
                        what=f"CreateItem with a {label} secret")
                ps.step(f"{label} absent", lambda a=attrs: check(search(h, a) == ([], []),
                                                                 "a refused CreateItem stored an item"))
            one = {}
            for name, session in (("plain", plain), ("DH", dh)):
                one[name] = os.urandom(MIB)
                item = ps.step(f"1 MiB over {name}", bi.create_item, h, DEFAULT, f"1 MiB over {name}",
                               {"puff-e2e-hostile": self.run, "role": f"1-mib-{name}"}, session.encode(one[name]))
                if item is not None:
                    made.append(item)
                    ps.step(f"read back 1 MiB over {name}", self.read_back, item, name, one[name])
            if made:
                ps.step("SetSecret 2 MiB", expect_limit, SECRET_BYTES, call, h, made[0], ITEM, "SetSecret",
                        "(oayays)", plain.encode(os.urandom(2 * MIB)), timeout=HANG_GUARD, what="SetSecret of 2 MiB")
                ps.step("read back after SetSecret", self.read_back, made[0], "plain", one["plain"])
        finally:
            for item in made:
                bi.delete_item(h, item)
            plain.close()
            dh.close()
        ps.verdict()

    def read_back(self, item, algorithm, expected):
        """A fresh client reads `item` byte-exact over a new `algorithm` session."""
        conn = bi.connect()
        try:
            s = bi.Session(conn, "plain" if algorithm == "plain" else DH_ALGO)
            got = s.get_secret(item)
            check(got == expected, f"a fresh client read {len(got)} bytes over {algorithm}, not the 1 MiB stored")
            s.close()
        finally:
            conn.close()

    # -- c: 10,000 sessions
    def many_sessions(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        # Plain sessions: now that none is refused, 10,000 DH agreements would only measure modexp.
        results = pipeline(h, [OPEN_PLAIN] * 10000, window=128, what="10,000 OpenSession")
        opened = [str(r[1]) for r in results if not is_error(r)]
        refused = sorted({r.get_dbus_name() for r in results if is_error(r)})
        if refused:
            ps.add([f"{10000 - len(opened)} of 10,000 OpenSession refused ({', '.join(refused)})"])
        check(len(opened) > 64, "; ".join(ps.items) or "no session opened")
        newest = opened[-64:]
        self.hostile_sessions.extend(newest)
        ps.step("the oldest sessions", wait_all_gone, h, [(p, "Session") for p in opened[:-64]],
                f"the {len(opened) - 64} sessions older than the newest 64")
        used = pipeline(h, [(self.ref_path, ITEM, "GetSecret", "o", (p,)) for p in newest], window=64,
                        what="GetSecret through each of the newest 64")
        failed = sorted({r.get_dbus_name() for r in used if is_error(r)})
        if failed:
            ps.add([f"GetSecret through the newest 64 sessions answered {', '.join(failed)}"])
        again = ps.step("OpenSession after that (expected a session)", request, h, OPEN_DH)
        if again is not None:
            self.hostile_sessions.append(str(again[1]))
        # newest[0] carried a secret first of the 64, so it is now the least recently used.
        ps.step("the least recently used session", wait_all_gone, h, [(newest[0], "Session")],
                "the least recently used session")
        ps.verdict()

    # -- d: 10,000 prompts never started
    def many_prompts(self):
        h = need(self.hostile, "store reference item")
        ps = Problems()
        prompts = self.hostile_prompts
        for i in range(64):
            prompt = ps.step(f"Unlock {i + 1} of the first 64", self.new_prompt, h)
            if prompt is None:
                break
            prompts.append(prompt)
        check(len(prompts) == 64, "; ".join(ps.items))
        results = pipeline(h, [self.unlock_request()] * (10000 - 64), window=128, what="Unlock 65-10,000")
        prompts.extend(str(r[1]) for r in results if not is_error(r) and str(r[1]) != "/")
        ps.add(tally_refusals(results, PROMPTS, "Unlock calls 65-10,000"))
        ps.step("Dismiss", self.dismiss_and_wait, h, prompts[0])
        again = ps.step("Unlock after a Dismiss (expected a prompt)", self.new_prompt, h)
        if again is not None:
            prompts.append(again)
        ps.step("Unlock after that", expect_limit, PROMPTS, self.new_prompt, h,
                what="a second Unlock after one Dismiss")
        ps.verdict()

    def dismiss_and_wait(self, conn, prompt):
        """Dismiss `prompt` and wait for its Completed signal."""
        got = []
        match = conn.add_signal_receiver(lambda *args: got.append(args), signal_name="Completed",
                                         dbus_interface=PROMPT, path=prompt)
        try:
            request(conn, (prompt, PROMPT, "Dismiss", "", ()))
            pump(lambda: got, 5, "Completed after Dismiss")
            check(bool(got[0][0]), "Completed after Dismiss is not dismissed=true")
        finally:
            match.remove()

    # -- g: the hostile client leaves
    def hostile_leaves(self):
        h = need(self.hostile, "store reference item")
        self.hostile = None
        h.close()
        paths = [(p, "Session") for p in self.hostile_sessions] + [(p, "Prompt") for p in self.hostile_prompts]
        check(paths, "the hostile client got no session or prompt to check")
        conn = connect()
        try:
            wait_all_gone(conn, paths, "session and prompt objects of the departed hostile client")
        finally:
            conn.close()

    def fresh_client_limits(self):
        conn = connect()
        ps = Problems()
        mine = []
        try:
            results = pipeline(conn, [OPEN_PLAIN] * 64, window=64, what="64 OpenSession")
            mine += [(str(r[1]), "Session") for r in results if not is_error(r)]
            bad = [r.get_dbus_name() for r in results if is_error(r)]
            if bad:
                ps.add([f"{len(bad)} of a new client's 64 OpenSession refused ({bad[0]})"])
            if len(mine) == 64:
                extra = ps.step("65th OpenSession (expected a session)", request, conn, OPEN_PLAIN)
                if extra is not None:
                    mine.append((str(extra[1]), "Session"))
                ps.step("the first session", wait_all_gone, conn, [mine[0]], "a new client's first session")
            results = pipeline(conn, [self.unlock_request()] * 64, window=64, what="64 Unlock")
            mine += [(str(r[1]), "Prompt") for r in results if not is_error(r) and str(r[1]) != "/"]
            bad = [r.get_dbus_name() for r in results if is_error(r)]
            if bad:
                ps.add([f"{len(bad)} of a new client's 64 Unlock refused ({bad[0]})"])
            ps.step("65th Unlock", expect_limit, PROMPTS, self.new_prompt, conn, what="a new client's 65th Unlock")
        finally:
            conn.close()
        self.let_go(mine, "the new client's sessions and prompts")
        ps.verdict()

    def let_go(self, paths, what):
        """Wait until the objects of closed connections are gone, so the next
        case starts from zero sessions and prompts."""
        if paths:
            conn = connect()
            try:
                wait_all_gone(conn, paths, what)
            finally:
                conn.close()

    # -- h / i: service-wide limits
    def service_wide(self, kind):
        sessions = kind == "sessions"
        req = OPEN_PLAIN if sessions else self.unlock_request()
        limit = ALL_SESSIONS if sessions else ALL_PROMPTS
        iface = "Session" if sessions else "Prompt"
        ps = Problems()
        conns, firsts, made = [], [], []
        try:
            for k in range(64):
                conn = connect()
                conns.append(conn)
                results = pipeline(conn, [req] * 64, window=64, what=f"connection {k + 1}'s 64 calls")
                paths = [str(r[1]) for r in results if not is_error(r)]
                made += [(p, iface) for p in paths]
                if len(paths) < 64:
                    names = sorted({r.get_dbus_name() for r in results if is_error(r)})
                    ps.add([f"connection {k + 1} was refused {64 - len(paths)} of 64 {kind} ({', '.join(names)})"])
                    break
                firsts.append(paths[0])
            extra = connect()
            conns.append(extra)
            ps.step("4,097th", expect_limit, limit, request, extra, req,
                    what=f"{kind} number 4,097 (a 65th connection's first)")
            if firsts:
                if sessions:
                    ps.step("Close", request, conns[0], (firsts[0], SESSION, "Close", "", ()))
                else:
                    ps.step("Dismiss", self.dismiss_and_wait, conns[0], firsts[0])
                again = ps.step(f"one more after freeing one (expected one of the {kind})", request, extra, req)
                if again is not None:
                    made.append((str(again[1]), iface))
                ps.step("and another", expect_limit, limit, request, extra, req,
                        what=f"a second one of the {kind} after freeing one")
        finally:
            for conn in conns:
                conn.close()
        self.let_go(made, f"the {kind} of the 65 closed connections")
        ps.verdict()

    # -- j: a flood of calls on one connection
    def run_flood(self):
        """Store 500 items, send 3,000 SearchItems that each find all 500 at
        once on one connection, delete the items. Outside a case so that the
        case name can carry the number refused; never raises."""
        self.flood_results, self.flood_error, self.flood_items = None, None, []
        conn = connect()
        try:
            s = bi.Session(conn)
            attrs = {"puff-e2e-hostile": self.run, "role": "flood"}
            made = pipeline(conn, [(DEFAULT, COLLECTION, "CreateItem", "a{sv}(oayays)b",
                                    (props("flood", dict(attrs, n=str(i))), s.encode(b"f"), False))
                                   for i in range(500)], what="500 CreateItem")
            self.flood_items = sorted(str(r[0]) for r in made if not is_error(r))
            check(len(self.flood_items) == 500, f"{500 - len(self.flood_items)} of 500 CreateItem refused")
            query = (SS, SERVICE, "SearchItems", "a{ss}", (attrs,))
            self.flood_results = pipeline(conn, [query] * 3000, window=3000, what="3,000 SearchItems")
            pipeline(conn, [(p, ITEM, "Delete", "", ()) for p in self.flood_items], what="500 Delete")
            s.close()
        except (Failure, dbus.DBusException) as exc:
            self.flood_error = str(exc) if isinstance(exc, Failure) else exc.get_dbus_name()
        finally:
            conn.close()
        return sum(1 for r in self.flood_results or [] if is_error(r))

    def flood(self):
        check(self.flood_error is None, f"flood: {self.flood_error}")
        results = need(self.flood_results, "flood")

        def correct(r):
            return not is_error(r) and sorted(str(p) for p in r[0]) == self.flood_items and len(r[1]) == 0
        # 3,000 is well under the per-connection queue limit (16,384): a burst of that size is
        # what libsecret sends when it loads a large collection's item proxies, so all are served.
        wrong = [i for i in range(len(results)) if not correct(results[i])]
        check(len(results) == 3000, f"{len(results)} of 3,000 SearchItems answered")
        check(not wrong, f"{len(wrong)} of 3,000 SearchItems were not answered with the 500 items")

    def finish(self):
        if self.hostile is not None:
            self.hostile.close()
        conn = bi.connect()
        for path in [self.ref_path, self.coll]:
            if path:
                try:
                    call(conn, path, ITEM if path == self.ref_path else COLLECTION, "Delete")
                except dbus.DBusException:
                    pass
        conn.close()


def main():
    args = sys.argv[1:]
    pid = int(args[args.index("--pid") + 1]) if "--pid" in args else None
    only = set(args[args.index("--only") + 1].split(",")) if "--only" in args else None
    r = Runner()
    d = Driver(r, pid)
    cases = [
        ("a", "100,000-element aay: plain OpenSession input served, DH input / SearchItems(aay) -> InvalidArgs; "
              "300,000 elements -> LimitsExceeded", d.big_aay),
        ("b", "SearchItems with 100,000 or 1,000 attributes -> LimitsExceeded", d.big_search),
        ("e", "8 MiB label (CreateItem, Set) -> LimitsExceeded; 4,000,590 bytes of strings served", d.big_label),
        ("f", "2 MiB and 1 MiB + 1 secrets -> LimitsExceeded; exactly 1 MiB (plain, DH) served and read back",
         d.big_secrets),
        ("c", "10,000 sessions from one client: all served, the 64 most recent kept; one more (DH) evicts the oldest",
         d.many_sessions),
        ("d", "10,000 Unlock prompts never started: 64 made, the rest LimitsExceeded; Dismiss frees one",
         d.many_prompts),
        ("g1", "hostile client disconnects: its sessions and prompts answer NoSuchObject", d.hostile_leaves),
        ("g2", "a new client opens 64 sessions and makes 64 prompts again; the 65th session closes the first, "
               "the 65th prompt LimitsExceeded",
         d.fresh_client_limits),
        ("h", "4,096 sessions service-wide, the next LimitsExceeded; Close frees one",
         lambda: d.service_wide("sessions")),
        ("i", "4,096 prompts service-wide, the next LimitsExceeded; Dismiss frees one",
         lambda: d.service_wide("prompts")),
    ]
    r.case("store reference item, create and lock a collection", d.setup)
    for key, name, fn in cases:
        if only is None or key in only:
            d.case(f"{key}: {name}", fn)
    if only is None or "j" in only:
        refused = d.run_flood()
        d.case(f"j: 3,000 SearchItems at once: all served ({refused} refused)", d.flood)
    d.finish()
    r.finish()


if __name__ == "__main__":
    main()
