#!/usr/bin/python3
"""agent_flow.py - `puffctl agent` in a pseudo-terminal answers the prompt of a real client.

    /usr/bin/python3 agent_flow.py PUFFCTL

DBUS_SESSION_BUS_ADDRESS names a bus where puffd (with the `agent` prompter) serves a locked
`login` holding an item with service=agent-e2e and the secret `agent-secret`, under the passcode
`right pass`. The driver starts `puffctl agent` on a pty, runs `secret-tool lookup`, types a
wrong passcode, checks the agent shows the error and asks again, types the right one and checks
the secret comes back. It creates a collection through libsecret (create_collection.py), types two
different new passcodes, checks the agent asks again, then types the same one twice and checks the
collection is made. It protects the item (`puffctl protect`) and answers the two confirmations a
lookup then asks: once (the secret comes back), deny (nothing). Then it stops the agent with Ctrl-C and
checks that a lookup is dismissed (no agent left, the next prompter is `none`) before HANG_GUARD, which
the test keeps below puffd's prompt timeout: an answer then is a dismissal, not the timeout.

    /usr/bin/python3 agent_flow.py restart PUFFCTL PUFFD VAULT

starts puffd itself (on the bus of DBUS_SESSION_BUS_ADDRESS, vault folder VAULT), makes a vault
with one item, runs `puffctl agent` on a pty and restarts puffd under it twice: each time the
agent must say it registered again (it watches io.puff.Control) and answer the next question;
after the second restart the prompt timeout is 3 s and nobody types: the agent must withdraw
the question ("(the prompt ended)") and ask the next one.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`. Never prints a secret.
"""

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


