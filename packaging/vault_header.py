"""vault_header.py - reads a collection's header file (docs/vault-format.md "Header") far enough to
name its slots, for the checks that a login password change rewrites the login slot alone
(Tests/EndToEndTests/Clients/pam_flow.py, packaging/check-system-inside.py). Independent of Puff's
Swift code on purpose. Nothing in a header is secret.

    slots(path) -> (version, [(slot id, type byte, the slot's bytes as stored)])

A header of version 1 or 2 (before slots) reads as one passcode slot (id 1, type 1) whose bytes
are the whole header. Types: 1 passcode, 2 recovery, 3 login, 4 tpm2, 5 fido2, 6 fido2+passcode.
"""

import struct

PASSCODE, LOGIN = 1, 3
# The file: "PUFFHDR\x01", a u32 LE payload length, a checksum, then the payload (the header).
FILE_MAGIC = b"PUFFHDR\x01"


def _blob_end(payload, offset):
    (length,) = struct.unpack_from("<I", payload, offset)
    return offset + 4 + length


def slots(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(FILE_MAGIC):
        raise ValueError(f"{path} is not a header file")
    (length,) = struct.unpack_from("<I", data, len(FILE_MAGIC))
    payload = data[len(data) - length:]
    if not payload.startswith(b"puff.header"):
        raise ValueError(f"{path} holds no header")
    (version,) = struct.unpack_from("<H", payload, 11)
    if version < 3:
        return version, [(1, PASSCODE, payload)]
    # flags u16, policy u8, minimum length u8, space 16, locked search u8, index storage u8
    offset = 13 + 2 + 1 + 1 + 16 + 1 + 1
    for _ in range(4):  # index key, index wrap, index seal, collection id
        offset = _blob_end(payload, offset)
    offset += 2  # next slot id
    count = payload[offset]
    offset += 1
    found = []
    for _ in range(count):
        start = offset
        slot_id, kind = struct.unpack_from("<HB", payload, offset)
        offset += 4  # id, type, flags
        for _ in range(3):  # label, parameters, wrapped master
            offset = _blob_end(payload, offset)
        found.append((slot_id, kind, payload[start:offset]))
    return version, found
