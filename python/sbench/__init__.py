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

Training scripts call :func:`checkpoint_requested` in their loop to save
and exit when the time limit is near (docs/python.md, "Checkpoints").  That
one and :func:`checkpoint_install` are pure Python: ``import sbench`` works
without libsbench (a compute node with only the Python package), and every
other function then raises the :class:`ImportError` that says where the
library was looked for.
"""

from __future__ import annotations  # annotations kept as written: help() shows them so

import ctypes
import json
import sys
import math
import os
import threading
import warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from sbench._errors import Error, NotFound, SchedulerError, SpecError, Timeout, UsageError
from sbench.checkpoint import checkpoint_install, checkpoint_requested


class _NoLibrary:
    """Stands for the module _lib when libsbench could not be loaded: any use
    raises the loader's ImportError, so that the pure-Python parts (the
    checkpoint helpers) still work."""

    def __init__(self, error):
        self.error = error

    def __getattr__(self, name):
        why = str(self.error)
        if isinstance(self.error, OSError):
            why = "sbench: cannot load libsbench: " + why
        raise ImportError(why + " (only sbench.checkpoint_requested and checkpoint_install "
                          "work without it)") from self.error


try:
    from sbench import _lib
except (ImportError, OSError) as e:  # OSError: the library is there, one of its own is not
    _lib = _NoLibrary(e)

__all__ = ["__version__", "Benchmark", "benchmarks", "curves", "forget", "output", "plan", "rows", "runs", "submit", "status", "wait", "analyze", "report", "rerun", "cancel",
           "iter_status", "StatusIterator", "read_log", "keygen", "watch", "export", "verify", "checkpoint_install", "checkpoint_requested",
           "Error", "UsageError", "NotFound", "SpecError", "SchedulerError", "Timeout",
           "SbenchWarning"]


for _cls in (Error, UsageError, NotFound, SpecError, SchedulerError, Timeout):
    _cls.__module__ = "sbench"  # shown as sbench.SpecError, where users catch them


class SbenchWarning(UserWarning):
    """What sbctl prints as "warning: ..." on stderr (a chunk submitted twice,
    outcomes that could not be recorded, a scheduler that is retried)."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _warn(message: str) -> None:
    """Warns at the first frame outside the sbench package: the line of the
    caller's code, however many of sbench's own calls (a Benchmark method,
    the library's callback) are between."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, SbenchWarning, stacklevel=level)


PathLike = Union[str, os.PathLike]
"""A path: a str or an os.PathLike (pathlib.Path...)."""

__version__: Optional[str] = None if isinstance(_lib, _NoLibrary) else _lib.sb_version().decode()
"""The version of libsbench, the number ``sbctl --version`` prints (None
when the library could not be loaded)."""


def plan(spec: str | os.PathLike[str]) -> Dict[str, Any]:
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
        for i in range(_lib.sb_plan_warning_count(p)):  # what sbctl plan prints on stderr
            _warn(_lib.sb_plan_warning(p, i).decode("utf-8", "replace"))
        return _json(_lib.sb_plan_render_buffer, p)
    finally:
        _lib.sb_plan_destroy(p)
        _lib.sb_spec_destroy(s)


def keygen(path: str | os.PathLike[str], ed25519: bool = False) -> None:
    """Writes a new random 32-byte HMAC key to ``path`` with mode 0600, as
    ``sbctl keygen``; with ``ed25519=True`` an Ed25519 key pair instead, as
    ``sbctl keygen --ed25519``: the private key to ``path`` (PEM, PKCS#8,
    mode 0600) and its public key to ``path`` + ".pub".  Refuses to
    overwrite an existing file (:class:`UsageError`)."""
    err = _lib.Error_t()
    gen = _lib.sb_key_generate_ed25519 if ed25519 else _lib.sb_key_generate_file
    if gen(_lib.fspath(path), ctypes.byref(err)) < 0:
        _lib.raise_error(err)


def read_log(path: str | os.PathLike[str], key: str | os.PathLike[str] | None = None, head: Optional[str] = None,
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


def watch(bench: str | os.PathLike[str], until_done: bool = False, timeout: Optional[float] = None,
          bind: Optional[str] = None, events: bool = False) -> Iterator[Dict[str, Any]]:
    """Watches the benchmark ``bench`` live, as ``sbctl watch BENCH --json``:
    an iterator of record dicts (the objects of ``sbctl log --json`` plus
    ``"live"``), first every record already in its logs, then each new one
    as its agents write it, each once.  ``until_done`` ends the iteration
    when no child is pending or running, ``timeout`` after that many
    seconds; ``bind`` is the ZeroMQ address to listen on (default: an
    ephemeral port on the host's address).  ``events`` also yields the
    lines that are not records (refused frames and connections, statuses:
    dicts without a ``"type"`` key).  The watcher's endpoint file is removed
    when the iterator is closed or garbage collected."""
    opts = _lib.WatchOpts()
    opts.bind = bind.encode() if bind is not None else None
    opts.until_done = bool(until_done)
    opts.timeout = _seconds(timeout, "timeout") if timeout is not None else 0.0
    with _lib.Context(warn=_warn) as ctx:
        w = ctypes.c_void_p()
        if _lib.sb_watch_open(ctx.ptr, _bench_arg(bench), ctypes.byref(opts), ctypes.byref(w),
                              ctypes.byref(ctx.err)) < 0:
            _lib.raise_error(ctx.err)
        try:
            while True:
                line = ctypes.c_void_p()
                # short waits, so that Ctrl-C is seen between two calls
                rc = _lib.sb_watch_next_json(w, 0.25, ctypes.byref(line), ctypes.byref(ctx.err))
                if rc < 0:
                    _lib.raise_error(ctx.err)
                if rc == _lib.WATCH_DONE:
                    return
                if rc == _lib.WATCH_EVENT:
                    obj = json.loads(_lib.take_string(line).decode("utf-8"))
                    if events or "type" in obj:
                        yield obj
        finally:
            _lib.sb_watch_close(w)


def _json(fn, obj) -> Dict[str, Any]:
    return json.loads(_lib.render(fn, obj, _lib.FORMAT_JSON))


def _bench_arg(bench: str | os.PathLike[str]) -> bytes:
    return _lib.fspath(bench)


def _result(ctx, call, render_fn, destroy_fn, spec=False) -> Dict[str, Any]:
    """Calls call(&out) (a library operation that makes a result object),
    then renders the result as JSON and frees it; raises on failure (a
    failed call may still have made a result: it is freed too)."""
    out = ctypes.c_void_p()
    rc = call(ctypes.byref(out))
    try:
        if rc < 0:
            _lib.raise_error(ctx.err, spec=spec)
        return _json(render_fn, out)
    finally:
        destroy_fn(out)


class _Opened:
    """The benchmark a BENCH argument names, open for a with-block."""

    def __init__(self, ctx, bench):
        self.ptr = _lib.sb_bench_find(ctx.ptr, _bench_arg(bench), ctypes.byref(ctx.err))
        if not self.ptr:
            _lib.raise_error(ctx.err)

    def __enter__(self):
        return self.ptr

    def __exit__(self, *exc):
        _lib.sb_bench_destroy(self.ptr)


def submit(spec: str | os.PathLike[str], root: str | os.PathLike[str] | None = None, dry_run: bool = False,
           no_reuse: bool = False, reuse_from: str | os.PathLike[str] | None = None,
           check: Union[None, bool, float] = None, lane: Optional[str] = None,
           max_active: Optional[int] = None,
           smoke: Union[None, bool, float] = None) -> Dict[str, Any]:
    """Plans the spec, creates its benchmark directory under ``root`` (default
    ``$SB_ROOT``, else ``./sbench-runs``) and submits its children as job
    arrays: the document of ``sbctl submit SPEC --json``.  Submitting the
    same spec again submits nothing (``"already_submitted": true``).

    Children that succeeded in an earlier benchmark of the same name and
    tag are reused (``"reused": N``); ``no_reuse`` measures every child,
    ``reuse_from`` (a benchmark) reuses from that one instead.

    ``check`` (``True`` for 60 s, or a number of seconds) watches the
    benchmark afterwards as ``--check[=SECONDS]`` does: the document gets
    ``"check"`` (``healthy`` false where sbctl exits 3).  ``lane`` (with
    ``max_active``, default 1) submits into a lane as ``--lane NAME
    --max-active K``: the document gets ``"lane"``, whose ``busy`` is true
    where sbctl exits 4 and nothing was submitted (docs/lane.md).  ``smoke``
    (``True`` for 600 s, or a number of seconds) submits child 0 alone
    first, waits for it and submits the other children only when it
    succeeded, as ``--smoke[=SECONDS]`` does: the document gets ``"smoke"``,
    whose ``outcome`` is ``"failed"`` or ``"timeout"`` where sbctl exits 3
    (``held_back`` children not submitted).  None of them is an exception.

    Before anything is submitted the command is checked (its program found,
    the files it names under ``{spec_dir}`` there): a refused spec raises
    :class:`SpecError` naming the element, with a did-you-mean.

    Raises :class:`SpecError` for a bad spec, :class:`UsageError` for bad
    options, :class:`SchedulerError` when squeue does not answer for a lane,
    :class:`Error` when sbatch refused or the submit was interrupted (run it
    again to continue)."""
    opts = _lib.SubmitOpts(dry_run=bool(dry_run), no_reuse=bool(no_reuse),
                           reuse_from=None if reuse_from is None else _bench_arg(reuse_from))
    if smoke is not None and smoke is not False:
        opts.smoke = True
        opts.smoke_seconds = 0.0 if smoke is True else _seconds(smoke, "smoke")
    if check is not None or lane is not None or max_active is not None:
        return _submit_lane(spec, root, opts, check, lane, max_active)
    with _lib.Context(root=root, warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_submit(ctx.ptr, _lib.fspath(spec), ctypes.byref(opts),
                                                       out, ctypes.byref(ctx.err)),
                       _lib.sb_submit_render_buffer, _lib.sb_submit_result_destroy, spec=True)


def _submit_lane(spec, root, opts, check, lane, max_active) -> Dict[str, Any]:
    lo = _lib.LaneOpts()
    if check is not None and check is not False:
        lo.check = True
        lo.check_seconds = 0.0 if check is True else _seconds(check, "check")
    if max_active is not None:
        if lane is None:
            raise UsageError("max_active needs a lane")
        if isinstance(max_active, bool) or not isinstance(max_active, int) or max_active < 1:
            raise UsageError("max_active must be an integer >= 1, not %r" % (max_active,))
        lo.max_active = max_active
    if lane is not None:
        if not isinstance(lane, str):
            raise UsageError("lane must be a string, not %r" % (lane,))
        lo.lane = lane.encode()
    with _lib.Context(root=root, warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_lane_submit(ctx.ptr, _lib.fspath(spec), ctypes.byref(opts),
                                                            ctypes.byref(lo), out, ctypes.byref(ctx.err)),
                       _lib.sb_lane_render_buffer, _lib.sb_lane_result_destroy, spec=True)


def _seconds(value, what, zero_ok=False):
    """A number of seconds given to the library: finite, > 0 (>= 0 with
    zero_ok); anything else (NaN, inf, a negative, a bool, a string) is a
    UsageError, never passed on."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or (value == 0 and not zero_ok):
        raise UsageError("%s must be a number of seconds %s, not %r"
                         % (what, ">= 0" if zero_ok else "> 0", value))
    return float(value)


def _status_opts(offline=False, settle=None, timeout=None, interval=None):
    o = _lib.StatusOpts()
    o.offline = bool(offline)
    if settle is not None:
        # 0 in the options means "the context's": a settle of 0 goes there
        o.settle = _seconds(settle, "settle", zero_ok=True)
    if timeout is not None:
        o.timeout = _seconds(timeout, "timeout")
    if interval is not None:
        o.interval = _seconds(interval, "interval")
    return o



def status(bench: str | os.PathLike[str], offline: bool = False, settle: Optional[float] = None) -> Dict[str, Any]:
    """Classifies every child of the benchmark ``bench`` (its directory, or
    a name or digest prefix the local index knows): the document of
    ``sbctl status BENCH --json``.  Children that did not succeed are data
    (their ``class`` and ``reason``), not exceptions.  ``offline`` does not
    ask the scheduler; ``settle`` is the settle time in seconds (default
    10).  Raises :class:`SchedulerError` when sacct or squeue does not
    answer (use ``offline=True``)."""
    opts = _status_opts(offline, settle)
    with _lib.Context(settle=settle if settle == 0 else None, warn=_warn) as ctx, \
            _Opened(ctx, bench) as b:
        return _result(ctx, lambda out: _lib.sb_status_compute(ctx.ptr, b, ctypes.byref(opts), out,
                                                               ctypes.byref(ctx.err)),
                       _lib.sb_status_render_buffer, _lib.sb_status_destroy)


def iter_status(bench: str | os.PathLike[str], offline: bool = False,
                settle: Optional[float] = None) -> "StatusIterator":
    """The status of ``bench``, as :func:`status` computes it, one child at
    a time: an iterator of the children's dicts (each exactly
    ``status(bench)["children"][i]``, in index order) and a context
    manager, for a benchmark too large for the whole document in Python
    objects (docs/python.md, "A million children")::

        with sbench.iter_status("big-sweep") as st:
            print(len(st), st.counts["failed"])
            failed = [c["index"] for c in st if c["class"] == "failed"]

    The rest of the document is there at once, without the children: the
    attributes ``format``, ``benchmark``, ``scheduler``, ``storage``,
    ``counts`` (every top-level key but ``children``), and ``top``, the
    dict of them all.  ``len()`` is the number of children.  The status is
    computed when this is called (the same errors as :func:`status`); the
    library's copy of it is held until the iteration ends or the object is
    closed (``close()``, the end of a with-block, garbage collection)."""
    return StatusIterator(bench, offline=offline, settle=settle)


class StatusIterator:
    """What :func:`iter_status` returns: the children of a status, rendered
    and parsed one at a time from the status the library holds.  Iterating
    it again continues where it stopped; each child is given once.  Once
    closed, the attributes and ``len()`` remain, and iterating raises
    :class:`ValueError` (``StopIteration`` when every child was given)."""

    def __init__(self, bench: str | os.PathLike[str], offline: bool = False,
                 settle: Optional[float] = None):
        opts = _status_opts(offline, settle)
        self._lock = threading.Lock()
        self._ctx = self._bench = self._st = None
        self._next = 0
        ctx = _lib.Context(settle=settle if settle == 0 else None, warn=_warn)
        self._ctx = ctx
        try:
            self._bench = _lib.sb_bench_find(ctx.ptr, _bench_arg(bench), ctypes.byref(ctx.err))
            if not self._bench:
                _lib.raise_error(ctx.err)
            st = ctypes.c_void_p()
            if _lib.sb_status_compute(ctx.ptr, self._bench, ctypes.byref(opts), ctypes.byref(st),
                                      ctypes.byref(ctx.err)) < 0:
                _lib.raise_error(ctx.err)
            self._st = st
            for i in range(_lib.sb_status_warning_count(st)):  # what sbctl prints on stderr
                _warn(_lib.sb_status_warning(st, i).decode("utf-8", "replace"))
            self._n: int = _lib.sb_status_children(st)
            buf, n = ctypes.c_void_p(), ctypes.c_size_t()
            if _lib.sb_status_render_top(st, ctypes.byref(buf), ctypes.byref(n),
                                         ctypes.byref(ctx.err)) < 0:
                _lib.raise_error(ctx.err)
            self.top: Dict[str, Any] = json.loads(_lib.take_buffer(buf, n.value))
        except BaseException:
            self.close()
            raise
        for k, v in self.top.items():
            if k.isidentifier() and not hasattr(type(self), k):
                setattr(self, k, v)
        # what every __next__ passes to the library, made once
        self._render = _lib.sb_status_render_child.resolve()
        self._buf, self._len = ctypes.c_void_p(), ctypes.c_size_t()
        self._args = (ctypes.byref(self._buf), ctypes.byref(self._len), ctypes.byref(ctx.err))

    def __repr__(self) -> str:
        return "<sbench.StatusIterator of %r: %d of %d children given%s>" % (
            self.top["benchmark"]["dir"], self._next, self._n,
            "" if self._st is not None else ", closed")

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> "StatusIterator":
        return self

    def __next__(self) -> Dict[str, Any]:
        with self._lock:
            i = self._next
            if i >= self._n:
                self._close()
                raise StopIteration
            if self._st is None:
                raise ValueError("iter_status: the status is closed")
            if self._render(self._st, i, *self._args) < 0:
                _lib.raise_error(self._ctx.err)
            self._next = i + 1
            text = _lib.take_buffer(self._buf, self._len.value)
        return json.loads(text)

    def close(self) -> None:
        """Frees the library's status (the children not given yet can no
        longer be); the attributes stay.  A second call does nothing."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._st is not None:
            _lib.sb_status_destroy(self._st)
            self._st = None
        if self._bench:
            _lib.sb_bench_destroy(self._bench)
        self._bench = None
        if self._ctx is not None:
            self._ctx.close()
            self._ctx = None

    def __enter__(self) -> "StatusIterator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self._close()
        except Exception:  # an object never made whole, or the interpreter shutting down
            pass


def wait(bench: str | os.PathLike[str], timeout: Optional[float] = None,
         interval: Optional[float] = None) -> Dict[str, Any]:
    """Waits until no child of ``bench`` is pending or running (polling the
    scheduler every ``interval`` seconds, default 30, as ``sbctl wait``)
    and returns the final status document.  A scheduler that does not answer
    is retried (with a :class:`SbenchWarning`).  Raises :class:`Timeout`
    when ``timeout`` seconds passed first."""
    opts = _status_opts(timeout=timeout, interval=interval)
    arg = _bench_arg(bench)
    stop, box = threading.Event(), {}
    with _lib.Context(warn=_warn) as ctx:
        ctx.set_stop(stop)

        def run():
            try:
                box["doc"] = _result(ctx, lambda out: _lib.sb_status_wait(ctx.ptr, arg,
                                                                          ctypes.byref(opts), out,
                                                                          ctypes.byref(ctx.err)),
                                     _lib.sb_status_render_buffer, _lib.sb_status_destroy)
            except BaseException as e:  # handed to the caller's thread
                box["exc"] = e

        # the wait runs in a thread, the caller's thread joins it in short
        # steps: Ctrl-C is seen at once, stops the wait, and is raised
        worker = threading.Thread(target=run, name="sbench.wait", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.1)
        except KeyboardInterrupt:
            stop.set()
            worker.join()
            raise
    if "exc" in box:
        raise box["exc"]
    return box["doc"]


def _names(arg, what):
    if arg is None:
        return None, 0
    if isinstance(arg, str):
        arg = [n for n in arg.split(",")]
    names = [str(n).encode() for n in arg]
    return (ctypes.c_char_p * max(len(names), 1))(*names), len(names)


def _analysis(bench, group_by, metrics, offline, sort, render_fn) -> Dict[str, Any]:
    """sb_analyze_bench with these options, rendered as JSON by render_fn."""
    sopts = _status_opts(offline)
    aopts = _lib.AnalyzeOpts()
    if sort is not None:
        aopts.sort_desc = sort.startswith("-")
        aopts.sort = (sort[1:] if aopts.sort_desc else sort).encode()
    gb, ngb = _names(group_by, "group_by")
    ms, nms = _names(metrics, "metrics")
    if gb is not None:
        aopts.group_by, aopts.ngroup_by = ctypes.cast(gb, _lib.c_char_pp), ngb
    if ms is not None:
        aopts.metrics, aopts.nmetrics = ctypes.cast(ms, _lib.c_char_pp), nms
    with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
        return _result(ctx, lambda out: _lib.sb_analyze_bench(ctx.ptr, b, ctypes.byref(sopts),
                                                              ctypes.byref(aopts), out,
                                                              ctypes.byref(ctx.err)),
                       render_fn, _lib.sb_analysis_destroy)


def analyze(bench: str | os.PathLike[str], group_by: Optional[Union[str, Sequence[str]]] = None,
            metrics: Optional[Union[str, Sequence[str]]] = None,
            offline: bool = False, sort: Optional[str] = None) -> Dict[str, Any]:
    """Statistics (n, mean, stddev, min, median, max) of each metric per group
    of parameters, over the succeeded children only, beside the count of
    each class per group: the document of ``sbctl analyze BENCH --json``.
    ``group_by`` and ``metrics`` are lists of names (or "a,b" strings);
    default: the spec's ``analysis`` section.  ``rows(analysis)`` turns the
    result into flat rows for ``pandas.DataFrame`` or the csv module.
    ``sort`` ranks the groups by the mean of a metric, ``"-NAME"`` highest
    first, as ``--sort``; the first group is then the best.  The analysis's
    warnings (a metric that no succeeded child reported) come as
    :class:`SbenchWarning` and under ``"warnings"``."""
    doc = _analysis(bench, group_by, metrics, offline, sort, _lib.sb_analysis_render_buffer)
    for w in doc.get("warnings", []):
        _warn(w)
    return doc


def runs(bench: str | os.PathLike[str], metrics: Optional[Union[str, Sequence[str]]] = None,
         offline: bool = False) -> List[Dict[str, Any]]:
    """One flat row per child of ``bench``, whatever its class, for
    ``pandas.DataFrame(runs(b))``: the rows of ``sbctl analyze BENCH --runs
    --csv`` with typed values: ``index``, ``digest``, ``repeat``, ``class``, ``reason``
    (None for a success), ``attempt``, ``run_dir`` (a reused child's is
    its source's), ``reused_from_dir`` and ``reused_from_index`` (None
    unless reused), ``param.NAME`` for each parameter and ``metric.NAME``
    for each metric (``metrics``, else every metric any child reported;
    None where the child's finish has none).  Filter on ``class`` before
    aggregating: only ``succeeded`` rows are proven."""
    doc = _analysis(bench, None, metrics, offline, None, _lib.sb_analysis_render_runs_buffer)
    out = []
    for r in doc["runs"]:
        src = r["reused_from"] or {}
        row = {"index": r["index"], "digest": r["digest"], "repeat": r["repeat"], "class": r["class"],
               "reason": r["reason"], "attempt": r["attempt"], "run_dir": r["run_dir"],
               "reused_from_dir": src.get("dir"), "reused_from_index": src.get("index")}
        row.update(("param." + k, v) for k, v in r["params"].items())
        row.update(("metric." + k, r["metrics"].get(k)) for k in doc["metrics"])
        out.append(row)
    return out


class _CurvesOpts(ctypes.Structure):
    _fields_ = [("has_child", ctypes.c_bool), ("child", ctypes.c_int64),
                ("metrics", ctypes.POINTER(ctypes.c_char_p)), ("nmetrics", ctypes.c_size_t)]


_curves_api = None


def _curves_fns():
    """The ctypes prototypes of <sbench/curves.h>, declared at first use."""
    global _curves_api
    if _curves_api is None:
        vp, pp, perr = ctypes.c_void_p, _lib.c_void_pp, _lib.P_ERR
        _curves_api = (
            _lib._fn("sb_curves_bench", ctypes.c_int, vp, vp, ctypes.POINTER(_CurvesOpts), pp, perr),
            _lib._fn("sb_curves_render_buffer", ctypes.c_int, vp, ctypes.c_int, pp,
                     ctypes.POINTER(ctypes.c_size_t), perr),
            _lib._fn("sb_curves_destroy", None, vp))
    return _curves_api


def curves(bench: str | os.PathLike[str], child: Optional[int] = None,
           metrics: Optional[Union[str, Sequence[str]]] = None) -> List[Dict[str, Any]]:
    """The learning curves of ``bench``: one flat row per point, for
    ``pandas.DataFrame(curves(b))``.  A point is a metric of a verified
    record of a run's log: a heartbeat that carried the numbers of the
    metrics file (when they changed, docs/event-log.md) or the finish.
    Each row has ``child``, ``attempt``, ``restart`` (the run),
    ``elapsed`` (seconds since that run started; the finish's wall time),
    ``metric``, ``value`` (int or float as the file had it), ``final``
    (True for the finish's numbers) and ``param.NAME`` for each parameter
    of the child (as :func:`runs` and :func:`rows` name them).  Rows come
    in child, attempt, restart and time order.

    ``child`` keeps one child's rows, ``metrics`` (a list of names or an
    "a,b" string) those metrics.  Only records that verify with the
    benchmark's key count: a log whose tail is tampered with (a tag that
    does not verify, a broken chain, a record of another run) gives the
    points before it, and a :class:`SbenchWarning` says which records were
    left out.  A reused child has no rows here (its run is in its source
    benchmark).  Join with :func:`runs` on ``child`` == ``index`` to keep
    the proven successes only."""
    fn_bench, fn_render, fn_destroy = _curves_fns()
    opts = _CurvesOpts()
    if child is not None:
        if isinstance(child, bool) or not isinstance(child, int) or not 0 <= child < 2 ** 63:
            raise UsageError("child must be an index >= 0 (below 2**63), not %r" % (child,))
        opts.has_child, opts.child = True, child
    ms, nms = _names(metrics, "metrics")
    if ms is not None:
        opts.metrics, opts.nmetrics = ctypes.cast(ms, _lib.c_char_pp), nms
    with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
        doc = _result(ctx, lambda out: fn_bench(ctx.ptr, b, ctypes.byref(opts), out,
                                                ctypes.byref(ctx.err)),
                      fn_render, fn_destroy)
    for w in doc["warnings"]:
        _warn(w)
    params = {c["index"]: {"param." + k: v for k, v in c["params"].items()}
              for c in doc["children"]}
    out = []
    for p in doc["points"]:
        row = {"child": p["child"], "attempt": p["attempt"], "restart": p["restart"],
               "elapsed": p["elapsed_s"], "metric": p["metric"], "value": p["value"],
               "final": p["final"]}
        row.update(params.get(p["child"], {}))
        out.append(row)
    return out


def rerun(bench: str | os.PathLike[str], only: Union[str, Iterable[str]], time: Optional[str] = None,
          dry_run: bool = False, cancel_running: bool = False) -> Dict[str, Any]:
    """Submits a new attempt for the children of ``bench`` in the classes
    ``only`` (e.g. ``["failed", "killed"]`` or ``"failed,killed"``): the
    document of ``sbctl rerun BENCH --only CLASSES [--time T] --json``.
    ``time`` is the new attempt's time limit (sbatch ``--time``: "60",
    "2:00:00"), recorded in the attempt.  Earlier attempts stay in the
    record.  A chosen child whose job the scheduler still has (pending or
    running) is never run twice at once: a :class:`UsageError`, unless
    ``cancel_running`` cancels that job and waits for its end first."""
    classes = only if isinstance(only, str) else ",".join(only)
    opts = _lib.RerunOpts(dry_run=bool(dry_run), time=None if time is None else str(time).encode(),
                          cancel_running=bool(cancel_running))
    with _lib.Context(warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_rerun(ctx.ptr, _bench_arg(bench), classes.encode(),
                                                      ctypes.byref(opts), out,
                                                      ctypes.byref(ctx.err)),
                       _lib.sb_submit_render_buffer, _lib.sb_submit_result_destroy)


def cancel(bench: str | os.PathLike[str]) -> Dict[str, Any]:
    """Cancels the benchmark's pending and running jobs and records a signed
    cancel record: the document of ``sbctl cancel BENCH --json``."""
    with _lib.Context(warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_cancel(ctx.ptr, _bench_arg(bench), out,
                                                       ctypes.byref(ctx.err)),
                       _lib.sb_submit_render_buffer, _lib.sb_submit_result_destroy)


def rows(analysis: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Flat rows of an :func:`analyze` result, one per group and metric, for
    ``pandas.DataFrame(rows(a))`` or ``csv.DictWriter``: the group's
    parameters (as ``param.NAME``, so that no parameter can collide with a
    statistic), ``metric``, ``n``, ``mean``, ``stddev``, ``min``,
    ``median``, ``max`` (None where undefined).  Every group has a row for
    every metric analysed, as ``sbctl analyze --csv`` does: a configuration
    where no child succeeded is there with ``n`` 0 and no statistics, not
    left out."""
    out = []
    names = analysis.get("metrics")
    for g in analysis["groups"]:
        base = {"param." + k: v for k, v in g["params"].items()}
        for name in (names if names is not None else list(g["metrics"])):
            st = g["metrics"].get(name, {"n": 0})
            row = dict(base)
            row["metric"] = name
            for k in ("n", "mean", "stddev", "min", "median", "max"):
                row[k] = st.get(k)
            out.append(row)
    return out


def benchmarks() -> Dict[str, Any]:
    """The benchmarks the local index knows: the document of
    ``sbctl list --json``."""
    with _lib.Context(warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_index_list(ctx.ptr, out, ctypes.byref(ctx.err)),
                       _lib.sb_bench_list_render_buffer, _lib.sb_bench_list_destroy)


def forget(bench: str | os.PathLike[str]) -> Dict[str, Any]:
    """Removes the benchmark ``bench`` (a directory, a name: the latest of
    that name, or a digest prefix) from the local index, not its directory:
    the document of ``sbctl forget BENCH --json``.  Raises
    :class:`NotFound` when the index does not know it."""
    with _lib.Context(warn=_warn) as ctx:
        return _result(ctx, lambda out: _lib.sb_index_forget(ctx.ptr, _bench_arg(bench), out,
                                                             ctypes.byref(ctx.err)),
                       _lib.sb_bench_list_render_buffer, _lib.sb_bench_list_destroy)


def output(bench: str | os.PathLike[str], child: int) -> List[str]:
    """The paths of child ``child``'s Slurm stdout and stderr files (every
    attempt and restart, oldest first), as ``sbctl output`` shows them."""
    if isinstance(child, bool) or not isinstance(child, int) or not 0 <= child < 2 ** 63:
        # (a larger int would wrap in the C size_t: 2**70 is not child 0)
        raise UsageError("child must be an index >= 0 (below 2**63), not %r" % (child,))
    files, n = ctypes.POINTER(ctypes.c_char_p)(), ctypes.c_size_t()
    with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
        if _lib.sb_bench_output(b, child, None, ctypes.byref(files), ctypes.byref(n),
                                ctypes.byref(ctx.err)) < 0:
            _lib.raise_error(ctx.err)
        try:
            return [os.fsdecode(files[i]) for i in range(n.value)]
        finally:
            _lib._free(ctypes.cast(files, ctypes.c_void_p))


def report(bench: str | os.PathLike[str], output: str | os.PathLike[str] | None = None, offline: bool = False) -> str:
    """Writes the self-contained HTML report of ``bench`` (as ``sbctl report
    BENCH [-o OUTPUT]``: the same bytes) to ``output``, by default
    ``report.html`` in the benchmark directory, and returns the path
    written.  The report's analysis is the spec's ``analysis`` section."""
    sopts = _status_opts(offline)
    written = ctypes.c_void_p()
    with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
        an = ctypes.c_void_p()
        if _lib.sb_analyze_bench(ctx.ptr, b, ctypes.byref(sopts), None, ctypes.byref(an),
                                 ctypes.byref(ctx.err)) < 0:
            _lib.raise_error(ctx.err)
        try:
            if _lib.sb_report_write(an, None if output is None else _lib.fspath(output),
                                    ctypes.byref(written), ctypes.byref(ctx.err)) < 0:
                _lib.raise_error(ctx.err)
            try:
                return os.fsdecode(ctypes.cast(written, ctypes.c_char_p).value)
            finally:
                _lib._free(written)
        finally:
            _lib.sb_analysis_destroy(an)


def export(bench: str | os.PathLike[str], sign: str | os.PathLike[str],
           output: str | os.PathLike[str] | None = None, partial: bool = False,
           offline: bool = False) -> bytes:
    """The signed bundle of ``bench``, as ``sbctl export BENCH --sign SIGN``
    writes it (the same bytes: one line of JSON and a newline): a DSSE
    envelope signed with the Ed25519 private key ``sign`` (made by
    ``keygen(path, ed25519=True)``) over an in-toto Statement v1 whose
    predicate lists every planned child, its class, the heads of its logs,
    its result digests and metrics, and the analysis
    (docs/sbctl-export.md).  :func:`verify` checks it.

    The status is computed first (asking the scheduler, unless
    ``offline``).  While a child is pending or running the export is
    refused (:class:`UsageError`) unless ``partial``; the bundle then says
    ``"partial": true``.  ``output`` also writes the bytes to that file
    (through a temporary file beside it, renamed over it).  Raises
    :class:`NotFound` when the key file does not exist, :class:`UsageError`
    when it is refused (a symbolic link, readable by others, not an Ed25519
    private key), :class:`SchedulerError` when the scheduler does not
    answer (use ``offline=True``), :class:`Error` when a log or ``output``
    cannot be read or written."""
    bopts = _lib.BundleOpts(key_path=_lib.fspath(sign), partial=bool(partial))
    sopts = _status_opts(offline)
    with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
        st = ctypes.c_void_p()
        try:
            if _lib.sb_status_compute(ctx.ptr, b, ctypes.byref(sopts), ctypes.byref(st),
                                      ctypes.byref(ctx.err)) < 0:
                _lib.raise_error(ctx.err)
            for i in range(_lib.sb_status_warning_count(st)):  # what sbctl prints on stderr
                _warn(_lib.sb_status_warning(st, i).decode("utf-8", "replace"))
            buf, n = ctypes.c_void_p(), ctypes.c_size_t()
            if _lib.sb_bundle_export(st, ctypes.byref(bopts), ctypes.byref(buf), ctypes.byref(n),
                                     ctypes.byref(ctx.err)) < 0:
                _lib.raise_error(ctx.err)
            data = _lib.take_buffer(buf, n.value)
        finally:
            _lib.sb_status_destroy(st)
    if output is not None:
        _write_replacing(output, data)
    return data


def _write_replacing(path, data: bytes) -> None:
    """data to path through a temporary file beside it (fsynced), renamed
    over it, as sbctl export -o writes; an :class:`Error` naming the file
    when that fails."""
    path = os.fspath(path)
    if path in ("", b""):
        raise UsageError("output needs a file name")
    tmp = path + (".tmp.%d" % os.getpid() if isinstance(path, str) else b".tmp.%d" % os.getpid())
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Error("cannot write '%s': %s" % (os.fsdecode(path), e.strerror or e)) from None


def verify(bundle: str | os.PathLike[str], pubkey: str | os.PathLike[str],
           against: str | os.PathLike[str] | None = None) -> Dict[str, Any]:
    """Checks the bundle file ``bundle`` (as :func:`export` or ``sbctl
    export`` wrote it) with the Ed25519 public key ``pubkey`` (the ``.pub``
    file of ``keygen(path, ed25519=True)``), as ``sbctl verify BUNDLE
    --pubkey PUBKEY [--against AGAINST] --json``: the signature, then that
    the spec it carries plans exactly the children it lists, that every
    class is what the classification gives for the evidence it carries,
    that the analysis recomputes, that the subjects are the succeeded
    children's result files and the analysis; with ``against`` (a
    benchmark directory) also that the directory's logs and result files
    are still as the bundle says (docs/verify.md).

    Returns the verdict: ``{"ok", "problem", "keyid", "sha256",
    "benchmark", "digest", "children", "succeeded", "subjects",
    "partial"}`` (``sha256``: of the bundle file's bytes).  A bundle
    that fails a check is data (``ok`` False, ``problem`` naming the first
    problem, where sbctl exits 3), not an exception.  Raises
    :class:`NotFound` when the bundle, the key or ``against`` does not
    exist, :class:`UsageError` when the file is no bundle at all (not
    JSON), the key is not an Ed25519 public key in PEM or ``against`` is no
    benchmark directory, :class:`Error` when a file cannot be read."""
    path = os.fspath(bundle)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFound("bundle '%s' does not exist" % os.fsdecode(path)) from None
    except IsADirectoryError:
        raise UsageError("bundle '%s' is a directory" % os.fsdecode(path)) from None
    except OSError as e:
        raise Error("cannot read bundle '%s': %s" % (os.fsdecode(path), e.strerror or e)) from None
    opts = _lib.BundleVerifyOpts(pubkey_path=_lib.fspath(pubkey),
                                 against=None if against is None else _lib.fspath(against))
    err, verdict = _lib.Error_t(), _lib.BundleVerdict()
    rc = _lib.sb_bundle_verify(data, len(data), ctypes.byref(opts), ctypes.byref(verdict),
                               ctypes.byref(err))
    try:
        if rc < 0:
            _lib.raise_error(err)
        buf, n = ctypes.c_void_p(), ctypes.c_size_t()
        if _lib.sb_bundle_verdict_json(ctypes.byref(verdict), ctypes.byref(buf), ctypes.byref(n),
                                       ctypes.byref(err)) < 0:
            _lib.raise_error(err)
        return json.loads(_lib.take_buffer(buf, n.value))
    finally:
        _lib.sb_bundle_verdict_release(ctypes.byref(verdict))


class Benchmark:
    """A benchmark, opened by its directory, name (the latest of that name)
    or digest prefix, as on the command line::

        b = sbench.Benchmark("lr-sweep")
        b.wait(timeout=3600)
        best = min(b.analyze()["groups"], key=lambda g: g["metrics"]["loss"]["mean"])

    The attributes are what its immutable record says; the methods are the
    module's functions for this benchmark."""

    def __init__(self, bench: str | os.PathLike[str]):
        with _lib.Context(warn=_warn) as ctx, _Opened(ctx, bench) as b:
            self.dir: str = os.fsdecode(_lib.sb_bench_dir(b))
            self.name: str = _lib.sb_bench_name(b).decode()
            tag = _lib.sb_bench_tag(b)
            self.tag: Optional[str] = tag.decode() if tag is not None else None
            self.digest: str = _lib.sb_bench_digest(b).decode()
            self.count: int = _lib.sb_bench_children(b)
        self._children: Optional[List[Dict[str, Any]]] = None

    def __repr__(self) -> str:
        return "Benchmark(%r)" % self.dir

    def __len__(self) -> int:
        return self.count

    @property
    def children(self) -> List[Dict[str, Any]]:
        """The children as the record defines them: ``index``, ``digest``,
        ``params``, ``repeat`` (read once, from the benchmark directory)."""
        if self._children is None:
            keys = ("index", "digest", "params", "repeat")
            with self.iter_status(offline=True) as st:  # not the whole document at once
                self._children = [{k: c[k] for k in keys} for c in st]
        return self._children

    def status(self, offline: bool = False, settle: Optional[float] = None) -> Dict[str, Any]:
        """:func:`status` of this benchmark."""
        return status(self.dir, offline=offline, settle=settle)

    def iter_status(self, offline: bool = False, settle: Optional[float] = None) -> StatusIterator:
        """:func:`iter_status` of this benchmark: its children one at a time."""
        return iter_status(self.dir, offline=offline, settle=settle)

    def wait(self, timeout: Optional[float] = None, interval: Optional[float] = None) -> Dict[str, Any]:
        """:func:`wait` for this benchmark."""
        return wait(self.dir, timeout=timeout, interval=interval)

    def analyze(self, group_by=None, metrics=None, offline: bool = False,
                sort: Optional[str] = None) -> Dict[str, Any]:
        """:func:`analyze` of this benchmark."""
        return analyze(self.dir, group_by=group_by, metrics=metrics, offline=offline, sort=sort)

    def report(self, output: str | os.PathLike[str] | None = None, offline: bool = False) -> str:
        """:func:`report` of this benchmark."""
        return report(self.dir, output=output, offline=offline)

    def rerun(self, only, time: Optional[str] = None, dry_run: bool = False) -> Dict[str, Any]:
        """:func:`rerun` of this benchmark's children of the classes ``only``."""
        return rerun(self.dir, only, time=time, dry_run=dry_run)

    def cancel(self) -> Dict[str, Any]:
        """:func:`cancel` this benchmark's jobs."""
        return cancel(self.dir)

    def output(self, child: int) -> List[str]:
        """The Slurm output files of one child (:func:`output`)."""
        return output(self.dir, child)

    def curves(self, child: Optional[int] = None,
               metrics: Optional[Union[str, Sequence[str]]] = None) -> List[Dict[str, Any]]:
        """:func:`curves` of this benchmark: a row per point of its learning curves."""
        return curves(self.dir, child=child, metrics=metrics)

    def logs(self, child: Optional[int] = None) -> List[Dict[str, Any]]:
        """:func:`read_log` of every log of this benchmark, or of one child."""
        return read_log(self.dir, child=child)
