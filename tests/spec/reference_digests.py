#!/usr/bin/env python3
"""An independent implementation of docs/spec.md "Digests", to check that
the document is enough to reproduce sbench's digests.

usage: reference_digests.py PLAN.json SIDECAR.json

PLAN.json is the output of `sbctl plan SPEC --json`; SIDECAR.json gives what
the JSON does not show: {"env": {NAME: TEMPLATE}, "results": [...],
"metrics": PATH or null, "resources": {...}, and "checkpoint": {...} when the
spec has one, its defaults written out}.  Env templates may use {name},
{repeat}, {child}, {{ and }}.  Exits 1 on the first mismatch."""
import hashlib
import json
import struct
import sys


def str_(s):
    b = s.encode()
    n = len(b)
    if n < 32:
        head = bytes([0xA0 | n])
    elif n < 0x100:
        head = b"\xd9" + struct.pack(">B", n)
    elif n < 0x10000:
        head = b"\xda" + struct.pack(">H", n)
    else:
        head = b"\xdb" + struct.pack(">I", n)
    return head + b


def int_(v):
    if v >= 0:
        for limit, tag, fmt in ((0x80, None, None), (0x100, 0xCC, ">B"), (0x10000, 0xCD, ">H"),
                                (0x100000000, 0xCE, ">I")):
            if v < limit:
                return bytes([v]) if tag is None else bytes([tag]) + struct.pack(fmt, v)
        return b"\xcf" + struct.pack(">Q", v)
    if v >= -32:
        return struct.pack(">b", v)
    for limit, tag, fmt in ((-0x80, 0xD0, ">b"), (-0x8000, 0xD1, ">h"), (-0x80000000, 0xD2, ">i")):
        if v >= limit:
            return bytes([tag]) + struct.pack(fmt, v)
    return b"\xd3" + struct.pack(">q", v)


def header(n, small, b16, b32):
    if n < 16:
        return bytes([small | n])
    if n < 0x10000:
        return bytes([b16]) + struct.pack(">H", n)
    return bytes([b32]) + struct.pack(">I", n)


def pack(v):
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        return int_(v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        return str_(v)
    if isinstance(v, bytes):
        return b"\xc4" + struct.pack(">B", len(v)) + v
    if isinstance(v, list):
        return header(len(v), 0x90, 0xDC, 0xDD) + b"".join(pack(x) for x in v)
    keys = sorted(v, key=lambda k: k.encode())
    return header(len(v), 0x80, 0xDE, 0xDF) + b"".join(str_(k) + pack(v[k]) for k in keys)


def text(v):
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def resolve(template, names):
    out, i = [], 0
    while i < len(template):
        c = template[i]
        if c in "{}" and template[i + 1:i + 2] == c:
            out.append(c)
            i += 2
        elif c == "{":
            j = template.index("}", i)
            out.append(names[template[i + 1:j]])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def main():
    plan = json.load(open(sys.argv[1]))
    side = json.load(open(sys.argv[2]))
    digests = []
    for c in plan["children"]:
        names = {k: text(v) for k, v in c["params"].items()}
        names.update(repeat=str(c["repeat"]), child=str(c["index"]))
        child = {
            "command": c["command"],
            "env": {k: resolve(t, names) for k, t in side["env"].items()},
            "metrics": side["metrics"],
            "params": c["params"],
            "repeat": c["repeat"],
            "resources": side["resources"],
            "results": side["results"],
        }
        if "checkpoint" in side:  # only when declared
            child["checkpoint"] = side["checkpoint"]
        d = hashlib.sha256(pack(child)).hexdigest()
        if d != c["digest"]:
            sys.exit("child %d: digest %s, sbench says %s" % (c["index"], d, c["digest"]))
        digests.append(bytes.fromhex(d))
    b = plan["benchmark"]
    d = hashlib.sha256(pack({"children": digests, "name": b["name"], "tag": b["tag"]})).hexdigest()
    if d != b["digest"]:
        sys.exit("benchmark digest %s, sbench says %s" % (d, b["digest"]))
    print("%s: %d child digests and the benchmark digest reproduced" % (b["name"], len(digests)))


main()
