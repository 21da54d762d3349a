"""sbench.checkpoint_requested and checkpoint_install (docs/python.md,
"Checkpoints"): the handlers they install, the flag the checkpoint signal and
SIGTERM set, $SB_CHECKPOINT_SIGNAL, the errors, chaining to a handler
installed before, the helpers without libsbench, and a training script that
outlives its time limit on the fake Slurm, resumed from its checkpoint."""
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import sbench
import sbench.checkpoint
from sbench.checkpoint import checkpoint_install, checkpoint_requested

from conftest import fake_slurm

SIGNALS = (signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM)


@pytest.fixture(autouse=True)
def clean(monkeypatch):
    """Each test starts with nothing installed and no flag, and leaves the
    process's handlers as it found them."""
    monkeypatch.delenv("SB_CHECKPOINT_SIGNAL", raising=False)
    saved = {s: signal.getsignal(s) for s in SIGNALS}
    sbench.checkpoint._reset()
    yield
    sbench.checkpoint._reset()
    for s, h in saved.items():
        signal.signal(s, h)


def send(sig):
    """Sends sig to this process and gives its Python handler the time to
    run (it runs in the main thread, between two bytecodes)."""
    os.kill(os.getpid(), sig)
    end = time.monotonic() + 2
    while not checkpoint_requested() and time.monotonic() < end:
        time.sleep(0.01)


def test_exported():
    assert {"checkpoint_install", "checkpoint_requested"} <= set(sbench.__all__)
    assert sbench.checkpoint_requested is checkpoint_requested
    assert sbench.checkpoint_install is checkpoint_install


def test_first_call_installs_handlers():
    before = signal.getsignal(signal.SIGUSR2)
    assert checkpoint_requested() is False
    assert signal.getsignal(signal.SIGUSR1) is sbench.checkpoint._handler
    assert signal.getsignal(signal.SIGTERM) is sbench.checkpoint._handler
    assert signal.getsignal(signal.SIGUSR2) is before       # not the checkpoint signal
    assert checkpoint_requested() is False


@pytest.mark.parametrize("sig", [signal.SIGUSR1, signal.SIGTERM], ids=["USR1", "TERM"])
def test_signal_sets_the_flag(sig):
    checkpoint_install()
    assert checkpoint_requested() is False
    send(sig)
    assert checkpoint_requested() is True
    assert checkpoint_requested() is True                   # and stays set


@pytest.mark.parametrize("value", ["USR2", "SIGUSR2", "usr2"])
def test_env_names_the_signal(monkeypatch, value):
    monkeypatch.setenv("SB_CHECKPOINT_SIGNAL", value)
    usr1 = signal.getsignal(signal.SIGUSR1)
    checkpoint_install()
    assert signal.getsignal(signal.SIGUSR2) is sbench.checkpoint._handler
    assert signal.getsignal(signal.SIGTERM) is sbench.checkpoint._handler
    assert signal.getsignal(signal.SIGUSR1) is usr1          # USR1 left alone
    send(signal.SIGUSR2)
    assert checkpoint_requested() is True


def test_env_term_only(monkeypatch):
    monkeypatch.setenv("SB_CHECKPOINT_SIGNAL", "TERM")
    usr1 = signal.getsignal(signal.SIGUSR1)
    checkpoint_install()
    assert signal.getsignal(signal.SIGUSR1) is usr1
    send(signal.SIGTERM)
    assert checkpoint_requested() is True


@pytest.mark.parametrize("value", ["USR3", "KILL", "SIGSTOP", "10"])
def test_bad_name(monkeypatch, value):
    monkeypatch.setenv("SB_CHECKPOINT_SIGNAL", value)
    usr1, term = signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGTERM)
    with pytest.raises(sbench.UsageError) as e:
        checkpoint_requested()
    assert "SB_CHECKPOINT_SIGNAL=%r" % value in str(e.value)
    assert "USR1, USR2, TERM, INT, HUP, QUIT" in str(e.value)
    # nothing installed, and a corrected variable is read at the next call
    assert signal.getsignal(signal.SIGUSR1) is usr1 and signal.getsignal(signal.SIGTERM) is term
    monkeypatch.setenv("SB_CHECKPOINT_SIGNAL", "USR1")
    assert checkpoint_requested() is False


def test_not_from_another_thread():
    box = {}

    def run():
        try:
            box["value"] = checkpoint_requested()
        except BaseException as e:
            box["exc"] = e

    t = threading.Thread(target=run, name="loader")
    t.start()
    t.join()
    assert isinstance(box.get("exc"), sbench.UsageError), box
    assert "main thread" in str(box["exc"]) and "'loader'" in str(box["exc"])
    assert signal.getsignal(signal.SIGUSR1) is not sbench.checkpoint._handler
    # once the main thread installed them, any thread may ask
    checkpoint_install()
    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert box["value"] is False


