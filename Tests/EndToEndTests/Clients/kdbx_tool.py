#!/usr/bin/python3
"""kdbx_tool.py - make KDBX fixtures with the real tools and read KDBX files back with them.

Run with Debian's interpreter (python3-pykeepass 4.0.3, keepassxc 2.7.4's keepassxc-cli):
    /usr/bin/python3 kdbx_tool.py COMMAND FILE      (the database password is stdin's first line)

Commands:
  make-cli FILE   keepassxc-cli db-create (KDBX 3.1, AES-KDF) then add/mkdir/attachment-import,
                  the database password always on keepassxc-cli's stdin, never in argv.
  make-cli-rm FILE  the same, then `rm` of one entry into the recycle bin (KeePassXC then writes
                  KDBX 4.1 with the AES-KDF).
  make-cli-past FILE  make-cli with keepassxc-cli's clock at 2017-05-06 (libfaketime), an
                  `edit` of Sub/inner at 2018-07-08, then pykeepass (which keeps the file KDBX 3.1 and the entries' times) adds what
                  keepassxc-cli cannot: 50 custom fields, an empty and a unicode custom field,
                  FDO_SECRETS_CONTENT_TYPE beside the FDO_SECRETS_DATA attachment.
  make-cli-past-rm FILE  the same, then keepassxc-cli's `rm` of one entry into the recycle bin
                  (the file becomes KDBX 4.1, still AES-KDF).
  make-py FILE    pykeepass create_database (KDBX 4, Argon2d): unicode labels, empty values, 50
                  custom fields, a 64 KiB value, times years in the past, a binary secret as
                  FDO_SECRETS_DATA with FDO_SECRETS_CONTENT_TYPE, another attachment, notes, a
                  subgroup, history, an entry in the recycle bin.
  dump-py FILE    pykeepass opens FILE and prints every entry as JSON (strings, attachments as
                  hex, times, group path, whether it is in the recycle bin).
  dump-cli FILE   keepassxc-cli ls -R -f, then for every entry `show -s -a` of each field the
                  entry has (names from --all) and attachment-export (to a file: --stdout re-encodes bytes) of each attachment;
                  JSON like dump-py.
Exit 0 on success; anything else prints to stderr and exits non-zero.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile

ALL_BYTES = bytes(range(256))
BIG = "€" * 21845 + "x"  # 65,536 bytes of UTF-8


# keepassxc-cli decodes stdin and encodes its output by the locale: UTF-8 whatever the caller's is.
ENV = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")


# The clock keepassxc-cli runs with for make-cli-past: years before any run of the tests.
PAST = dict(ENV, LD_PRELOAD="/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", FAKETIME="@2017-05-06 07:08:09",
            FAKETIME_DONT_FAKE_MONOTONIC="1")
CLI_ENV = ENV


def cli(password, *args, stdin_extra=b"", may_fail=False):
    """keepassxc-cli with the database password on stdin (never argv)."""
    done = subprocess.run(
        ["keepassxc-cli", *args], input=password.encode() + b"\n" + stdin_extra,
        capture_output=True, timeout=600, env=CLI_ENV)
    if done.returncode != 0 and may_fail:
        return None
    if done.returncode != 0:
        sys.stderr.write(f"keepassxc-cli {args[0]} failed: {done.stderr.decode(errors='replace')}\n")
        sys.exit(2)
    return done.stdout


def make_cli(path, password, recycle=False):
    subprocess.run(["keepassxc-cli", "db-create", "-q", "-p", path],
                   input=f"{password}\n{password}\n".encode(), check=True, capture_output=True, timeout=600,
                   env=CLI_ENV)
    cli(password, "add", "-q", "-u", "ålice", "--url", "https://example.org/ü", "-p", path, "Grüße 🔑",
        stdin_extra="pässword 🔐\n".encode())
    cli(password, "add", "-q", "-p", path, "empty fields", stdin_extra=b"\n")
    cli(password, "add", "-q", "-p", path, "big", stdin_extra=BIG.encode() + b"\n")
    cli(password, "add", "-q", "--notes", "a note", "-p", path, "binary", stdin_extra=b"unused\n")
    with open(path + ".bin", "wb") as f:
        f.write(ALL_BYTES)
    cli(password, "attachment-import", "-q", path, "binary", "FDO_SECRETS_DATA", path + ".bin")
    with open(path + ".bin", "wb") as f:
        f.write(b"other attachment")
    cli(password, "attachment-import", "-q", path, "binary", "photo.png", path + ".bin")
    cli(password, "mkdir", "-q", path, "Sub")
    cli(password, "add", "-q", "-p", path, "Sub/inner", stdin_extra=b"inner secret\n")
    cli(password, "add", "-q", "-p", path, "deleted", stdin_extra=b"gone\n")
    if recycle:
        # Moves it into the recycle bin, and KeePassXC 2.7.4 then saves the file as KDBX 4.1
        # (still AES-KDF): what was KDBX 3.1 until this step.
        cli(password, "rm", "-q", path, "deleted")


def make_cli_past(path, password, recycle=False):
    global CLI_ENV
    CLI_ENV = PAST
    make_cli(path, password)
    # An entry edited a year later, so its Modified is not its Created.
    CLI_ENV = dict(PAST, FAKETIME="@2018-07-08 09:10:11")
    cli(password, "edit", "-q", "-p", path, "Sub/inner", stdin_extra=b"inner secret v2\n")
    from pykeepass import PyKeePass
    kp = PyKeePass(path, password=password)
    e = kp.find_entries(title="Grüße 🔑", first=True)
    e.set_custom_property("ключ", "значение ✓")
    e.set_custom_property("empty", "")
    e = kp.find_entries(title="empty fields", first=True)
    for i in range(50):
        e.set_custom_property(f"attr{i:02d}", f"value {i} ✓")
    e = kp.find_entries(title="binary", first=True)
    e.set_custom_property("FDO_SECRETS_CONTENT_TYPE", "application/x-puff-test")
    e.set_custom_property("service", "ssh")
    kp.save()
    if PyKeePass(path, password=password).version != (3, 1):
        sys.stderr.write("pykeepass did not keep the file KDBX 3.1\n")
        sys.exit(2)
    if recycle:
        cli(password, "rm", "-q", path, "deleted")


def make_cli_past_rm(path, password):
    make_cli_past(path, password, recycle=True)


def make_py(path, password):
    from pykeepass import create_database
    kp = create_database(path, password=password)
    root = kp.root_group
    past = datetime.datetime(2016, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
    later = datetime.datetime(2019, 8, 9, 10, 11, 12, tzinfo=datetime.timezone.utc)

    e = kp.add_entry(root, "Grüße 🔑 ünïcødé", "ålice", "pässword 🔐", url="https://example.org/ü")
    e.set_custom_property("xdg:schema", "org.example.Test")
    e.set_custom_property("ключ", "значение ✓")
    e.ctime, e.mtime = past, later

    e = kp.add_entry(root, "empty values", "", "")
    e.set_custom_property("empty", "")
    e.ctime, e.mtime = past, past

    e = kp.add_entry(root, "fifty", "u", "p")
    for i in range(50):
        e.set_custom_property(f"attr{i:02d}", f"value {i}")

    kp.add_entry(root, "big", "", BIG)

    e = kp.add_entry(root, "binary secret", "", "", notes="a note")
    e.set_custom_property("FDO_SECRETS_CONTENT_TYPE", "application/x-puff-test")
    e.set_custom_property("service", "ssh")
    e.add_attachment(kp.add_binary(ALL_BYTES), "FDO_SECRETS_DATA")
    e.add_attachment(kp.add_binary(b"other attachment"), "photo.png")

    sub = kp.add_group(root, "Sub")
    e = kp.add_entry(sub, "inner", "", "inner secret")
    e.save_history()
    e.password = "inner secret v2"

    gone = kp.add_entry(root, "deleted", "", "gone")
    kp.trash_entry(gone)
    kp.save()


def times(entry):
    return int(entry.ctime.timestamp()), int(entry.mtime.timestamp())


def dump_py(path, password):
    from pykeepass import PyKeePass
    kp = PyKeePass(path, password=password)
    out = []
    for e in kp.entries:
        if e.is_a_history_entry:
            continue
        strings = {"Title": e.title or "", "UserName": e.username or "", "Password": e.password or "",
                   "URL": e.url or "", "Notes": e.notes or ""}
        strings.update({k: v or "" for k, v in e.custom_properties.items()})
        out.append({"path": "/".join(e.path[:-1] if e.path else []), "strings": strings,
                    "attachments": {a.filename: a.data.hex() for a in e.attachments},
                    "times": times(e), "recycled": bool(kp.recyclebin_group) and _under(e, kp.recyclebin_group)})
    print(json.dumps({"version": list(kp.version), "kdf": kp.kdf_algorithm,
                      "cipher": kp.encryption_algorithm, "entries": out}))


def _under(entry, group):
    g = entry.group
    while g is not None:
        if g.uuid == group.uuid:
            return True
        g = g.parentgroup
    return False


def dump_cli(path, password):
    listing = cli(password, "ls", "-R", "-f", "-q", path).decode().splitlines()
    out = []
    for line in listing:
        if not line or line.endswith("/") or line.startswith("Recycle Bin/"):
            continue
        names = []
        for field in cli(password, "show", "--all", "-q", path, line).decode().splitlines():
            name = field.split(": ", 1)[0] if ": " in field else field.rstrip(":")
            if name and name not in ("Uuid", "Tags"):
                names.append(name)
        strings = {}
        for name in names:
            # A line of a multi-line value looks like a field too; keepassxc-cli refuses those names.
            value = cli(password, "show", "-s", "-q", "-a", name, path, line, may_fail=True)
            if value is not None:
                value = value.decode()
                strings[name] = value[:-1] if value.endswith("\n") else value
        attachments = {}
        shown = cli(password, "show", "--show-attachments", "-q", path, line).decode().splitlines()
        if "Attachments:" in shown:
            for att in shown[shown.index("Attachments:") + 1:]:
                name = att.strip().rsplit(" (", 1)[0]
                if name:
                    # --stdout goes through a text stream that re-encodes bytes >= 0x80: use a file.
                    with tempfile.TemporaryDirectory() as folder:
                        target = os.path.join(folder, "attachment")
                        cli(password, "attachment-export", "-q", path, line, name, target)
                        with open(target, "rb") as f:
                            attachments[name] = f.read().hex()
        out.append({"path": line, "strings": strings, "attachments": attachments})
    print(json.dumps({"entries": out}))


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(64)
    command, path = sys.argv[1], sys.argv[2]
    password = sys.stdin.readline().rstrip("\n")
    {"make-cli": make_cli, "make-cli-rm": lambda f, p: make_cli(f, p, recycle=True), "make-cli-past": make_cli_past, "make-cli-past-rm": make_cli_past_rm, "make-py": make_py, "dump-py": dump_py, "dump-cli": dump_cli}[command](path, password)


if __name__ == "__main__":
    main()
