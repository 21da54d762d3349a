"""sbench.export and sbench.verify on the fake Slurm (docs/verify.md): a
finished benchmark of four children (two succeed, two fail) exported with
an Ed25519 key is the bundle `sbctl export` writes; verify says ok with the
counts of the predicate, with and without the benchmark directory to check
against; an edited payload, not signed again, is a verdict (ok False, the
signature named), not an exception; a missing key or bundle raises."""
import base64
import hashlib
import json
import os
import subprocess

import pytest

import sbench

from conftest import fake_slurm

JOB = """case $1 in
ok) echo "ok $2" > out.txt; printf '{"acc": %s}' "$2" > metrics.json ;;
fail) echo no > out.txt; exit 3 ;;
esac
"""


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    work = tmp_path_factory.mktemp("verify")
    with fake_slurm(work):
        (work / "job.sh").write_text(JOB)
        spec = work / "mixed.yaml"
        spec.write_text("name: pyverify\ncommand: [sh, %s, '{x}', '{y}']\n"
                        "parameters: {x: [ok, fail], y: [1, 2]}\n"
                        "results: [out.txt]\nmetrics: metrics.json\n" % (work / "job.sh"))
        sub = sbench.submit(str(spec))
        final = sbench.wait(sub["benchmark"]["dir"], timeout=120, interval=1)
        key = work / "sign"
        sbench.keygen(key, ed25519=True)
        yield {"dir": sub["benchmark"]["dir"], "work": work, "key": key,
               "pub": work / "sign.pub", "status": final}
        subprocess.run(["sbfake", "shutdown"], capture_output=True)


def statement(data):
    env = json.loads(data)
    return json.loads(base64.b64decode(env["payload"], validate=True))


def test_the_mix_is_there(bench):
    c = bench["status"]["counts"]
    assert (c["succeeded"], c["failed"]) == (2, 2), c


def test_export_is_sbctls_bundle(cli, bench, tmp_path):
    out = tmp_path / "py.bundle.json"
    data = sbench.export(bench["dir"], bench["key"], output=out)
    assert isinstance(data, bytes) and data.endswith(b"\n") and data.count(b"\n") == 1
    assert out.read_bytes() == data
    assert sbench.export(bench["dir"], str(bench["key"]), offline=True) != b""
    r = cli.run("export", bench["dir"], "--sign", bench["key"], "-o", tmp_path / "cli.json")
    assert r.returncode == 0, r.stderr
    mine, theirs = statement(data), statement((tmp_path / "cli.json").read_bytes())
    for st in (mine, theirs):  # the status's time and spans, as test_export.sh
        del st["predicate"]["status"]["benchmark"], st["predicate"]["classify_params"]
    assert mine == theirs
    assert [s["name"] for s in mine["subject"]] == ["runs/0/out.txt", "runs/1/out.txt",
                                                     "analysis.json"]
    env = json.loads(data)
    assert env["payloadType"] == "application/vnd.in-toto+json"
    assert mine["predicateType"] == "https://sbench.dev/bundle/v1"


def test_export_refusals(bench, tmp_path):
    with pytest.raises(sbench.NotFound):
        sbench.export(bench["dir"], tmp_path / "nosuchkey")
    with pytest.raises(sbench.UsageError):
        sbench.export(bench["dir"], bench["pub"])  # a public key does not sign
    with pytest.raises(sbench.NotFound):
        sbench.export(tmp_path / "nosuchbench", bench["key"])


@pytest.fixture(scope="module")
def bundle(bench):
    path = bench["work"] / "bundle.json"
    sbench.export(bench["dir"], bench["key"], output=path)
    return path


def test_verify_ok(bench, bundle):
    v = sbench.verify(bundle, bench["pub"])
    assert v["ok"] is True, v
    assert v["problem"] is None
    assert (v["children"], v["succeeded"], v["subjects"]) == (4, 2, 3)
    assert v["partial"] is False
    st = statement(bundle.read_bytes())
    assert v["digest"] == st["predicate"]["benchmark_digest"]
    assert v["keyid"] == json.loads(bundle.read_bytes())["signatures"][0]["keyid"]
    assert v["sha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()


def test_verify_equals_cli(cli, bench, bundle):
    r = cli.run("verify", bundle, "--pubkey", bench["pub"], "--json")
    assert r.returncode == 0, r.stderr
    assert sbench.verify(bundle, bench["pub"]) == json.loads(r.stdout)


def test_verify_against_the_directory(bench, bundle):
    v = sbench.verify(str(bundle), str(bench["pub"]), against=bench["dir"])
    assert v["ok"] is True, v
    assert (v["children"], v["succeeded"]) == (4, 2)


def test_edited_payload_is_a_verdict(bench, bundle, tmp_path):
    env = json.loads(bundle.read_bytes())
    st = json.loads(base64.b64decode(env["payload"]))
    st["predicate"]["status"]["children"][2]["class"] = "succeeded"
    env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(env) + "\n")
    v = sbench.verify(edited, bench["pub"])
    assert v["ok"] is False
    assert "signature" in v["problem"], v


def test_another_key_is_a_verdict(bench, bundle, tmp_path):
    sbench.keygen(tmp_path / "other", ed25519=True)
    v = sbench.verify(bundle, tmp_path / "other.pub")
    assert v["ok"] is False and "signature" in v["problem"], v


def test_changed_result_against_the_directory(bench, bundle):
    # a result file on disk that no longer has the bundle's digest (put
    # back afterwards: the other tests use the directory as exported)
    path = os.path.join(bench["dir"], "runs", "0", "out.txt")
    with open(path, "rb") as f:
        original = f.read()
    try:
        with open(path, "wb") as f:
            f.write(b"not what ran\n")
        v = sbench.verify(bundle, bench["pub"], against=bench["dir"])
        assert v["ok"] is False and v["problem"], v
    finally:
        with open(path, "wb") as f:
            f.write(original)
    assert sbench.verify(bundle, bench["pub"], against=bench["dir"])["ok"] is True


def test_missing_files_raise(bench, bundle, tmp_path):
    with pytest.raises(sbench.NotFound):
        sbench.verify(bundle, tmp_path / "nosuch.pub")
    with pytest.raises(sbench.NotFound):
        sbench.verify(tmp_path / "nosuch.json", bench["pub"])


def test_bad_key_and_not_a_bundle_raise(bench, bundle, tmp_path):
    sbench.keygen(tmp_path / "hmac")
    with pytest.raises(sbench.UsageError):
        sbench.verify(bundle, tmp_path / "hmac")  # not an Ed25519 public key in PEM
    junk = tmp_path / "junk.json"
    junk.write_text("this is not JSON\n")
    with pytest.raises(sbench.UsageError):
        sbench.verify(junk, bench["pub"])
