#!/usr/bin/env python3
"""bundle_edit.py IN OUT KEY [CODE]: a bundle's statement edited by CODE
(Python run with the statement as `s`; none: the payload's bytes kept as
they are) and signed again with the Ed25519 private key KEY through
openssl (KEY "-": the old signature kept).  For the tests of sbctl verify:
what a forger holding the key, or not, can make."""
import base64
import json
import os
import subprocess
import sys
import tempfile

src, dst, key = sys.argv[1:4]
code = sys.argv[4] if len(sys.argv) > 4 else None
env = json.load(open(src))
body = base64.b64decode(env["payload"], validate=True)
if code is not None:
    s = json.loads(body)
    exec(code, {"s": s})
    body = json.dumps(s, separators=(",", ":"), ensure_ascii=False).encode()
env["payload"] = base64.b64encode(body).decode()
if key != "-":
    t = env["payloadType"].encode()
    with tempfile.TemporaryDirectory() as d:
        pae, sig = os.path.join(d, "pae"), os.path.join(d, "sig")
        open(pae, "wb").write(b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))
        subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", pae,
                        "-out", sig], check=True)
        env["signatures"][0]["sig"] = base64.b64encode(open(sig, "rb").read()).decode()
json.dump(env, open(dst, "w"), separators=(",", ":"))
