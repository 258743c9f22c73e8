#!/usr/bin/python3
"""bad_input.py - feed org.freedesktop.secrets bad input over raw D-Bus
(python3-dbus) and check the D-Bus error NAME (never the message) and that
the daemon keeps serving.

    /usr/bin/python3 bad_input.py [--lenient]

Cases (strict = Puff's contract, secret-service.md sections 4-6):
  * OpenSession with a wrong signature -> InvalidArgs; unknown method ->
    UnknownMethod; calls on a missing collection/item path -> NoSuchObject,
    UnknownObject or UnknownMethod; unknown algorithm -> NotSupported;
    wrong-typed CreateItem property / unknown property -> InvalidArgs.
  * Session ownership: A's plain session used by B in GetSecrets, GetSecret
    and a CreateItem secret -> NoSession; Session.Close by B -> AccessDenied
    (A's session keeps working); a closed or unknown session -> NoSession.
  * DH: client-side crypto self-test (section 5.3 vector); a secret
    encrypted with session 1's key but declared as session 2 (CreateItem and
    SetSecret; IV chosen so the padding under session 2's key is invalid),
    a bad IV length, a ciphertext that is not a multiple of 16 ->
    InvalidArgs, and nothing is stored; malformed client public keys (empty,
    200 bytes, value 1, value p-1) -> InvalidArgs; minimal (127-byte) and
    zero-prefixed (129-byte) public keys are accepted and round-trip.
  * CreateItem with 10,000 attributes -> success (then SearchItems finds it
    by one attribute and Attributes has 10,000 entries) or a D-Bus error,
    never a dropped connection.
  * Prompts, on a collection this driver creates and locks (login is never
    locked): Unlock -> prompt; another connection's Prompt/Dismiss ->
    AccessDenied; the owner disconnects before calling Prompt; a client sends
    Prompt and disconnects at once; a client that waits gets
    Completed(dismissed=true, <ao []>) and the prompt object is gone.
After every case, "<case> / still serving" checks with a fresh connection
that the daemon's unique name is unchanged and that SearchItems + GetSecret
(DH) return the item stored at the start byte-exact.

--lenient (or PUFF_CLIENT_LENIENT=1), for gnome-keyring only: bad DH
ciphertext may fail with Failed, malformed DH public keys may get any reply
(GK accepts value 1, fails an empty key with Failed), CreateCollection may
be dismissed (the collection is then made with GK's private
CreateWithMasterPassword), and Attributes may gain
xdg:schema=org.freedesktop.Secret.Generic (GK reload quirk, section 9.2).
Never prints secret or attribute values.
"""

import os
import sys
import uuid

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus  # noqa: E402
import dbus.bus  # noqa: E402
import dbus.lowlevel  # noqa: E402
from dbus.mainloop.glib import DBusGMainLoop  # noqa: E402
from gi.repository import GLib  # noqa: E402
from cryptography.hazmat.primitives import hashes, padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

from harness import Failure, Runner, check, lenient_from_argv, need  # noqa: E402

LENIENT = lenient_from_argv()
BUS = "org.freedesktop.secrets"
SS = "/org/freedesktop/secrets"
DEFAULT = SS + "/aliases/default"
IFACE = "org.freedesktop.Secret."
PROPS = "org.freedesktop.DBus.Properties"
DH_ALGO = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
E = "org.freedesktop.DBus.Error."
SE = "org.freedesktop.Secret.Error."
GONE = {SE + "NoSuchObject", E + "UnknownObject", E + "UnknownMethod"}
# errors meaning "the daemon did not answer" rather than "the daemon said no"
TRANSPORT = {E + "NoReply", E + "Disconnected", E + "ServiceUnknown",
             E + "NameHasNoOwner", E + "Timeout", E + "TimedOut"}
BAD_SECRET = {E + "InvalidArgs"} | ({E + "Failed"} if LENIENT else set())