def main():
    puffctl = sys.argv[1]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(puffctl, [puffctl, "agent"])
    started = read_until(fd, "stop with Ctrl-C")
    case("the agent registers", None if started is not None else f"no greeting within {HANG_GUARD:g} s")

    lookup = subprocess.Popen(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    shown = read_until(fd, "Passcode for “login” (at least 8 characters):")
    case("the agent asks for the login passcode, saying what its policy needs",
         None if shown is not None else f"no question within {HANG_GUARD:g} s")
    case("the question names the asking application",
         None if shown and "/usr/bin/secret-tool wants to unlock the collection “login”." in shown
         else "the asking application is not shown")
    os.write(fd, b"wrong pass\n")
    again = read_until(fd, "Passcode for “login” (at least 8 characters):")
    case("a wrong passcode is asked again with the error",
         None if again and "Wrong passcode; the next try is accepted in 0.5 s, try again (attempt 2 of 3)" in again else "no second question")
    case("the typed passcode is not echoed", None if again is not None and "wrong pass" not in again
         else "the passcode was echoed")
    os.write(fd, b"right pass\n")
    try:
        out, _ = lookup.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        lookup.kill()
        out = b""
    case("secret-tool gets the secret", None if out == b"agent-secret" else f"got {len(out)} bytes")

    create = subprocess.Popen(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "create_collection.py"),
                               "Agent Work"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    asked = read_until(fd, "New passcode for “Agent Work” (at least 8 characters):")
    case("a new collection's passcode is asked, naming the application",
         None if asked and "wants to create the collection “Agent Work”." in asked else f"no question within {HANG_GUARD:g} s")
    os.write(fd, b"work pass 1\n")
    read_until(fd, "Repeat it:")
    os.write(fd, b"work pass 2\n")
    differ = read_until(fd, "New passcode for “Agent Work” (at least 8 characters):")
    case("two different new passcodes are asked again",
         None if differ and "The passcodes differ, try again." in differ else "no second question")
    os.write(fd, b"work pass 1\n")
    read_until(fd, "Repeat it:")
    os.write(fd, b"work pass 1\n")
    try:
        made, _ = create.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        create.kill()
        made = b""
    case("libsecret gets the new collection",
         None if made == b"/org/freedesktop/secrets/collection/Agent_5fWork\n" else f"got {made!r}")

    # The item made protected: each read asks the agent, which answers once, then deny.
    protect = subprocess.run([sys.argv[2], "protect", "service=agent-e2e"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT) if len(sys.argv) > 2 else None
    case("puffctl protect marks the item", None if protect and protect.returncode == 0 else "protect failed")
    for answer, wanted in ((b"o\n", b"agent-secret"), (b"d\n", b"")):
        read = subprocess.Popen(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        confirm = read_until(fd, "Release its secret this once? [o]nce / [d]eny (Enter: deny):")
        os.write(fd, answer)
        try:
            out, _ = read.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            read.kill()
            out = b"(timeout)"
        named = confirm is not None and "/usr/bin/secret-tool wants to read the protected item “agent e2e”." in confirm
        case(f"a protected read answered {answer.decode().strip()!r} is {'released' if wanted else 'refused'}",
             None if named and out == wanted else f"asked={named}, got {len(out)} bytes")

    os.kill(pid, signal.SIGINT)
    os.waitpid(pid, 0)
    subprocess.run([sys.argv[2], "lock"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) \
        if len(sys.argv) > 2 else None
    # Ordering, not speed: the prompt timeout is longer than HANG_GUARD, so an answer before it is
    # the `none` prompter's dismissal.
    try:
        second = subprocess.run(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=HANG_GUARD)
        reason = None if second.stdout == b"" else f"{len(second.stdout)} bytes"
    except subprocess.TimeoutExpired:
        reason = f"no answer within {HANG_GUARD:g} s: the prompt waited for its timeout"
    case("with the agent gone the prompt is dismissed, not left to time out", reason)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


def start_puffd(puffd, vault, timeout):
    """puffd on the bus of DBUS_SESSION_BUS_ADDRESS, asking agents; returns once it owns
    io.puff.Control (puffctl status answers)."""
    log = open(os.path.join(os.path.dirname(vault), f"puffd-{time.monotonic_ns()}.log"), "w")
    process = subprocess.Popen(
        [puffd, "--address", os.environ["DBUS_SESSION_BUS_ADDRESS"], "--data-dir", vault, "--kdf", "interactive",
         "--prompter", "agent,none", "--prompt-timeout", str(timeout), "--login-socket", "none",
         "--system-bus-address", "unix:path=/nonexistent"], stdout=log, stderr=log)
    return process


def wait_served(puffctl, limit=HANG_GUARD):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if subprocess.run([puffctl, "status"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return True
        time.sleep(0.1)
    return False


def restart_main():
    """`agent_flow.py restart PUFFCTL PUFFD VAULT`: puffd restarts under a running agent, which
    registers again and answers the next question; a question whose prompt timed out disappears."""
    puffctl, puffd, vault = sys.argv[2], sys.argv[3], sys.argv[4]
    daemon = start_puffd(puffd, vault, 600)
    case("puffd serves", None if wait_served(puffctl) else "no answer to puffctl status")
    init = subprocess.run([puffctl, "init", "--stdin"], input=b"right pass\n", stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    store = subprocess.run(["/usr/bin/secret-tool", "store", "--label=agent e2e", "service", "agent-e2e"],
                           input=b"agent-secret", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    case("a vault with one item", None if init.returncode == 0 and store.returncode == 0 else "init or store failed")
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(puffctl, [puffctl, "agent"])
    case("the agent registers", None if read_until(fd, "stop with Ctrl-C") is not None else "no greeting")

    for timeout in (600, 3):
        daemon.terminate()
        daemon.wait(timeout=HANG_GUARD)
        daemon = start_puffd(puffd, vault, timeout)
        served = wait_served(puffctl)
        again = read_until(fd, "puffd started again", timeout=HANG_GUARD)
        case(f"the agent registers again with the puffd restarted (prompt timeout {timeout} s)",
             None if served and again is not None else f"served={served}, registered again={again is not None}")
        lookup = subprocess.Popen(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        shown = read_until(fd, "Passcode for ", timeout=HANG_GUARD)
        if timeout == 600:
            case("the restarted puffd's question reaches the agent", None if shown is not None else "no question")
            os.write(fd, b"right pass\n")
            try:
                out, _ = lookup.communicate(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                lookup.kill()
                out = b""
            case("the agent's answer unlocks for secret-tool",
                 None if out == b"agent-secret" else f"got {len(out)} bytes")
            subprocess.run([puffctl, "lock"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            # Nobody types: the prompt times out after 3 s and the agent withdraws the question.
            ended = read_until(fd, "(the prompt ended)", timeout=HANG_GUARD)
            case("a question whose prompt timed out is withdrawn",
                 None if shown is not None and ended is not None else f"asked={shown is not None}, withdrawn=False")
            try:
                lookup.communicate(timeout=HANG_GUARD)
            except subprocess.TimeoutExpired:
                lookup.kill()
            # The agent is free again: the next question is asked.
            lookup = subprocess.Popen(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            case("the next question is asked after the withdrawn one",
                 None if read_until(fd, "Passcode for ", timeout=HANG_GUARD) is not None else "no question")
            lookup.kill()
            lookup.wait()

    os.kill(pid, signal.SIGINT)
    os.waitpid(pid, 0)
    daemon.terminate()
    daemon.wait(timeout=HANG_GUARD)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(restart_main() if sys.argv[1:2] == ["restart"] else main())
