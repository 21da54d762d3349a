"""sbench.curves on the fake Slurm: the learning curves the heartbeats
carried, as flat rows (child, attempt, restart, elapsed, metric, value,
final, param.NAME) ready for pandas.DataFrame, equal to what `sbctl log
--json` shows; the selections, the argument checks, a benchmark with no
log yet, and a tampered log (the points before it, and a warning)."""
import csv
import io
import subprocess
import warnings

import pytest

import sbench

from conftest import fake_slurm

SCRIPT = """for i in 1 2 3; do
  printf '{"loss": %s, "step": %d}' "$(awk -v s="$1" -v i=$i 'BEGIN {printf "%.4g", s / i}')" $i \
    > "$SB_METRICS_FILE"
  sleep 1.3
done
sleep 1.5
"""


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    work = tmp_path_factory.mktemp("curves")
    with fake_slurm(work):
        (work / "train.sh").write_text(SCRIPT)
        spec = work / "curves.yaml"
        spec.write_text("name: pycurves\ncommand: [sh, %s, '{scale}']\n"
                        "parameters: {scale: [3, 6]}\nheartbeat: 1\nmetrics: metrics.json\n"
                        % (work / "train.sh"))
        sub = sbench.submit(str(spec))
        sbench.wait(sub["benchmark"]["dir"], timeout=120, interval=1)
        yield {"dir": sub["benchmark"]["dir"], "work": work}
        subprocess.run(["sbfake", "shutdown"], capture_output=True)


def test_rows_are_flat_and_follow_the_log(cli, bench):
    rows = sbench.curves(bench["dir"])
    assert rows and set(rows[0]) == {"child", "attempt", "restart", "elapsed", "metric",
                                     "value", "final", "param.scale"}
    assert sorted({r["child"] for r in rows}) == [0, 1]
    # the heartbeats of child 0 in the log are exactly its non-final rows
    recs = cli.json_lines("log", bench["dir"], "--child", "0", "--json")
    want = [(r["elapsed_s"], k, v) for r in recs
            if r.get("type") == "heartbeat" and "metrics" in r for k, v in sorted(r["metrics"].items())]
    got = [(r["elapsed"], r["metric"], r["value"]) for r in rows if r["child"] == 0 and not r["final"]]
    assert got == want
    # the loss falls along the curve, each point a change; the finish closes it
    loss = [r for r in rows if r["child"] == 0 and r["metric"] == "loss"]
    values = [r["value"] for r in loss if not r["final"]]
    assert len(values) >= 2 and values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)
    assert loss[-1]["final"] is True and loss[-1]["value"] == values[-1]
    assert [r["elapsed"] for r in loss] == sorted(r["elapsed"] for r in loss)
    assert {r["param.scale"] for r in rows if r["child"] == 1} == {6}
    steps = [r["value"] for r in rows if r["metric"] == "step"]
    assert all(isinstance(v, int) and not isinstance(v, bool) for v in steps)
    assert {(r["attempt"], r["restart"]) for r in rows} == {(0, 0)}


def test_rows_go_into_csv_and_pandas(bench):
    rows = sbench.curves(bench["dir"])
    f = io.StringIO()
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    assert len(list(csv.DictReader(io.StringIO(f.getvalue())))) == len(rows)
    # what pandas.DataFrame(rows) needs: flat rows, the same keys, scalars
    # (pandas itself is not a dependency: its use is the doc's example)
    assert all(list(r) == list(rows[0]) for r in rows)
    assert all(isinstance(v, (int, float, str, bool)) or v is None for r in rows for v in r.values())
    last = {(r["param.scale"], r["metric"]): r["value"] for r in rows if r["final"]}
    assert last[(3, "step")] == 3


def test_selections_and_the_benchmark_object(bench):
    one = sbench.curves(bench["dir"], child=1, metrics="loss")
    assert one and {(r["child"], r["metric"]) for r in one} == {(1, "loss")}
    assert sbench.curves(bench["dir"], metrics=["step", "loss"]) == sbench.curves(bench["dir"])
    assert sbench.curves(bench["dir"], metrics=["nothing"]) == []
    assert sbench.Benchmark(bench["dir"]).curves(child=1, metrics=["loss"]) == one
    assert sbench.curves("pycurves", child=0) == sbench.curves(bench["dir"], child=0)


def test_bad_arguments(bench):
    with pytest.raises(sbench.NotFound, match="children 0 to 1, not 2"):
        sbench.curves(bench["dir"], child=2)
    for bad in (True, -1, "0", 2 ** 70):
        with pytest.raises(sbench.UsageError):
            sbench.curves(bench["dir"], child=bad)
    with pytest.raises(sbench.NotFound):
        sbench.curves(bench["work"] / "no-such-benchmark")


def test_tampered_log_gives_the_points_before_it_and_a_warning(cli, bench):
    recs = [r for r in cli.json_lines("log", bench["dir"], "--child", "1", "--json") if "seq" in r]
    fin = [r for r in recs if r["type"] == "finish"][0]
    # the path of child 1's log: the one sbctl log --child lists
    out = cli.run("log", bench["dir"], "--child", "1")
    log = [line[3:] for line in out.stdout.splitlines() if line.startswith("== ")][0]
    with open(log, "r+b") as f:
        f.seek(fin["offset"] + 20)
        b = f.read(1)
        f.seek(fin["offset"] + 20)
        f.write(bytes([b[0] ^ 0x01]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rows = sbench.curves(bench["dir"], child=1)
    assert rows and not any(r["final"] for r in rows)
    msgs = [str(x.message) for x in w if issubclass(x.category, sbench.SbenchWarning)]
    assert len(msgs) == 1 and "not in the curves" in msgs[0] and ".log: " in msgs[0]
    assert w[0].filename == __file__  # the caller's line, not sbench's
    # through a Benchmark method (one more of sbench's frames): the caller's line too
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        sbench.Benchmark(bench["dir"]).curves(child=1)
    assert [x.filename for x in w if issubclass(x.category, sbench.SbenchWarning)] == [__file__]
