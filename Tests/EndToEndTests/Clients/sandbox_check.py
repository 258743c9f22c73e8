#!/usr/bin/python3
"""sandbox_check.py - run by sandbox.py inside a sandbox: checks that the sandbox is what the
issue 28 tests assume (SandboxHarnessTests).

    sandbox.py ... -- /usr/bin/python3 sandbox_check.py APP_ID --control visible|hidden --hidden PATH

Cases: /.flatpak-info names APP_ID and cannot be written; HOME is the app's own writable folder;
PATH (the daemon's home) does not exist inside; the bus socket is /run/flatpak/bus; puffd's
Secret Service answers a Ping; io.puff.Control answers one (`visible`, the app has the bus itself)
or is ServiceUnknown (`hidden`, behind xdg-dbus-proxy with only --talk=org.freedesktop.secrets).
"""

import argparse
import configparser
import errno
import os

import dbus

from harness import Failure, Runner, check

parser = argparse.ArgumentParser()
parser.add_argument("app")
parser.add_argument("--control", choices=["visible", "hidden"], required=True)
parser.add_argument("--hidden", required=True)
options = parser.parse_args()
runner = Runner()


def info_names_the_app():
    info = configparser.ConfigParser(interpolation=None)
    check(info.read("/.flatpak-info") == ["/.flatpak-info"], "/.flatpak-info unreadable")
    name = info.get("Application", "name", fallback=None)
    check(name == options.app, f"name is {name!r}")


def info_is_read_only():
    try:
        open("/.flatpak-info", "a").close()
    except OSError as error:
        check(error.errno in (errno.EROFS, errno.EACCES), f"write failed with {errno.errorcode[error.errno]}")
        return
    raise Failure("/.flatpak-info was writable")


def home_is_the_apps():
    home = os.environ.get("HOME", "")
    check(home.endswith(f"/home/{options.app}"), "HOME is not the app's folder")
    with open(os.path.join(home, "written"), "w") as f:
        f.write("x")


def bus_is_the_flatpak_socket():
    check(os.environ.get("DBUS_SESSION_BUS_ADDRESS") == "unix:path=/run/flatpak/bus", "unexpected bus address")
    check(not os.path.exists(options.hidden), "the daemon's home is visible")


def ping(name):
    bus = dbus.SessionBus()
    bus.call_blocking(name, "/", "org.freedesktop.DBus.Peer", "Ping", "", ())


def control_as_expected():
    try:
        ping("io.puff.Control")
    except dbus.DBusException as error:
        check(options.control == "hidden", f"control refused with {error.get_dbus_name()}")
        check(error.get_dbus_name() == "org.freedesktop.DBus.Error.ServiceUnknown", error.get_dbus_name())
        return
    check(options.control == "visible", "io.puff.Control answered through the proxy")


runner.case("/.flatpak-info names the app", info_names_the_app)
runner.case("/.flatpak-info is read-only", info_is_read_only)
runner.case("HOME is the app's own writable folder", home_is_the_apps)
runner.case("the bus is /run/flatpak/bus and the daemon's home is hidden", bus_is_the_flatpak_socket)
runner.case("the Secret Service answers", ping, "org.freedesktop.secrets")
runner.case(f"io.puff.Control is {options.control}", control_as_expected)
runner.finish()
