#!/usr/bin/python3
"""control_delete.py - a hostile client of the user's own uid calling io.puff.Control1's
DeleteCollection directly (no puffctl, no terminal, no passcode), with jeepney.

    /usr/bin/python3 control_delete.py COLLECTION

Calls it at io.puff.Control, else (older puffd) at org.freedesktop.secrets; tries the (s, a{sv})
signature, then the older (s). Prints one JSON line:
{"error": "" when a call succeeded, else the D-Bus error name and message}.
"""

import json
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse, unwrap_msg


def main():
    collection = sys.argv[1]
    result = {"error": ""}
    with open_dbus_connection(bus="SESSION") as connection:
        for bus_name in ("io.puff.Control", "org.freedesktop.secrets"):
            control = DBusAddress("/io/puff/Control", bus_name=bus_name, interface="io.puff.Control1")
            for signature, body in (("sa{sv}", (collection, {})), ("s", (collection,))):
                try:
                    unwrap_msg(
                        connection.send_and_get_reply(new_method_call(control, "DeleteCollection", signature, body)))
                    result["error"] = ""
                    print(json.dumps(result))
                    return
                except DBusErrorResponse as error:
                    result["error"] = "%s: %s" % (error.name, error.data)
                    if error.name in ("org.freedesktop.DBus.Error.ServiceUnknown",
                                      "org.freedesktop.DBus.Error.NameHasNoOwner"):
                        break
                    if "nobody confirmed" in str(error.data):
                        print(json.dumps(result))
                        return
    print(json.dumps(result))


if __name__ == "__main__":
    main()
