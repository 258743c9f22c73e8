#!/usr/bin/python3
"""full_file_system.py - a vault on a file system that fills up or turns read-only: clients are
told why in words, with what fixes it, and nothing acknowledged is lost (issue 24 item 22).

    unshare --mount --propagation private \\
        /usr/bin/python3 full_file_system.py --puffd PATH --puffctl PATH --data-dir DIR

Runs as root in a private mount namespace: it mounts a small tmpfs on the parent of DIR. The
disk is filled with a file beside the vault, then `secret-tool store` and python secretstorage
must fail with the message, earlier items still read back, and a store works once the file is
gone. Then a read-only bind mount over the vault: the same for "read-only file system", and a
puffd started on it says how to fix it. A restart reads exactly what was acknowledged.

Prints `ok <case>` or `FAIL <case>: <reason>` (never a secret), then `N passed, M failed`.
"""

import argparse
import errno
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

import secretstorage  # noqa: E402
from jeepney.wrappers import DBusErrorResponse  # noqa: E402

from harness import HANG_GUARD  # noqa: E402
from puffd_process import Puffd, puffctl  # noqa: E402

SECRET_TOOL = "/usr/bin/secret-tool"
TMPFS_SIZE = "2m"
BIG = 64 * 1024  # more than the slack of a tmpfs page, so a full disk refuses it
TOOL_SECRET = 6000  # bytes; also more than a page's slack, and under secret-tool's 8 KiB limit


def run(*command):
    return subprocess.run(list(command), capture_output=True, timeout=HANG_GUARD)


def store(key, secret):
    result = subprocess.run([SECRET_TOOL, "store", f"--label=fs {key}", "puff-fs-test", key], input=secret,
                            capture_output=True, timeout=HANG_GUARD)
    return result.returncode, result.stderr.decode(errors="replace")


def lookup(key):
    result = subprocess.run([SECRET_TOOL, "lookup", "puff-fs-test", key], capture_output=True, timeout=HANG_GUARD)
    return result.stdout if result.returncode == 0 else None


def unreadable(acknowledged):
    """Why the acknowledged items do not all read back with their secrets; None when they do."""
    wrong = [key for key, secret in acknowledged.items() if lookup(key) != secret]
    return f"{len(wrong)} of {len(acknowledged)} do not read back, first {wrong[0]}" if wrong else None


def fill(path):
    """Writes `path` until the file system is full."""
    with open(path, "wb", buffering=0) as filler:
        for size in (1024 * 1024, 4096, 1):
            try:
                while True:
                    filler.write(b"\0" * size)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise


