"""Fixtures for the Python package's tests: the build's sbctl and sbagent,
and a helper that runs sbctl the way a user would."""
import json
import os
import subprocess

import pytest

BIN = os.environ["SB_BIN"]
SRC = os.environ["SB_SRC"]


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
