"""sbench: trustworthy benchmark and experiment runs on Slurm, from Python.

The same operations as the ``sbctl`` command, over the same library
(libsbench), returning what ``sbctl ... --json`` prints as Python objects::

    import sbench
    sbench.plan("sweep.yaml")["benchmark"]["children"]
    sbench.keygen("k")
    records = sbench.read_log("run.log", key="k")

Every function raises an :class:`Error` subclass where sbctl exits 1 or 2
(:class:`SpecError` for a bad spec, with its path, line and column), and
returns data where sbctl exits 0 or 3: a log with a problem is a summary
whose ``tail`` says which, not an exception.
"""

import ctypes
import json
import os
from typing import Any, Dict, List, Optional, Union

from sbench import _lib
from sbench._errors import Error, NotFound, SchedulerError, SpecError, Timeout, UsageError

__all__ = ["__version__", "plan", "keygen", "read_log", "Error", "UsageError", "NotFound",
           "SpecError", "SchedulerError", "Timeout"]

PathLike = Union[str, "os.PathLike[str]"]

__version__: str = _lib.sb_version().decode()
"""The version of libsbench, the number ``sbctl --version`` prints."""


def plan(spec: PathLike) -> Dict[str, Any]:
    """Expands the benchmark spec at path ``spec`` into its children, without
    side effects: the document of ``sbctl plan SPEC --json``
    (``{"format": 1, "benchmark": {...}, "children": [...]}``).

    Raises :class:`NotFound` when the file does not exist and
    :class:`SpecError` for a bad spec."""
    err = _lib.Error_t()
    s = _lib.sb_spec_load(_lib.fspath(spec), ctypes.byref(err))
    if not s:
        _lib.raise_error(err, spec=True)
    p = None
    try:
        p = _lib.sb_plan_create(s, ctypes.byref(err))
        if not p:
            _lib.raise_error(err, spec=True)
        buf, n = ctypes.c_void_p(), ctypes.c_size_t()
        if _lib.sb_plan_render_buffer(p, _lib.FORMAT_JSON, ctypes.byref(buf), ctypes.byref(n),
                                      ctypes.byref(err)) < 0:
            _lib.raise_error(err)
        return json.loads(_lib.take_buffer(buf, n.value))
    finally:
        _lib.sb_plan_destroy(p)
        _lib.sb_spec_destroy(s)


def keygen(path: PathLike) -> None:
    """Writes a new random 32-byte HMAC key to ``path`` with mode 0600, as
    ``sbctl keygen``; refuses to overwrite an existing file
    (:class:`UsageError`)."""
    err = _lib.Error_t()
    if _lib.sb_key_generate_file(_lib.fspath(path), ctypes.byref(err)) < 0:
        _lib.raise_error(err)


def read_log(path: PathLike, key: Optional[PathLike] = None, head: Optional[str] = None,
             child: Optional[int] = None) -> List[Dict[str, Any]]:
    """Reads and verifies one event log, or every log of a benchmark
    directory: the objects of ``sbctl log PATH --json``, one per record (with
    ``verified``) and the summaries, the overall summary last
    (``{"format": 1, "summary": {"records", "verified", "tail"}}``).

    ``key`` is the key file (default: the benchmark directory's), ``head`` a
    head seen before ("COUNT:TAGHEX", one file only: a shorter log is then a
    ``rollback``), ``child`` selects one child's logs of a benchmark."""
    err = _lib.Error_t()
    opts = _lib.LogviewOpts()
    opts.key_path = _lib.fspath(key) if key is not None else None
    opts.head = head.encode() if head is not None else None
    if child is not None:
        if isinstance(child, bool) or not isinstance(child, int):
            raise UsageError("child must be an int, not %r" % (child,))
        opts.has_child = True
        opts.child = child
    opts.format = _lib.FORMAT_JSON
    buf, n, summary = ctypes.c_void_p(), ctypes.c_size_t(), _lib.LogviewSummary()
    if _lib.sb_logview_verify_buffer(_lib.fspath(path), ctypes.byref(opts), ctypes.byref(buf),
                                     ctypes.byref(n), ctypes.byref(summary),
                                     ctypes.byref(err)) < 0:
        _lib.raise_error(err)
    text = _lib.take_buffer(buf, n.value).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line]