P = int("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
        "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
        "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)


# ------------------------------------------------------------ D-Bus helpers

def connect(mainloop=None):
    """A brand-new private connection (its own unique name)."""
    return dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"], mainloop=mainloop)


def call(conn, path, iface, method, sig="", *args, timeout=10):
    return conn.call_blocking(BUS, path, iface, method, sig, args,
                              timeout=timeout, byte_arrays=True)


def error_name(fn, *args, **kwargs):
    """Run a call that must fail; return its D-Bus error name."""
    try:
        fn(*args, **kwargs)
    except dbus.DBusException as exc:
        name = exc.get_dbus_name()
        check(name not in TRANSPORT, f"daemon did not answer ({name})")
        return name
    raise Failure("call succeeded")


def expect_error(allowed, fn, *args, what="call", **kwargs):
    if isinstance(allowed, str):
        allowed = {allowed}
    try:
        name = error_name(fn, *args, **kwargs)
    except Failure as exc:
        raise Failure(f"{what}: {exc}, expected {' or '.join(sorted(allowed))}")
    check(name in allowed, f"{what}: got {name}, expected {' or '.join(sorted(allowed))}")


def get_prop(conn, path, iface, name):
    return call(conn, path, PROPS, "Get", "ss", IFACE + iface, name)


def search(conn, attrs):
    unlocked, locked = call(conn, SS, IFACE + "Service", "SearchItems", "a{ss}", attrs)
    return sorted(map(str, unlocked)), sorted(map(str, locked))


def props(label, attrs):
    return dbus.Dictionary({
        IFACE + "Item.Label": dbus.String(label, variant_level=1),
        IFACE + "Item.Attributes": dbus.Dictionary(attrs, signature="ss", variant_level=1),
    }, signature="sv")


def secret_struct(session, params, value, ctype="text/plain"):
    return dbus.Struct((dbus.ObjectPath(session), dbus.ByteArray(params),
                        dbus.ByteArray(value), ctype), signature="oayays")


def create_item(conn, coll, label, attrs, secret, replace=False):
    item, prompt = call(conn, coll, IFACE + "Collection", "CreateItem", "a{sv}(oayays)b",
                        props(label, attrs), secret, replace)
    check(prompt == "/", "CreateItem returned a prompt")
    return str(item)


def delete_item(conn, path):
    try:
        call(conn, path, IFACE + "Item", "Delete")
    except dbus.DBusException:
        pass


# ------------------------------------------------------------ sessions / DH

def hkdf16(shared_int):
    z = shared_int.to_bytes(128, "big")  # left-padded to the length of p
    return HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b"").derive(z)


def aes_encrypt(key, iv, plaintext):
    padder = padding.PKCS7(128).padder()
    data = padder.update(plaintext) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(data) + enc.finalize()


def aes_decrypt_raw(key, iv, ciphertext):
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return dec.update(ciphertext) + dec.finalize()


def pkcs7_ok(data):
    n = data[-1] if data else 0
    return 1 <= n <= 16 and data[-n:] == bytes([n]) * n


def aes_decrypt(key, iv, ciphertext):
    data = aes_decrypt_raw(key, iv, ciphertext)
    check(len(ciphertext) % 16 == 0 and len(ciphertext) > 0 and pkcs7_ok(data),
          "daemon sent a DH secret with bad length or padding")
    return data[:-data[-1]]


class Session:
    def __init__(self, conn, algorithm="plain", pub_encoding=None, priv=None):
        self.conn, self.key = conn, None
        if algorithm == "plain":
            _out, self.path = call(conn, SS, IFACE + "Service", "OpenSession", "sv",
                                   "plain", dbus.String("", variant_level=1))
        else:
            priv = priv or int.from_bytes(os.urandom(128), "big") % (P - 3) + 2
            pub = pow(2, priv, P)
            raw = (pub_encoding or (lambda y: y.to_bytes(128, "big")))(pub)
            out, self.path = call(conn, SS, IFACE + "Service", "OpenSession", "sv",
                                  DH_ALGO, dbus.ByteArray(raw, variant_level=1))
            server = int.from_bytes(bytes(out), "big")
            check(1 < server < P - 1, "server DH public key out of range")
            self.key = hkdf16(pow(server, priv, P))
        self.path = str(self.path)

    def encode(self, plaintext, declared_path=None):
        if self.key is None:
            return secret_struct(declared_path or self.path, b"", plaintext)
        iv = os.urandom(16)
        return secret_struct(declared_path or self.path, iv, aes_encrypt(self.key, iv, plaintext))

    def decode(self, secret):
        check(str(secret[0]) == self.path, "returned Secret names another session")
        if self.key is None:
            check(len(secret[1]) == 0, "plain secret with non-empty parameters")
            return bytes(secret[2])
        check(len(secret[1]) == 16, "DH secret without a 16-byte IV")
        return aes_decrypt(self.key, bytes(secret[1]), bytes(secret[2]))

    def get_secret(self, item):
        return self.decode(call(self.conn, item, IFACE + "Item", "GetSecret", "o", self.path))

    def close(self):
        call(self.conn, self.path, IFACE + "Session", "Close")


