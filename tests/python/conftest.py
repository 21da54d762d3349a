"""Fixtures for the Python package's tests: the build's sbctl and sbagent,
and a helper that runs sbctl the way a user would."""
import contextlib
import json
import os
import subprocess

import pytest

BIN = os.environ["SB_BIN"]
SRC = os.environ["SB_SRC"]
FAKE = os.path.join(os.environ["SB_BUILD"], "fake", "bin")


@contextlib.contextmanager
def fake_slurm(work):
    """The fake Slurm first on PATH, its state, SB_ROOT and SB_INDEX under
    work, seconds as its time unit; the environment as it was afterwards."""
    env = {
        "PATH": FAKE + os.pathsep + os.environ["PATH"],
        "SB_FAKE_SLURM_DIR": str(work / "fake-slurm"),
        "SB_FAKE_TIME_UNIT": "s",
        "SB_FAKE_KILLWAIT": "0.5",
        "SB_ROOT": str(work / "runs"),
        "SB_INDEX": str(work / "index.sqlite"),
    }
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield work
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Cli:
    def run(self, *args, cwd=None):
        return subprocess.run([os.path.join(BIN, "sbctl"), *map(str, args)], cwd=cwd,
                              capture_output=True, text=True)

    def json(self, *args, cwd=None):
        r = self.run(*args, cwd=cwd)
        assert r.returncode in (0, 3), r.stderr
        return json.loads(r.stdout)

    def json_lines(self, *args):
        r = self.run(*args)
        assert r.returncode in (0, 3), r.stderr
        return [json.loads(line) for line in r.stdout.splitlines() if line]

    def agent(self, *args, cwd=None):
        return subprocess.run([os.path.join(BIN, "sbagent"), *map(str, args)], cwd=cwd,
                              capture_output=True, text=True)


@pytest.fixture
def cli():
    return Cli()


@pytest.fixture
def src():
    return SRC
