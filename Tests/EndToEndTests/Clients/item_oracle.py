"""What a real client sees of one item: python secretstorage (jeepney) reads the item whose
attributes are exactly those given, and compares it with what the test expects.

Input (stdin, JSON): {"attributes": {...}, "label": "...", "secret_hex": "..."}.
Output (stdout, JSON): {"count": N, "label_ok": bool, "attributes_ok": bool, "secret_ok": bool,
"content_type": "..."}: Booleans only, so no label, attribute value or secret is ever printed.
The search uses every expected attribute; the match must then have exactly those attributes.
"""

import json
import sys

import secretstorage


def main():
    expected = json.load(sys.stdin)
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    if collection.is_locked():
        print(json.dumps({"count": -1}))
        return
    items = list(collection.search_items(expected["attributes"]))
    report = {"count": len(items)}
    if len(items) == 1:
        item = items[0]
        report["label_ok"] = item.get_label() == expected["label"]
        report["attributes_ok"] = item.get_attributes() == expected["attributes"]
        report["secret_ok"] = item.get_secret() == bytes.fromhex(expected["secret_hex"])
        report["content_type"] = item.get_secret_content_type()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
