#!/usr/bin/python3
"""delete_collection.py - a client deleting a collection as python3-secretstorage's
Collection.delete() does (Collection.Delete, then the prompt it returns, if any, run with
secretstorage's exec_prompt), but without its ensure_not_locked(): a hostile client may call
Delete on a locked collection too.

    /usr/bin/python3 delete_collection.py COLLECTION_PATH

Prints one JSON line: {"deleted": bool, "prompted": bool, "dismissed": bool, "error": ""}.
"""

import json
import sys
from contextlib import closing

import secretstorage
from secretstorage.util import exec_prompt


def main():
    result = {"deleted": False, "prompted": False, "dismissed": False, "error": ""}
    with closing(secretstorage.dbus_init()) as connection:
        collection = secretstorage.Collection(connection, sys.argv[1])
        try:
            (prompt,) = collection._collection.call("Delete", "")
            if prompt != "/":
                result["prompted"] = True
                dismissed, _ = exec_prompt(connection, prompt)
                result["dismissed"] = bool(dismissed)
            result["deleted"] = not result["dismissed"]
        except Exception as error:  # noqa: BLE001 - the test reads whatever went wrong
            result["error"] = "%s: %s" % (type(error).__name__, error)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
