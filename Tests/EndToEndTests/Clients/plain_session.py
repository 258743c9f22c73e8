#!/usr/bin/python3
"""plain_session.py - whether puffd serves plain sessions, and whether DH clients still work.

    /usr/bin/python3 plain_session.py

Calls Service.OpenSession("plain", "") with dbus-python and records the D-Bus error name and
message (or "opened"); then stores an item with python secretstorage (a DH session), reads it
back and compares. Prints one JSON line: {"plain": ..., "message": ..., "dh_roundtrip": bool}.
Never prints a secret.
"""

import json
from contextlib import closing

import dbus
import secretstorage

SECRET = b"plain-session-e2e-secret"


def main():
    result = {"plain": "opened", "message": "", "dh_roundtrip": False}
    service = dbus.SessionBus().get_object("org.freedesktop.secrets", "/org/freedesktop/secrets")
    try:
        service.OpenSession("plain", dbus.String("", variant_level=1), dbus_interface="org.freedesktop.Secret.Service")
    except dbus.exceptions.DBusException as error:
        result["plain"] = error.get_dbus_name()
        result["message"] = error.get_dbus_message()
    with closing(secretstorage.dbus_init()) as connection:
        collection = secretstorage.get_default_collection(connection)
        item = collection.create_item("plain e2e", {"service": "plain-e2e"}, SECRET, replace=True)
        result["dh_roundtrip"] = item.get_secret() == SECRET
    print(json.dumps(result))


if __name__ == "__main__":
    main()