def open_session_raw(conn, algorithm, variant):
    return call(conn, SS, IFACE + "Service", "OpenSession", "sv", algorithm, variant)


# ------------------------------------------------------------ the driver

class Driver:
    def __init__(self, runner):
        self.r = runner
        self.run = uuid.uuid4().hex
        self.ref_attrs = {"puff-e2e-bad": self.run, "role": "reference"}
        self.ref_secret = b"\x00\xffref\x80" + os.urandom(40)
        self.ref_path = None
        self.owner = None
        self.coll = None          # collection created (and locked) by this driver
        self.cleanup = []         # item paths to delete at the end

    def case(self, name, fn):
        """Run a case, then the 'still serving' check."""
        self.r.case(name, fn)
        self.r.case(f"{name} / still serving", self.intact)

    def intact(self):
        conn = connect()
        try:
            owner = str(conn.get_name_owner(BUS))
            check(owner == need(self.owner, "store reference item"),
                  "org.freedesktop.secrets changed owner (daemon restarted or crashed)")
            unlocked, locked = search(conn, self.ref_attrs)
            check(unlocked == [self.ref_path] and locked == [],
                  f"SearchItems found {len(unlocked)} unlocked/{len(locked)} locked, expected 1/0")
            got = Session(conn, DH_ALGO).get_secret(self.ref_path)
            check(got == self.ref_secret, f"reference secret changed (length {len(got)})")
        finally:
            conn.close()

    # -- setup
    def store_reference(self):
        conn = connect()
        self.owner = str(conn.get_name_owner(BUS))
        s = Session(conn)
        self.ref_path = create_item(conn, DEFAULT, "Puff bad-input reference", self.ref_attrs,
                                    s.encode(self.ref_secret))
        conn.close()
        self.intact()

    def dh_self_test(self):
        xc, xs = 0x1014E, 0xF4243  # secret-service.md 5.3
        key = hkdf16(pow(2, xc * xs, P))
        check(key.hex() == "736340eb717ffaf07f54d0f3d29bcab9", "HKDF key differs from the vector")
        ct = aes_encrypt(key, bytes(range(16)), b"s3cret")
        check(ct.hex() == "c25d4231d403f365b10f6012da42e465", "AES-CBC differs from the vector")

    # -- protocol errors
    def wrong_signature(self):
        conn = connect()
        expect_error(E + "InvalidArgs", call, conn, SS, IFACE + "Service", "OpenSession", "s",
                     "plain", what="OpenSession(s)")
        expect_error(E + "InvalidArgs", call, conn, SS, IFACE + "Service", "OpenSession", "ss",
                     "plain", "", what="OpenSession(ss)")
        expect_error(E + "InvalidArgs", call, conn, SS, IFACE + "Service", "SearchItems", "s",
                     "x", what="SearchItems(s)")
        conn.close()

    def unknown_method(self):
        conn = connect()
        expect_error(E + "UnknownMethod", call, conn, SS, IFACE + "Service", "Frobnicate",
                     what="Service.Frobnicate")
        conn.close()

    def missing_object(self):
        conn = connect()
        nope = SS + "/collection/nope"
        expect_error(GONE, get_prop, conn, nope, "Collection", "Label", what="Get on missing collection")
        expect_error(GONE, call, conn, nope, IFACE + "Collection", "SearchItems", "a{ss}", {},
                     what="SearchItems on missing collection")
        expect_error(GONE, get_prop, conn, nope + "/1", "Item", "Label", what="Get on missing item")
        conn.close()

    def unknown_algorithm(self):
        conn = connect()
        expect_error(E + "NotSupported", open_session_raw, conn, "rot13",
                     dbus.String("", variant_level=1), what="OpenSession(rot13)")
        expect_error(E + "InvalidArgs", open_session_raw, conn, DH_ALGO,
                     dbus.String("", variant_level=1), what="DH input as a string")
        conn.close()

    def property_errors(self):
        conn = connect()
        bad = dbus.Dictionary({IFACE + "Item.Label": dbus.UInt32(5, variant_level=1)}, signature="sv")
        s = Session(conn)
        expect_error(E + "InvalidArgs", call, conn, DEFAULT, IFACE + "Collection", "CreateItem",
                     "a{sv}(oayays)b", bad, s.encode(b"x"), False, what="Label as uint32")
        expect_error(E + "InvalidArgs", get_prop, conn, DEFAULT, "Collection", "NoSuchProperty",
                     what="Get unknown property")
        conn.close()

    # -- session ownership
    def foreign_session(self):
        a, b = connect(), connect()
        sa = Session(a)
        expect_error(SE + "NoSession", call, b, SS, IFACE + "Service", "GetSecrets", "aoo",
                     [self.ref_path], sa.path, what="GetSecrets with A's session")
        expect_error(SE + "NoSession", call, b, self.ref_path, IFACE + "Item", "GetSecret", "o",
                     sa.path, what="GetSecret with A's session")
        attrs = {"puff-e2e-bad": self.run, "role": "foreign-session"}
        expect_error(SE + "NoSession", call, b, DEFAULT, IFACE + "Collection", "CreateItem",
                     "a{sv}(oayays)b", props("x", attrs), sa.encode(b"x"), False,
                     what="CreateItem with A's session")
        check(search(b, attrs) == ([], []), "rejected CreateItem stored an item")
        check(sa.get_secret(self.ref_path) == self.ref_secret, "A's own session does not work")
        a.close(), b.close()

    def foreign_close(self):
        a, b = connect(), connect()
        sa = Session(a)
        expect_error(E + "AccessDenied", call, b, sa.path, IFACE + "Session", "Close",
                     what="Close of A's session by B")
        check(sa.get_secret(self.ref_path) == self.ref_secret, "A's session broken by B's Close")
        a.close(), b.close()

    def closed_session(self):
        conn = connect()
        s = Session(conn)
        s.close()
        expect_error(SE + "NoSession", call, conn, self.ref_path, IFACE + "Item", "GetSecret", "o",
                     s.path, what="GetSecret")
        expect_error(SE + "NoSession", call, conn, SS, IFACE + "Service", "GetSecrets", "aoo",
                     [self.ref_path], s.path, what="GetSecrets")
        expect_error(SE + "NoSession", call, conn, SS, IFACE + "Service", "GetSecrets", "aoo",
                     [self.ref_path], SS + "/session/nope", what="GetSecrets with unknown session")
        attrs = {"puff-e2e-bad": self.run, "role": "closed-session"}
        expect_error(SE + "NoSession", call, conn, DEFAULT, IFACE + "Collection", "CreateItem",
                     "a{sv}(oayays)b", props("x", attrs), s.encode(b"x"), False, what="CreateItem")
        check(search(conn, attrs) == ([], []), "rejected CreateItem stored an item")
        conn.close()

    # -- DH
    def dh_wrong_key(self):
        conn = connect()
        s1, s2 = Session(conn, DH_ALGO), Session(conn, DH_ALGO)
        plaintext = b"wrong-key secret"
        for _ in range(1000):  # pick an IV whose decryption under s2's key has bad padding
            iv = os.urandom(16)
            ct = aes_encrypt(s1.key, iv, plaintext)
            if not pkcs7_ok(aes_decrypt_raw(s2.key, iv, ct)):
                break
        forged = secret_struct(s2.path, iv, ct)
        attrs = {"puff-e2e-bad": self.run, "role": "dh-wrong-key"}
        expect_error(BAD_SECRET, call, conn, DEFAULT, IFACE + "Collection", "CreateItem",
                     "a{sv}(oayays)b", props("x", attrs), forged, False,
                     what="CreateItem with s1's ciphertext declared as s2")
        check(search(conn, attrs) == ([], []), "rejected CreateItem stored an item")
        victim = create_item(conn, DEFAULT, "victim", {"puff-e2e-bad": self.run, "role": "victim"},
                             s1.encode(b"victim"))
        self.cleanup.append(victim)
        expect_error(BAD_SECRET, call, conn, victim, IFACE + "Item", "SetSecret", "(oayays)", forged,
                     what="SetSecret with s1's ciphertext declared as s2")
        check(s1.get_secret(victim) == b"victim", "rejected SetSecret changed the secret")
        good = s1.encode(b"abc")
        for label, sec in (("15-byte IV", secret_struct(s1.path, bytes(good[1])[:15], bytes(good[2]))),
                           ("ciphertext not a multiple of 16",
                            secret_struct(s1.path, bytes(good[1]), bytes(good[2]) + b"\x01")),
                           ("empty ciphertext", secret_struct(s1.path, bytes(good[1]), b""))):
            expect_error(BAD_SECRET, call, conn, victim, IFACE + "Item", "SetSecret", "(oayays)", sec,
                         what=f"SetSecret with {label}")
        check(s1.get_secret(victim) == b"victim", "rejected SetSecret changed the secret")
        conn.close()

    def dh_bad_public_keys(self):
        conn = connect()
        keys = {"empty": b"", "200 bytes": b"\x01" * 200, "value 1": (1).to_bytes(128, "big"),
                "value p-1": (P - 1).to_bytes(128, "big")}
        problems = []
        for label, raw in keys.items():
            try:
                name = error_name(open_session_raw, conn, DH_ALGO, dbus.ByteArray(raw, variant_level=1))
            except Failure as exc:
                if LENIENT and str(exc) == "call succeeded":
                    continue
                problems.append(f"{label}: {exc}")
                continue
            if name != E + "InvalidArgs" and not LENIENT:
                problems.append(f"{label}: got {name}")
        conn.close()
        check(not problems, "; ".join(problems) + " (expected InvalidArgs)")

    def dh_key_lengths(self):
        conn = connect()
        while True:  # a private key whose public key has a zero top byte (~1 in 256)
            priv = int.from_bytes(os.urandom(128), "big") % (P - 3) + 2
            if pow(2, priv, P).bit_length() <= 1016:
                break
        for label, enc in (("127-byte (minimal encoding)", lambda y: y.to_bytes(127, "big")),
                           ("129-byte zero-prefixed", lambda y: b"\x00" + y.to_bytes(128, "big"))):
            try:
                s = Session(conn, DH_ALGO, pub_encoding=enc, priv=priv)
            except dbus.DBusException as exc:
                raise Failure(f"{label} public key refused: {exc.get_dbus_name()}")
            check(s.get_secret(self.ref_path) == self.ref_secret, f"{label}: secret differs")
        conn.close()

    # -- 10,000 attributes
    def many_attributes(self):
        conn = connect()
        attrs = {f"a{i:05d}": f"v{i:05d}-{self.run[:6]}" for i in range(10000)}
        attrs["puff-e2e-bad"] = self.run
        attrs["role"] = "many"
        s = Session(conn)
        try:
            item = create_item(conn, DEFAULT, "many attributes", attrs, s.encode(b"many"))
        except dbus.DBusException as exc:
            name = exc.get_dbus_name()
            check(name not in TRANSPORT, f"daemon did not answer ({name})")
            return  # a clear D-Bus error is acceptable
        self.cleanup.append(item)
        found, _ = search(conn, {"a04242": attrs["a04242"], "puff-e2e-bad": self.run})
        check(found == [item], f"search by one attribute found {len(found)} items")
        back = dict(get_prop(conn, item, "Item", "Attributes"))
        if LENIENT and back.get("xdg:schema") == "org.freedesktop.Secret.Generic":
            del back["xdg:schema"]  # GK injects it after reloading its keyring file (9.2)
        check(len(back) == len(attrs), f"Attributes has {len(back)} entries, expected {len(attrs)}")
        check(back == attrs, "Attributes differ")
        conn.close()

    # -- prompts
    def make_locked_collection(self):
        conn = connect()
        label = f"Puff bad-input {self.run[:8]}"
        path, prompt = call(conn, SS, IFACE + "Service", "CreateCollection", "a{sv}s",
                            dbus.Dictionary({IFACE + "Collection.Label": dbus.String(label, variant_level=1)},
                                            signature="sv"), "")
        if path == "/":
            check(LENIENT, "CreateCollection returned a prompt instead of a collection")
            call(conn, prompt, IFACE + "Prompt", "Dismiss")  # GK: make one via its private API
            s = Session(conn, DH_ALGO)
            path = call(conn, SS, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                        "CreateWithMasterPassword", "a{sv}(oayays)",
                        dbus.Dictionary({IFACE + "Collection.Label": dbus.String(label, variant_level=1)},
                                        signature="sv"), s.encode(b"puff-e2e-pw"))
        self.coll = str(path)
        locked, _prompt = call(conn, SS, IFACE + "Service", "Lock", "ao", [self.coll])
        check(self.coll in [str(p) for p in locked], "Lock did not echo the collection path")
        check(bool(get_prop(conn, self.coll, "Collection", "Locked")), "collection not locked")
        conn.close()

    def unlock_prompt(self, conn):
        unlocked, prompt = call(conn, SS, IFACE + "Service", "Unlock", "ao", [need(self.coll, "locked collection")])
        check(len(unlocked) == 0, "Unlock reported the locked collection as unlocked")
        check(prompt != "/", "Unlock of a locked collection returned no prompt")
        return str(prompt)

    def prompt_other_connection(self):
        a, b = connect(), connect()
        prompt = self.unlock_prompt(a)
        expect_error(E + "AccessDenied", call, b, prompt, IFACE + "Prompt", "Prompt", "s", "",
                     what="Prompt by another connection")
        expect_error(E + "AccessDenied", call, b, prompt, IFACE + "Prompt", "Dismiss",
                     what="Dismiss by another connection")
        a.close(), b.close()

    def prompt_abandoned(self):
        conn = connect()
        self.unlock_prompt(conn)
        conn.close()  # never calls Prompt

    def prompt_fire_and_disconnect(self):
        conn = connect()
        prompt = self.unlock_prompt(conn)
        msg = dbus.lowlevel.MethodCallMessage(BUS, prompt, IFACE + "Prompt", "Prompt")
        msg.append("", signature="s")
        msg.set_no_reply(True)
        conn.send_message(msg)
        conn.flush()
        conn.close()  # gone before Completed

    def prompt_completed(self):
        conn = connect(mainloop=DBusGMainLoop())
        prompt = self.unlock_prompt(conn)
        got, loop = [], GLib.MainLoop()

        def on_completed(dismissed, result, **kw):
            got.append((bool(dismissed), result, kw.get("member")))
            loop.quit()
        conn.add_signal_receiver(on_completed, signal_name="Completed", dbus_interface=IFACE + "Prompt",
                                 path=prompt, member_keyword="member")
        call(conn, prompt, IFACE + "Prompt", "Prompt", "s", "")
        GLib.timeout_add_seconds(5, loop.quit)
        loop.run()
        check(got, "no Completed signal within 5 s")
        dismissed, result, _ = got[0]
        check(dismissed, "prompt completed but not dismissed (expected a dismissing prompter)")
        check(isinstance(result, dbus.Array) and result.signature == "o" and len(result) == 0,
              "Completed result is not an empty 'ao'")
        check(bool(get_prop(conn, self.coll, "Collection", "Locked")), "collection unlocked after dismissal")
        expect_error(GONE, call, conn, prompt, IFACE + "Prompt", "Prompt", "s", "",
                     what="Prompt on a completed prompt")
        conn.close()

    def finish(self):
        conn = connect()
        for path in self.cleanup + ([self.ref_path] if self.ref_path else []):
            delete_item(conn, path)
        if self.coll:
            try:
                call(conn, self.coll, IFACE + "Collection", "Delete")
            except dbus.DBusException:
                pass
        conn.close()


