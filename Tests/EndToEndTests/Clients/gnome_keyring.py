#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The real gnome-keyring-daemon writing and reading keyring files, for GnomeKeyringFileTests.

    gnome_keyring.py make-binary DIR      (password on stdin) the fixture set in a binary keyring
    gnome_keyring.py make-textual DIR     the fixture set in a textual keyring (empty password)
    gnome_keyring.py make-corrupt DIR     a textual keyring holding a secret with a newline
    gnome_keyring.py serve DIR            (password on stdin) what a fresh daemon serves from DIR

DIR is a throwaway HOME; the keyrings live in DIR/data/keyrings. The daemon runs on the bus in
DBUS_SESSION_BUS_ADDRESS (a private dbus-daemon the test started). The fixture items are written
by a daemon whose clock reads 2019 (libfaketime), so their timestamps are years in the past; they
are stored through secret-tool and secretstorage, the clients people use. `serve` starts a fresh
daemon on DIR, unlocks it with the password and writes DIR/served.json: every item of the login
collection as the daemon serves it over D-Bus (secrets as SHA-256 and length, never the bytes),
plus what `secret-tool search --all` and `secret-tool lookup` print for each item.

Prints `ok <case>` / `FAIL <case>: <reason>` (never a secret) and `N passed, M failed`.
"""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import secretstorage
from secretstorage.util import DBusAddressWrapper, format_secret

PASSED, FAILED = [], []
FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
# The fixtures' clock: years before any run of the tests; moved on to LATER (through the file
# libfaketime reads at every call) before one item is stored again, so its Modified is not its Created.
PAST = "@2019-03-04 05:06:07"
LATER = "@2019-03-06 07:08:09"
# Every secret this script stored, by item label: what a textual keyring must hold. The daemon
# cannot be asked afterwards, because it re-reads its own textual file when it changes and then
# serves secrets changed by that reading (measured under load in CI: leading spaces dropped).
STORED = {}
SS = "org.freedesktop.Secret."


def check(case, condition, reason=""):
    (PASSED if condition else FAILED).append(case)
    print(f"ok {case}" if condition else f"FAIL {case}: {reason}", flush=True)
    return condition


def environment(home):
    env = dict(os.environ)
    env.update(HOME=home, XDG_DATA_HOME=os.path.join(home, "data"), XDG_RUNTIME_DIR=os.path.join(home, "run"),
               XDG_CONFIG_HOME=os.path.join(home, "config"))
    for folder in ("data/keyrings", "run", "config"):
        os.makedirs(os.path.join(home, folder), mode=0o700, exist_ok=True)
    return env


class Daemon:
    """gnome-keyring-daemon --unlock on the test's bus, stopped on exit."""

    def __init__(self, home, password, past=False):
        env = environment(home)
        if past:
            set_clock(home, PAST)
            env.update(LD_PRELOAD=FAKETIME_LIB, FAKETIME_TIMESTAMP_FILE=clock_file(home), FAKETIME_NO_CACHE="1",
                       FAKETIME_DONT_FAKE_MONOTONIC="1")
        self.log = open(os.path.join(home, "gnome-keyring.log"), "ab")
        self.process = subprocess.Popen(
            ["gnome-keyring-daemon", "--unlock", "--components=secrets", "--foreground"],
            stdin=subprocess.PIPE, stdout=self.log, stderr=self.log, env=env, start_new_session=True)
        self.process.stdin.write(password)
        self.process.stdin.close()
        self.connection = secretstorage.dbus_init()
        # The daemon owns the name once it serves; a generous bound, only against a hang.
        for _ in range(600):
            if self.owned():
                break
            time.sleep(0.1)
        else:
            self.stop()
            raise SystemExit("FAIL start: gnome-keyring-daemon never owned org.freedesktop.secrets")

    def owned(self):
        try:
            return len(list(secretstorage.get_all_collections(self.connection))) > 0
        except Exception:
            return False

    def collection(self, name):
        return secretstorage.Collection(self.connection, f"/org/freedesktop/secrets/collection/{name}")

    def create_collection(self, label, password):
        """A collection with `password`, without a prompt (gnome-keyring's internal interface); an
        empty password makes gnome-keyring keep it as a textual keyring."""
        service = DBusAddressWrapper("/org/freedesktop/secrets",
                                     "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", self.connection)
        session = secretstorage.util.open_session(self.connection)
        path, = service.call("CreateWithMasterPassword", "a{sv}(oayays)",
                             {SS + "Collection.Label": ("s", label)}, format_secret(session, password, "text/plain"))
        # Under load gnome-keyring has answered a call on a collection it had just created with
        # "no such object": wait until the object answers (a generous bound, only against a hang).
        for _ in range(600):
            try:
                collection = secretstorage.Collection(self.connection, path)
                collection.get_label()
                return collection
            except Exception:
                time.sleep(0.1)
        raise SystemExit(f"FAIL create: the new collection {path} never answered")

    def unlock(self, collection, password):
        """Unlocks `collection` with `password`, without a prompt (a textual keyring, whose password
        is empty, is locked when a daemon starts)."""
        service = DBusAddressWrapper("/org/freedesktop/secrets",
                                     "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface", self.connection)
        session = secretstorage.util.open_session(self.connection)
        service.call("UnlockWithMasterPassword", "o(oayays)", collection.collection_path,
                     format_secret(session, password, "text/plain"))

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=60)
        self.connection.close()
        self.log.close()


