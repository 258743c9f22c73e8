#!/usr/bin/python3
"""access_read.py - read one item with python3-secretstorage, as its own executable
(/usr/bin/python3.X), for the access-rule tests.

    /usr/bin/python3 access_read.py NAME VALUE

Looks the item up by one attribute, reads its secret with Item.GetSecret and prints one JSON
line: {"found": bool, "matches": bool, "error": D-Bus error name or ""}. The secret is compared
with $EXPECTED_SECRET and never printed.
"""

import json
import os
import sys
from contextlib import closing

import secretstorage
from jeepney.wrappers import DBusErrorResponse


def main():
    name, value = sys.argv[1], sys.argv[2]
    result = {"found": False, "matches": False, "error": ""}
    with closing(secretstorage.dbus_init()) as connection:
        items = list(secretstorage.search_items(connection, {name: value}))
        if items:
            result["found"] = True
            try:
                secret = items[0].get_secret()
                result["matches"] = secret == os.environ.get("EXPECTED_SECRET", "").encode()
            except DBusErrorResponse as error:
                result["error"] = error.name
    print(json.dumps(result))


if __name__ == "__main__":
    main()
