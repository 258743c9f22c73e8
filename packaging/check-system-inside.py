#!/usr/bin/python3
"""The checks of `make check-system` (packaging/check-system.sh), run as root inside a Debian 12
booted under systemd-nspawn, by puff-check.service once the system is up.

Both packages are installed with apt from /mnt/debs, the PAM profile is enabled with
pam-auth-update, and a user logs in through /bin/login on a pseudo-terminal, as on a console.
Each check measures the running system (/proc, the user's systemd manager, logind, the journal)
and prints one line; the report goes to /mnt/out/report, and /mnt/out/result says `pass` or how
many checks failed. The container is powered off at the end either way.
"""

import ctypes
import json
import os
import pty
import pwd
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, "/mnt/check")
import vault_header  # noqa: E402  (packaging/vault_header.py, bound in beside this file)

OUT = "/mnt/out"
DEBS = "/mnt/debs"
UNIT = "/usr/lib/systemd/user/puffd.service"
# Generous limits for what the issue measures in about a second: a slow machine must not fail.
LOGIN_LIMIT = 120
LOCK_LIMIT = 15
STOP_LIMIT = 60
# check-system.sh passes PUFF_MAX_EXPOSURE (default 6.3, check.sh's limit for the offline score).
MAX_EXPOSURE = float(open("/mnt/check/max-exposure").read())

report = open(f"{OUT}/report", "a", buffering=1)
failures = []


def say(text):
    report.write(f"check-system: {text}\n")


def check(ok, what, detail=""):
    """One check: `ok` means the thing works; `detail` says what was seen when it does not."""
    if ok:
        say(f"  ok: {what}")
    else:
        failures.append(what)
        say(f"  FAIL: {what}" + (f": {detail}" if detail else ""))
    return ok


def run(argv, input=None, timeout=60, **kwargs):
    return subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout, **kwargs)


class User:
    def __init__(self, name, password):
        self.name = name
        self.password = password

    @property
    def entry(self):
        return pwd.getpwnam(self.name)

    @property
    def uid(self):
        return self.entry.pw_uid

    @property
    def runtime(self):
        return f"/run/user/{self.uid}"

    def env(self):
        return {
            "HOME": self.entry.pw_dir, "USER": self.name, "LOGNAME": self.name, "LANG": "C.UTF-8",
            "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": self.runtime,
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.runtime}/bus",
        }

    def run(self, argv, input=None, timeout=60):
        """`argv` as this user (uid, gid and groups, no capabilities), outside any session."""
        entry = self.entry
        return run(argv, input=input, timeout=timeout, user=entry.pw_uid, group=entry.pw_gid,
                   extra_groups=[], env=self.env(), cwd=entry.pw_dir)

    def puffd(self):
        """The pids of this user's puffd processes."""
        found = run(["pgrep", "-u", str(self.uid), "-x", "puffd"])
        return [int(pid) for pid in found.stdout.split()]

    def login_state(self):
        """`locked`, `unlocked`, or what `puffctl status --json` said instead."""
        status = self.run(["puffctl", "status", "--json"], timeout=30)
        if status.returncode != 0:
            return f"puffctl status failed ({status.returncode}): {status.stdout}{status.stderr}".strip()
        try:
            collections = json.loads(status.stdout).get("collections", [])
        except ValueError:
            return f"puffctl status --json printed no JSON: {status.stdout}"
        for collection in collections:
            if collection.get("id") == "login" and isinstance(collection.get("locked"), bool):
                return "locked" if collection["locked"] else "unlocked"
        return f"no login collection in {status.stdout}"


