#!/usr/bin/python3
"""portal_agent.py - an io.puff.Agent1 that holds the first question puffd asks and reports
when puffd withdraws it (the closed pipe of dbus/io.puff.Agent1.xml), for PortalFlowTests (f):
the app's Request.Close must withdraw the unlock question its RetrieveSecret raised.

    /usr/bin/python3 portal_agent.py

DBUS_SESSION_BUS_ADDRESS names a bus where puffd runs with the `agent` prompter. Prints
`registered`, then `held PURPOSE APPLICATION` when a question arrives, then `withdrawn` once
puffd closes the answer pipe's read end, and `N passed, M failed`. Answers nothing itself.
"""

import os
import select
import sys
import time

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from harness import HANG_GUARD

DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
loop = GLib.MainLoop()
results = []


def case(name, reason):
    results.append(reason is None)
    print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)


class Agent(dbus.service.Object):
    @dbus.service.method("io.puff.Agent1", in_signature="a{sv}h", out_signature="b")
    def Ask(self, question, answer):
        fd = answer.take()
        print(f"held {question.get('purpose', '')} {question.get('application', '')}", flush=True)
        # puffd closes the pipe's read end when the prompt ends another way: POLLERR here.
        poller = select.poll()
        poller.register(fd, select.POLLERR | select.POLLHUP)
        deadline = time.monotonic() + HANG_GUARD
        withdrawn = False
        while not withdrawn and time.monotonic() < deadline:
            withdrawn = bool(poller.poll(1000))
        os.close(fd)
        print("withdrawn" if withdrawn else "still asked", flush=True)
        case("puffd withdraws the held question", None if withdrawn else f"not within {HANG_GUARD:g} s")
        GLib.idle_add(loop.quit)
        return False

    @dbus.service.method("io.puff.Agent1", in_signature="", out_signature="")
    def Cancel(self):
        pass


agent = Agent(bus, "/io/puff/Agent")
bus.call_blocking("io.puff.Control", "/io/puff/Control", "io.puff.Control1", "RegisterAgent", "o",
                  ("/io/puff/Agent",), timeout=HANG_GUARD)
print("registered", flush=True)
GLib.timeout_add(int(2 * HANG_GUARD * 1000), loop.quit)
loop.run()
if not results:
    case("a question arrives", f"none within {2 * HANG_GUARD:g} s")
failed = results.count(False)
print(f"{results.count(True)} passed, {failed} failed", flush=True)
sys.exit(1 if failed else 0)
