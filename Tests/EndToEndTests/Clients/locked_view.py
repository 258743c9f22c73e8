#!/usr/bin/python3
"""locked_view.py - what python3-secretstorage reads of a collection and its items, without
unlocking anything, for the test that compares a locked collection after Lock and after a restart.

    /usr/bin/python3 locked_view.py COLLECTION_PATH

Prints one JSON object: the collection's label and locked state, and per item path its label,
attributes, created, modified and locked state. No secret is read.
"""

import json
import sys
from contextlib import closing

import secretstorage


def main():
    with closing(secretstorage.dbus_init()) as connection:
        collection = secretstorage.Collection(connection, sys.argv[1])
        view = {"label": collection.get_label(), "locked": collection.is_locked(), "items": {}}
        for item in collection.get_all_items():
            view["items"][item.item_path] = {
                "label": item.get_label(),
                "attributes": item.get_attributes(),
                "created": item.get_created(),
                "modified": item.get_modified(),
                "locked": item.is_locked(),
            }
    print(json.dumps(view, sort_keys=True))


if __name__ == "__main__":
    main()
