#!/usr/bin/python3
"""Write hand-made seeds for the decode fuzzer: shapes real clients rarely send.

    fuzz/make-seeds.py [OUTDIR]      (default fuzz/corpus/decode)

Each seed is one complete wire-format message, named hand-<what>. Covered:
every basic type in variants and as dict keys; a{sv}; empty arrays of many
element types; arrays, structs and both nested to libdbus's limits (32 each);
variants nested deep; big-endian messages; the Secret Service shapes
((oayays), a{o(oayays)}, a{sv}(oayays)b); messages at and over the tight
decode policy's limits (512 values, 4096 bytes); an a{ss} with a repeated key;
`h` (Unix fd) arguments; method returns and errors. The marshaller below
follows the D-Bus specification's "Message Format" section; it is small on
purpose and checks nothing, so a seed may be one libdbus rejects (the
fuzzer's replay tool says which).
"""

import os
import struct
import sys

ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8,
         "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1, "h": 4}
FIXED = {"y": "B", "b": "I", "n": "h", "q": "H", "i": "i", "u": "I", "x": "q", "t": "Q", "d": "d",
         "h": "I"}


def split_type(sig):
    """The first complete type of `sig` and the rest."""
    if sig[0] == "a":
        inner, rest = split_type(sig[1:])
        return "a" + inner, rest
    if sig[0] in "({":
        close = ")" if sig[0] == "(" else "}"
        depth, i = 0, 0
        while True:
            if sig[i] in "({":
                depth += 1
            elif sig[i] in ")}":
                depth -= 1
                if depth == 0:
                    return sig[:i + 1], sig[i + 1:]
            i += 1
    return sig[0], sig[1:]


def split_all(sig):
    types = []
    while sig:
        t, sig = split_type(sig)
        types.append(t)
    return types


