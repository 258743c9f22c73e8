#!/usr/bin/python3
"""import_check.py - check, with python3-secretstorage, that a collection holds items exactly.

Run with Debian's interpreter: /usr/bin/python3 import_check.py COLLECTION_ID
Standard input: a JSON list of {"label", "attributes", "secret_hex", "created", "modified"}
("created"/"modified" may be null: not checked) and optionally "content_type". For each expected item exactly one item of the
collection must have its attributes; its label, attributes, secret bytes and times must match.
Also checks the collection holds no other items ("count").

Prints "ok N" on success, else one "FAIL item I: WHAT" line per problem. Never prints a secret,
a label or an attribute value.
"""

import json
import sys

import secretstorage


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
        if len(exact) != 1:
            failures.append("FAIL item %d: %d items have its attributes" % (index, len(exact)))
            continue
        got = exact[0]
        if got.get_label() != item["label"]:
            failures.append("FAIL item %d: label differs" % index)
        if got.get_secret() != bytes.fromhex(item["secret_hex"]):
            failures.append("FAIL item %d: secret differs" % index)
        if "content_type" in item and got.get_secret_content_type() != item["content_type"]:
            failures.append("FAIL item %d: content type differs" % index)
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
