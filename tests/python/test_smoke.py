"""sbench.submit(smoke=...) and the checks before a submit, on the fake
Slurm: a smoke test that passes submits the rest, one that fails is data
(outcome "failed", the child's reason and stderr tail, nothing else
submitted), the same document as `sbctl submit --smoke --json` (which exits
3), bad values are UsageErrors, and a misspelt program or file is a
SpecError at its position before anything is made."""
import json
import os
import subprocess

import pytest

import sbench

from conftest import fake_slurm


@pytest.fixture
def fake(tmp_path):
    with fake_slurm(tmp_path):
        yield tmp_path
        subprocess.run(["sbfake", "shutdown"], capture_output=True)


def spec(path, name, command, extra=""):
    path.write_text("name: %s\ncommand: %s\nparameters: {x: [1, 2, 3]}\n%s" % (name, command, extra))
    return str(path)


def test_smoke_passes(fake):
    doc = sbench.submit(spec(fake / "ok.yaml", "ok", "[sh, -c, 'exit 0']"), smoke=30)
    assert doc["smoke"]["outcome"] == "passed" and doc["smoke"]["child"] == 0
    assert doc["smoke"]["class"] == "succeeded" and doc["smoke"]["held_back"] == 0
    assert [j["children"] for j in doc["jobs"]] == [[0], [1, 2]]
    assert sbench.wait(doc["benchmark"]["dir"], timeout=60, interval=0.2)["counts"]["succeeded"] == 3


def test_smoke_fails_as_data(fake, cli):
    s = spec(fake / "bad.yaml", "bad", "[sh, -c, 'echo oops >&2; exit 1']")
    doc = sbench.submit(s, smoke=True)
    m = doc["smoke"]
    assert (m["outcome"], m["class"], m["reason"], m["stderr_tail"], m["held_back"]) == \
        ("failed", "failed", "exit 1", "oops", 2)
    assert m["seconds"] == 600
    assert [j["children"] for j in doc["jobs"]] == [[0]] and doc["chunks"] == 2
    r = cli.run("submit", s, "--smoke", "--json")
    assert r.returncode == 3
    again = json.loads(r.stdout)
    for d in (doc, again):
        d["smoke"].pop("waited_s")
        for j in d["jobs"]:
            j.pop("submitted_now")
    assert again == doc


def test_smoke_bad_values(fake):
    s = spec(fake / "c.yaml", "c", "[true]")
    for bad in (-1, 0, float("nan"), "10"):
        with pytest.raises(sbench.UsageError):
            sbench.submit(s, smoke=bad)
    assert "smoke" not in sbench.submit(s, smoke=False, dry_run=True)


def test_checks_refuse_before_anything(fake):
    (fake / "train.py").write_text("print(1)\n")
    s = fake / "typo.yaml"
    s.write_text('name: typo\ncommand: [pyhton3, "{spec_dir}/trian.py"]\n')
    with pytest.raises(sbench.SpecError) as e:
        sbench.submit(str(s))
    assert (e.value.line, e.value.column) == (2, 11)
    assert "did you mean 'python3'" in str(e.value)
    assert "did you mean '{spec_dir}/train.py'" in str(e.value)
    assert not os.path.exists(fake / "runs")
