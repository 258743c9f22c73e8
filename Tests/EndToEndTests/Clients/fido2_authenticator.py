#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Puff's software FIDO2 authenticator for tests (docs/design/unlock-slots.md §3 fido2).

CTAPHID over a SOCK_SEQPACKET Unix socket, one 64-byte report per message (the platform side is
libfido2 with `fido_dev_set_io_functions`: it writes 65 bytes, report id first, and the driver
sends bytes 1...64). CTAPHID INIT, PING, CBOR, CANCEL, KEEPALIVE, ERROR; CTAP2 getInfo,
makeCredential and getAssertion with hmac-secret, clientPIN (getRetries, getKeyAgreement,
getPinToken, getPinUvAuthTokenUsingPinWithPermissions) under PIN/UV protocols 1 and 2.

Stateless apart from a 32-byte seed: credential ids (nonce || MAC(seed, rpIdHash || nonce)), each
credential's ES256 key and its CredRandom come from it, so an authenticator with another seed does
not know a credential (FIDO_ERR_NO_CREDENTIALS) and a restarted one with the same seed still does.
PIN retries live as long as the process (across connections), 8 at the start.

    fido2_authenticator.py SOCKET [--seed HEX64] [--pin-stdin] [--touch auto|refuse|wait]
                                  [--protocols 2,1]