def clock_file(home):
    return os.path.join(home, "faketime.rc")


def set_clock(home, when):
    """Sets the clock of a daemon started with past=True (libfaketime's timestamp file)."""
    with open(clock_file(home), "w") as f:
        f.write(when + "\n")


def create(collection, label, attributes, secret, item_type=None, content_type="text/plain"):
    """CreateItem as secretstorage does, optionally with gnome-keyring's Type property."""
    if not collection.session:
        collection.session = secretstorage.util.open_session(collection.connection)
    STORED[label] = secret
    properties = {SS + "Item.Label": ("s", label), SS + "Item.Attributes": ("a{ss}", attributes)}
    if item_type is not None:
        properties[SS + "Item.Type"] = ("s", item_type)
    collection._collection.call("CreateItem", "a{sv}(oayays)b", properties,
                                format_secret(collection.session, secret, content_type), False)


def secret_tool(home, *args, stdin=b""):
    env = environment(home)
    return subprocess.run(["secret-tool", *args], env=env, input=stdin, capture_output=True, timeout=120)


def fill(home, collection):
    """The fixture set, through the clients people use."""
    STORED["Ünïcödé ✓ label"] = "hunter2 ✓".encode()
    stored = secret_tool(home, "store", "--label=Ünïcödé ✓ label", f"--collection={collection.collection_path}",
                         "service", "mail", "user", "alice", "empty", "", stdin="hunter2 ✓".encode())
    check("secret-tool stores an item", stored.returncode == 0, stored.stderr.decode(errors="replace")[-200:])
    # The same item stored again two days later: gnome-keyring keeps its Created, sets Modified.
    # Done before the other items: when it was done last, the textual file's no-label secret lost
    # its leading spaces (gnome-keyring 42.1 under libfaketime, measured), which is not what the
    # fixture is about.
    set_clock(home, LATER)
    again = secret_tool(home, "store", "--label=Ünïcödé ✓ label", f"--collection={collection.collection_path}",
                        "service", "mail", "user", "alice", "empty", "", stdin="hunter2 ✓".encode())
    check("secret-tool stores the item again", again.returncode == 0, again.stderr.decode(errors="replace")[-200:])
    item = next(i for i in collection.get_all_items() if i.get_label() == "Ünïcödé ✓ label")
    check("the item stored again has a later Modified", item.get_modified() > item.get_created(),
          f"created {item.get_created()}, modified {item.get_modified()}")
    create(collection, "explicit schema", {"xdg:schema": "org.example.Custom", "id": "7"}, "pässwörd ✓".encode())
    create(collection, "fifty attributes", {f"attr{i:02d}": f"value {i}" for i in range(50)}, b"fifty")
    create(collection, "every byte", {"kind": "bytes"}, bytes(range(256)), content_type="application/octet-stream")
    create(collection, "sixty-four KiB", {"kind": "large"}, bytes((i * 7 + 3) % 251 for i in range(65536)))
    create(collection, "network", {"server": "example.org", "protocol": "imap"}, b"net",
           item_type="org.gnome.keyring.NetworkPassword")
    create(collection, "note", {"ünï": "cödé", "": "empty name"}, b"", item_type="org.gnome.keyring.Note")
    create(collection, "", {"kind": "no label"}, b"  leading spaces, a \\ backslash and a tab\t")
    # What a GKeyFile escapes (textual keyrings), in a label and in attribute names and values.
    create(collection, " line one\nline two; a \\ b\t[x]=y #z ",
           {"kind": "escapes", " lead;semi": " lead\ttab\nnewline;semi\\back=eq#hash[x] ", "trail ": "\r\n"}, b"esc")
    count = len(list(collection.get_all_items()))
    check("every fixture item is stored", count == 9, f"{count} items")


def keyring_head(home, name):
    with open(os.path.join(home, "data/keyrings", f"{name}.keyring"), "rb") as f:
        return f.read(16)


