#!/usr/bin/python3
"""sandbox.py - runs a client as a Flatpak app would run: in a bubblewrap sandbox whose root holds
a `.flatpak-info` naming the app, optionally behind a real xdg-dbus-proxy (issue 28's harness,
docs/design/sandboxed-apps.md §6; the shapes were measured by /work/notes/issue28/env.sh).

USAGE (for the Swift tests: `Sandbox` in Sources/PuffTesting/Sandbox.swift builds these words and
runs them as ClientDriver's `wrapper:`; read that file first)

    sandbox.py --app ID --folder DIR [--instance ID] [--proxy] [--rule OPTION]...
               [--portal-rules] [--setenv NAME=VALUE]... -- PROGRAM [ARGUMENT]...
    sandbox.py --probe --folder DIR

  --folder DIR   the test's own folder (0700). Gets DIR/ID.flatpak-info (0600), the app's home
                 DIR/home/ID (HOME inside, kept between runs: a second run of one app sees the
                 first one's files), and DIR/proxy-*/ for proxy sockets.
  --proxy        connect the app through xdg-dbus-proxy --filter, run as flatpak runs it: in a
                 bwrap of its own carrying the same .flatpak-info, so the bus reports the proxy's
                 pid and /proc/PID/root/.flatpak-info names the app (design F9). Without it the
                 app gets the bus socket itself.
  --rule OPTION  one xdg-dbus-proxy policy option, e.g. --rule=--talk=org.freedesktop.secrets
                 (implies --proxy). Repeatable.
  --portal-rules the rules flatpak gives every app for portals (implies --proxy):
                 --call=org.freedesktop.portal.*=* and
                 --broadcast=org.freedesktop.portal.*=@/org/freedesktop/portal/*
  --setenv N=V   an environment variable inside (the environment is otherwise cleared to PATH,
                 LANG, HOME and DBUS_SESSION_BUS_ADDRESS=unix:path=/run/flatpak/bus).
  --probe        build a sandbox for org.example.Probe and run /usr/bin/true in it: prints `ok` or
                 `unavailable: REASON` (exit 1). Tests skip on it unless PUFF_REQUIRE_BUS=1.

The bus must listen on a path socket (DBUS_SESSION_BUS_ADDRESS=unix:path=...; TestBus(socketIn:)):
an abstract socket would let the app bypass the proxy. Inside, the root is a tmpfs; every
top-level folder but /proc /dev /tmp /run /sys and the home-like ones (/home /root /work) is bound
read-only; this folder (the clients) is bound read-only at its own path, so a client runs as
`/usr/bin/python3 <this folder>/client.py`. The daemon's home (under /tmp) is not visible.

Output: the client's own standard output and error, and its exit status. Standard input goes to
the client (a per-test salt, a value to store). Failures of the harness itself print
`FAIL sandbox: REASON` and exit 1. Processes it starts are stopped by pid, and die with it.
"""

import argparse
import os
import select
import subprocess
import sys
import tempfile

from harness import HANG_GUARD

HERE = os.path.dirname(os.path.abspath(__file__))
BWRAP = "/usr/bin/bwrap"
PROXY = "/usr/bin/xdg-dbus-proxy"
INSIDE_BUS = "/run/flatpak/bus"
# Top-level folders not shown to the app: the kernel's and the per-boot ones get fresh copies,
# the home-like ones hold other people's (and other tests') files.
HIDDEN = {"proc", "dev", "tmp", "run", "sys", "home", "root", "work", "lost+found"}
PORTAL_RULES = [
    "--call=org.freedesktop.portal.*=*",
    "--broadcast=org.freedesktop.portal.*=@/org/freedesktop/portal/*",
]


class HarnessError(Exception):
    """The sandbox could not be built (not a verdict on the client)."""


def flatpak_info(app, instance):
    return (
        f"[Application]\nname={app}\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n"
        f"[Instance]\ninstance-id={instance}\n"
    )


