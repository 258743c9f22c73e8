#!/usr/bin/python3
"""import_check.py - check, with python3-secretstorage, that a collection holds items exactly.

Run with Debian's interpreter: /usr/bin/python3 import_check.py COLLECTION_ID
Standard input: a JSON list of {"label", "attributes", "secret_hex", "created", "modified"}
("created"/"modified" may be null: not checked), optionally with "content_type" (checked when
present) and "secret_sha256" (the secret's SHA-256 in hex, checked instead of "secret_hex" when
the test knows the secret only by its digest, as gnome_keyring.py writes it down). For each
expected item exactly one item of the collection must have its attributes (or, where several
have them, its attributes and label); its label, attributes, secret bytes, content type and
times must match. Also checks the collection holds no other items ("count").

Prints "ok N" on success, else one "FAIL item I: WHAT" line per problem. Never prints a secret,
a label or an attribute value.
"""

import hashlib
import json
import sys

import secretstorage


def near(collection, item):
    """Which attribute names differ on the items with the expected label (names only)."""
    notes = []
    for other in collection.get_all_items():
        if other.get_label() == item["label"]:
            got, want = other.get_attributes(), item["attributes"]
            differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
            notes.append("; an item with its label differs in %r" % differ)
    return "".join(notes)


def main():
    collection_id = sys.argv[1]
    expected = json.load(sys.stdin)
    connection = secretstorage.dbus_init()
    path = "/org/freedesktop/secrets/collection/" + collection_id
    collection = secretstorage.Collection(connection, path)
    failures = []
    for index, item in enumerate(expected):
        found = list(collection.search_items(item["attributes"]))
        exact = [f for f in found if f.get_attributes() == item["attributes"]]
        if len(exact) > 1:
            # Items without attributes (KDBX entries with no custom field, user or URL): by label.
            exact = [f for f in exact if f.get_label() == item["label"]]
        if len(exact) != 1:
            failures.append("FAIL item %d: %d items have its attributes%s" % (index, len(exact), near(collection, item)))
            continue
        got = exact[0]
        if got.get_label() != item["label"]:
            failures.append("FAIL item %d: label differs" % index)
        secret = got.get_secret()
        if item.get("secret_sha256") is not None:
            if hashlib.sha256(secret).hexdigest() != item["secret_sha256"]:
                failures.append("FAIL item %d: secret differs (%d bytes)" % (index, len(secret)))
        elif secret != bytes.fromhex(item["secret_hex"]):
            failures.append("FAIL item %d: secret differs (%d bytes)" % (index, len(secret)))
        if item.get("content_type") is not None and got.get_secret_content_type() != item["content_type"]:
            failures.append("FAIL item %d: content type %r, %r expected"
                            % (index, got.get_secret_content_type(), item["content_type"]))
        if item.get("created") is not None and got.get_created() != item["created"]:
            failures.append("FAIL item %d: created differs" % index)
        if item.get("modified") is not None and got.get_modified() != item["modified"]:
            failures.append("FAIL item %d: modified differs" % index)
    total = len(list(collection.get_all_items()))
    if total != len(expected):
        failures.append("FAIL count: %d items, %d expected" % (total, len(expected)))
    for line in failures:
        print(line)
    if not failures:
        print("ok %d" % len(expected))
    sys.exit(1 if failures else 0)


main()
