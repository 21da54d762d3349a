"""The lane's keyword arguments of sbench.submit on the fake Slurm:
check= (a healthy and an unhealthy check, as data), lane= and max_active=
(a busy lane is a dict with busy true, not an exception), the argument
checks, and the same documents as `sbctl submit ... --json`."""
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


def spec(path, name, command):
    path.write_text("name: %s\ncommand: %s\n" % (name, command))
    return str(path)


def test_check_healthy_and_unhealthy(fake):
    ok = sbench.submit(spec(fake / "ok.yaml", "ok", "[sh, -c, 'sleep 1']"), check=30)
    assert ok["check"]["healthy"] is True and ok["check"]["ended_early"] is True
    assert ok["check"]["counts"]["succeeded"] == 1 and ok["check"]["counts"]["stopped"] == 0
    bad = sbench.submit(spec(fake / "bad.yaml", "bad",
                             "[sh, -c, 'sleep 1; echo oops >&2; exit 1']"), check=True)
    assert bad["check"]["healthy"] is False
    f = bad["check"]["failures"]
    assert [(x["index"], x["class"], x["reason"], x["stderr_tail"]) for x in f] == \
        [(0, "failed", "exit 1", "oops")]


def test_lane_busy_is_data(fake, cli):
    a = sbench.submit(spec(fake / "a.yaml", "a", "[sh, -c, 'sleep 5']"), lane="py")
    assert a["lane"] == {"name": "py", "busy": False, "max_active": 1, "active": []}
    b_spec = spec(fake / "b.yaml", "b", "[sh, -c, 'sleep 5']")
    b = sbench.submit(b_spec, lane="py")
    assert b["lane"]["busy"] is True and b["jobs"] == []
    assert [x["name"] for x in b["lane"]["active"]] == ["a"]
    r = cli.run("submit", b_spec, "--lane", "py", "--json")
    assert r.returncode == 4
    import json
    assert json.loads(r.stdout) == b
    two = sbench.submit(b_spec, lane="py", max_active=2)
    assert two["lane"]["busy"] is False and len(two["jobs"]) == 1
    st = sbench.status(two["benchmark"]["dir"])
    assert st["benchmark"]["lane"] == "py"


def test_bad_arguments(fake):
    s = spec(fake / "c.yaml", "c", "[true]")
    with pytest.raises(sbench.UsageError):
        sbench.submit(s, max_active=2)
    with pytest.raises(sbench.UsageError):
        sbench.submit(s, lane="py", max_active=0)
    with pytest.raises(sbench.UsageError):
        sbench.submit(s, check=-1)
    with pytest.raises(sbench.UsageError):
        sbench.submit(s, lane="bad name")
    with pytest.raises(sbench.UsageError):
        sbench.submit(s, check=5, dry_run=True)
