#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What OpenBao's operators see of a fleet collection, read with hvac (an independent client)
and with OpenBao's own CLI (`bao kv get`).

    fleet_kv_check.py ADDRESS MOUNT PREFIX NAME BAO

Standard input: the token on the first line, then one forbidden string per line in hex (labels,
attribute values, secrets the test stored). Reads NAME's header and every log entry under
MOUNT/PREFIX/NAME with hvac's KV v2 client, and checks that each holds exactly one field
(`header`, `entry`) of base64, and that no forbidden string occurs in any of them, neither in the
JSON as served nor in the base64-decoded bytes; then reads each path again with `BAO kv get
-format=json` (the token in a 0600 ~/.vault-token of a throwaway HOME, not in its environment) and
checks its output the same way. Prints "ok N" (N entries), else "FAIL <what>"
lines that name paths and field names only, never a forbidden string.
"""

import base64
import json
import os
import subprocess
import sys
import tempfile

import hvac


def main():
    address, mount, prefix, name, bao = sys.argv[1:6]
    lines = sys.stdin.read().split("\n")
    token, forbidden = lines[0], [bytes.fromhex(line) for line in lines[1:] if line]
    client = hvac.Client(url=address, token=token)
    kv = client.secrets.kv.v2
    base = f"{prefix}/{name}"
    failures = []

    def check(path, field):
        answer = kv.read_secret_version(path=path, mount_point=mount, raise_on_deleted_version=True)
        data = answer["data"]["data"]
        if sorted(data) != [field]:
            failures.append(f"FAIL {path}: fields {sorted(data)}, only {field!r} expected")
            return
        forbidden_in(path, str(answer).encode(), base64.b64decode(data[field], validate=True), "hvac")

    def forbidden_in(path, served, decoded, reader):
        for index, text in enumerate(forbidden):
            if text in served or text in decoded:
                failures.append(f"FAIL {path} ({reader}): holds forbidden string {index}")

    home = tempfile.mkdtemp(prefix="puff-bao-cli-")
    descriptor = os.open(os.path.join(home, ".vault-token"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(descriptor, token.encode())
    os.close(descriptor)

    def check_cli(path, field):
        run = subprocess.run([bao, "kv", "get", "-format=json", f"-mount={mount}", path], capture_output=True,
                             env={"HOME": home, "BAO_ADDR": address, "PATH": "/usr/bin:/bin"}, timeout=120)
        if run.returncode != 0:
            failures.append(f"FAIL {path} (bao kv get): exit {run.returncode}")
            return
        data = json.loads(run.stdout)["data"]["data"]
        if sorted(data) != [field]:
            failures.append(f"FAIL {path} (bao kv get): fields {sorted(data)}, only {field!r} expected")
            return
        forbidden_in(path, run.stdout, base64.b64decode(data[field], validate=True), "bao kv get")

    paths = [(f"{base}/header", "header")]
    entries = kv.list_secrets(path=f"{base}/log", mount_point=mount)["data"]["keys"]
    paths += [(f"{base}/log/{key}", "entry") for key in entries]
    try:
        for path, field in paths:
            check(path, field)
            check_cli(path, field)
    finally:
        os.remove(os.path.join(home, ".vault-token"))
        os.rmdir(home)
    if not entries:
        failures.append("FAIL no log entries")
    for line in failures:
        print(line)
    if not failures:
        print(f"ok {len(entries)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
