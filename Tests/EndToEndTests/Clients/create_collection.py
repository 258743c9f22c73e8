#!/usr/bin/python3
"""create_collection.py - libsecret's secret_collection_create, as an application calls it.

    /usr/bin/python3 create_collection.py LABEL [ALIAS]

Creates a collection on the bus of DBUS_SESSION_BUS_ADDRESS through libsecret (GObject
introspection), which performs the prompt the provider hands out and waits for its Completed.
Prints the new collection's object path and exits 0; prints `no collection` and exits 3 when the
prompt was dismissed; prints the error and exits 1 when the call failed.
"""

import sys

import gi

gi.require_version("Secret", "1")
from gi.repository import GLib, Secret  # noqa: E402


def main():
    label = sys.argv[1]
    alias = sys.argv[2] if len(sys.argv) > 2 else None
    try:
        service = Secret.Service.get_sync(Secret.ServiceFlags.NONE, None)
        collection = Secret.Collection.create_sync(service, label, alias, Secret.CollectionCreateFlags.NONE, None)
    except GLib.Error as error:
        print(f"error: {error.message}")
        return 1
    if collection is None:
        print("no collection")
        return 3
    print(collection.get_object_path())
    return 0


if __name__ == "__main__":
    sys.exit(main())
