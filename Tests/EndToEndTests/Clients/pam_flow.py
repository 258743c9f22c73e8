#!/usr/bin/python3
"""pam_flow.py - pam_puff.so under pamtester, as root, for a scratch user (docs/pam.md).

    /usr/bin/python3 pam_flow.py PAM_MODULE PUFFD PUFFCTL

Makes the user `puffpam` (useradd, once), /run/user/UID (0700) and a session bus for it there,
and a PAM service /etc/pam.d/puff-test stacking pam_puff.so with pam_permit.so. Then, with puffd
running as the user: authenticate + open_session (password through the conversation) creates
`login` on the first login and unlocks it on the next; a wrong and an empty password leave it
locked and the session still opens. `login` is made with one login slot (issue 26); with a
passcode slot of its own added (`puffctl slot add`), chauthtok (run as the user) rewrites the
login slot alone: the same space and journal, the passcode slot byte for byte, so after a restart
the new password and the passcode open it and the old password does not. With no puffd, auto_start starts one that opens `login`, but
never while the user's systemd manager runs (puffd.service is started through puff-login.socket
there). A socket folder that is a symlink, or another user's, gets no connection. One run under
`valgrind --leak-check=full` reports no leak in the module. What sudo does (issue 24, item 1):
through the real libpam (pam_switch_user.c, compiled here), a password given at `auth` by the
second scratch user `puffpam2` reaches neither `puffpam`'s login socket nor a daemon `auto_start`
would start for `puffpam` once `PAM_USER` is switched to `puffpam` before the session; without
the switch the same stack does both (so the listener and the stand-in daemon are seen to work).
A process of the user on the login socket (item 7) may only unlock: a password of its choosing
starts no re-sync question and re-keys nothing, and its change request is refused; the PAM
module connects as root (passwd: the user's real uid, effective uid root) and may.
Never prints a password.

What runs as the user (puffd, puffctl, the module under `pamtester` for chauthtok, dbus-daemon's
configuration, the client scripts) is copied first into a 0755 folder this script makes in the
temporary folder and removes at the end: the clone may sit in a 0700 folder the user cannot reach,
and its permissions are never loosened.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`.
"""

import fcntl
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import HANG_GUARD  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../packaging"))
import vault_header  # noqa: E402

CLIENTS = os.path.dirname(os.path.abspath(__file__))
USER = "puffpam"
# The one who runs `sudo -u puffpam`: authenticates with their own password.
INVOKER = "puffpam2"
# The tests' bus configuration: no service folders, so no provider (gnome-keyring) is activated
# while puffd is down.
TEST_BUS_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../dbus/test-session.conf")
SERVICE = "puff-test"
# auto_start with a stand-in daemon that only records that it ran (pam_switch_user waits for it).
SUDO_SERVICE = "puff-test-sudo"
results = []


def case(name, reason):
    results.append(reason is None)
    print(f"ok {name}" if reason is None else f"FAIL {name}: {reason}", flush=True)


def as_user(entry, argv):
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--"] + argv


def as_passwd(entry, argv):
    """As a setuid-root program the user runs (passwd): real uid the user's, effective uid root."""
    return ["setpriv", f"--ruid={entry.pw_uid}", "--euid=0", "--"] + argv


def user_env(entry):
    runtime = f"/run/user/{entry.pw_uid}"
    return {"HOME": entry.pw_dir, "USER": USER, "LOGNAME": USER, "PATH": "/usr/bin:/bin",
            "XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": f"unix:path={runtime}/bus"}


def wait_for(predicate, limit=HANG_GUARD):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


