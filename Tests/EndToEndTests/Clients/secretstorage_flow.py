#!/usr/bin/python3
"""secretstorage_flow.py - drive org.freedesktop.secrets with python3-secretstorage.

Run with Debian's interpreter (the pyenv python3 on PATH lacks the modules):
    /usr/bin/python3 secretstorage_flow.py [--lenient]

The whole flow runs twice: `dh:` cases use the normal DH session
(dh-ietf1024-sha256-aes128-cbc-pkcs7) and FAIL if secretstorage silently fell
back to plain; `plain:` cases force the `plain` algorithm by replacing
secretstorage's `open_session` (secretstorage 3.3.3 imports it by name into
secretstorage.collection and secretstorage.item) and FAIL if the forcing did
not take effect.

Checks per mode: CreateCollection with a unicode label read back by path;
default collection (alias path + ReadAlias); CreateItem with replace=False
and replace=True; search (collection and service); get/set secret; content
type; created/modified timestamps; unicode label/attribute round trip; a
64 KiB non-UTF-8 secret byte-exact; an empty secret; a fresh child process
(dbus_init) finding an item stored by this one; Item.Delete; Lock of a
collection created here, then Unlock with the (dismissing) prompter ->
unlock() reports dismissed and the collection stays locked. `login` is never
locked.

--lenient (or PUFF_CLIENT_LENIENT=1) is for validating against
gnome-keyring only: CreateCollection may be dismissed by the prompter (GK
always prompts for a new keyring password; the collection is then created
through GK's private CreateWithMasterPassword), and a secret stored as
application/octet-stream may come back as text/plain (GK always says
text/plain; Puff returns non-text types verbatim, secret-service.md 9.4), and
Attributes may gain xdg:schema=org.freedesktop.Secret.Generic (GK 9.2 quirk).

Never prints secret or attribute values.
"""

import json
import os
import subprocess
import sys
import uuid
from contextlib import closing

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import secretstorage  # noqa: E402
import secretstorage.collection  # noqa: E402
import secretstorage.item  # noqa: E402
import secretstorage.util  # noqa: E402
from secretstorage.dhcrypto import Session  # noqa: E402
from secretstorage.exceptions import (  # noqa: E402
    ItemNotFoundException, LockedException, PromptDismissedException)

from harness import HANG_GUARD, Failure, Runner, check, lenient_from_argv, need  # noqa: E402

LENIENT = lenient_from_argv()
ALIAS_DEFAULT = "/org/freedesktop/secrets/aliases/default"
COLLECTION_PREFIX = "/org/freedesktop/secrets/collection/"
GK_INTERNAL = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"

_ORIGINAL_OPEN_SESSION = secretstorage.util.open_session
_plain_opened = []  # sessions opened through the forced-plain path


def _open_plain_session(connection):
    """Replacement for secretstorage.util.open_session that only asks for
    `plain` (mirrors the library's own fallback branch)."""
    service = secretstorage.util.DBusAddressWrapper(
        secretstorage.util.SS_PATH, secretstorage.util.SERVICE_IFACE, connection)
    output, result = service.call("OpenSession", "sv", "plain", ("s", ""))
    session = Session()
    session.encrypted = False
    session.object_path = result
    _plain_opened.append(result)
    return session


def set_mode(mode):
    fn = _open_plain_session if mode == "plain" else _ORIGINAL_OPEN_SESSION
    for module in (secretstorage.util, secretstorage.collection, secretstorage.item):
        module.open_session = fn


def check_session_mode(mode, session):
    check(session is not None, "no session was opened")
    if mode == "plain":
        check(session.encrypted is False and session.aes_key is None,
              "forcing plain did not take effect (session is encrypted)")
        check(session.object_path in _plain_opened,
              "session was not opened by the forced-plain path")
    else:
        check(session.encrypted is True,
              "secretstorage fell back to plain: service refused the DH algorithm")
        check(session.aes_key is not None and len(session.aes_key) == 16,
              "DH session has no 16-byte AES key")
    check(session.object_path.startswith("/org/freedesktop/secrets/session/"),
          "session path is not under /org/freedesktop/secrets/session/")


def without_gk_schema(attrs):
    """--lenient only: GK may inject xdg:schema=org.freedesktop.Secret.Generic
    after reloading its keyring file (secret-service.md 9.2); Puff must not."""
    if LENIENT and attrs.get("xdg:schema") == "org.freedesktop.Secret.Generic":
        del attrs["xdg:schema"]
    return attrs


