# SPDX-License-Identifier: Apache-2.0
"""OpenBao chores of bench/run.sh's openbao section, with Python's standard library only.

    openbao.py free-port
        prints a loopback port P such that P and P + 1 are free (the dev server takes the port
        after its listener's for its cluster listener)
    openbao.py wait ADDRESS SECONDS PID
        waits until sys/health at ADDRESS says initialized and unsealed; exit 1 after SECONDS, or
        once process PID (the server) has exited
    openbao.py tokens ADDRESS FOLDER NAME...
        the root token on standard input: writes the ACL policy puff-bench (docs/fleet.md's, on
        the mount secret and the prefix puff) and, for each NAME, a token with only that policy
        into FOLDER/NAME/openbao-token (created, mode 0600, not through a link)

Tokens never reach an argument, the environment or the output.
"""
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request

POLICY = """
path "secret/data/puff/*" { capabilities = ["create", "read", "update"] }
path "secret/metadata/puff/*" { capabilities = ["read", "list"] }
"""


def free_port():
    for _ in range(100):
        first = socket.socket()
        first.bind(("127.0.0.1", 0))
        port = first.getsockname()[1]
        second = socket.socket()
        try:
            second.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        finally:
            second.close()
            first.close()
        return port
    sys.exit("openbao.py: no two free ports in a row")


def running(pid):
    """Whether process `pid` runs (a zombie has exited)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def wait(address, seconds, pid):
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        if not running(pid):
            sys.exit(f"openbao.py: the server (pid {pid}) exited before {address} answered")
        try:
            with urllib.request.urlopen(address + "/v1/sys/health", timeout=2) as reply:
                health = json.load(reply)
                if health.get("initialized") and not health.get("sealed"):
                    return
        except (OSError, ValueError):
            pass  # not listening yet, or a standby's or sealed server's status code
        time.sleep(0.1)
    sys.exit(f"openbao.py: {address} was not unsealed within {seconds} s")


def call(address, token, method, path, body):
    request = urllib.request.Request(
        f"{address}/v1/{path}", method=method, data=json.dumps(body).encode(),
        headers={"X-Vault-Token": token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            text = reply.read()
    except urllib.error.HTTPError as error:
        sys.exit(f"openbao.py: {method} {path}: HTTP {error.code}")
    return json.loads(text) if text else {}


def tokens(address, folder, names):
    root = sys.stdin.readline().strip()
    if not root:
        sys.exit("openbao.py tokens: no root token on standard input")
    call(address, root, "PUT", "sys/policies/acl/puff-bench", {"policy": POLICY})
    for name in names:
        reply = call(address, root, "POST", "auth/token/create", {"policies": ["puff-bench"]})
        token = reply["auth"]["client_token"]
        path = os.path.join(folder, name, "openbao-token")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(token)


def main(arguments):
    if arguments[:1] == ["free-port"] and len(arguments) == 1:
        print(free_port())
    elif arguments[:1] == ["wait"] and len(arguments) == 4:
        wait(arguments[1], arguments[2], arguments[3])
    elif arguments[:1] == ["tokens"] and len(arguments) >= 4:
        tokens(arguments[1], arguments[2], arguments[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
