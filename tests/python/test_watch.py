"""sbench.watch: an iterator of the record dicts of `sbctl watch --json`,
live while the benchmark runs, each record once; equal to the CLI's lines
on a finished benchmark; the endpoint file gone when the iterator is."""
import os
import time

import pytest

import sbench

from conftest import fake_slurm

SPEC = """name: pywatch
command: [sh, -c, 'sleep 2']
parameters:
  i: [0, 1, 2]
heartbeat: 1
"""


@pytest.fixture
def fake_env(tmp_path):
    with fake_slurm(tmp_path):
        yield tmp_path


def keys(records):
    return sorted((r["child"], r["attempt"], r["seq"], r["type"]) for r in records
                  if r.get("child") is not None)


def test_watch_live_then_equal_to_cli(cli, fake_env):
    spec = fake_env / "w.yaml"
    spec.write_text(SPEC)
    bench = sbench.submit(str(spec))["benchmark"]["dir"]
    got = list(sbench.watch(bench, until_done=True, timeout=90))
    assert all("type" in r and isinstance(r["live"], bool) and r["verified"] for r in got)
    logs = [r for r in sbench.read_log(bench) if "type" in r]
    assert keys(got) == keys(logs)
    assert len(keys(got)) == len(set(keys(got)))
    assert [r for r in got if r["type"] == "finish"], got
    # the benchmark is over: the same lines as the CLI's, in the same order
    again = list(sbench.watch(bench, until_done=True, timeout=60))
    lines = [o for o in cli.json_lines("watch", bench, "--json", "--until-done", "--timeout", "60")
             if "type" in o]
    assert again == lines
    assert os.listdir(os.path.join(bench, "watch")) == []


def test_watch_events_and_close(fake_env):
    spec = fake_env / "w.yaml"
    spec.write_text(SPEC.replace("sleep 2", "true"))
    bench = sbench.submit(str(spec))["benchmark"]["dir"]
    sbench.wait(bench, timeout=60, interval=1)
    it = sbench.watch(bench, timeout=30, events=True)
    first = next(it)
    assert first["live"] is False
    assert len(os.listdir(os.path.join(bench, "watch"))) == 1
    it.close()
    assert os.listdir(os.path.join(bench, "watch")) == []
    with pytest.raises(sbench.NotFound):
        next(sbench.watch(str(fake_env / "nothing")))
