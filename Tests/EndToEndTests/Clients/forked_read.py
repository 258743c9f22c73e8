#!/usr/bin/python3
"""forked_read.py - read one item from a child whose parent made the connection and has exited,
so `/proc/<pid>/exe` of the pid the bus names cannot be read (issue 24 item 9).

    /usr/bin/python3 forked_read.py NAME VALUE

This process forks a connector; the connector connects with python3-secretstorage, finds the
item by one attribute (so puffd learns and keeps its executable's path), forks a reader, and
exits. Once the connector is reaped, the reader reads the secret over the inherited connection.
Prints one JSON line: {"found": bool, "matches": bool, "error": D-Bus error name or "",
"connector_gone": bool}. The secret is compared with $EXPECTED_SECRET and never printed.
"""

import json
import os
import sys

import secretstorage
from jeepney.wrappers import DBusErrorResponse


def reader(item, go, report):
    """The grandchild: waits for the word, reads, reports, exits."""
    os.read(go, 1)
    result = {"found": True, "matches": False, "error": ""}
    try:
        secret = item.get_secret()
        result["matches"] = secret == os.environ.get("EXPECTED_SECRET", "").encode()
    except DBusErrorResponse as error:
        result["error"] = error.name
    except Exception as error:  # noqa: BLE001 - reported as the error
        result["error"] = type(error).__name__
    os.write(report, json.dumps(result).encode())
    os._exit(0)


def connector(name, value, go, report):
    """The child: connects, finds the item, forks the reader, exits."""
    connection = secretstorage.dbus_init()
    items = list(secretstorage.search_items(connection, {name: value}))
    if not items:
        os.write(report, json.dumps({"found": False, "matches": False, "error": ""}).encode())
        os._exit(0)
    child = os.fork()
    if child == 0:
        reader(items[0], go, report)
    os._exit(0)


def main():
    name, value = sys.argv[1], sys.argv[2]
    go_read, go_write = os.pipe()
    report_read, report_write = os.pipe()
    child = os.fork()
    if child == 0:
        connector(name, value, go_read, report_write)
    os.close(report_write)
    os.waitpid(child, 0)  # reaped: /proc/<child> is gone
    connector_gone = not os.path.exists(f"/proc/{child}")
    os.write(go_write, b"g")
    text = b""
    while chunk := os.read(report_read, 4096):
        text += chunk
    result = json.loads(text.decode() or '{"found": false, "matches": false, "error": "no report"}')
    result["connector_gone"] = connector_gone
    print(json.dumps(result))


if __name__ == "__main__":
    main()