def main():
    r = Runner(case_timeout=15, total_budget=50)
    d = Driver(r)
    r.case("store reference item", d.store_reference)
    r.case("client DH self-test (secret-service.md 5.3 vector)", d.dh_self_test)
    d.case("wrong signature -> InvalidArgs", d.wrong_signature)
    d.case("unknown method -> UnknownMethod", d.unknown_method)
    d.case("missing collection/item path -> NoSuchObject|UnknownObject|UnknownMethod", d.missing_object)
    d.case("unknown algorithm -> NotSupported; DH with string input -> InvalidArgs", d.unknown_algorithm)
    d.case("wrong-typed item property / unknown property -> InvalidArgs", d.property_errors)
    d.case("A's plain session used by B (GetSecrets, GetSecret, CreateItem) -> NoSession", d.foreign_session)
    d.case("Session.Close by B on A's session -> AccessDenied", d.foreign_close)
    d.case("closed or unknown session -> NoSession", d.closed_session)
    d.case("DH secret for another session / bad IV / bad length -> InvalidArgs", d.dh_wrong_key)
    d.case("malformed DH public key (empty, 200 bytes, 1, p-1) -> InvalidArgs", d.dh_bad_public_keys)
    d.case("DH public key in 127/129-byte encodings accepted", d.dh_key_lengths)
    d.case("CreateItem with 10,000 attributes -> works or clean error", d.many_attributes)
    r.case("create and lock own collection", d.make_locked_collection)
    d.case("Prompt/Dismiss by another connection -> AccessDenied", d.prompt_other_connection)
    d.case("client disconnects before calling Prompt", d.prompt_abandoned)
    d.case("client calls Prompt and disconnects at once", d.prompt_fire_and_disconnect)
    d.case("Prompt -> Completed(dismissed, <ao []>), prompt gone afterwards", d.prompt_completed)
    d.finish()
    r.finish()


if __name__ == "__main__":
    main()
