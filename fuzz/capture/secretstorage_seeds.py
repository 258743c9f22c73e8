#!/usr/bin/python3
"""Drive puffd with python3-secretstorage over a DH session and a plain
session, so fuzz/capture-seeds.sh can record the messages.

    DBUS_SESSION_BUS_ADDRESS=... /usr/bin/python3 secretstorage_seeds.py

Stores only dummy values ("s3cret"). Every call is best effort: a failure is
printed (type only) and the script moves on, since only the traffic matters.
"""

import sys
from contextlib import closing

sys.dont_write_bytecode = True

import secretstorage  # noqa: E402
import secretstorage.collection  # noqa: E402
import secretstorage.item  # noqa: E402
import secretstorage.util  # noqa: E402
from secretstorage.dhcrypto import Session  # noqa: E402

ORIGINAL_OPEN_SESSION = secretstorage.util.open_session


def open_plain_session(connection):
    """secretstorage.util.open_session, but asking only for `plain`."""
    service = secretstorage.util.DBusAddressWrapper(
        secretstorage.util.SS_PATH, secretstorage.util.SERVICE_IFACE, connection)
    _, result = service.call("OpenSession", "sv", "plain", ("s", ""))
    session = Session()
    session.encrypted = False
    session.object_path = result
    return session


def set_mode(mode):
    fn = open_plain_session if mode == "plain" else ORIGINAL_OPEN_SESSION
    for module in (secretstorage.util, secretstorage.collection, secretstorage.item):
        module.open_session = fn


def attempt(what, fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - only the traffic matters
        print(f"{what}: {type(exc).__name__}", file=sys.stderr)
        return None


def flow(mode):
    set_mode(mode)
    with closing(secretstorage.dbus_init()) as conn:
        attempt("service available", secretstorage.check_service_availability, conn)
        collection = attempt("default collection", secretstorage.get_default_collection, conn)
        if collection is None:
            return
        attributes = {"service": "example.com", "user": "alice", "mode": mode}
        item = attempt("create item", collection.create_item, f"Puff seed {mode}", attributes,
                       b"s3cret", replace=True)
        attempt("replace item", collection.create_item, f"Puff seed {mode} v2", attributes,
                b"s3cret2", replace=True, content_type="application/octet-stream")
        attempt("collections", lambda: [c.get_label() for c in secretstorage.get_all_collections(conn)])
        attempt("collection label", collection.get_label)
        attempt("collection locked", collection.is_locked)
        attempt("collection items", lambda: [i.get_label() for i in collection.get_all_items()])
        found = attempt("search collection", lambda: list(collection.search_items({"user": "alice"}))) or []
        attempt("search service", lambda: list(secretstorage.search_items(conn, {"service": "example.com"})))
        for it in found[:1] + ([item] if item else []):
            attempt("get secret", it.get_secret)
            attempt("get secret type", it.get_secret_content_type)
            attempt("get attributes", it.get_attributes)
            attempt("get label", it.get_label)
            attempt("set label", it.set_label, "Puff seed ✓ ünïcode")
            attempt("set attributes", it.set_attributes, {"service": "example.com", "user": "bob", "k": "v"})
            attempt("created", it.get_created)
            attempt("modified", it.get_modified)
            attempt("set secret", it.set_secret, b"s3cret3", "text/plain")
            attempt("item locked", it.is_locked)
        attempt("empty secret", collection.create_item, "Puff empty", {"case": "empty"}, b"", replace=False)
        new = attempt("create collection", secretstorage.create_collection, conn, "Puff fuzz seeds")
        if new is not None:
            attempt("item in new", new.create_item, "in new", {"case": "new"}, b"s3cret", replace=False)
            attempt("lock new", new.lock)
            attempt("unlock new", new.unlock)
            attempt("delete new", new.delete)
        if item is not None:
            attempt("delete item", item.delete)


for m in ("dh", "plain"):
    flow(m)