class Session:
    """/bin/login on a pseudo-terminal, then the user's shell there: a tty session as on a console."""

    def __init__(self, user, password):
        self.user = user
        self.output = ""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve("/bin/login", ["login", user.name], {"TERM": "dumb", "PATH": "/usr/bin:/bin"})
        self.expect(r"Password: ?$", 60)
        started = time.monotonic()
        self.send(password)
        # pam_puff's session stage waits for puffd's answer before login starts the shell.
        self.expect(r"\$ ?$", LOGIN_LIMIT)
        self.login_seconds = time.monotonic() - started
        self.send("stty -echo; PS1='$ '")
        self.shell("true")

    def send(self, line):
        os.write(self.fd, (line + "\n").encode())

    def expect(self, pattern, limit):
        """Reads until the output seen since the last match matches `pattern`; returns the match."""
        deadline = time.monotonic() + limit
        while True:
            found = re.search(pattern, self.output, re.M)
            if found:
                self.output = self.output[found.end():]
                return found
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {pattern!r} within {limit} s; the terminal showed: {self.output[-500:]!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise EOFError(f"the terminal closed; it showed: {self.output[-500:]!r}")
                self.output += chunk.decode(errors="replace").replace("\r", "")

    def shell(self, command, answers=(), limit=60):
        """Runs `command` in the session's shell, answering each (prompt, line) in turn; returns
        (status, output)."""
        self.send(f"{command}; echo \"__rc=$?__\"")
        for prompt, line in answers:
            self.expect(prompt, limit)
            self.send(line)
        found = self.expect(r"(?s)(.*?)__rc=(\d+)__$", limit)
        self.expect(r"\$ ?$", limit)
        return int(found.group(2)), found.group(1)

    def logout(self):
        self.send("exit")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            select.select([self.fd], [], [], 0.2)
            try:
                os.read(self.fd, 4096)
            except OSError:
                pass
        os.close(self.fd)


def poll(condition, limit, every=0.1):
    """Seconds until `condition()` held, or None when it did not within `limit`."""
    started = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - started
        if time.monotonic() - started > limit:
            return None
        time.sleep(every)


def unit_settings():
    settings = {}
    with open(UNIT) as unit:
        for line in unit:
            line = line.strip()
            if "=" in line and not line.startswith(("#", "[")):
                key, value = line.split("=", 1)
                settings.setdefault(key, []).append(value)
    return settings


def mounts(pid):
    """(mount point, options, root, device) of /proc/PID/mountinfo, in order."""
    entries = []
    with open(f"/proc/{pid}/mountinfo") as info:
        for line in info:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            entries.append((point, fields[5].split(","), fields[3], fields[2]))
    return entries


def mount_of(pid, path):
    """The mount that holds `path` as process PID sees it (the last, longest match)."""
    best = None
    for point, options, root, device in mounts(pid):
        if path == point or path.startswith(point.rstrip("/") + "/") or point == "/":
            if best is None or len(point) >= len(best[0]):
                best = (point, options, root, device)
    return best


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    return None


READER = r"""
import ctypes, os, subprocess, sys
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
def first_region(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            span, perms = line.split()[:2]
            if perms.startswith("r"):
                return int(span.split("-")[0], 16)
def read(pid, address):
    try:
        with open(f"/proc/{pid}/mem", "rb") as mem:
            mem.seek(address)
            mem_result = "read %d bytes" % len(mem.read(64))
    except OSError as error:
        mem_result = "failed: " + os.strerror(error.errno)
    buffer = ctypes.create_string_buffer(64)
    local, remote = iovec(ctypes.cast(buffer, ctypes.c_void_p), 64), iovec(address, 64)
    count = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    vm_result = "read %d bytes" % count if count > 0 else "failed: " + os.strerror(ctypes.get_errno())
    print("/proc/PID/mem " + mem_result + "; process_vm_readv " + vm_result)
if sys.argv[1] == "child":
    child = subprocess.Popen(["sleep", "60"])
    try:
        address = None
        while address is None:
            address = first_region(child.pid)
        read(child.pid, address)
    finally:
        child.kill()
else:
    read(int(sys.argv[1]), int(sys.argv[2]))
"""


def check_sandbox(pid, user, manager):
    """What the unit promises, measured on the running puffd (PID) against the user's manager."""
    settings = unit_settings()
    promised = lambda key, value=None: key in settings and (value is None or settings[key][-1] == value)
    for key in ["NoNewPrivileges", "SystemCallFilter", "UMask"]:
        check(key in settings, f"the unit sets {key}=", f"{UNIT} lacks it")
    if promised("NoNewPrivileges", "yes"):
        check(status_field(pid, "NoNewPrivs") == "1", "NoNewPrivs is 1 (/proc/PID/status)",
              status_field(pid, "NoNewPrivs"))
    if promised("SystemCallFilter"):
        check(status_field(pid, "Seccomp") == "2", "a seccomp filter is in place (Seccomp: 2)",
              status_field(pid, "Seccomp"))
    if promised("UMask"):
        check(status_field(pid, "Umask") == settings["UMask"][-1].rjust(4, "0"),
              f"umask {settings['UMask'][-1]}", status_field(pid, "Umask"))
    if promised("LimitCORE", "0"):
        with open(f"/proc/{pid}/limits") as limits:
            core = next(line for line in limits if line.startswith("Max core file size")).split()[4:6]
        check(core == ["0", "0"], "no core files (Max core file size 0)", str(core))
    namespace = lambda p, kind: os.readlink(f"/proc/{p}/ns/{kind}")
    if promised("PrivateNetwork", "yes"):
        with open(f"/proc/{pid}/net/dev") as dev:
            interfaces = sorted(line.split(":")[0].strip() for line in dev.readlines()[2:])
        check(namespace(pid, "net") != namespace(manager, "net") and interfaces == ["lo"],
              "its own network namespace, with only lo", f"{namespace(pid, 'net')}, {interfaces}")
    if promised("PrivateUsers", "yes"):
        check(namespace(pid, "user") != namespace(manager, "user"), "its own user namespace")
    else:
        check(namespace(pid, "user") == namespace(manager, "user"),
              "the user's own user namespace (no PrivateUsers=: no one of the user holds capabilities over it)",
              namespace(pid, "user"))
    if any(promised(key) for key in ["ProtectSystem", "ProtectHome", "PrivateTmp"]):
        check(namespace(pid, "mnt") != namespace(manager, "mnt"), "its own mount namespace",
              namespace(pid, "mnt"))
    read_only = lambda p, path: "ro" in mount_of(p, path)[1]

    def protected(path):
        # Read-only for puffd where its manager may write: a check that cannot pass by itself.
        check(read_only(pid, path) and not read_only(manager, path),
              f"{path} is read-only for it (writable for the user's manager)",
              f"puffd: {mount_of(pid, path)}; manager: {mount_of(manager, path)}")

    if promised("ProtectSystem", "strict"):
        for path in ["/usr", "/etc", "/var/lib"]:
            protected(path)
    if promised("ProtectHome", "read-only"):
        home = user.entry.pw_dir
        protected(home)
        vault = f"{home}/.local/share/puff"
        check(not read_only(pid, vault), f"{vault} is writable for it", str(mount_of(pid, vault)))
    if promised("PrivateTmp", "yes"):
        own, theirs = mount_of(pid, "/tmp"), mount_of(manager, "/tmp")
        check(own[2:] != theirs[2:], "a /tmp of its own", f"{own} against the manager's {theirs}")


def check_memory(pid, user):
    """A process of the same user reads neither /proc/PID/mem nor with process_vm_readv; the
    same reader does read a process of that user that allows it (its own child)."""
    with open(f"/proc/{pid}/maps") as maps:
        address = next(int(line.split("-")[0], 16) for line in maps if line.split()[1].startswith("r"))
    say(f"  kernel.yama.ptrace_scope is {open('/proc/sys/kernel/yama/ptrace_scope').read().strip()}"
        if os.path.exists("/proc/sys/kernel/yama/ptrace_scope") else "  no Yama on this kernel")
    control = user.run(["python3", "-c", READER, "child"])
    check(control.stdout.count("read 64 bytes") == 2,
          f"the reader, as {user.name}, reads a same-user process that allows it",
          control.stdout + control.stderr)
    attack = user.run(["python3", "-c", READER, str(pid), str(address)])
    check("failed" in attack.stdout and "read " not in attack.stdout.replace("readv", ""),
          f"as {user.name}, puffd's memory cannot be read ({attack.stdout.strip()})", attack.stdout + attack.stderr)
    owner = os.stat(f"/proc/{pid}/mem").st_uid
    check(owner != user.uid, f"/proc/PID/mem of puffd is not {user.name}'s (puffd is not dumpable)", f"uid {owner}")


def session_of(user):
    listed = run(["loginctl", "list-sessions", "--no-legend"]).stdout
    for line in listed.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] == user.name:
            return fields[0]
    return None


