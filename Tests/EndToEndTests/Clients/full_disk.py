#!/usr/bin/python3
"""full_disk.py - a write that fails for a full disk gets a D-Bus error and loses nothing that
was acknowledged before it (issue 13, "Crash").

    /usr/bin/python3 full_disk.py --puffd PATH --puffctl PATH --data-dir DIR

DBUS_SESSION_BUS_ADDRESS names a private bus. puffd runs with RLIMIT_FSIZE (it ignores SIGXFSZ,
so a write past the limit fails with EFBIG, as on a full disk). Items with 2 KiB secrets are
stored until one fails; then, with puffd still running and again after a restart without the
limit, every acknowledged item must give its exact secret, the failed one must not exist, and
a new write must work once there is room.

Prints `ok <case>` or `FAIL <case>: <reason>` (never a secret), then `N passed, M failed`.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean

import secretstorage  # noqa: E402
from jeepney.wrappers import DBusErrorResponse  # noqa: E402

from puffd_process import Puffd, puffctl  # noqa: E402

ATTRIBUTE = "puff-full-disk-key"
FILE_SIZE_LIMIT = 64 * 1024


def stored_secrets(connection):
    collection = secretstorage.get_default_collection(connection)
    found = {}
    for item in collection.search_items({}):
        key = item.get_attributes().get(ATTRIBUTE)
        if key is not None:
            found[key] = item.get_secret()
    return found


def compare(found, acknowledged, failed_key):
    if failed_key in found:
        return "the write that failed left an item"
    missing = [key for key in acknowledged if key not in found]
    if missing:
        return f"{len(missing)} acknowledged items are gone, first {missing[0]}"
    wrong = [key for key in acknowledged if found[key] != acknowledged[key]]
    if wrong:
        return f"{len(wrong)} items hold another secret, first {wrong[0]}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--puffd", required=True)
    parser.add_argument("--puffctl", required=True)
    parser.add_argument("--data-dir", required=True)
    args = parser.parse_args()
    log = open(os.path.join(os.path.dirname(args.data_dir.rstrip("/")), "full-disk-puffd.log"), "ab")
    results = []

    def case(name, reason):
        results.append(reason is None)
        print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)

    daemon = Puffd(args, log, file_size_limit=FILE_SIZE_LIMIT)
    status = puffctl(args, "init", "--stdin")
    case("init under the file size limit", None if status == 0 else f"puffctl init exited {status}")
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    acknowledged = {}

    def journal_size():
        return sum(os.path.getsize(os.path.join(args.data_dir, name))
                   for name in os.listdir(args.data_dir) if name.endswith(".journal"))

    # Small items until less than 8 KiB of room is left, then one write that cannot fit, then a
    # small one that can: it must not land after a half-written frame of the failed one.
    number = 0
    while journal_size() < FILE_SIZE_LIMIT - 8 * 1024:
        key = f"item-{number}"
        acknowledged[key] = os.urandom(200)
        collection.create_item(f"full disk {key}", {ATTRIBUTE: key}, acknowledged[key])
        number += 1
    failed_key, error_name = "too-big", None
    try:
        collection.create_item("full disk too big", {ATTRIBUTE: failed_key}, os.urandom(16 * 1024))
    except DBusErrorResponse as error:
        error_name = error.name
    case("a write past the limit fails", None if error_name is not None else "it succeeded")
    case("the failure is org.freedesktop.DBus.Error.Failed",
         None if error_name == "org.freedesktop.DBus.Error.Failed" else f"got {error_name}")
    acknowledged["after-failure"] = os.urandom(200)
    try:
        collection.create_item("full disk small", {ATTRIBUTE: "after-failure"}, acknowledged["after-failure"])
        reason = None
    except DBusErrorResponse as error:
        reason = f"got {error.name}"
    case("a small write that fits succeeds after the failure", reason)
    case("puffd keeps running", None if daemon.is_running() else "puffd exited")
    try:
        reason = compare(stored_secrets(connection), acknowledged, failed_key)
    except Exception as error:
        reason = f"reading back failed: {type(error).__name__}"
    case(f"the {len(acknowledged)} acknowledged items are intact in the running daemon", reason)
    connection.close()
    daemon.stop()

    daemon = Puffd(args, log)
    status = puffctl(args, "unlock", "--stdin")
    case("unlock after a restart with room", None if status == 0 else f"puffctl unlock exited {status}")
    connection = secretstorage.dbus_init()
    try:
        reason = compare(stored_secrets(connection), acknowledged, failed_key)
    except Exception as error:
        reason = f"reading back failed: {type(error).__name__}"
    case("the acknowledged items are intact after the restart", reason)
    try:
        collection = secretstorage.get_default_collection(connection)
        collection.create_item("full disk after", {ATTRIBUTE: "after"}, b"room again")
        reason = None if stored_secrets(connection).get("after") == b"room again" else "not read back"
    except Exception as error:
        reason = f"{type(error).__name__}"
    case("a write succeeds once there is room", reason)
    connection.close()
    daemon.stop()
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
