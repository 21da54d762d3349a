"""docs/python.md runs as written: its python blocks, in order, in one
namespace, from the top of the source tree (as a reader would)."""
import os
import re


def test_walkthrough_runs(monkeypatch, src, tmp_path):
    text = open(os.path.join(src, "docs", "python.md")).read()
    blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
    assert len(blocks) >= 5
    build = os.path.dirname(os.environ["SB_BIN"])
    monkeypatch.chdir(tmp_path)
    os.symlink(build, tmp_path / "build")
    for k in ("PATH", "SB_FAKE_SLURM_DIR", "SB_FAKE_TIME_UNIT", "SB_ROOT", "SB_INDEX"):
        monkeypatch.setenv(k, os.environ.get(k, ""))
    ns = {}
    for b in blocks:
        exec(compile(b, "docs/python.md", "exec"), ns)
    assert ns["best"]["params"]["lr"] == 0.1