def vault_state(user):
    """The user's one collection: its space, its header's (version, slots) and its journal's bytes."""
    vault = f"{user.entry.pw_dir}/.local/share/puff"
    headers = sorted(name for name in os.listdir(vault) if name.endswith(".header"))
    if len(headers) != 1:
        return None
    space = headers[0][: -len(".header")]
    with open(f"{vault}/{space}.journal", "rb") as f:
        return space, vault_header.slots(f"{vault}/{headers[0]}"), f.read()


def only_login_slot_changed(before, after):
    """Same space and journal (no re-key), same slots, the one passcode slot's bytes unchanged and
    the one login slot's changed."""
    if before is None or after is None or before[0] != after[0] or before[2] != after[2]:
        return False
    old = {slot_id: (kind, raw) for slot_id, kind, raw in before[1][1]}
    new = {slot_id: (kind, raw) for slot_id, kind, raw in after[1][1]}
    passcodes = [i for i, (kind, _) in old.items() if kind == vault_header.PASSCODE]
    logins = [i for i, (kind, _) in old.items() if kind == vault_header.LOGIN]
    return (old.keys() == new.keys() and len(passcodes) == 1 and len(logins) == 1
            and new[passcodes[0]] == old[passcodes[0]] and new[logins[0]] != old[logins[0]])


