#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plants a forged header of a fleet collection in OpenBao, as someone with write access to its
path and without the collection's key could, using hvac (an independent client).

    fleet_header_forge.py ADDRESS MOUNT PREFIX NAME

Standard input: the token. Reads NAME's current header, changes one byte of it (its last, the
header MAC), and writes the result as a new version of `<PREFIX>/<NAME>/header` without
check-and-set. Prints "ok V" (V, the forged version).
"""

import base64
import sys

import hvac


def main():
    address, mount, prefix, name = sys.argv[1:5]
    token = sys.stdin.read().strip()
    client = hvac.Client(url=address, token=token)
    kv = client.secrets.kv.v2
    path = f"{prefix}/{name}/header"
    current = kv.read_secret_version(path=path, mount_point=mount, raise_on_deleted_version=True)
    header = bytearray(base64.b64decode(current["data"]["data"]["header"], validate=True))
    header[-1] ^= 0x01
    written = kv.create_or_update_secret(
        path=path, secret={"header": base64.b64encode(bytes(header)).decode()}, mount_point=mount)
    print(f"ok {written['data']['version']}")


if __name__ == "__main__":
    main()