--pin-stdin reads the PIN from the first line of standard input (never from the command line).
--touch: auto touches at once; refuse answers every presence check with OPERATION_DENIED; wait
logs a line `touch?` to stderr and sends KEEPALIVE (UPNEEDED) every 100 ms until it is touched
(SIGUSR1 to the process, logged as `touched`: a signal sent while nothing waits is dropped, as a
real key ignores a touch nobody asked for) or the platform sends CANCEL, then answers
KEEPALIVE_CANCEL. Every CANCEL received is logged to stderr as a line `cancel`.
Prints `ready` on stdout once the socket listens.
"""
import argparse
import hashlib
import hmac
import os
import signal
import socket
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from fido2.ctap2.pin import PinProtocolV1, PinProtocolV2

ap = argparse.ArgumentParser()
ap.add_argument("socket")
ap.add_argument("--seed", default="00" * 32)
ap.add_argument("--pin-stdin", action="store_true")
ap.add_argument("--touch", choices=["auto", "refuse", "wait"], default="auto")
ap.add_argument("--protocols", default="2,1")
args = ap.parse_args()
# A test runner may start us with SIGTERM ignored (inherited across exec): stopping must stop us.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
SEED = bytes.fromhex(args.seed)
if len(SEED) != 32:
    sys.exit("--seed must be 64 hex digits")
PIN = sys.stdin.readline().rstrip("\n").encode() if args.pin_stdin else None
AAGUID = hashlib.sha256(b"puff test authenticator").digest()[:16]
PROTOCOLS = {1: PinProtocolV1(), 2: PinProtocolV2()}
ADVERTISED = [int(p) for p in args.protocols.split(",")]
state = {"retries": 8, "agreement": ec.generate_private_key(ec.SECP256R1()), "token": os.urandom(32),
         "touched": False}
# A touch: noticed by a presence check that waits (below); the handler only sets the flag.
signal.signal(signal.SIGUSR1, lambda *_: state.update(touched=True))
# A test runner may start us with signals blocked, too (swift-corelibs-foundation's Process does).
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})

CTAPHID_PING, CTAPHID_MSG, CTAPHID_INIT, CTAPHID_CBOR = 0x01, 0x03, 0x06, 0x10
CTAPHID_CANCEL, CTAPHID_KEEPALIVE, CTAPHID_ERROR = 0x11, 0x3B, 0x3F
ERR_INVALID_COMMAND, ERR_INVALID_CBOR, ERR_MISSING = 0x01, 0x12, 0x14
ERR_DENIED, ERR_KEEPALIVE_CANCEL, ERR_NO_CREDENTIALS = 0x27, 0x2D, 0x2E
ERR_PIN_INVALID, ERR_PIN_BLOCKED, ERR_PIN_AUTH_INVALID, ERR_PIN_REQUIRED = 0x31, 0x32, 0x33, 0x36


def mac(*parts):
    return hmac.new(SEED, b"|".join(parts), hashlib.sha256).digest()


def cose(pub, alg=-25):
    n = pub.public_numbers()
    return {1: 2, 3: alg, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")}


def credential_key(cred_id):
    scalar = int.from_bytes(mac(b"key", cred_id), "big") % (2**256 - 2**224 - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256R1())


def shared_secret(proto, platform_key):
    x, y = int.from_bytes(platform_key[-2], "big"), int.from_bytes(platform_key[-3], "big")
    pk = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    return PROTOCOLS[proto].kdf(state["agreement"].exchange(ec.ECDH(), pk))


def check_token(proto, param, cdh):
    expected = PROTOCOLS[proto].authenticate(state["token"], cdh)
    return param is not None and hmac.compare_digest(expected, param)


def presence(conn, cid):
    """0 once touched, else the CTAP2 status that refuses."""
    if args.touch == "auto":
        return 0
    if args.touch == "refuse":
        return ERR_DENIED
    state["touched"] = False
    print("touch?", file=sys.stderr, flush=True)
    conn.settimeout(0.1)
    try:
        while True:
            if state["touched"]:
                print("touched", file=sys.stderr, flush=True)
                return 0
            try:
                pkt = conn.recv(64)
            except socket.timeout:
                send(conn, cid, CTAPHID_KEEPALIVE, b"\x02")  # UPNEEDED
                continue
            if not pkt:
                return ERR_KEEPALIVE_CANCEL
            if len(pkt) == 64 and pkt[4] == 0x80 | CTAPHID_CANCEL:
                print("cancel", file=sys.stderr, flush=True)
                return ERR_KEEPALIVE_CANCEL
    finally:
        conn.settimeout(None)


def get_info(conn, cid, req):
    return 0, {1: ["FIDO_2_0", "FIDO_2_1_PRE"], 2: ["hmac-secret"], 3: AAGUID,
               4: {"rk": False, "up": True, "plat": False, "clientPin": PIN is not None},
               5: 1200, 6: ADVERTISED}


def make_credential(conn, cid, req):
    cdh, rp, ext = req[1], req[2], req.get(6, {})
    uv = False
    if PIN is not None:
        if 8 not in req:
            return ERR_PIN_REQUIRED, None
        if not check_token(req.get(9, 1), req[8], cdh):
            return ERR_PIN_AUTH_INVALID, None
        uv = True
    status = presence(conn, cid)
    if status:
        return status, None
    rp_hash = hashlib.sha256(rp["id"].encode()).digest()
    nonce = os.urandom(16)
    cred_id = nonce + mac(b"id", rp_hash, nonce)[:16]
    key = credential_key(cred_id)
    ext_out = {"hmac-secret": True} if ext.get("hmac-secret") else {}
    flags = 0x01 | 0x40 | (0x04 if uv else 0) | (0x80 if ext_out else 0)
    # libfido2 refuses a credential key with alg -25 here: ES256 is -7.
    auth_data = (rp_hash + bytes([flags]) + struct.pack(">I", 1) + AAGUID + struct.pack(">H", len(cred_id))
                 + cred_id + cbor.encode(cose(key.public_key(), -7)))
    if ext_out:
        auth_data += cbor.encode(ext_out)
    sig = key.sign(auth_data + cdh, ec.ECDSA(hashes.SHA256()))
    return 0, {1: "packed", 2: auth_data, 3: {"alg": -7, "sig": sig}}


def known(rp_hash, cred_id):
    return len(cred_id) == 32 and hmac.compare_digest(mac(b"id", rp_hash, cred_id[:16])[:16], cred_id[16:])


def get_assertion(conn, cid, req):
    rp_id, cdh, allow, ext, opts = req[1], req[2], req.get(3, []), req.get(4, {}), req.get(5, {})
    rp_hash = hashlib.sha256(rp_id.encode()).digest()
    cred_id = next((c["id"] for c in allow if known(rp_hash, c["id"])), None)
    if cred_id is None:
        return ERR_NO_CREDENTIALS, None
    uv = False
    if 6 in req:
        if not check_token(req.get(7, 1), req[6], cdh):
            return ERR_PIN_AUTH_INVALID, None
        uv = True
    up = opts.get("up", True)
    if up:
        status = presence(conn, cid)
        if status:
            return status, None
    ext_bytes = b""
    if "hmac-secret" in ext:
        hs = ext["hmac-secret"]
        proto = hs.get(4, 1)
        secret = shared_secret(proto, hs[1])
        if not hmac.compare_digest(PROTOCOLS[proto].authenticate(secret, hs[2]), hs[3]):
            return ERR_PIN_AUTH_INVALID, None  # CTAP2_ERR_EXTENSION_FIRST in 2.1; any refusal will do
        salts = PROTOCOLS[proto].decrypt(secret, hs[2])
        cred_random = mac(b"hmac-secret", cred_id, b"uv" if uv else b"nouv")
        out = b"".join(hmac.new(cred_random, salts[i:i + 32], hashlib.sha256).digest()
                       for i in range(0, len(salts), 32))
        ext_bytes = cbor.encode({"hmac-secret": PROTOCOLS[proto].encrypt(secret, out)})
    flags = (0x01 if up else 0) | (0x04 if uv else 0) | (0x80 if ext_bytes else 0)
    auth_data = rp_hash + bytes([flags]) + struct.pack(">I", 2) + ext_bytes
    sig = credential_key(cred_id).sign(auth_data + cdh, ec.ECDSA(hashes.SHA256()))
    return 0, {1: {"type": "public-key", "id": cred_id}, 2: auth_data, 3: sig}


def client_pin(conn, cid, req):
    proto, sub = req.get(1, 1), req[2]
    if sub == 1:
        return 0, {3: state["retries"]}
    if sub == 2:
        return 0, {1: cose(state["agreement"].public_key())}
    if sub in (5, 9):  # getPinToken, getPinUvAuthTokenUsingPinWithPermissions
        if PIN is None:
            return ERR_MISSING, None
        if state["retries"] == 0:
            return ERR_PIN_BLOCKED, None
        secret = shared_secret(proto, req[3])
        given = PROTOCOLS[proto].decrypt(secret, req[6])[:16]
        if not hmac.compare_digest(given, hashlib.sha256(PIN).digest()[:16]):
            state["retries"] -= 1
            state["agreement"] = ec.generate_private_key(ec.SECP256R1())
            return ERR_PIN_INVALID, None
        state["retries"] = 8
        state["token"] = os.urandom(32)
        return 0, {2: PROTOCOLS[proto].encrypt(secret, state["token"])}
    return ERR_INVALID_COMMAND, None


COMMANDS = {0x04: get_info, 0x01: make_credential, 0x02: get_assertion, 0x06: client_pin}


def send(conn, cid, cmd, data):
    first = cid + bytes([0x80 | cmd]) + struct.pack(">H", len(data)) + data[:57]
    conn.send(first.ljust(64, b"\0"))
    rest, seq = data[57:], 0
    while rest:
        conn.send((cid + bytes([seq]) + rest[:59]).ljust(64, b"\0"))
        rest, seq = rest[59:], seq + 1


def serve(conn):
    while True:
        pkt = conn.recv(64)
        if not pkt:
            return
        if len(pkt) != 64 or not pkt[4] & 0x80:
            continue
        cid, cmd, n = pkt[:4], pkt[4] & 0x7F, struct.unpack(">H", pkt[5:7])[0]
        data = pkt[7:7 + n]
        while len(data) < n:
            more = conn.recv(64)
            if not more:
                return
            data += more[5:5 + n - len(data)]
        if cmd == CTAPHID_INIT:
            new = os.urandom(4) if cid == b"\xff" * 4 else cid
            send(conn, cid, CTAPHID_INIT, data[:8] + new + bytes([2, 0, 1, 0, 0x04 | 0x08]))
        elif cmd == CTAPHID_PING:
            send(conn, cid, CTAPHID_PING, data)
        elif cmd == CTAPHID_CANCEL:
            print("cancel", file=sys.stderr, flush=True)
        elif cmd == CTAPHID_CBOR:
            try:
                req = cbor.decode(data[1:]) if len(data) > 1 else {}
                handler = COMMANDS.get(data[0], lambda c, i, r: (ERR_INVALID_COMMAND, None))
                status, body = handler(conn, cid, req)
            except Exception as e:  # a malformed request is answered, never the end of the process
                print("error:", repr(e), file=sys.stderr, flush=True)
                status, body = ERR_INVALID_CBOR, None
            reply = cbor.encode(body) if body is not None and status == 0 else b""
            send(conn, cid, CTAPHID_CBOR, bytes([status]) + reply)
        else:
            send(conn, cid, CTAPHID_ERROR, b"\x01")


if os.path.exists(args.socket):
    os.unlink(args.socket)
server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
server.bind(args.socket)
server.listen(1)
print("ready", flush=True)
while True:
    connection, _ = server.accept()
    with connection:
        try:
            serve(connection)
        except OSError as e:  # the platform went away mid-message
            print("error:", repr(e), file=sys.stderr, flush=True)
