"""Equivalence with the CLI on a mixed benchmark on the fake Slurm: the demo
sweep (successes, a diverging learning rate that fails, a child that
outlives its time limit, one cancelled by hand), then a tampered result.
Every operation's Python result equals json.loads of `sbctl ... --json`."""
import json
import os
import subprocess
import sys
import time

import pytest

import sbench

from conftest import fake_slurm


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    work = tmp_path_factory.mktemp("bench")
    with fake_slurm(work):
        spec = os.path.join(os.environ["SB_SRC"], "examples", "demo-sweep.yaml")
        sub = sbench.submit(spec)
        job = sub["jobs"][0]["job_id"]
        subprocess.run(["scancel", "%s_3" % job], check=True)
        final = sbench.wait(sub["benchmark"]["dir"], timeout=120, interval=1)
        yield {"dir": sub["benchmark"]["dir"], "spec": spec, "submit": sub, "wait": final,
               "work": work}


def counts(doc):
    return {k: v for k, v in doc["counts"].items() if v}


def test_the_mix_is_there(bench):
    c = counts(bench["wait"])
    assert c.get("succeeded", 0) >= 6 and c.get("failed", 0) >= 4 and c.get("killed", 0) >= 1, c


def test_submit_again_equals_cli(cli, bench):
    again = sbench.submit(bench["spec"])
    assert again["already_submitted"] is True
    assert again == cli.json("submit", bench["spec"], "--json")


def test_status_equals_cli(cli, bench):
    for args, kw in ((["--json"], {}), (["--json", "--offline"], {"offline": True})):
        assert sbench.status(bench["dir"], **kw) == cli.json("status", bench["dir"], *args)
    # by name, as on the command line
    assert sbench.status("demo-sweep") == cli.json("status", "demo-sweep", "--json")


def test_iter_status_equals_status(cli, bench):
    """Issue 30 (5): the iterator gives exactly status()'s children, and
    its attributes every other top-level key, as sbctl prints them."""
    for args, kw in ((["--json"], {}), (["--json", "--offline"], {"offline": True})):
        doc = sbench.status(bench["dir"], **kw)
        with sbench.iter_status(bench["dir"], **kw) as st:
            assert isinstance(st, sbench.StatusIterator)
            assert len(st) == len(doc["children"]) == 12
            assert set(st.top) == set(doc) - {"children"}
            assert st.top == {k: v for k, v in doc.items() if k != "children"}
            for k in doc:
                if k != "children":
                    assert getattr(st, k) == doc[k]
            assert (st.counts, st.benchmark, st.scheduler) == \
                (doc["counts"], doc["benchmark"], doc["scheduler"])
            assert list(st) == doc["children"]
            assert list(st) == [] and len(st) == 12  # given once; the length stays
        st = sbench.iter_status(bench["dir"], **kw)  # no with-block: closed at the end
        assert {**st.top, "children": list(st)} == cli.json("status", bench["dir"], *args)
    # by name, through a Benchmark, one at a time, settle
    st = sbench.Benchmark("demo-sweep").iter_status(settle=0)
    first = next(st)
    assert first == sbench.status("demo-sweep")["children"][0]
    assert [c["index"] for c in st] == list(range(1, 12))


def test_iter_status_closed_and_errors(bench):
    st = sbench.iter_status(bench["dir"], offline=True)
    assert next(st)["index"] == 0 and "1 of 12 children given" in repr(st)
    st.close()
    st.close()  # a second close does nothing
    assert len(st) == 12 and st.counts["succeeded"] >= 6 and "closed" in repr(st)
    with pytest.raises(ValueError, match="closed"):
        next(st)
    with sbench.iter_status(bench["dir"], offline=True) as st:
        pass
    with pytest.raises(ValueError):
        list(st)
    done = sbench.iter_status(bench["dir"], offline=True)
    assert len(list(done)) == 12
    with pytest.raises(StopIteration):  # exhausted, not closed by hand: the protocol's end
        next(done)
    with pytest.raises(sbench.NotFound):
        sbench.iter_status("no-such-benchmark")
    with pytest.raises(sbench.UsageError, match="settle must be"):
        sbench.iter_status(bench["dir"], settle=-1)
    with pytest.raises(sbench.UsageError, match="NUL byte"):
        sbench.iter_status(bench["dir"] + "\0x")


def test_wait_equals_status(cli, bench):
    assert sbench.wait(bench["dir"], interval=1) == cli.json("status", bench["dir"], "--json")