def refusal_reason(status, message, expected):
    if status == 0:
        return "it succeeded"
    if expected not in message:
        return f"the message does not say `{expected}`: {message.strip()[:300]}"
    for wrong in ("No such object", "no such object", "Traceback", "could not be saved"):
        if wrong in message:
            return f"the message says `{wrong}`"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--puffd", required=True)
    parser.add_argument("--puffctl", required=True)
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    mount_point = os.path.dirname(args.data_dir.rstrip("/"))
    log = open(os.path.join(os.path.dirname(mount_point), "full-fs-puffd.log"), "ab")
    results = []

    def case(name, reason):
        results.append(reason is None)
        print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)

    os.makedirs(mount_point, exist_ok=True)
    mounted = run("mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "puff-full", mount_point)
    if mounted.returncode != 0:
        case("a small tmpfs is mounted for the vault", mounted.stderr.decode(errors="replace").strip())
        return 1
    filler = os.path.join(mount_point, "filler")

    daemon = Puffd(args, log)
    status = puffctl(args, "init", "--stdin")
    case("init on the small file system", None if status == 0 else f"puffctl init exited {status}")
    acknowledged = {}
    for number in range(5):
        key, secret = f"before-{number}", os.urandom(24).hex().encode()
        status, message = store(key, secret)
        if status == 0:
            acknowledged[key] = secret
    case("five items stored with room", None if len(acknowledged) == 5 else f"{len(acknowledged)} stored")

    # Full: what a client is told, and what it still reads. The zero tail puffd keeps ahead of a
    # journal's records (docs/vault-format.md) still takes writes, which are stored and
    # acknowledged, until it is used up; then writes are refused.
    fill(filler)
    no_space = f"no space left on device for the vault at {args.data_dir}: free space, then retry"
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    status, message, refused = 0, "", []
    for attempt in range(64):
        key, secret = f"tail-{attempt}", os.urandom(BIG // 2).hex().encode()
        try:
            collection.create_item(f"fs {key}", {"puff-fs-test": key}, secret)
        except DBusErrorResponse as error:
            status, message = 1, str(error)
        except Exception as error:  # noqa: BLE001 - any other kind is the failure reported
            status, message = 1, f"{type(error).__name__}"
        if status != 0:
            refused.append(key)
            break
        acknowledged[key] = secret
    case("python secretstorage's exception carries the message", refusal_reason(status, message, no_space))
    connection.close()
    # What is left of the tail may still hold a smaller secret.
    for attempt in range(16):
        key, secret = f"full-{attempt}", os.urandom(TOOL_SECRET // 2).hex().encode()
        status, message = store(key, secret)
        if status != 0:
            refused.append(key)
            break
        acknowledged[key] = secret
    case("secret-tool store on a full disk fails saying so and what fixes it",
         refusal_reason(status, message, no_space))
    case("secret-tool lookup reads every earlier item on the full disk", unreadable(acknowledged))
    case("the refused items do not exist",
         None if all(lookup(key) is None for key in refused) else "a refused item reads back")
    case("puffd keeps running on the full disk", None if daemon.is_running() else "puffd exited")
    os.unlink(filler)
    status, message = store("after-full", b"room again")
    if status == 0:
        acknowledged["after-full"] = b"room again"
    case("a store works once space is freed", None if status == 0 else message.strip()[:300])
    case("and reads back", unreadable(acknowledged))

    # Read-only: a bind mount over the vault's file system, after a restart so that no journal
    # is open for writing from before (the kernel refuses a read-only remount of busy mounts).
    daemon.stop()
    daemon = Puffd(args, log)
    status = puffctl(args, "unlock", "--stdin")
    case("unlock after a restart", None if status == 0 else f"puffctl unlock exited {status}")
    remounted = run("sh", "-c", f"mount --bind '{mount_point}' '{mount_point}' && "
                    f"mount -o remount,ro,bind '{mount_point}'")
    case("the vault's file system is made read-only", None if remounted.returncode == 0
         else remounted.stderr.decode(errors="replace").strip())
    read_only = f"the vault at {args.data_dir} is on a read-only file system: remount it read-write"
    status, message = store("read-only", b"nowhere to go")
    case("secret-tool store on a read-only vault fails saying so and what fixes it",
         refusal_reason(status, message, read_only))
    case("secret-tool lookup reads every earlier item on the read-only vault", unreadable(acknowledged))
    # Lazily: puffd keeps read descriptors of the journals it read items from (their records are
    # read when touched), which make the bind mount busy; a remount would not care.
    unmounted = run("umount", "-l", mount_point)
    case("the read-only bind mount is removed", None if unmounted.returncode == 0
         else unmounted.stderr.decode(errors="replace").strip())
    status, message = store("after-read-only", b"writable again")
    if status == 0:
        acknowledged["after-read-only"] = b"writable again"
    case("a store works once the vault is writable again", None if status == 0 else message.strip()[:300])
    daemon.stop()

    # What a restart reads: every acknowledged item, none of the refused ones, no damage.
    daemon = Puffd(args, log)
    status = puffctl(args, "unlock", "--stdin")
    case("unlock after the last restart", None if status == 0 else f"puffctl unlock exited {status}")
    case("the restart reads every acknowledged item", unreadable(acknowledged))
    case("the restart reads none of the refused ones",
         None if all(lookup(key) is None for key in refused + ["read-only"]) else "one reads back")
    doctor = run(args.puffctl, "doctor")
    case("puffctl doctor finds nothing wrong", None if doctor.returncode == 0
         else doctor.stdout.decode(errors="replace").strip()[-400:])
    daemon.stop()

    # A puffd started on a read-only vault says why it cannot run and what fixes it.
    run("sh", "-c", f"mount --bind '{mount_point}' '{mount_point}' && mount -o remount,ro,bind '{mount_point}'")
    size = log.tell()
    try:
        Puffd(args, log).stop()
        reason = "puffd started on a read-only vault"
    except RuntimeError:
        log.flush()
        with open(log.name, "rb") as written:
            written.seek(size)
            text = written.read().decode(errors="replace")
        reason = None if read_only in text else f"its log does not say `{read_only}`: {text.strip()[-300:]}"
    case("puffd on a read-only vault stops saying so and what fixes it", reason)
    run("umount", mount_point)

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
