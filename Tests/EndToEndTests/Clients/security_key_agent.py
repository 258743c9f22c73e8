#!/usr/bin/python3
"""security_key_agent.py - `puffctl agent` answers a client's Unlock with a security key.

    /usr/bin/python3 security_key_agent.py touch PUFFCTL KEY_PID KEY_LOG
    /usr/bin/python3 security_key_agent.py passcode PUFFCTL KEY_PID KEY_LOG

DBUS_SESSION_BUS_ADDRESS names a bus where puffd (prompter `agent,none`, its security key the
software authenticator fido2_authenticator.py `--touch wait`, process KEY_PID, standard error in
KEY_LOG) serves a locked `login` holding an item with service=sk-e2e and the secret `sk-secret`.
The key is touched with SIGUSR1, once its log says it waits (`touch?`).

`touch` (a fido2 slot “yubikey”): the driver starts `puffctl agent` on a pty and runs
`secret-tool lookup`; the agent must show the touch question, and a touch must bring the secret
back. Then, `login` locked again, python secretstorage's Collection.unlock(): the agent shows the
touch question, the driver answers `c` (cancel) in the agent, and the key must log a CTAPHID
CANCEL, the unlock must complete dismissed (not hang) and `login` stay locked.

`passcode` (a fido2+passcode slot “yubikey”, passcode `key and words`): the agent must ask that
passcode first, naming the key; a wrong one and a touch are refused and asked again with the
delay; the right one and a touch bring the secret back.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`. Never prints a secret.
"""

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import HANG_GUARD  # noqa: E402

results = []
LOOKUP = ["/usr/bin/secret-tool", "lookup", "service", "sk-e2e"]
# The unlock of python secretstorage: whether the prompt was dismissed, as JSON.
SECRETSTORAGE_UNLOCK = """
import json, secretstorage
from contextlib import closing
with closing(secretstorage.dbus_init()) as connection:
    collection = secretstorage.get_collection_by_alias(connection, "default")
    print(json.dumps({"dismissed": bool(collection.unlock()), "locked": collection.is_locked()}))
"""


def case(name, reason):
    results.append(reason is None)
    print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)


def read_until(fd, needle, timeout=HANG_GUARD):
    """Reads the pty until `needle` shows; returns what was read (or None at the timeout)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return None
            if not chunk:
                return None
            seen += chunk
    return seen.decode(errors="replace")


class Key:
    """The software authenticator: its log lines, and touches."""

    def __init__(self, pid, log):
        self.pid, self.log = pid, log

    def count(self, line):
        with open(self.log, encoding="utf-8", errors="replace") as f:
            return sum(1 for each in f.read().splitlines() if each == line)

    def wait_for(self, line, count, timeout=HANG_GUARD):
        """Whether the log holds `count` lines `line` within `timeout` (polled every 20 ms)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.count(line) >= count:
                return True
            time.sleep(0.02)
        return False

    def touch_when_waiting(self, waits):
        """Touches the key once it waits for its `waits`-th touch; whether it did."""
        if not self.wait_for("touch?", waits):
            return False
        os.kill(self.pid, signal.SIGUSR1)
        return True


def finish(process, timeout=HANG_GUARD):
    """The output of `process` once it ends; b"(timeout)" after killing it when it hangs."""
    try:
        out, _ = process.communicate(timeout=timeout)
        return out
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return b"(timeout)"


def is_locked(puffctl):
    status = subprocess.run([puffctl, "status", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        collections = json.loads(status.stdout)["collections"]
    except (ValueError, KeyError):
        return None
    return next((c.get("locked") for c in collections if c.get("id") == "login"), None)


def touch_flow(fd, puffctl, key):
    lookup = subprocess.Popen(LOOKUP, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    shown = read_until(fd, "Touch the security key “yubikey” now.")
    case("the agent shows the touch question for a client's unlock",
         None if shown and "/usr/bin/secret-tool wants to unlock the collection “login”." in shown
         else f"no touch question within {HANG_GUARD:g} s")
    touched = key.touch_when_waiting(1)
    out = finish(lookup)
    case("a touch opens the collection: secret-tool gets the secret",
         None if touched and out == b"sk-secret" else f"touched={touched}, got {len(out)} bytes")
    withdrawn = read_until(fd, "(the prompt ended)")
    case("the agent withdraws the touch question once the key answered",
         None if withdrawn is not None else "the question stayed")

    subprocess.run([puffctl, "lock"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cancels = key.count("cancel")
    unlock = subprocess.Popen(["/usr/bin/python3", "-c", SECRETSTORAGE_UNLOCK], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    asked = read_until(fd, "[t]ype the passcode instead, or [c]ancel (Enter: cancel):")
    waiting = key.wait_for("touch?", 2)
    case("secretstorage's unlock shows the touch question while the key waits",
         None if asked is not None and waiting else f"asked={asked is not None}, key waiting={waiting}")
    os.write(fd, b"c\n")
    out = finish(unlock)
    try:
        answer = json.loads(out)
    except ValueError:
        answer = {"output": out.decode(errors="replace")[-200:]}
    case("cancelling in the agent completes the unlock dismissed, with the collection locked",
         None if answer == {"dismissed": True, "locked": True} else f"got {answer}")
    cancelled = key.wait_for("cancel", cancels + 1)
    case("cancelling in the agent sends CTAPHID CANCEL to the key",
         None if cancelled else "the key logged no cancel")
    case("puffctl status shows login locked", None if is_locked(puffctl) is True else "not locked")


def passcode_flow(fd, puffctl, key):
    question = "Passcode for “login” with the security key “yubikey” (at least 8 characters) (the key is asked next):"
    lookup = subprocess.Popen(LOOKUP, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    shown = read_until(fd, question)
    case("the agent asks the fido2+passcode slot's passcode first, naming the key",
         None if shown and "/usr/bin/secret-tool wants to unlock the collection “login”." in shown
         else f"no passcode question within {HANG_GUARD:g} s")
    os.write(fd, b"other words\n")
    asked = read_until(fd, "Touch the security key “yubikey” now.")
    touched = key.touch_when_waiting(1)
    again = read_until(fd, question)
    case("a wrong passcode with a good touch is refused and asked again with its delay",
         None if asked is not None and touched and again
         and "Wrong passcode; the next try is accepted in 0.5 s, try again (attempt 2 of 3)" in again
         else f"touch asked={asked is not None}, touched={touched}, asked again={again is not None}")
    case("the wrong passcode opened nothing", None if is_locked(puffctl) is True else "login is not locked")
    os.write(fd, b"key and words\n")
    asked = read_until(fd, "Touch the security key “yubikey” now.")
    touched = key.touch_when_waiting(2)
    out = finish(lookup)
    case("the right passcode and a touch open it: secret-tool gets the secret",
         None if asked is not None and touched and out == b"sk-secret"
         else f"touch asked={asked is not None}, touched={touched}, got {len(out)} bytes")


def main():
    mode, puffctl, key = sys.argv[1], sys.argv[2], Key(int(sys.argv[3]), sys.argv[4])
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(puffctl, [puffctl, "agent"])
    started = read_until(fd, "stop with Ctrl-C")
    case("the agent registers", None if started is not None else f"no greeting within {HANG_GUARD:g} s")
    if started is not None:
        touch_flow(fd, puffctl, key) if mode == "touch" else passcode_flow(fd, puffctl, key)
    os.kill(pid, signal.SIGINT)
    os.waitpid(pid, 0)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
