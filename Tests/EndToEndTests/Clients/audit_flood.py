#!/usr/bin/python3
"""audit_flood.py - reads one item's secret N times with python3-secretstorage, as a client
flooding the audit log would.

    /usr/bin/python3 audit_flood.py NAME VALUE COUNT

Finds the item by one attribute and calls Item.GetSecret COUNT times on one connection. Prints
`read N` (how many reads returned a secret); never prints the secret.
"""

import sys
from contextlib import closing

import secretstorage


def main():
    name, value, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    read = 0
    with closing(secretstorage.dbus_init()) as connection:
        item = next(iter(secretstorage.search_items(connection, {name: value})))
        for _ in range(count):
            if item.get_secret():
                read += 1
    print(f"read {read}", flush=True)


if __name__ == "__main__":
    main()