class Staging:
    """A 0755 folder in the temporary folder holding copies of the files the user must reach."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="puff-pam-staging-")
        os.chmod(self.folder, 0o755)

    def place(self, path, mode):
        """Copies `path` into the folder (root's, `mode`) and returns the copy's path."""
        copy = os.path.join(self.folder, os.path.basename(path))
        shutil.copyfile(path, copy)
        os.chmod(copy, mode)
        return copy

    def remove(self):
        shutil.rmtree(self.folder, ignore_errors=True)


class Flow:
    def __init__(self, staging, module, puffd, puffctl):
        self.module = staging.place(module, 0o644)
        self.puffd = staging.place(puffd, 0o755)
        self.puffctl = staging.place(puffctl, 0o755)
        self.bus_config = staging.place(TEST_BUS_CONFIG, 0o644)
        # Scripts run as the user (login_socket.py imports harness.py) or by its puffd.
        staging.place(os.path.join(CLIENTS, "harness.py"), 0o644)
        self.login_socket_client = staging.place(os.path.join(CLIENTS, "login_socket.py"), 0o755)
        self.fake_pinentry = staging.place(os.path.join(CLIENTS, "fake_pinentry.py"), 0o755)
        module, puffd = self.module, self.puffd
        if subprocess.run(["id", USER], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "-m", "-s", "/usr/sbin/nologin", USER], check=True)
        if subprocess.run(["id", INVOKER], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", INVOKER], check=True)
        self.user = pwd.getpwnam(USER)
        self.scratch = tempfile.mkdtemp(prefix="puff-pam-switch-")
        os.chmod(self.scratch, 0o755)
        self.driver = os.path.join(self.scratch, "pam_switch_user")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pam_switch_user.c")
        subprocess.run(["cc", "-Wall", "-Werror", "-o", self.driver, source, "-lpam"], check=True)
        self.marker = os.path.join(self.scratch, "started", "daemon-ran")
        os.mkdir(os.path.dirname(self.marker), 0o700)
        os.chown(os.path.dirname(self.marker), self.user.pw_uid, self.user.pw_gid)
        self.standin = os.path.join(self.scratch, "standin-puffd")
        with open(self.standin, "w") as f:
            f.write(f"#!/bin/sh\n# Reads what it was handed on fd 3 and keeps none of it.\ncat <&3 >/dev/null\n"
                    f"touch {self.marker}\n")
        os.chmod(self.standin, 0o755)
        self.runtime = f"/run/user/{self.user.pw_uid}"
        self.socket_folder = f"{self.runtime}/puff"
        shutil.rmtree(os.path.join(self.user.pw_dir, ".local/share/puff"), ignore_errors=True)
        os.makedirs(self.runtime, exist_ok=True)
        os.chown(self.runtime, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.runtime, 0o700)
        self.clear_socket_folder()
        self.log = tempfile.NamedTemporaryFile(prefix="puff-pam-puffd-", delete=False)
        os.chmod(self.log.name, 0o666)
        self.bus = subprocess.Popen(
            as_user(self.user, ["dbus-daemon", f"--config-file={self.bus_config}", "--nofork",
                                f"--address=unix:path={self.runtime}/bus"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.bus_accepts(f"{self.runtime}/bus"))
        self.daemon = None
        with open(f"/etc/pam.d/{SUDO_SERVICE}", "w") as f:
            f.write(f"auth required {module}\nauth required pam_permit.so\n"
                    f"session required {module} auto_start daemon={self.standin} debug\n"
                    f"session required pam_permit.so\n")
        with open(f"/etc/pam.d/{SERVICE}", "w") as f:
            f.write(f"auth required {module}\nauth required pam_permit.so\n"
                    f"account required pam_permit.so\n"
                    f"session required {module} auto_start daemon={puffd} debug\nsession required pam_permit.so\n"
                    f"password required {module}\npassword required pam_permit.so\n")

    @staticmethod
    def bus_accepts(path):
        """Hold point: the bus listens (a socket file left by an earlier run refuses connections)."""
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return True
        except OSError:
            return False
        finally:
            probe.close()

    def clear_socket_folder(self):
        if os.path.islink(self.socket_folder):
            os.unlink(self.socket_folder)
        shutil.rmtree(self.socket_folder, ignore_errors=True)

    def start_puffd(self, extra=(), env=None):
        self.daemon = subprocess.Popen(
            as_user(self.user, [self.puffd, "--kdf", "interactive", *extra]), env={**user_env(self.user), **(env or {})},
            stdout=self.log, stderr=self.log)
        # The socket comes before the bus name: a client in between would find no puffd.
        return wait_for(lambda: os.path.exists(f"{self.socket_folder}/login.socket")) and wait_for(self.name_has_owner)

    def stop_puffd(self):
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(timeout=HANG_GUARD)
            self.daemon = None
        # One started by auto_start is not our child.
        subprocess.run(["pkill", "-TERM", "-u", USER, "-x", "puffd"], capture_output=True)
        wait_for(lambda: subprocess.run(["pgrep", "-u", USER, "-x", "puffd"], capture_output=True).returncode != 0)
        # The bus may still list the name for a moment after its owner exited; a puffd started
        # then would find it taken.
        wait_for(lambda: not self.name_has_owner())

    def name_has_owner(self):
        run = subprocess.run(
            as_user(self.user, ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                                "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                                "string:org.freedesktop.secrets"]),
            env=user_env(self.user), capture_output=True, timeout=HANG_GUARD)
        return b"boolean true" in run.stdout

    def pamtester(self, password, *operations, as_the_user=False, valgrind=False):
        """pamtester as root, or with `as_the_user` as passwd runs: the user's, setuid root."""
        argv = ["pamtester", SERVICE, USER, *operations]
        if valgrind:
            argv = ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=3",
                    "-q"] + argv
        if as_the_user:
            argv = as_passwd(self.user, argv)
        return subprocess.run(argv, input=password.encode(), capture_output=True, timeout=HANG_GUARD)

    def login_state(self):
        """`locked`, `unlocked` or `absent` for login, per puffctl status --json run as the user."""
        run = subprocess.run(as_user(self.user, [self.puffctl, "status", "--json"]), env=user_env(self.user),
                             capture_output=True, timeout=HANG_GUARD)
        try:
            status = json.loads(run.stdout)
        except ValueError:
            return f"no status ({run.returncode})"
        for collection in status.get("collections", []):
            if collection.get("id") == "login":
                return "locked" if collection.get("locked") else "unlocked"
        return "absent"

    def lock(self):
        subprocess.run(as_user(self.user, [self.puffctl, "lock"]), env=user_env(self.user), capture_output=True)

    def ctl(self, arguments, text=""):
        return subprocess.run(as_user(self.user, [self.puffctl, *arguments]), env=user_env(self.user),
                              input=text.encode(), capture_output=True, timeout=HANG_GUARD)

    def vault_state(self):
        """The one collection's header (version, slots) and journal bytes, as root reads the files."""
        vault = os.path.join(self.user.pw_dir, ".local/share/puff")
        headers = sorted(name for name in os.listdir(vault) if name.endswith(".header"))
        if len(headers) != 1:
            return None
        space = headers[0][:-len(".header")]
        with open(os.path.join(vault, f"{space}.journal"), "rb") as f:
            journal = f.read()
        return space, vault_header.slots(os.path.join(vault, headers[0])), journal

    def refused_folder(self, make):
        """Makes the socket folder with `make`, listens on a socket in it, runs a login and says
        whether the listener got a connection."""
        self.clear_socket_folder()
        path = make()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)
        run = self.pamtester("login pass 2\n", "authenticate", "open_session")
        # Ordering, not a wait: pamtester has exited, so a connection it made is already queued.
        listener.setblocking(False)
        connected = self.connected(listener)
        listener.close()
        self.clear_socket_folder()
        return run.returncode, connected

    def switch(self, password, invoker):
        """pam_switch_user on SUDO_SERVICE: authenticates `invoker` (or the user) and opens the
        user's session, as `sudo -u USER` run by `invoker` does."""
        argv = [self.driver, SUDO_SERVICE] + ([invoker, USER] if invoker else [USER])
        return subprocess.run(argv, input=password.encode(), capture_output=True, timeout=HANG_GUARD)

    def user_listener(self):
        """A socket at the user's login socket, listening as the user (SO_PEERCRED names the
        listener's effective uid at listen()), as a running puffd would be."""
        self.clear_socket_folder()
        os.mkdir(self.socket_folder, 0o700)
        os.chown(self.socket_folder, self.user.pw_uid, self.user.pw_gid)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        os.seteuid(self.user.pw_uid)
        try:
            listener.bind(f"{self.socket_folder}/login.socket")
            listener.listen(4)
        finally:
            os.seteuid(0)
        listener.setblocking(False)
        return listener

    @staticmethod
    def connected(listener):
        """Whether a connection waits: the module's connect() returned before the driver did."""
        try:
            listener.accept()[0].close()
            return True
        except BlockingIOError:
            return False

    def switched_user_cases(self):
        listener = self.user_listener()
        own = self.switch("switch pass 1\n", None)
        own_connected = self.connected(listener)
        stolen = self.switch("switch pass 2\n", INVOKER)
        stolen_connected = self.connected(listener)
        listener.close()
        self.clear_socket_folder()
        case("the user's own login reaches the login socket",
             None if own.returncode == 0 and own_connected else f"{own.returncode}, {own_connected}")
        case("a password given at auth by another user never reaches the session user's socket",
             None if stolen.returncode == 0 and b"open_session 0" in stolen.stdout and not stolen_connected
             else f"driver {stolen.returncode} {stolen.stdout!r}, connected {stolen_connected}")
        own = self.switch("switch pass 1\n", None)
        own_started = os.path.exists(self.marker)
        if own_started:
            os.unlink(self.marker)
        stolen = self.switch("switch pass 2\n", INVOKER)
        stolen_started = os.path.exists(self.marker)
        case("with no puffd, the user's own login starts the daemon",
             None if own.returncode == 0 and own_started else f"{own.returncode} {own.stdout!r}, {own_started}")
        case("a password given at auth by another user starts no daemon for the session user",
             None if stolen.returncode == 0 and b"children 0" in stolen.stdout and not stolen_started
             else f"driver {stolen.returncode} {stolen.stdout!r}, started {stolen_started}")

    def run(self):
        try:
            self.cases()
        finally:
            self.stop_puffd()
            # SIGKILL: a test runner's children may inherit SIGTERM blocked, and dbus-daemon,
            # unlike puffd (signalfd), then never sees it.
            self.bus.kill()
            self.bus.wait(timeout=HANG_GUARD)
            os.unlink(f"/etc/pam.d/{SERVICE}")
            os.unlink(f"/etc/pam.d/{SUDO_SERVICE}")
            self.clear_socket_folder()
            shutil.rmtree(self.scratch, ignore_errors=True)

    def cases(self):
        case("puffd runs as the user with its login socket",
             None if self.start_puffd() else f"not serving within {HANG_GUARD:g} s")
        first = self.pamtester("login pass 1\n", "authenticate", "open_session")
        state = self.login_state()
        case("the first login creates login, unlocked",
             None if first.returncode == 0 and state == "unlocked" else f"pamtester {first.returncode}, {state}")
        made = self.vault_state()
        listed = self.ctl(["slot", "list", "login", "--json"])
        try:
            shown = [(slot["id"], slot["type"]) for slot in json.loads(listed.stdout)]
        except (ValueError, KeyError, TypeError):
            shown = f"no list ({listed.returncode})"
        case("it has one login slot and no passcode slot (puffctl slot list shows it)",
             None if made and made[1][0] == 3 and [k for _, k, _ in made[1][1]] == [vault_header.LOGIN]
             and shown == [(1, "login")] else f"header {made and made[1][0]} {made and [k for _, k, _ in made[1][1]]}, "
             f"listed {shown}")
        self.lock()
        again = self.pamtester("login pass 1\n", "authenticate", "open_session")
        case("the next login unlocks it", None if again.returncode == 0 and self.login_state() == "unlocked"
             else f"pamtester {again.returncode}, {self.login_state()}")
        self.lock()
        wrong = self.pamtester("not the one\n", "authenticate", "open_session")
        case("a wrong password leaves it locked and the session opens",
             None if wrong.returncode == 0 and self.login_state() == "locked" else f"{wrong.returncode}")
        empty = self.pamtester("\n", "authenticate", "open_session")
        case("an empty password leaves it locked and the session opens",
             None if empty.returncode == 0 and self.login_state() == "locked" else f"{empty.returncode}")
        added = self.ctl(["slot", "add", "login", "passcode", "--label", "own", "--stdin"],
                             "login pass 1\nown passcode 3\n")
        case("puffctl slot add gives login a passcode slot of its own",
             None if added.returncode == 0 else f"{added.returncode}: {added.stderr[-300:]!r}")
        self.lock()
        before = self.vault_state()
        change = self.pamtester("login pass 1\nlogin pass 2\nlogin pass 2\n", "chauthtok", as_the_user=True)
        case("chauthtok as passwd runs it (the user's, setuid root) succeeds", None if change.returncode == 0 else f"{change.returncode}")
        after = self.vault_state()
        kept = before is not None and after is not None and before[0] == after[0] and before[2] == after[2]
        slots_before = dict((i, (k, b)) for i, k, b in before[1][1]) if before else {}
        slots_after = dict((i, (k, b)) for i, k, b in after[1][1]) if after else {}
        passcode_slots = [i for i, (k, _) in slots_before.items() if k == vault_header.PASSCODE]
        login_slots = [i for i, (k, _) in slots_before.items() if k == vault_header.LOGIN]
        case("chauthtok rewrote only the login slot: same space and journal, the passcode slot byte for byte",
             None if kept and slots_before.keys() == slots_after.keys() and len(passcode_slots) == 1
             and len(login_slots) == 1 and slots_after[passcode_slots[0]] == slots_before[passcode_slots[0]]
             and slots_after[login_slots[0]] != slots_before[login_slots[0]]
             else f"space kept {kept}, before {sorted(slots_before)}, after {sorted(slots_after)}")
        self.stop_puffd()
        self.start_puffd()
        old = self.ctl(["unlock", "login", "--stdin"], "login pass 1\n")
        new = self.ctl(["unlock", "login", "--stdin"], "login pass 2\n")
        case("after a restart only the new password opens login",
             None if old.returncode == 2 and new.returncode == 0 else f"old {old.returncode}, new {new.returncode}")
        case("and the passcode slot still opens it with its own passcode",
             None if self.opens_with("own passcode 3") else "the passcode no longer opens login")
        self.lock()
        leaks = self.pamtester("login pass 2\n", "authenticate", "open_session", valgrind=True)
        case("valgrind finds no leak or error in the module",
             None if leaks.returncode == 0 else f"valgrind exit {leaks.returncode}: {leaks.stderr[-600:]!r}")
        self.stop_puffd()
        started = self.pamtester("login pass 2\n", "authenticate", "open_session")
        up = wait_for(lambda: self.login_state() == "unlocked")
        case("with no puffd, auto_start starts one that opens login",
             None if started.returncode == 0 and up else f"pamtester {started.returncode}, {self.login_state()}")
        self.stop_puffd()

        def foreign():
            os.mkdir(self.socket_folder, 0o700)  # root's, not the user's
            return f"{self.socket_folder}/login.socket"

        code, connected = self.refused_folder(foreign)
        case("a socket folder of another user is refused", None if code == 0 and not connected else
             f"pamtester {code}, connected {connected}")

        def symlinked():
            target = tempfile.mkdtemp(prefix="puff-pam-target-")
            os.chown(target, self.user.pw_uid, self.user.pw_gid)
            os.chmod(target, 0o700)
            os.symlink(target, self.socket_folder)
            return f"{target}/login.socket"

        code, connected = self.refused_folder(symlinked)
        case("a symlinked socket folder is refused", None if code == 0 and not connected else
             f"pamtester {code}, connected {connected}")
        self.switched_user_cases()
        self.same_user_cases()

    def log_text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def login_socket(self, action, text):
        """login_socket.py run as the user: a process of the user, not the PAM module."""
        run = subprocess.run(as_user(self.user, ["/usr/bin/python3", self.login_socket_client, f"{self.socket_folder}/login.socket",
                                                 action]), input=text.encode(), capture_output=True, timeout=HANG_GUARD)
        return run.stdout.decode().strip()

    def opens_with(self, password):
        self.lock()
        run = subprocess.run(as_user(self.user, [self.puffctl, "unlock", "login", "--stdin"]),
                             env=user_env(self.user), input=f"{password}\n".encode(), capture_output=True)
        return run.returncode == 0

    def same_user_cases(self):
        """A process of the user sends a password of its choosing; the person would answer the
        re-sync question (the fake pinentry answers with the real previous password). Only root,
        the PAM module, may start that question or re-key `login` (issue 24, item 7)."""
        folder = os.path.dirname(self.marker)
        answers, shown = os.path.join(folder, "answers"), os.path.join(folder, "pinentry.log")
        for path, text in ((answers, "login pass 2\nlogin pass 2\n"), (shown, "")):
            with open(path, "w") as f:
                f.write(text)
            os.chown(path, self.user.pw_uid, self.user.pw_gid)
        started = self.start_puffd(["--prompter", "pinentry,none", "--pinentry", self.fake_pinentry],
                                   env={"DISPLAY": ":test", "FAKE_PINENTRY_ANSWERS": answers,
                                        "FAKE_PINENTRY_LOG": shown})
        self.lock()
        before = self.log_text()
        reply = self.login_socket("login", "chosen pass\n")
        # The hold point: the daemon says it only tried an unlock, or (before the fix) the re-sync
        # it started ended one way or the other.
        ended = ("it may only unlock login", "login now opens with the new login password",
                 "login still opens with the previous login password")
        held = wait_for(lambda: any(line in self.log_text()[len(before):] for line in ended))
        with open(shown) as f:
            asked = "GETPIN" in f.read()
        case("a same-user login request with another password gets 'wrong' and starts no re-sync question",
             None if started and reply == "2" and held and not asked else
             f"started {started}, reply {reply}, held {held}, asked {asked}")
        case("after it, login still opens with its passcode, not with the one the process chose",
             None if self.opens_with("login pass 2") and not self.opens_with("chosen pass") else "re-keyed")
        change = self.login_socket("change", "login pass 2\nchosen pass\n")
        case("a same-user password change is refused and login keeps its passcode",
             None if change == "3" and self.opens_with("login pass 2") else f"reply {change}")
        self.lock()
        right = self.login_socket("login", "login pass 2\n")
        case("a same-user login request with the right password unlocks login",
             None if right == "0" and self.login_state() == "unlocked" else f"reply {right}, {self.login_state()}")
        self.stop_puffd()

        # The user's systemd manager runs (its private socket is there) but nothing listens on
        # the login socket (puff-login.socket masked): auto_start must not fork a puffd outside
        # puffd.service's sandbox.
        manager = f"{self.runtime}/systemd/private"
        os.makedirs(os.path.dirname(manager), exist_ok=True)
        fake = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        fake.bind(manager)
        os.chown(manager, self.user.pw_uid, self.user.pw_gid)
        try:
            outside = self.pamtester("login pass 2\n", "authenticate", "open_session")
            # A forked puffd appears within moments; 10 s is a generous wait for one that must not.
            started = wait_for(lambda: subprocess.run(["pgrep", "-u", USER, "-x", "puffd"],
                                                      capture_output=True).returncode == 0, limit=10)
        finally:
            fake.close()
            shutil.rmtree(os.path.dirname(manager), ignore_errors=True)
        case("with the user's systemd manager running, auto_start starts no puffd outside its unit",
             None if outside.returncode == 0 and not started else f"pamtester {outside.returncode}, started {started}")
        self.stop_puffd()


def main():
    # One run at a time on this machine: runs share the scratch users, /etc/pam.d/puff-test and
    # the users' runtime folders (clones and work trees may test at the same time).
    guard = open("/run/lock/puff-pam-flow.lock", "w")
    fcntl.flock(guard, fcntl.LOCK_EX)
    staging = Staging()
    try:
        Flow(staging, *sys.argv[1:4]).run()
    finally:
        staging.remove()
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed", flush=True)
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