def test_previous_handler_still_called():
    calls = []
    signal.signal(signal.SIGUSR1, lambda s, f: calls.append(("usr1", s)))
    signal.signal(signal.SIGTERM, lambda s, f: calls.append(("term", s)))
    checkpoint_install()
    send(signal.SIGUSR1)
    assert checkpoint_requested() is True
    assert calls == [("usr1", signal.SIGUSR1)]
    os.kill(os.getpid(), signal.SIGTERM)
    end = time.monotonic() + 2
    while len(calls) < 2 and time.monotonic() < end:
        time.sleep(0.01)
    assert calls == [("usr1", signal.SIGUSR1), ("term", signal.SIGTERM)]


def test_install_is_idempotent():
    calls = []
    signal.signal(signal.SIGUSR1, lambda s, f: calls.append(s))
    checkpoint_install()
    checkpoint_install()
    checkpoint_requested()
    # installed once: the handler before ours is called once, not ours twice
    assert sbench.checkpoint._previous[signal.SIGUSR1] is not sbench.checkpoint._handler
    send(signal.SIGUSR1)
    assert calls == [signal.SIGUSR1]


def test_without_the_library(tmp_path):
    """The package alone (no libsbench beside it, as on a compute node
    where only the Python package is importable): the checkpoint helpers
    work, the rest says what is missing."""
    pkg = os.path.dirname(sbench.__file__)
    shutil.copytree(pkg, tmp_path / "sbench", ignore=shutil.ignore_patterns("__pycache__"))
    code = textwrap.dedent("""
        import os, signal
        from sbench.checkpoint import checkpoint_requested
        assert checkpoint_requested() is False
        os.kill(os.getpid(), signal.SIGUSR2)
        import sbench
        assert sbench.checkpoint_requested() is True and sbench.__version__ is None
        try:
            sbench.plan("spec.yaml")
        except ImportError as e:
            print(e)
        else:
            raise SystemExit("plan worked without the library")
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env.update(PYTHONPATH=str(tmp_path), SB_CHECKPOINT_SIGNAL="USR2")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "cannot find libsbench" in r.stdout and "checkpoint_requested" in r.stdout


# A training-like script: 6 "epochs" of 1 s, a checkpoint (the number of
# epochs done) when asked, resumed from it; model.txt at the end.  It imports
# only sbench.checkpoint.
TRAIN = """\
import os, sys, time
from sbench.checkpoint import checkpoint_install, checkpoint_requested

checkpoint_install()
start = int(open("ckpt.txt").read()) if os.path.exists("ckpt.txt") else 0
print("restart", os.environ.get("SLURM_RESTART_COUNT", "0"), "from epoch", start,
      "signal", os.environ.get("SB_CHECKPOINT_SIGNAL"), flush=True)
for epoch in range(start, 6):
    time.sleep(1)
    if checkpoint_requested():
        with open("ckpt.txt.tmp", "w") as f:
            f.write("%d\\n" % (epoch + 1))
        os.replace("ckpt.txt.tmp", "ckpt.txt")
        sys.exit(0)
with open("model.txt", "w") as f:
    f.write("trained 6 epochs\\n")
"""


@pytest.fixture
def fake(tmp_path):
    with fake_slurm(tmp_path):
        yield tmp_path
        subprocess.run(["sbfake", "shutdown"], capture_output=True)


def test_training_outlives_its_time_limit(fake, monkeypatch):
    t0 = time.monotonic()
    (fake / "train.py").write_text(TRAIN)
    spec = fake / "train.yaml"
    spec.write_text(textwrap.dedent("""\
        name: ckpt-train
        command: [%s, "{spec_dir}/train.py"]
        slurm: {time: "4"}
        checkpoint: {files: [ckpt.txt], before: 2, max_restarts: 5}
        results: [model.txt]
    """ % sys.executable))
    # the job's environment is this one (sbatch exports it): the script
    # imports sbench.checkpoint from the build tree
    monkeypatch.setenv("PYTHONPATH", os.path.dirname(os.path.dirname(sbench.__file__)))
    sub = sbench.submit(spec)
    bench = sub["benchmark"]["dir"]
    final = sbench.wait(bench, timeout=50, interval=1)
    child = sbench.status(bench)["children"][0]
    assert final["children"][0]["class"] == child["class"] == "succeeded", child
    restarts = child["restarts"]
    assert len(restarts) >= 2, restarts
    assert [r["restart"] for r in restarts] == list(range(len(restarts)))
    assert [r["ended_by"] for r in restarts] == ["requeue_signal"] * (len(restarts) - 1) + ["finish"]
    assert restarts[0]["resumed_from"] is None
    for prev, cur in zip(restarts, restarts[1:]):
        assert prev["checkpoint"] is not None
        assert cur["resumed_from"] == prev["checkpoint"], restarts
    assert child["total_run_s"] > 0
    run_dir = os.path.join(bench, sbench.runs(bench)[0]["run_dir"])
    with open(os.path.join(run_dir, "model.txt")) as f:
        assert f.read() == "trained 6 epochs\n"
    assert time.monotonic() - t0 < 60
