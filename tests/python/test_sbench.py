"""The Python package equals the CLI: the same objects as `sbctl ... --json`,
the same messages in the documented exceptions."""
import os

import pytest

import sbench


def test_version_is_sbctls(cli):
    assert cli.run("--version").stdout.strip() == "sbctl " + sbench.__version__


@pytest.mark.parametrize("spec", ["examples/demo-sweep.yaml", "examples/lr-sweep.yaml"])
def test_plan_equals_cli(cli, src, spec):
    path = os.path.join(src, spec)
    assert sbench.plan(path) == cli.json("plan", path, "--json")


def test_annotations_read_as_written():
    # help() and inspect show what the source says, not ForwardRef('...')
    import inspect
    sig = inspect.signature(sbench.report)
    assert sig.parameters["bench"].annotation == "str | os.PathLike[str]"
    assert sig.parameters["output"].annotation == "str | os.PathLike[str] | None"
    for name in sbench.__all__:
        obj = getattr(sbench, name)
        if inspect.isfunction(obj):
            assert "ForwardRef" not in str(inspect.signature(obj)), name


def test_plan_takes_path_like(cli, src):
    import pathlib
    path = pathlib.Path(src) / "examples" / "demo-sweep.yaml"
    assert sbench.plan(path)["benchmark"]["children"] == 12


def test_spec_error_has_position_and_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ncommand: [a]\nparamters: {p: [1]}\n")
    r = cli.run("plan", bad)
    assert r.returncode == 2
    with pytest.raises(sbench.SpecError) as e:
        sbench.plan(bad)
    assert str(e.value) == r.stderr.strip()
    assert (e.value.path, e.value.line, e.value.column) == (str(bad), 3, 1)
    assert e.value.exit_code == 2
    assert isinstance(e.value, sbench.UsageError) and isinstance(e.value, sbench.Error)


def test_missing_spec_is_not_found(cli, tmp_path):
    missing = tmp_path / "nope.yaml"
    r = cli.run("plan", missing)
    assert r.returncode == 2
    with pytest.raises(sbench.NotFound) as e:
        sbench.plan(missing)
    assert str(e.value) == r.stderr.strip()


def test_duplicate_point_is_a_spec_error(cli, tmp_path):
    spec = tmp_path / "dup.yaml"
    spec.write_text("name: x\ncommand: [a]\nparameters: {p: [1, 1]}\n")
    r = cli.run("plan", spec)
    assert r.returncode == 2
    with pytest.raises(sbench.SpecError) as e:
        sbench.plan(spec)
    assert str(e.value) == r.stderr.strip()


def test_keygen_and_refusal(cli, tmp_path):
    key = tmp_path / "k"
    sbench.keygen(key)
    assert key.stat().st_size == 32 and (key.stat().st_mode & 0o777) == 0o600
    r = cli.run("keygen", key)
    assert r.returncode == 2
    with pytest.raises(sbench.UsageError) as e:
        sbench.keygen(key)
    assert str(e.value) in r.stderr
    assert key.stat().st_size == 32


def test_keygen_ed25519(cli, tmp_path):
    key = tmp_path / "ed"
    sbench.keygen(key, ed25519=True)
    pub = tmp_path / "ed.pub"
    assert (key.stat().st_mode & 0o777) == 0o600
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----\n")
    assert pub.read_text().startswith("-----BEGIN PUBLIC KEY-----\n")
    r = cli.run("keygen", "--ed25519", key)
    assert r.returncode == 2
    with pytest.raises(sbench.UsageError) as e:
        sbench.keygen(key, ed25519=True)
    assert str(e.value) in r.stderr


def test_read_log_equals_cli(cli, tmp_path):
    key, log = tmp_path / "k", tmp_path / "run.log"
    sbench.keygen(key)
    r = cli.agent("--key", key, "--log", log, "--", "sh", "-c", "echo hi; exit 3", cwd=tmp_path)
    assert r.returncode == 3
    records = sbench.read_log(log, key=key)
    assert records == cli.json_lines("log", log, "--key", key, "--json")
    assert [r.get("type") for r in records[:2]] == ["start", "finish"]
    assert records[1]["exit_code"] == 3
    assert records[-1]["summary"]["tail"] == "ok"


def test_read_log_problem_is_data_not_exception(cli, tmp_path):
    key, log = tmp_path / "k", tmp_path / "run.log"
    sbench.keygen(key)
    cli.agent("--key", key, "--log", log, "--", "true", cwd=tmp_path)
    data = bytearray(log.read_bytes())
    data[-5] ^= 1
    log.write_bytes(bytes(data))
    r = cli.run("log", log, "--key", key, "--json")
    assert r.returncode == 3
    records = sbench.read_log(log, key=key)
    assert records == cli.json_lines("log", log, "--key", key, "--json")
    assert records[-1]["summary"]["tail"] != "ok"


def test_read_log_errors(cli, tmp_path):
    with pytest.raises(sbench.NotFound):
        sbench.read_log(tmp_path / "missing.log", key=tmp_path / "k")
    with pytest.raises(sbench.UsageError):
        sbench.read_log(tmp_path, child="3")