def describe(state):
    """A vault state without its bytes: space, header version and slot (id, type) pairs."""
    if state is None:
        return "not one collection"
    return f"space {state[0]}, version {state[1][0]}, slots {[(i, kind) for i, kind, _ in state[1][1]]}"


def journal(user, unit="puffd.service"):
    return run(["journalctl", "--no-pager", "-o", "cat", f"_SYSTEMD_USER_UNIT={unit}", f"_UID={user.uid}"]).stdout


def main():
    with open(f"{OUT}/started", "w") as started:
        started.write(f"{time.time()}\n")
    state = run(["systemctl", "is-system-running", "--wait"], timeout=300)
    booted = time.time()
    with open(f"{OUT}/t0") as t0:
        say(f"booted in {booted - float(t0.read()):.1f} s (systemd as PID 1: {state.stdout.strip()})")
    if state.stdout.strip() != "running":
        say("  failed units: " + run(["systemctl", "--failed", "--no-legend"]).stdout.strip().replace("\n", "; "))

    # 1. The packages, with apt, from the folder alone (every dependency is in the base system).
    debs = sorted(f"{DEBS}/{name}" for name in os.listdir(DEBS) if name.endswith(".deb"))
    install = run(["apt-get", "install", "-y", "--no-install-recommends"] + debs, timeout=300,
                  env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive"})
    if not check(install.returncode == 0, "apt-get install of " + " ".join(os.path.basename(d) for d in debs),
                 (install.stdout + install.stderr)[-1500:]):
        return
    enable = run(["pam-auth-update", "--enable", "puff"], env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    check(enable.returncode == 0, "pam-auth-update --enable puff", enable.stdout + enable.stderr)
    # PUFF_SYSTEM_AFTER_INSTALL (check-system.sh): commands that break something on purpose, to
    # see the checks fail.
    if os.path.getsize("/mnt/check/after-install.sh") > 0:
        tamper = run(["sh", "-e", "/mnt/check/after-install.sh"], env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
        say(f"  ran PUFF_SYSTEM_AFTER_INSTALL (exit {tamper.returncode}): {(tamper.stdout + tamper.stderr).strip()}")
    lines = open("/etc/pam.d/common-session").read().splitlines()
    place = lambda module: next((i for i, line in enumerate(lines) if module in line and not line.startswith("#")), -1)
    check(0 <= place("pam_systemd.so") < place("pam_puff.so"),
          "common-session runs pam_puff after pam_systemd (the user manager is up when it connects)",
          f"pam_systemd at line {place('pam_systemd.so')}, pam_puff at {place('pam_puff.so')}")

    alice, bob = User("alice", "first-Login-pw-7"), User("bob", "bobs-Login-pw-9")
    for user in [alice, bob]:
        run(["useradd", "--create-home", "--shell", "/bin/bash", user.name])
        run(["chpasswd"], input=f"{user.name}:{user.password}\n")
    with open("/etc/sudoers.d/alice", "w") as sudoers:
        sudoers.write("alice ALL=(bob) ALL\n")
    os.chmod("/etc/sudoers.d/alice", 0o440)

    # 2. The first login: puffd runs as puffd.service under alice's manager, login is unlocked.
    say(f"{alice.name} logs in through /bin/login on a pseudo-terminal")
    session = Session(alice, alice.password)
    say(f"  login to unlocked: the shell started {session.login_seconds:.2f} s after the password "
        "(pam_puff waits for puffd's answer)")
    state = alice.login_state()
    check(state == "unlocked", "login is unlocked by the login password", state)
    pids = alice.puffd()
    if not check(len(pids) == 1, f"one puffd runs as {alice.name}", str(pids)):
        return
    pid = pids[0]
    cgroup = open(f"/proc/{pid}/cgroup").read()
    check(re.search(rf"/user@{alice.uid}\.service/(.+/)?puffd\.service$", cgroup, re.M) is not None,
          f"puffd's cgroup is user@{alice.uid}.service/.../puffd.service", cgroup.strip())
    shown = alice.run(["systemctl", "--user", "show", "puffd.service", "-p", "MainPID", "-p", "ActiveState",
                       "-p", "TriggeredBy"]).stdout
    check(f"MainPID={pid}\n" in shown and "ActiveState=active" in shown,
          "it is the main process of the active puffd.service of the user's manager", shown.replace("\n", " "))
    # The journal may take a moment to have the line.
    check(poll(lambda: "The login socket came from systemd" in journal(alice), 30) is not None,
          "puffd took the login socket from puff-login.socket (socket activation)", journal(alice)[-800:])
    manager = int(run(["pgrep", "-u", str(alice.uid), "-x", "systemd"]).stdout.split()[0])
    check(int(status_field(pid, "PPid")) == manager, "its parent is the user's systemd manager, not login",
          f"PPid {status_field(pid, 'PPid')}")

    status, output = session.shell("printf %s 'system-secret-1' | timeout 30 secret-tool store --label=system "
                                   "service check-system")
    check(status == 0, "secret-tool store in the session, no prompt", output)
    status, output = session.shell("timeout 30 secret-tool lookup service check-system")
    check(status == 0 and output.strip() == "system-secret-1", "secret-tool lookup gives it back", output)

    say("the sandbox of the running puffd (/proc/PID of the unit's main process)")
    check_sandbox(pid, alice, manager)
    check_memory(pid, alice)
    security = alice.run(["systemd-analyze", "--user", "security", "puffd.service"], timeout=120).stdout
    score = re.search(r"Overall exposure level for puffd\.service: ([0-9.]+)", security)
    check(score is not None and float(score.group(1)) <= MAX_EXPOSURE,
          f"systemd-analyze --user security puffd.service (the running manager): exposure "
          f"{score.group(1) if score else '?'} (at most {MAX_EXPOSURE})", security[-500:])

    # 3. sudo -i -u bob, with alice's password: nothing reaches bob.
    status, output = session.shell("sudo -i -u bob true", answers=[(r"password for alice: ?$", alice.password)])
    check(status == 0, "sudo -i -u bob (alice's password) works", output)
    check(bob.puffd() == [], "no puffd runs as bob after alice's sudo -i -u bob", str(bob.puffd()))
    check(not os.path.exists(f"{bob.entry.pw_dir}/.local/share/puff"),
          "no vault was made for bob with alice's password", f"{bob.entry.pw_dir}/.local/share/puff exists")

    # 4. The session lock locks login.
    locked = None
    name = session_of(alice)
    if check(name is not None, f"logind has {alice.name}'s session"):
        run(["loginctl", "lock-session", name])
        locked = poll(lambda: alice.login_state() == "locked", LOCK_LIMIT)
        check(locked is not None, f"loginctl lock-session locks login (within {LOCK_LIMIT} s)",
              f"{alice.login_state()}; puffd's journal ends: {journal(alice)[-1500:]}")
        if locked is not None:
            say(f"  locked {locked:.2f} s after loginctl lock-session")

    # 5. login has one login slot; with a passcode slot of her own beside it, passwd as alice
    # rewrites the login slot alone (issue 26: no re-key).
    listed = alice.run(["puffctl", "slot", "list", "login", "--json"])
    try:
        shown = [(slot["id"], slot["type"]) for slot in json.loads(listed.stdout)]
    except (ValueError, KeyError, TypeError):
        shown = f"{listed.returncode} {listed.stdout}{listed.stderr}".strip()
    check(shown == [(1, "login")], "the first login made login with one login slot (puffctl slot list)", str(shown))
    own_passcode = "own-Passcode-5"
    added = alice.run(["puffctl", "slot", "add", "login", "passcode", "--label", "own", "--stdin"],
                      input=f"{alice.password}\n{own_passcode}\n")
    check(added.returncode == 0, "puffctl slot add login passcode (a passcode of her own)", added.stderr.strip())
    before = vault_state(alice)
    new_password = "second-Login-pw-8x"
    status, output = session.shell(
        "passwd", answers=[(r"[Cc]urrent password: ?$", alice.password), (r"New password: ?$", new_password),
                           (r"Retype new password: ?$", new_password)])
    check(status == 0, "passwd as alice", output)
    after = vault_state(alice)
    check(only_login_slot_changed(before, after),
          "passwd rewrote only login's login slot: the same space and journal, the passcode slot byte for byte",
          f"before {describe(before)}; after {describe(after)}")
    alice.run(["puffctl", "lock"])
    old = alice.run(["puffctl", "unlock", "login", "--stdin"], input=alice.password + "\n")
    alice.run(["puffctl", "lock"])
    new = alice.run(["puffctl", "unlock", "login", "--stdin"], input=new_password + "\n")
    check(old.returncode != 0 and new.returncode == 0,
          "passwd moved login to the new password (the old one no longer opens it)",
          f"old: {old.returncode} {old.stderr.strip()}; new: {new.returncode} {new.stderr.strip()}")
    alice.run(["puffctl", "lock"])
    own = alice.run(["puffctl", "unlock", "login", "--stdin"], input=own_passcode + "\n")
    check(own.returncode == 0, "the passcode slot still opens login with its own passcode", own.stderr.strip())
    alice.password = new_password

    # 6. Logout (no lingering): the user's manager stops, and puffd with it (or at least locks).
    session.logout()
    stopped = poll(lambda: alice.puffd() == [], STOP_LIMIT, every=0.25)
    if stopped is not None:
        check(True, f"logout stops puffd ({stopped:.1f} s after the shell ended)")
    else:
        state = alice.login_state()
        check(state == "locked", f"logout stops puffd, or at least locks login (still running after {STOP_LIMIT} s)",
              state)

    # 7. The next login opens login with the new password.
    say(f"{alice.name} logs in again, with the new password")
    session = Session(alice, alice.password)
    say(f"  login to unlocked: the shell started {session.login_seconds:.2f} s after the password")
    check(alice.login_state() == "unlocked", "the next login opens login with the new password",
          alice.login_state())
    status, output = session.shell("timeout 30 secret-tool lookup service check-system")
    check(status == 0 and output.strip() == "system-secret-1", "the secret stored before is there", output)

    # 8. With lingering on, the user's manager and puffd outlive the last session, whose end must
    # lock login all the same; a process left behind keeps that session "closing" (Debian's
    # KillUserProcesses=no), which counts as ended.
    run(["loginctl", "enable-linger", alice.name])
    session.shell("setsid -f sleep 600 </dev/null >/dev/null 2>&1")
    name = session_of(alice)
    session.logout()
    locked = poll(lambda: alice.login_state() == "locked", LOCK_LIMIT)
    state = run(["loginctl", "show-session", str(name), "-p", "State", "--value"]).stdout.strip()
    say(f"  after logout, logind has alice's session {name} as {state or 'gone'}")
    check(locked is not None and alice.puffd() != [],
          f"with lingering on and a process left in the session, puffd outlives it and its end locks login "
          f"(within {LOCK_LIMIT} s)",
          f"{alice.login_state()}, puffd {alice.puffd()}; puffd's journal ends: {journal(alice)[-1500:]}")
    if locked is not None:
        say(f"  locked {locked:.2f} s after the shell ended")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - any failure of the harness is a failed check
        check(False, "the checks ran to the end", f"{type(error).__name__}: {error}")
    with open(f"{OUT}/result", "w") as result:
        result.write("pass\n" if not failures else f"{len(failures)} failed\n")
    subprocess.run(["systemctl", "poweroff", "--no-block"])
    sys.exit(0)