def test_analyze_equals_cli(cli, bench):
    assert sbench.analyze(bench["dir"]) == cli.json("analyze", bench["dir"], "--json")
    assert (sbench.analyze(bench["dir"], group_by=["model"], metrics=["accuracy"]) ==
            cli.json("analyze", bench["dir"], "--json", "--group-by", "model",
                     "--metrics", "accuracy"))
    ranked = sbench.analyze(bench["dir"], sort="-accuracy")
    assert ranked == cli.json("analyze", bench["dir"], "--json", "--sort", "-accuracy")
    means = [g["metrics"]["accuracy"]["mean"] for g in ranked["groups"] if g["metrics"]]
    assert means == sorted(means, reverse=True) and ranked["sort"]["descending"] is True


def test_report_equals_cli(cli, bench, tmp_path):
    default = sbench.report(bench["dir"])
    assert default == os.path.join(bench["dir"], "report.html")
    path = sbench.report("demo-sweep", output=tmp_path / "py.html")
    assert path == str(tmp_path / "py.html")
    r = cli.run("report", bench["dir"], "-o", tmp_path / "cli.html")
    assert r.returncode == 3 and r.stdout.strip() == str(tmp_path / "cli.html")
    with open(path, "rb") as a, open(tmp_path / "cli.html", "rb") as b, open(default, "rb") as c:
        mine = a.read()
        assert mine == b.read() == c.read()
    # self-contained: the one script is inline (the groups table's sorting)
    assert mine.startswith(b"<!DOCTYPE html>") and mine.count(b"<script") == mine.count(b"<script>") == 1
    assert sbench.Benchmark(bench["dir"]).report(tmp_path / "b.html") == str(tmp_path / "b.html")
    with pytest.raises(sbench.Error):
        sbench.report(bench["dir"], output=tmp_path / "no" / "such" / "dir.html")


def test_analysis_rows_for_pandas_and_csv(bench):
    a = sbench.analyze(bench["dir"])
    rows = sbench.rows(a)
    assert rows and all(r["metric"] in ("accuracy", "loss") for r in rows)
    assert {"param.lr", "param.model", "n", "mean"} <= set(rows[0])
    import csv
    import io
    f = io.StringIO()
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    back = list(csv.DictReader(io.StringIO(f.getvalue())))
    assert len(back) == len(rows) and back[0]["param.model"] == str(rows[0]["param.model"])


def test_rows_keep_groups_without_success_as_the_csv_does(cli, bench):
    import csv
    import io
    a = sbench.analyze(bench["dir"])
    assert a["metrics"] == ["accuracy", "loss"]
    rows = sbench.rows(a)
    r = cli.run("analyze", bench["dir"], "--csv")
    assert r.returncode in (0, 3), r.stderr
    back = list(csv.DictReader(io.StringIO(r.stdout)))
    # one row per group and metric, in the CSV's order, with its n
    assert [(x["lr"], x["model"], x["metric"], x["n"]) for x in back] == \
        [(str(x["param.lr"]), x["param.model"], x["metric"], str(x["n"])) for x in rows]
    # lr=1.0 diverges in every run: its groups are there, with n 0 and no statistics
    none = [x for x in rows if x["param.lr"] == 1.0]
    assert len(none) == 4 and all(x["n"] == 0 and x["mean"] is None for x in none)


def test_read_log_of_benchmark_equals_cli(cli, bench):
    assert sbench.read_log(bench["dir"]) == cli.json_lines("log", bench["dir"], "--json")
    assert (sbench.read_log(bench["dir"], child=0) ==
            cli.json_lines("log", bench["dir"], "--child", "0", "--json"))


def test_rerun_then_nothing_to_rerun_equals_cli(cli, bench):
    failed = [c["index"] for c in sbench.status(bench["dir"])["children"] if c["class"] == "failed"]
    py = sbench.rerun(bench["dir"], ["failed"])
    assert sorted(i for j in py["jobs"] for i in j["children"]) == failed
    sbench.wait(bench["dir"], timeout=120, interval=1)
    st = sbench.status(bench["dir"])
    assert all(st["children"][i]["attempt"] == 1 for i in failed)
    # nothing of those classes now: both say so, identically
    assert (sbench.rerun(bench["dir"], "partial,stale") ==
            cli.json("rerun", bench["dir"], "--only", "partial,stale", "--json"))


def test_cancel_equals_cli(cli, bench):
    # nothing is active any more: both say so, identically
    assert sbench.cancel(bench["dir"]) == cli.json("cancel", bench["dir"], "--json")


def test_tampered_result_is_invalid_in_both(cli, bench):
    st = sbench.status(bench["dir"])
    ok = [c for c in st["children"] if c["class"] == "succeeded"][0]
    path = os.path.join(bench["dir"], "runs", str(ok["index"]), "metrics.json")
    with open(path, "a") as f:
        f.write(" ")
    py = sbench.status(bench["dir"])
    assert py == cli.json("status", bench["dir"], "--json")
    assert py["children"][ok["index"]]["class"] == "invalid"


