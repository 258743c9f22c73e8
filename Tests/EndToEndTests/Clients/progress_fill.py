#!/usr/bin/python3
"""progress_fill.py - gives the default collection a journal big enough that
`puffctl compact` runs for a while (ProgressBarTests): COUNT items, each with a
random secret of SIZE bytes, stored through python secretstorage.

    /usr/bin/python3 progress_fill.py COUNT SIZE

Case: "filled COUNT items" when every CreateItem was served. Never prints a
secret or an attribute value.
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import secretstorage  # noqa: E402
from harness import Runner, check  # noqa: E402


def fill(count, size):
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    for number in range(count):
        collection.create_item(
            f"progress {number}", {"service": "progress-e2e", "n": str(number)}, os.urandom(size), replace=False)
    found = list(collection.search_items({"service": "progress-e2e"}))
    check(len(found) == count, f"{len(found)} items found of {count}")


def main():
    count, size = int(sys.argv[1]), int(sys.argv[2])
    runner = Runner()
    runner.case(f"filled {count} items", fill, count, size)
    runner.finish()


if __name__ == "__main__":
    main()