class Writer:
    def __init__(self, endian):
        self.e = "<" if endian == "l" else ">"
        self.buf = bytearray()

    def pad(self, n):
        while len(self.buf) % n:
            self.buf.append(0)

    def write(self, t, v):
        c = t[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            self.buf += struct.pack(self.e + FIXED[c], v)
        elif c in "so":
            raw = v.encode()
            self.buf += struct.pack(self.e + "I", len(raw)) + raw + b"\0"
        elif c == "g":
            raw = v.encode()
            self.buf += bytes([len(raw)]) + raw + b"\0"
        elif c == "v":
            sig, inner = v
            self.write("g", sig)
            self.write(sig, inner)
        elif c == "(":
            for ft, fv in zip(split_all(t[1:-1]), v):
                self.write(ft, fv)
        elif c == "a":
            elem = t[1:]
            at = len(self.buf)
            self.buf += b"\0\0\0\0"
            self.pad(ALIGN[elem[0]])
            start = len(self.buf)
            if elem == "y":
                self.buf += bytes(v)
            elif elem[0] == "{":
                kt, vt = split_all(elem[1:-1])
                for k, val in v:
                    self.pad(8)
                    self.write(kt, k)
                    self.write(vt, val)
            else:
                for item in v:
                    self.write(elem, item)
            struct.pack_into(self.e + "I", self.buf, at, len(self.buf) - start)
        else:
            raise ValueError(t)


def message(kind, sig="", body=(), *, endian="l", path=None, interface=None, member=None,
            error=None, reply=None, destination=None, sender=None, serial=7, flags=0, fds=None):
    """A complete message; `kind` is 1 call, 2 return, 3 error, 4 signal."""
    b = Writer(endian)
    for t, v in zip(split_all(sig), body):
        b.write(t, v)
    fields = []
    for code, t, v in ((1, "o", path), (2, "s", interface), (3, "s", member), (4, "s", error),
                       (5, "u", reply), (6, "s", destination), (7, "s", sender),
                       (8, "g", sig if sig else None), (9, "u", fds)):
        if v is not None:
            fields.append((code, (t, v)))
    h = Writer(endian)
    h.write("(yyyyuua(yv))", (ord(endian), kind, flags, 1, len(b.buf), serial, fields))
    h.pad(8)
    return bytes(h.buf + b.buf)


def call(member, sig="", body=(), **kw):
    kw.setdefault("path", "/org/freedesktop/secrets")
    kw.setdefault("interface", "org.freedesktop.Secret.Service")
    kw.setdefault("destination", "org.freedesktop.secrets")
    kw.setdefault("sender", ":1.42")
    return message(1, sig, body, member=member, **kw)


def ret(sig="", body=(), **kw):
    kw.setdefault("reply", 3)
    kw.setdefault("destination", ":1.42")
    return message(2, sig, body, **kw)


def signal(member, sig="", body=(), **kw):
    kw.setdefault("path", "/org/freedesktop/secrets")
    kw.setdefault("interface", "org.freedesktop.Secret.Service")
    return message(4, sig, body, member=member, **kw)


def nested_variant(depth):
    v = ("i", 42)
    for _ in range(depth - 1):
        v = ("v", v)
    return v


def seeds():
    every_basic = [("y", 255), ("b", 1), ("n", -32768), ("q", 65535), ("i", -1), ("u", 4294967295),
                   ("x", -(2**63)), ("t", 2**64 - 1), ("d", float("nan")), ("d", float("-inf")),
                   ("s", "ünï ✓ 🗝"), ("o", "/a/b_c/D9"), ("g", "a{sv}(oayays)aai")]
    yield "asv-every-basic", signal("T", "a{sv}", ([(f"k{i}", v) for i, v in enumerate(every_basic)],))
    yield "variant-every-basic", signal("T", "v" * len(every_basic), every_basic)
    for key, value in (("y", 1), ("b", 0), ("n", -2), ("q", 2), ("i", -3), ("u", 3), ("x", -4), ("t", 4),
                       ("d", 0.5), ("s", "k"), ("o", "/k"), ("g", "ai")):
        yield f"dict-key-{key}", signal("T", f"a{{{key}v}}", ([(value, ("s", "v")), (value, ("ay", b"x"))],))
    empties = ["as", "ao", "ay", "aay", "a{sv}", "a{ss}", "a(ii)", "aai", "av", "a{oa{sv}}", "a(oayays)", "ad",
               "ab", "ax"]
    yield "empty-arrays", signal("T", "".join(empties), [[] for _ in empties])
    yield "empty-arrays-be", signal("T", "".join(empties), [[] for _ in empties], endian="B")
    yield "empty-body-call", call("Ping", interface="org.freedesktop.DBus.Peer")
    # libdbus: at most 32 nested arrays and 32 nested structs in one signature.
    v = 7
    for _ in range(32):
        v = [v]
    yield "array-depth-32", signal("T", "a" * 32 + "i", (v,))
    v = [7]
    for _ in range(32):
        v = [v]
    yield "array-depth-33", signal("T", "a" * 33 + "i", (v,))
    v = (7,)
    for _ in range(31):
        v = (v,)
    yield "struct-depth-32", signal("T", "(" * 32 + "i" + ")" * 32, (v,))
    mixed, sig = 7, "i"
    for _ in range(32):
        mixed, sig = [(mixed,)], "a(" + sig + ")"
    yield "array-struct-depth-64", signal("T", sig, (mixed,))
    for depth in (16, 32, 63, 64, 65, 100):
        yield f"variant-depth-{depth}", signal("T", "v", (nested_variant(depth),))
    yield "variant-of-container", signal("T", "v", (("a{sa(iv)}", [("k", [(1, ("ay", b"\0\1"))])]),))

    # Secret Service shapes.
    secret = ("/org/freedesktop/secrets/session/s1", b"\x10" * 16, b"\x99" * 32, "text/plain")
    props = [("org.freedesktop.Secret.Item.Label", ("s", "Puff ✓")),
             ("org.freedesktop.Secret.Item.Attributes", ("a{ss}", [("service", "example.com"), ("user", "alice")]))]
    yield "ss-CreateItem", call("CreateItem", "a{sv}(oayays)b", (props, secret, 1),
                                path="/org/freedesktop/secrets/collection/login",
                                interface="org.freedesktop.Secret.Collection")
    yield "ss-CreateItem-be", call("CreateItem", "a{sv}(oayays)b", (props, secret, 0), endian="B",
                                   path="/org/freedesktop/secrets/aliases/default",
                                   interface="org.freedesktop.Secret.Collection")
    yield "ss-GetSecrets-reply", ret("a{o(oayays)}", ([("/org/freedesktop/secrets/collection/login/1", secret),
                                                       ("/org/freedesktop/secrets/collection/login/2", secret)],))
    yield "ss-SetSecret-plain", call("SetSecret", "(oayays)", (("/org/freedesktop/secrets/session/s2", b"",
                                                                 b"s3cret", "text/plain"),),
                                     path="/org/freedesktop/secrets/collection/login/1",
                                     interface="org.freedesktop.Secret.Item")
    yield "ss-SetSecret-wrong-struct", call("SetSecret", "(oayayss)", (("/s", b"", b"s3cret", "a", "b"),),
                                            path="/org/freedesktop/secrets/collection/login/1",
                                            interface="org.freedesktop.Secret.Item")
    yield "ss-OpenSession-dh", call("OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7",
                                                            ("ay", bytes(range(128)))))
    yield "ss-OpenSession-wrong-sig", call("OpenSession", "ss", ("plain", ""))
    yield "ss-SearchItems-repeated-key", call("SearchItems", "a{ss}", ([("user", "alice"), ("user", "bob")],))
    yield "ss-GetSecrets", call("GetSecrets", "aoo", (["/org/freedesktop/secrets/collection/login/1"] * 3,
                                                      "/org/freedesktop/secrets/session/s1"))
    yield "ss-Prompt-Completed", signal("Completed", "bv", (1, ("ao", [])), path="/org/freedesktop/secrets/prompt/p1",
                                        interface="org.freedesktop.Secret.Prompt", destination=":1.42")
    yield "ss-PropertiesChanged", signal("PropertiesChanged", "sa{sv}as",
                                         ("org.freedesktop.Secret.Collection", [("Modified", ("t", 1700000000))],
                                          ["Items"]), interface="org.freedesktop.DBus.Properties")
    yield "ss-Set-Attributes", call("Set", "ssv", ("org.freedesktop.Secret.Item", "Attributes",
                                                   ("a{ss}", [("a", "b")])),
                                    interface="org.freedesktop.DBus.Properties")
    yield "ss-unknown-method-no-interface", call("Frobnicate", "a{sv}", ([],), interface=None)
    yield "ss-no-reply-expected", call("Close", path="/org/freedesktop/secrets/session/s1",
                                       interface="org.freedesktop.Secret.Session", flags=1)

    # The tight policy's limits (DecodeCheck.tightPolicy: 512 values, 4096 bytes).
    yield "limit-values-512", signal("T", "ai", (list(range(511)),))
    yield "limit-values-513", signal("T", "ai", (list(range(512)),))
    yield "limit-bytes-4096", signal("T", "ay", (b"\xab" * 4096,))
    yield "limit-bytes-4097", signal("T", "ay", (b"\xab" * 4097,))
    yield "limit-strings-over", signal("T", "as", (["x" * 100] * 41,))
    yield "limit-dict-values", call("SearchItems", "a{ss}", ([(f"k{i}", "v") for i in range(300)],))

    # Other message types and the unsupported `h`.
    yield "error-with-text", message(3, "s", ("No such item",), error="org.freedesktop.Secret.Error.NoSuchObject",
                                     reply=9, destination=":1.42")
    yield "error-no-body", message(3, error="org.freedesktop.DBus.Error.Failed", reply=9)
    yield "return-be", ret("ao", (["/a", "/b"],), endian="B")
    # libdbus validates an `h` as a plain index: without a UNIX_FDS header field it accepts the
    # message (Puff then refuses the body as unsupportedType); with one, demarshalling fails, as
    # bytes alone cannot carry descriptors.
    yield "unix-fd", signal("T", "ih", (1, 0))
    yield "unix-fd-in-variant", signal("T", "v", (("h", 0),))
    yield "unix-fd-declared", signal("T", "ih", (1, 0), fds=1)
    yield "bytes-and-strings-mixed", signal("T", "yaysaysg", (0, b"", "", b"\0" * 7, "\u00e9", "a(ii)"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "decode")
    os.makedirs(out, exist_ok=True)
    n = 0
    for name, data in seeds():
        with open(os.path.join(out, "hand-" + name), "wb") as f:
            f.write(data)
        n += 1
    print(f"{n} hand-made seeds in {out}")


if __name__ == "__main__":
    main()
