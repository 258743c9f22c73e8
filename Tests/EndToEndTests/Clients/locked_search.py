#!/usr/bin/python3
"""locked_search.py - which items python3-secretstorage's search finds, and whether each is locked,
for the test of a collection's locked_search (issue 24 item 6).

    /usr/bin/python3 locked_search.py NAME VALUE

Prints one JSON object: item path -> locked (bool), for every item whose attributes include
NAME=VALUE, as SearchItems returns them. Nothing is unlocked and no secret is read.
"""

import json
import sys
from contextlib import closing

import secretstorage


def main():
    with closing(secretstorage.dbus_init()) as connection:
        found = {
            item.item_path: item.is_locked()
            for item in secretstorage.search_items(connection, {sys.argv[1]: sys.argv[2]})
        }
    print(json.dumps(found, sort_keys=True))


if __name__ == "__main__":
    main()
