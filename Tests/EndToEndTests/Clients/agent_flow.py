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
lookup then asks: once (the secret comes back), deny (nothing). Then it stops the agent with Ctrl-C and checks that a lookup is dismissed
(no agent left, the next prompter is `none`) quickly.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`. Never prints a secret.
"""

import os
import pty
import select
import signal
import subprocess
import sys
import time

results = []


def case(name, reason):
    results.append(reason is None)
    print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)


def read_until(fd, needle, timeout=20.0):
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
    case("the agent registers", None if started is not None else "no greeting within 20 s")

    lookup = subprocess.Popen(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    shown = read_until(fd, "Passcode for “login” (at least 8 characters):")
    case("the agent asks for the login passcode, saying what its policy needs",
         None if shown is not None else "no question within 20 s")
    case("the question names the asking application",
         None if shown and "/usr/bin/secret-tool wants to unlock the collection “login”." in shown
         else "the asking application is not shown")
    os.write(fd, b"wrong pass\n")
    again = read_until(fd, "Passcode for “login” (at least 8 characters):")
    case("a wrong passcode is asked again with the error",
         None if again and "Wrong passcode, try again (attempt 2 of 3)" in again else "no second question")
    case("the typed passcode is not echoed", None if again is not None and "wrong pass" not in again
         else "the passcode was echoed")
    os.write(fd, b"right pass\n")
    try:
        out, _ = lookup.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        lookup.kill()
        out = b""
    case("secret-tool gets the secret", None if out == b"agent-secret" else f"got {len(out)} bytes")

    create = subprocess.Popen(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "create_collection.py"),
                               "Agent Work"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    asked = read_until(fd, "New passcode for “Agent Work” (at least 8 characters):")
    case("a new collection's passcode is asked, naming the application",
         None if asked and "wants to create the collection “Agent Work”." in asked else "no question within 20 s")
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
        made, _ = create.communicate(timeout=60)
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
            out, _ = read.communicate(timeout=30)
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
    started = time.monotonic()
    second = subprocess.run(["/usr/bin/secret-tool", "lookup", "service", "agent-e2e"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
    took = time.monotonic() - started
    case("with the agent gone the prompt is dismissed at once",
         None if second.stdout == b"" and took < 5 else f"{len(second.stdout)} bytes after {took:.1f} s")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