def test_errors_are_the_clis(cli, bench, tmp_path):
    r = cli.run("status", "no-such-benchmark")
    assert r.returncode == 2
    with pytest.raises(sbench.NotFound) as e:
        sbench.status("no-such-benchmark")
    assert str(e.value) in r.stderr
    r = cli.run("analyze", bench["dir"], "--group-by", "nosuch", "--json")
    assert r.returncode == 2
    with pytest.raises(sbench.UsageError) as e:
        sbench.analyze(bench["dir"], group_by=["nosuch"])
    assert str(e.value) in r.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ncommand: [a]\nparameters: {p: [1, 1]}\n")
    r = cli.run("submit", bad, "--json")
    assert r.returncode == 2
    with pytest.raises(sbench.SpecError) as e:
        sbench.submit(bad)
    assert str(e.value) in r.stderr


def test_wait_timeout(cli, bench, tmp_path):
    spec = tmp_path / "slow.yaml"
    spec.write_text("name: slow\ncommand: [sleep, '30']\n")
    sbench.submit(spec)
    with pytest.raises(sbench.Timeout) as e:
        sbench.wait("slow", timeout=1, interval=1)
    assert e.value.exit_code == 1
    sbench.cancel("slow")


def test_benchmark_object(cli, bench):
    b = sbench.Benchmark("demo-sweep")
    assert b.dir == bench["dir"] and b.name == "demo-sweep" and b.count == len(b) == 12
    plan = sbench.plan(bench["spec"])
    assert b.children == [{k: c[k] for k in ("index", "digest", "params", "repeat")}
                          for c in plan["children"]]
    assert b.digest == bench["submit"]["benchmark"]["digest"] and b.tag is None
    assert b.status() == cli.json("status", b.dir, "--json")
    assert b.analyze() == cli.json("analyze", b.dir, "--json")
    assert b.logs(child=1) == cli.json_lines("log", b.dir, "--child", "1", "--json")
    files = b.output(0)
    assert files and all(os.path.exists(f) for f in files)
    r = cli.run("output", b.dir, "0")
    assert r.returncode == 0
    with pytest.raises(sbench.NotFound):
        b.output(99)
    assert repr(b) == "Benchmark(%r)" % b.dir


def test_benchmarks_equals_cli_list(cli, bench):
    assert sbench.benchmarks() == cli.json("list", "--json")


def test_scheduler_error(cli, bench, tmp_path, monkeypatch):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sacct").write_text("#!/bin/sh\necho 'sacct: error: slurmdbd: connection refused' >&2\nexit 1\n")
    (shim / "sacct").chmod(0o755)
    monkeypatch.setenv("PATH", str(shim) + os.pathsep + os.environ["PATH"])
    r = cli.run("status", bench["dir"], "--json")
    assert r.returncode == 1
    with pytest.raises(sbench.SchedulerError) as e:
        sbench.status(bench["dir"])
    assert e.value.exit_code == 1 and str(e.value) in r.stderr
    # offline needs no scheduler
    assert sbench.status(bench["dir"], offline=True)["scheduler"] == "offline"


def test_bad_arguments_are_refused_not_wrapped(bench):
    """Issue 25 (j): what ctypes would wrap or cut is a UsageError."""
    with pytest.raises(sbench.UsageError, match="below 2\\*\\*63"):
        sbench.output(bench["dir"], 2 ** 70)  # not child 0's files
    with pytest.raises(sbench.UsageError, match="NUL byte"):
        sbench.status(bench["dir"] + "\0x")  # not the directory before the NUL
    for bad in (float("nan"), float("inf"), -1, "10", True):
        with pytest.raises(sbench.UsageError, match="settle must be"):
            sbench.status(bench["dir"], settle=bad)
    with pytest.raises(sbench.UsageError, match="timeout must be"):
        sbench.wait(bench["dir"], timeout=float("nan"))
    with pytest.raises(sbench.UsageError, match="interval must be"):
        sbench.wait(bench["dir"], interval=-1)
    with pytest.raises(sbench.UsageError, match="timeout must be"):
        next(sbench.watch(bench["dir"], timeout=-1))


def test_ctrl_c_stops_a_wait_at_once(cli, bench, tmp_path):
    """Issue 25 (g): SIGINT during sbench.wait() raises KeyboardInterrupt
    within a second, not when the wait would have returned."""
    spec = tmp_path / "long.yaml"
    spec.write_text("name: long\ncommand: [sleep, '60']\n")
    sbench.submit(spec)
    code = (
        "import os, signal, sys, threading, time, sbench\n"
        "threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
        "t0 = time.monotonic()\n"
        "try:\n"
        "    sbench.wait('long', interval=30)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted after %.1f s' % (time.monotonic() - t0))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    took = float(r.stdout.split()[2])
    assert 0.9 <= took < 3.0, r.stdout
    cli.run("cancel", "long")
