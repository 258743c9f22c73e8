#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What OpenBao's operators see of a fleet collection, read with hvac (an independent client).

    fleet_kv_check.py ADDRESS MOUNT PREFIX NAME

Standard input: the token on the first line, then one forbidden string per line in hex (labels,
attribute values, secrets the test stored). Reads NAME's header and every log entry under
MOUNT/PREFIX/NAME with hvac's KV v2 client, and checks that each holds exactly one field
(`header`, `entry`) of base64, and that no forbidden string occurs in any of them, neither in the
JSON as served nor in the base64-decoded bytes. Prints "ok N" (N entries), else "FAIL <what>"
lines that name paths and field names only, never a forbidden string.
"""

import base64
import sys

import hvac


def main():
    address, mount, prefix, name = sys.argv[1:5]
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
        served = str(answer).encode()
        decoded = base64.b64decode(data[field], validate=True)
        for index, text in enumerate(forbidden):
            if text in served or text in decoded:
                failures.append(f"FAIL {path}: holds forbidden string {index}")

    check(f"{base}/header", "header")
    entries = kv.list_secrets(path=f"{base}/log", mount_point=mount)["data"]["keys"]
    for key in entries:
        check(f"{base}/log/{key}", "entry")
    if not entries:
        failures.append("FAIL no log entries")
    for line in failures:
        print(line)
    if not failures:
        print(f"ok {len(entries)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