def write_private(path, text):
    """Writes `text` to `path`, 0600, never through a link planted there."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def private_folder(path):
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def bus_socket():
    """The path of the bus socket DBUS_SESSION_BUS_ADDRESS names (unix:path=...)."""
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
    for part in address.split(";")[0].split(":", 1)[-1].split(","):
        if address.startswith("unix:") and part.startswith("path="):
            return part[len("path="):]
    raise HarnessError(f"the bus must listen on a path socket (TestBus(socketIn:)), not {address!r}")


def root_arguments(app, folder, instance):
    """A Flatpak-like root: tmpfs, top-level folders read-only, /.flatpak-info, the clients."""
    info = os.path.join(folder, f"{app}.flatpak-info")
    write_private(info, flatpak_info(app, instance))
    arguments = ["--tmpfs", "/"]
    for name in sorted(os.listdir("/")):
        entry = "/" + name
        if name in HIDDEN:
            continue
        if os.path.islink(entry):
            arguments += ["--symlink", os.readlink(entry), entry]
        elif os.path.isdir(entry):
            arguments += ["--ro-bind", entry, entry]
    return arguments + [
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run/flatpak",
        # On a tmpfs root bwrap can create the file to bind over; on `--ro-bind / /` it cannot (F7).
        "--ro-bind", info, "/.flatpak-info",
        "--ro-bind", HERE, HERE,
        "--unshare-pid", "--die-with-parent", "--clearenv",
        "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
    ]


def app_arguments(app, folder, instance, socket, setenv):
    home = private_folder(os.path.join(private_folder(os.path.join(folder, "home")), app))
    arguments = root_arguments(app, folder, instance) + [
        "--bind", socket, INSIDE_BUS,
        "--setenv", "DBUS_SESSION_BUS_ADDRESS", f"unix:path={INSIDE_BUS}",
        "--bind", home, home, "--setenv", "HOME", home,
    ]
    for assignment in setenv:
        name, _, value = assignment.partition("=")
        arguments += ["--setenv", name, value]
    return arguments


def read_ready(fd, what, log):
    """Waits (at most HANG_GUARD, a hang guard) for one byte on `fd`: the proxy's 'listening'."""
    ready, _, _ = select.select([fd], [], [], HANG_GUARD)
    if not ready:
        raise HarnessError(f"{what} not ready after {HANG_GUARD:g} s; log: {tail(log)}")
    if os.read(fd, 1) != b"x":
        raise HarnessError(f"{what} exited before listening; log: {tail(log)}")


def tail(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-600:].replace("\n", " | ")
    except OSError as error:
        return f"(unreadable: {error.strerror})"


def start_proxy(app, folder, instance, rules):
    """xdg-dbus-proxy in a bwrap of its own with the app's .flatpak-info, as flatpak runs it.
    Returns (process, socket path, the read end of its sync pipe: closing it stops the proxy)."""
    real_bus = bus_socket()
    socket_folder = tempfile.mkdtemp(prefix="proxy-", dir=folder)
    socket = os.path.join(socket_folder, "bus")
    log = socket_folder + ".log"
    ready_read, ready_write = os.pipe()
    # flatpak's own handshake: the proxy writes one byte once it listens, and exits when the
    # other end closes.
    command = [BWRAP] + root_arguments(app, folder, instance) + [
        "--bind", socket_folder, socket_folder, "--bind", real_bus, real_bus,
        PROXY, f"--fd={ready_write}", f"unix:path={real_bus}", socket, "--filter", *rules,
    ]
    with open(log, "wb", opener=lambda path, flags: os.open(path, flags | os.O_NOFOLLOW, 0o600)) as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, pass_fds=(ready_write,))
    os.close(ready_write)
    try:
        read_ready(ready_read, "xdg-dbus-proxy", log)
    except HarnessError:
        stop_proxy(process, ready_read)
        raise
    return process, socket, ready_read


def stop_proxy(process, ready_read):
    os.close(ready_read)
    try:
        process.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def probe(folder):
    command = [BWRAP] + root_arguments("org.example.Probe", folder, "1") + ["/usr/bin/true"]
    if not os.access(BWRAP, os.X_OK):
        return f"{BWRAP} is not installed (Debian's bubblewrap)"
    if not os.access(PROXY, os.X_OK):
        return f"{PROXY} is not installed (Debian's xdg-dbus-proxy)"
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=HANG_GUARD)
    if result.returncode != 0:
        return f"bwrap could not build a sandbox: {result.stderr.strip()[-300:]}"
    return None


def main():
    parser = argparse.ArgumentParser(description="Run a client in a Flatpak-like sandbox.")
    parser.add_argument("--app")
    parser.add_argument("--folder", required=True)
    parser.add_argument("--instance", default="1234567890")
    parser.add_argument("--proxy", action="store_true")
    parser.add_argument("--rule", action="append", default=[])
    parser.add_argument("--portal-rules", action="store_true")
    parser.add_argument("--setenv", action="append", default=[])
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    folder = private_folder(os.path.abspath(options.folder))
    if options.probe:
        reason = probe(folder)
        print(f"unavailable: {reason}" if reason else "ok", flush=True)
        return 1 if reason else 0
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not options.app or not command:
        parser.error("--app and a command are needed")
    rules = options.rule + (PORTAL_RULES if options.portal_rules else [])
    proxy = None
    try:
        if options.proxy or rules:
            proxy = start_proxy(options.app, folder, options.instance, rules)
        socket = proxy[1] if proxy else bus_socket()
        arguments = app_arguments(options.app, folder, options.instance, socket, options.setenv)
        # Standard input, output and error are the client's own.
        return subprocess.run([BWRAP] + arguments + command).returncode
    except HarnessError as error:
        print(f"FAIL sandbox: {error}", flush=True)
        return 1
    finally:
        if proxy:
            stop_proxy(proxy[0], proxy[2])


if __name__ == "__main__":
    sys.exit(main())