def make_binary(home, password):
    """The fixture set in login.keyring, under `password`."""
    daemon = Daemon(home, password, past=True)
    try:
        fill(home, daemon.collection("login"))
    finally:
        daemon.stop()
    check("the daemon wrote a binary keyring", keyring_head(home, "login") == b"GnomeKeyring\n\r\0\n")


def make_textual(home, corrupt):
    """The fixture set (or three items, the middle one's secret holding a newline) in
    plain.keyring, a collection with an empty password, which gnome-keyring writes as text."""
    daemon = Daemon(home, b"unused login password", past=True)
    try:
        collection = daemon.create_collection("plain", b"")
        if corrupt:
            # The broken item last: gnome-keyring re-reads its own file when it changes, so a
            # write after it could save the phantom it read back as a whole item (seen in CI).
            create(collection, "before", {"n": "1"}, b"intact one")
            create(collection, "after", {"n": "3"}, b"intact two")
            create(collection, "broken", {"n": "2"}, b"first line\n[phantom]\nsecond=line")
        else:
            fill(home, collection)
            # A textual keyring loses secrets as gnome-keyring reads it back: written.json holds
            # the secrets as this script stored them. Not for the corrupt one: gnome-keyring
            # re-reads its own file when it changes, and reading that back replaces the items
            # under a listing (CI at load 20: "Item does not exist!"); its test reads served.json.
            dump(home, collection, "written.json", stored=STORED)
    finally:
        daemon.stop()
    check("the daemon wrote a textual keyring", keyring_head(home, "plain").startswith(b"[keyring]"))
    if corrupt:
        with open(os.path.join(home, "data/keyrings", "plain.keyring"), "rb") as f:
            content = f.read()
        # The premise: after the [keyring] group, three whole items (each with an mtime) and the
        # phantom group, which has none.
        groups = [g for g in content.split(b"\n[")[1:] if b":" not in g.split(b"]")[0]]  # not [N:attributeM]
        whole = [g for g in groups if b"\nmtime=" in g]
        check("the keyring holds the phantom and three whole items",
              len(groups) == 4 and len(whole) == 3 and any(g.startswith(b"phantom]") for g in groups),
              f"{len(groups)} item group(s), {len(whole)} with an mtime")


def digest(data):
    return {"sha256": hashlib.sha256(data).hexdigest(), "length": len(data)}


def dump(home, collection, filename, stored=None):
    """Writes down every item of `collection` as the daemon serves it over D-Bus (secrets as
    SHA-256 and length; from `stored` by label where given), with what secret-tool prints for each."""
    items = []
    for item in collection.get_all_items():
        secret = item.get_secret()
        attributes = item.get_attributes()
        entry = {
            "path": item.item_path, "label": item.get_label(), "attributes": attributes,
            "type": str(item._item.get_property("Type")), "created": item.get_created(),
            "modified": item.get_modified(),
            "secret": digest(stored[item.get_label()] if stored and item.get_label() in stored else secret),
            "contentType": item.get_secret_content_type(),
        }
        # secret-tool, the client people use, reads the same item back.
        if attributes:
            args = [a for pair in sorted(attributes.items()) for a in pair]
            found = secret_tool(home, "lookup", *args)
            entry["secretTool"] = digest(found.stdout) if found.returncode == 0 else None
        items.append(entry)
    search = secret_tool(home, "search", "--all", "--unlock", "xdg:schema", "org.example.Custom")
    listing = {
        "label": collection.get_label(),
        "created": collection._collection.get_property("Created"),
        "modified": collection._collection.get_property("Modified"),
        "items": items,
        "secretToolSearch": search.stdout.decode(errors="replace") if search.returncode == 0 else None,
    }
    with open(os.path.join(home, filename), "w") as f:
        json.dump(listing, f, ensure_ascii=False, indent=1)
    check(f"the daemon's items are written down in {filename}", True)


def serve(home, name, password):
    daemon = Daemon(home, password)
    try:
        collection = daemon.collection(name)
        if collection.is_locked():
            daemon.unlock(collection, password)
        check("the fresh daemon unlocks the keyring", not collection.is_locked(), "still locked")
        dump(home, collection, "served.json")
    finally:
        daemon.stop()


def main():
    # The test runner blocks SIGTERM and children inherit the mask: unblock it for the daemons.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    command, home = sys.argv[1], sys.argv[2]
    if command == "make-binary":
        make_binary(home, sys.stdin.buffer.read())
    elif command == "make-textual":
        make_textual(home, corrupt=False)
    elif command == "make-corrupt":
        make_textual(home, corrupt=True)
    elif command == "serve":
        serve(home, sys.argv[3], sys.stdin.buffer.read())
    else:
        raise SystemExit(f"unknown command {command}")
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