def item_paths(items):
    return sorted(i.item_path for i in items)


# ---------------------------------------------------------------- child mode

def child_main():
    """`--child MODE`: fresh process; stdin is JSON {"attrs": ..., "secret_hex": ...}.
    Find the parent's item by attrs and compare its secret byte-exact.
    Prints only a count and booleans."""
    mode = sys.argv[2]
    set_mode(mode)
    request = json.load(sys.stdin)
    attrs, expected = request["attrs"], bytes.fromhex(request["secret_hex"])
    with closing(secretstorage.dbus_init()) as conn:
        items = list(secretstorage.search_items(conn, attrs))
        same = len(items) == 1 and items[0].get_secret() == expected
        encrypted = items[0].session.encrypted if items else None
        print(f"child: found={len(items)} secret_equal={same} encrypted={encrypted}")
    want_encrypted = mode == "dh"
    sys.exit(0 if same and encrypted == want_encrypted else 1)


# ---------------------------------------------------------------- the flow

def run_flow(r, mode):
    set_mode(mode)
    run_id = uuid.uuid4().hex
    conn = secretstorage.dbus_init()
    p = f"{mode}: "
    st = {}  # state shared between cases

    # --- session algorithm
    def session_algorithm():
        st["session"] = secretstorage.util.open_session(conn)
        check_session_mode(mode, st["session"])
    r.case(p + "session algorithm", session_algorithm)

    # --- collection created here (the only one this driver locks)
    label = f"Puff E2E ünï 🔑 {mode} {run_id[:8]}"

    def create_collection():
        try:
            coll = secretstorage.create_collection(conn, label)
        except PromptDismissedException:
            if not LENIENT:
                raise Failure("CreateCollection needed a prompt and it was dismissed")
            coll = gk_create_collection(conn, label)
        check(coll.collection_path.startswith(COLLECTION_PREFIX),
              "collection path is not under /org/freedesktop/secrets/collection/")
        again = secretstorage.Collection(conn, coll.collection_path)
        check(again.get_label() == label, "label read back by path differs")
        check(not again.is_locked(), "new collection is locked")
        listed = [c.collection_path for c in secretstorage.get_all_collections(conn)]
        check(coll.collection_path in listed, "new collection missing from Collections")
        st["own"] = coll
    r.case(p + "create collection with unicode label, read back by path", create_collection)

    # --- default collection
    def default_collection():
        coll = secretstorage.get_default_collection(conn)
        check(coll.collection_path == ALIAS_DEFAULT, "default collection not at aliases/default")
        check(not coll.is_locked(), "default collection is locked")
        real = secretstorage.get_collection_by_alias(conn, "default")
        check(real.collection_path.startswith(COLLECTION_PREFIX),
              "ReadAlias(default) is not a collection path")
        check(real.get_label() == coll.get_label(), "alias and real path disagree on Label")
        st["default"] = coll
    r.case(p + "default collection via alias", default_collection)

    attrs = {"puff-e2e": run_id, "mode": mode, "user": "alice"}

    # --- create item, replace=False
    def create_item():
        coll = need(st.get("default"), "default collection")
        item = coll.create_item("Puff item", attrs, b"first", replace=False)
        check(item.item_path.startswith(COLLECTION_PREFIX),
              "item path is not under a real collection path")
        check(item.get_secret() == b"first", "secret read back differs")
        check_session_mode(mode, item.session)
        st["item"] = item
    r.case(p + "create item (replace=False)", create_item)

    def replace_true():
        coll, first = need(st.get("default"), "default"), need(st.get("item"), "create item")
        item = coll.create_item("Puff item v2", dict(attrs), b"second", replace=True)
        check(item.item_path == first.item_path, "replace=True returned a different item path")
        check(item.get_secret() == b"second", "secret not replaced")
        check(item.get_label() == "Puff item v2", "label not replaced")
        found = item_paths(coll.search_items(attrs))
        check(found == [first.item_path], f"expected 1 item after replace, search found {len(found)}")
    r.case(p + "create item replace=True, identical attributes -> same path, new secret", replace_true)

    def replace_false():
        coll, first = need(st.get("default"), "default"), need(st.get("item"), "create item")
        item = coll.create_item("Puff item 3", dict(attrs), b"third", replace=False)
        check(item.item_path != first.item_path, "replace=False reused the existing item")
        found = item_paths(coll.search_items(attrs))
        check(found == sorted([first.item_path, item.item_path]),
              f"expected 2 items, search found {len(found)}")
        check(first.get_secret() == b"second", "first item's secret changed")
        st["item3"] = item
    r.case(p + "create item replace=False, identical attributes -> second item", replace_false)

    def search():
        first, third = need(st.get("item"), "create item"), need(st.get("item3"), "replace=False")
        want = sorted([first.item_path, third.item_path])
        check(item_paths(secretstorage.search_items(conn, attrs)) == want,
              "service SearchItems differs from expected set")
        check(item_paths(st["default"].search_items({"puff-e2e": run_id})) == want,
              "subset query did not find both items")
        check(item_paths(st["default"].search_items({"puff-e2e": run_id, "user": "bob"})) == [],
              "non-matching value still matched")
        check(item_paths(st["default"].search_items({"puff-e2e": run_id.upper()})) == [],
              "matching is not case-sensitive")
        check(item_paths(st["default"].search_items({"puff-e2e": run_id, "nokey": "x"})) == [],
              "query with an absent attribute name matched")
    r.case(p + "search (service + collection, subset, no-match)", search)

    def get_set_secret():
        item = need(st.get("item3"), "replace=False")
        item.set_secret(b"changed secret")
        check(item.get_secret() == b"changed secret", "secret after SetSecret differs")
        fresh = secretstorage.Item(conn, item.item_path)  # new session
        check(fresh.get_secret() == b"changed secret", "secret via a new session differs")
        check_session_mode(mode, fresh.session)
    r.case(p + "get/set secret", get_set_secret)

    def content_type():
        item = need(st.get("item3"), "replace=False")
        check(item.get_secret_content_type() == "text/plain",
              "content type of a text secret is not exactly text/plain")
        item.set_secret(b"\x00\x01binary", content_type="application/octet-stream")
        got = item.get_secret_content_type()
        allowed = {"application/octet-stream"} | ({"text/plain"} if LENIENT else set())
        check(got in allowed, f"content type after octet-stream SetSecret is {got!r}")
        item.set_secret(b"text again", content_type="text/plain")
    r.case(p + "get_secret_content_type", content_type)

    def timestamps():
        item = need(st.get("item3"), "replace=False")
        created, modified = item.get_created(), item.get_modified()
        check(created > 0, "Created is 0")
        check(modified > 0, "Modified is 0")
        check(modified >= created, "Modified < Created")
    r.case(p + "created/modified > 0", timestamps)

    uni_attrs = {"puff-e2e-uni": run_id, "ключ": "значение ✓", "emoji 🔐": "värde 🦊",
                 "empty": "", "spaces and=signs": " a = b "}
    uni_label = "Ünïcødé label ✓ 🗝 ж"

    def unicode_round_trip():
        coll = need(st.get("default"), "default")
        item = coll.create_item(uni_label, uni_attrs, "pässwörd ✓".encode())
        got = secretstorage.Item(conn, item.item_path)
        check(got.get_label() == uni_label, "label differs after round trip")
        attrs_back = without_gk_schema(got.get_attributes())
        check(attrs_back == uni_attrs,
              f"attributes differ after round trip ({len(attrs_back)} vs {len(uni_attrs)} keys)")
        check(got.get_secret() == "pässwörd ✓".encode(), "unicode secret differs")
        found = item_paths(coll.search_items({"ключ": "значение ✓", "puff-e2e-uni": run_id}))
        check(found == [item.item_path], "search by unicode attribute failed")
        new_attrs = dict(uni_attrs, **{"ключ": "другое"})
        got.set_attributes(new_attrs)
        got.set_label(uni_label + " 2")
        back = without_gk_schema(got.get_attributes())
        check(back == new_attrs, "attributes differ after Set(Attributes)")
        check(got.get_label() == uni_label + " 2", "label differs after Set(Label)")
        st["uni"] = item
    r.case(p + "unicode label and attributes round trip", unicode_round_trip)

    big = b"\xff\xfe\x80" + os.urandom(64 * 1024 - 3)

    def big_binary():
        coll = need(st.get("default"), "default")
        try:
            big.decode("utf-8")
            raise Failure("test secret is valid UTF-8")
        except UnicodeDecodeError:
            pass
        item = coll.create_item("Puff 64k", {"puff-e2e-big": run_id}, big,
                                content_type="application/octet-stream")
        got = secretstorage.Item(conn, item.item_path).get_secret()
        check(len(got) == len(big), f"length {len(got)} != {len(big)}")
        check(got == big, "64 KiB secret not byte-exact")
        st["big"] = item
    r.case(p + "64 KiB binary secret byte-exact", big_binary)

    def empty_secret():
        coll = need(st.get("default"), "default")
        item = coll.create_item("Puff empty", {"puff-e2e-empty": run_id}, b"")
        got = secretstorage.Item(conn, item.item_path).get_secret()
        check(got == b"", f"empty secret came back with length {len(got)}")
        st["empty"] = item
    r.case(p + "empty secret", empty_secret)

    def fresh_process():
        need(st.get("big"), "64 KiB secret")
        request = json.dumps({"attrs": {"puff-e2e-big": run_id}, "secret_hex": big.hex()})
        res = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode],
                             input=request, capture_output=True, text=True, timeout=HANG_GUARD)
        status = res.stdout.strip().splitlines()[-1:] or ["(no output)"]
        check(res.returncode == 0, f"child exited {res.returncode}: {status[0]}")
    r.case(p + "dbus_init in a fresh process finds parent's item", fresh_process)

    def delete():
        coll = need(st.get("default"), "default")
        item = need(st.get("item3"), "replace=False")
        item.delete()
        try:
            secretstorage.Item(conn, item.item_path)
            raise Failure("deleted item still answers Label")
        except ItemNotFoundException:
            pass
        check(item.item_path not in item_paths(coll.search_items(attrs)), "deleted item still found")
        check(item.item_path not in item_paths(coll.get_all_items()), "deleted item still in Items")
    r.case(p + "delete item", delete)

    def lock_own():
        coll = need(st.get("own"), "create collection")
        item = coll.create_item("Puff own", {"puff-e2e-own": run_id}, b"own")
        coll.lock()
        check(coll.is_locked(), "collection not locked after Lock")
        check(secretstorage.Item(conn, item.item_path).is_locked(), "item in locked collection not locked")
        try:
            item.get_secret()
            raise Failure("get_secret on a locked item succeeded")
        except LockedException:
            pass
        default = need(st.get("default"), "default")
        check(not default.is_locked(), "locking own collection locked the default collection")
    r.case(p + "lock own collection -> is_locked()", lock_own)

    def unlock_dismissed():
        coll = need(st.get("own"), "create collection")
        check(coll.is_locked(), "collection not locked before Unlock")
        dismissed = coll.unlock()
        check(dismissed is True, "unlock() did not report a dismissed prompt")
        check(coll.is_locked(), "collection unlocked although the prompt was dismissed")
    r.case(p + "unlock with dismissing prompter -> dismissed, stays locked", unlock_dismissed)

    # best-effort cleanup, not a case (deleting a locked collection is the daemon's choice)
    for key in ("item", "uni", "big", "empty"):
        try:
            st[key].delete()
        except Exception:  # noqa: BLE001
            pass
    try:
        if "own" in st:
            st["own"]._collection.call("Delete", "")
    except Exception:  # noqa: BLE001
        pass
    conn.close()


def gk_create_collection(conn, label):
    """gnome-keyring only (--lenient): create a collection without a prompt via
    GK's private interface, with a non-empty password so it can't be unlocked
    silently later."""
    session = _ORIGINAL_OPEN_SESSION(conn)
    gk = secretstorage.util.DBusAddressWrapper(secretstorage.util.SS_PATH, GK_INTERNAL, conn)
    path, = gk.call("CreateWithMasterPassword", "a{sv}(oayays)",
                    {"org.freedesktop.Secret.Collection.Label": ("s", label)},
                    secretstorage.util.format_secret(session, b"puff-e2e-pw", "text/plain"))
    return secretstorage.Collection(conn, path)


def main():
    if sys.argv[1:2] == ["--child"]:
        child_main()
    r = Runner()
    for mode in ("dh", "plain"):
        run_flow(r, mode)
    r.finish()


if __name__ == "__main__":
    main()
