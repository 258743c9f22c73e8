#!/usr/bin/python3
"""keyring_flow.py - drive org.freedesktop.secrets with python3-keyring.

Run with Debian's interpreter (the pyenv python3 on PATH lacks the modules):
    /usr/bin/python3 keyring_flow.py [--lenient]

The SecretService backend is forced (no fallback to another backend):
  * API: set_password/get_password round trip, overwrite keeps one item
    (keyring passes replace=True), the stored label/attributes keyring uses,
    get_password of a missing entry -> None, unicode service/user/password,
    get_credential, delete_password, delete of a missing entry ->
    PasswordDeleteError.
  * CLI: `/usr/bin/python3 -m keyring -b keyring.backends.SecretService.Keyring
    set|get|del SERVICE USER` with the password on stdin; get prints it
    followed by a newline; get after del exits 1.
--lenient is accepted for symmetry; no case differs between Puff and GK.
Never prints secret or attribute values.
"""

import os
import subprocess
import sys
import uuid
from contextlib import closing

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keyring  # noqa: E402
import keyring.backends.SecretService  # noqa: E402
import keyring.errors  # noqa: E402
import secretstorage  # noqa: E402

from harness import HANG_GUARD, Failure, Runner, check  # noqa: E402

BACKEND = "keyring.backends.SecretService.Keyring"


def stored_items(service, username):
    """Items the SecretService backend would match, seen through secretstorage."""
    with closing(secretstorage.dbus_init()) as conn:
        items = list(secretstorage.search_items(conn, {"service": service, "username": username}))
        return [(i.get_label(), i.get_attributes()) for i in items]


def cli(*args, stdin=""):
    env = dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8",
               PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", "keyring", "-b", BACKEND, *args],
                          input=stdin.encode(), capture_output=True, env=env, timeout=HANG_GUARD)


def main():
    r = Runner()
    run = uuid.uuid4().hex[:12]
    svc, user = f"puff-e2e-{run}.example", "alice"

    def force_backend():
        keyring.set_keyring(keyring.backends.SecretService.Keyring())
        check(isinstance(keyring.get_keyring(), keyring.backends.SecretService.Keyring),
              "SecretService backend not active")
    r.case("force SecretService backend", force_backend)

    def set_get():
        keyring.set_password(svc, user, "kpw-1")
        check(keyring.get_password(svc, user) == "kpw-1", "get_password differs from set_password")
        items = stored_items(svc, user)
        check(len(items) == 1, f"expected 1 stored item, found {len(items)}")
        label, attrs = items[0]
        check(label == f"Password for '{user}' on '{svc}'", "label is not keyring's default label")
        check(attrs.get("application") == "Python keyring library",
              "attribute 'application' missing or different")
    r.case("set_password/get_password round trip", set_get)

    def overwrite():
        keyring.set_password(svc, user, "kpw-2")
        check(keyring.get_password(svc, user) == "kpw-2", "password not overwritten")
        n = len(stored_items(svc, user))
        check(n == 1, f"overwrite created a second item ({n} items)")
    r.case("set_password twice -> one item, new password (replace=True)", overwrite)

    def missing():
        check(keyring.get_password(svc, "nobody-" + run) is None, "missing entry did not return None")
        check(keyring.get_password("absent-" + svc, user) is None, "missing service did not return None")
    r.case("get_password on missing entry -> None", missing)

    u_svc, u_user, u_pw = f"sérvice-✓-{run}", "usér-ж", "pässwörd 🔑 ✓ ж"

    def unicode_pw():
        keyring.set_password(u_svc, u_user, u_pw)
        check(keyring.get_password(u_svc, u_user) == u_pw, "unicode password differs")
        keyring.delete_password(u_svc, u_user)
    r.case("unicode service/user/password", unicode_pw)

    def credential():
        cred = keyring.get_credential(svc, user)
        check(cred is not None, "get_credential returned None")
        check(cred.username == user and cred.password == "kpw-2", "credential differs")
    r.case("get_credential", credential)

    def delete():
        keyring.delete_password(svc, user)
        check(keyring.get_password(svc, user) is None, "password still readable after delete")
        check(stored_items(svc, user) == [], "item still stored after delete")
    r.case("delete_password", delete)

    def delete_missing():
        try:
            keyring.delete_password(svc, user)
        except keyring.errors.PasswordDeleteError:
            return
        raise Failure("no PasswordDeleteError for a missing entry")
    r.case("delete_password on missing entry -> PasswordDeleteError", delete_missing)

    c_svc, c_pw = f"puff-e2e-cli-{run}", "cli-pw ✓ ü"

    def cli_set_get():
        res = cli("set", c_svc, user, stdin=c_pw + "\n")
        check(res.returncode == 0, f"`keyring set` exited {res.returncode}")
        res = cli("get", c_svc, user)
        check(res.returncode == 0, f"`keyring get` exited {res.returncode}")
        check(res.stdout == (c_pw + "\n").encode(), f"`keyring get` printed {len(res.stdout)} "
              f"bytes, not the password plus newline")
        check(keyring.get_password(c_svc, user) == c_pw, "API does not see the CLI's password")
    r.case("keyring CLI set (stdin) / get", cli_set_get)

    def cli_del():
        res = cli("del", c_svc, user)
        check(res.returncode == 0, f"`keyring del` exited {res.returncode}")
        res = cli("get", c_svc, user)
        check(res.returncode == 1, f"`keyring get` after del exited {res.returncode}, expected 1")
        check(res.stdout == b"", "`keyring get` after del printed something")
    r.case("keyring CLI del, then get -> exit 1", cli_del)

    r.finish()


if __name__ == "__main__":
    main()
