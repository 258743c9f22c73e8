#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A running gnome-keyring-daemon to migrate from, for LiveImportTests (`puffctl import --bus`).

    gnome_keyring_live.py DIR       (password on stdin's first line)

DIR is a throwaway HOME. On the bus in DBUS_SESSION_BUS_ADDRESS (a private dbus-daemon, not
puffd's) this starts gnome-keyring-daemon with its clock years back (libfaketime), stores the
fixture set of gnome_keyring.py in `login` through secret-tool and secretstorage, one item in the
in-memory `session` collection, and one item in a second collection `vault2` that it then locks.
Once gnome-keyring has read its file again (reloaded(), below), it writes DIR/expected.json: every item of the unlocked collections as the daemon serves them
(label, attributes, secret in hex, content type, Created, Modified), which is what Puff must hold
after the import; it prints `ready`, keeps serving until stdin closes, then stops the daemon.
Prints `FAIL <case>: <reason>` when the premise fails (never a secret).
"""

import json
import os
import signal
import sys
import time

import secretstorage

from gnome_keyring import Daemon, create, fill


def served(collection):
    items = []
    for item in collection.get_all_items():
        items.append({
            "label": item.get_label(), "attributes": item.get_attributes(), "secret_hex": item.get_secret().hex(),
            "content_type": item.get_secret_content_type(), "created": item.get_created(),
            "modified": item.get_modified(), "collection": collection.collection_path.rsplit("/", 1)[1],
        })
    return items


def reloaded(home, collection):
    """Makes gnome-keyring read login.keyring again and waits until it serves what it read.

    gnome-keyring 42.1 serves an item stored over D-Bus without a schema with no xdg:schema until
    it reloads its file, and with the generic one after (measured); it reloads when the file
    changes on disk, at a time of its own, so the test's premise is fixed here, after the reload.
    """
    path = os.path.join(home, "data/keyrings/login.keyring")
    later = os.stat(path).st_mtime + 2
    os.utime(path, (later, later))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        item = next(i for i in collection.get_all_items() if i.get_label() == "every byte")
        if item.get_attributes().get("xdg:schema") == "org.freedesktop.Secret.Generic":
            return True
        time.sleep(0.1)
    return False


def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    home = sys.argv[1]
    password = sys.stdin.buffer.readline().rstrip(b"\n")
    daemon = Daemon(home, password, past=True)
    try:
        login = daemon.collection("login")
        fill(home, login)
        if not reloaded(home, login):
            print("FAIL premise: gnome-keyring did not read its file again", flush=True)
            return 1
        session = daemon.collection("session")
        create(session, "in the session collection", {"where": "session"}, "ephemeral ✓".encode())
        locked = daemon.create_collection("vault2", b"second password")
        create(locked, "behind a lock", {"where": "vault2"}, b"must not cross")
        locked.lock()
        if not locked.is_locked():
            print("FAIL premise: vault2 did not lock", flush=True)
            return 1
        expected = served(login) + served(session)
        with open(os.path.join(home, "expected.json"), "w") as f:
            json.dump(expected, f, ensure_ascii=False)
        print("ready", flush=True)
        # Serve until the test closes our standard input.
        sys.stdin.buffer.read()
        print("ok vault2 still locked" if locked.is_locked() else "FAIL vault2 was unlocked during the import",
              flush=True)
    finally:
        daemon.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
