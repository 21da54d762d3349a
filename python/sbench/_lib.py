"""The ctypes binding of libsbench: finding the shared library, the C
types, and turning a failed call into the documented exception.

Only this module knows the C API.  It declares the argument and result
types of every function it uses, so that ctypes converts and checks them;
ctypes releases the GIL for the length of every call into the library.
"""

import ctypes
import os
import re

from sbench import _errors

_SONAME = "libsbench.so.0"


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    # wheel (pip install): site-packages/sbench/_lib, the tools in sbench/_bin
    yield os.path.join(here, "_lib", _SONAME)
    # build tree: build/python/sbench -> build/lib
    yield os.path.join(here, os.pardir, os.pardir, "lib", _SONAME)
    # install: PREFIX/lib/python3.X/site-packages/sbench -> PREFIX/lib
    yield os.path.join(here, os.pardir, os.pardir, os.pardir, _SONAME)


def _load():
    tried = []
    for path in _candidates():
        path = os.path.normpath(path)
        tried.append(path)
        if os.path.exists(path):
            return ctypes.CDLL(path)
    try:  # a system-wide install, found by the dynamic linker
        return ctypes.CDLL(_SONAME)
    except OSError:
        tried.append(_SONAME + " (the dynamic linker's path)")
    raise ImportError("sbench: cannot find libsbench; looked for " + ", ".join(tried))


lib = _load()

# error.h
SB_ERROR_MAX = 1024
(ERR_NONE, ERR_RUNTIME, ERR_INPUT, ERR_NOT_FOUND, ERR_NOMEM, ERR_TIMEOUT,
 ERR_SCHEDULER, ERR_INTERRUPTED) = range(8)


class Error_t(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * SB_ERROR_MAX), ("code", ctypes.c_int)]


# format.h
FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV = 0, 1, 2

c_char_pp = ctypes.POINTER(ctypes.c_char_p)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)
P_ERR = ctypes.POINTER(Error_t)


class LogviewOpts(ctypes.Structure):
    _fields_ = [
        ("key_path", ctypes.c_char_p),
        ("head", ctypes.c_char_p),
        ("has_child", ctypes.c_bool),
        ("child", ctypes.c_int64),
        ("format", ctypes.c_int),
        ("note", ctypes.c_void_p),
        ("note_arg", ctypes.c_void_p),
    ]


class LogviewSummary(ctypes.Structure):
    _fields_ = [
        ("files", ctypes.c_size_t),
        ("records", ctypes.c_size_t),
        ("verified", ctypes.c_size_t),
        ("tail", ctypes.c_int),
        ("io_errors", ctypes.c_size_t),
    ]


class StatusOpts(ctypes.Structure):
    _fields_ = [
        ("offline", ctypes.c_bool),
        ("settle", ctypes.c_double),
        ("rehash", ctypes.c_bool),
        ("no_outcomes", ctypes.c_bool),
        ("sched_timeout", ctypes.c_double),
        ("timeout", ctypes.c_double),
        ("interval", ctypes.c_double),
    ]


class AnalyzeOpts(ctypes.Structure):
    _fields_ = [
        ("group_by", c_char_pp),
        ("ngroup_by", ctypes.c_size_t),
        ("metrics", c_char_pp),
        ("nmetrics", ctypes.c_size_t),
        ("sort", ctypes.c_char_p),
        ("sort_desc", ctypes.c_bool),
    ]


class SubmitOpts(ctypes.Structure):
    _fields_ = [("dry_run", ctypes.c_bool), ("no_reuse", ctypes.c_bool),
                ("reuse_from", ctypes.c_char_p), ("smoke", ctypes.c_bool),
                ("smoke_seconds", ctypes.c_double)]


class RerunOpts(ctypes.Structure):
    _fields_ = [("dry_run", ctypes.c_bool), ("time", ctypes.c_char_p),
                ("cancel_running", ctypes.c_bool)]


# lane.h
class LaneOpts(ctypes.Structure):
    _fields_ = [("lane", ctypes.c_char_p), ("max_active", ctypes.c_int64),
                ("check", ctypes.c_bool), ("check_seconds", ctypes.c_double),
                ("check_interval", ctypes.c_double)]


WARN_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
STOP_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


sb_version = _fn("sb_version", ctypes.c_char_p)
sb_spec_load = _fn("sb_spec_load", ctypes.c_void_p, ctypes.c_char_p, P_ERR)
sb_spec_destroy = _fn("sb_spec_destroy", None, ctypes.c_void_p)
sb_plan_create = _fn("sb_plan_create", ctypes.c_void_p, ctypes.c_void_p, P_ERR)
sb_plan_destroy = _fn("sb_plan_destroy", None, ctypes.c_void_p)
sb_plan_warning_count = _fn("sb_plan_warning_count", ctypes.c_size_t, ctypes.c_void_p)
sb_plan_warning = _fn("sb_plan_warning", ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t)
sb_plan_render_buffer = _fn("sb_plan_render_buffer", ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                            c_void_pp, ctypes.POINTER(ctypes.c_size_t), P_ERR)
sb_key_generate_file = _fn("sb_key_generate_file", ctypes.c_int, ctypes.c_char_p, P_ERR)
sb_key_generate_ed25519 = _fn("sb_key_generate_ed25519", ctypes.c_int, ctypes.c_char_p, P_ERR)
sb_logview_verify_buffer = _fn("sb_logview_verify_buffer", ctypes.c_int, ctypes.c_char_p,
                               ctypes.POINTER(LogviewOpts), c_void_pp,
                               ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(LogviewSummary),
                               P_ERR)

vp, sz, P_SZ = ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)
sb_ctx_create = _fn("sb_ctx_create", vp, P_ERR)
sb_ctx_destroy = _fn("sb_ctx_destroy", None, vp)
sb_ctx_load_env = _fn("sb_ctx_load_env", ctypes.c_int, vp, c_char_pp, P_ERR)
sb_ctx_set_root = _fn("sb_ctx_set_root", ctypes.c_int, vp, ctypes.c_char_p, P_ERR)
sb_ctx_agent = _fn("sb_ctx_agent", ctypes.c_char_p, vp)
sb_ctx_set_agent = _fn("sb_ctx_set_agent", ctypes.c_int, vp, ctypes.c_char_p, P_ERR)
sb_ctx_set_settle = _fn("sb_ctx_set_settle", ctypes.c_int, vp, ctypes.c_double, P_ERR)
sb_ctx_set_warn = _fn("sb_ctx_set_warn", None, vp, WARN_FN, vp)
sb_ctx_set_stop = _fn("sb_ctx_set_stop", None, vp, STOP_FN, vp)
sb_bench_find = _fn("sb_bench_find", vp, vp, ctypes.c_char_p, P_ERR)
sb_bench_destroy = _fn("sb_bench_destroy", None, vp)
sb_bench_dir = _fn("sb_bench_dir", ctypes.c_char_p, vp)
sb_status_compute = _fn("sb_status_compute", ctypes.c_int, vp, vp, ctypes.POINTER(StatusOpts),
                        c_void_pp, P_ERR)
sb_status_wait = _fn("sb_status_wait", ctypes.c_int, vp, ctypes.c_char_p,
                     ctypes.POINTER(StatusOpts), c_void_pp, P_ERR)
sb_status_destroy = _fn("sb_status_destroy", None, vp)
sb_status_render_buffer = _fn("sb_status_render_buffer", ctypes.c_int, vp, ctypes.c_int,
                              c_void_pp, P_SZ, P_ERR)
sb_analyze_bench = _fn("sb_analyze_bench", ctypes.c_int, vp, vp, ctypes.POINTER(StatusOpts),
                       ctypes.POINTER(AnalyzeOpts), c_void_pp, P_ERR)
sb_analysis_destroy = _fn("sb_analysis_destroy", None, vp)
sb_analysis_render_buffer = _fn("sb_analysis_render_buffer", ctypes.c_int, vp, ctypes.c_int,
                                c_void_pp, P_SZ, P_ERR)
sb_analysis_render_runs_buffer = _fn("sb_analysis_render_runs_buffer", ctypes.c_int, vp,
                                     ctypes.c_int, c_void_pp, P_SZ, P_ERR)
sb_report_write = _fn("sb_report_write", ctypes.c_int, vp, ctypes.c_char_p, c_void_pp, P_ERR)
sb_submit = _fn("sb_submit", ctypes.c_int, vp, ctypes.c_char_p, ctypes.POINTER(SubmitOpts),
                c_void_pp, P_ERR)
sb_rerun = _fn("sb_rerun", ctypes.c_int, vp, ctypes.c_char_p, ctypes.c_char_p,
               ctypes.POINTER(RerunOpts), c_void_pp, P_ERR)
sb_cancel = _fn("sb_cancel", ctypes.c_int, vp, ctypes.c_char_p, c_void_pp, P_ERR)
sb_submit_result_destroy = _fn("sb_submit_result_destroy", None, vp)
sb_submit_render_buffer = _fn("sb_submit_render_buffer", ctypes.c_int, vp, ctypes.c_int,
                              c_void_pp, P_SZ, P_ERR)
sb_lane_submit = _fn("sb_lane_submit", ctypes.c_int, vp, ctypes.c_char_p, ctypes.POINTER(SubmitOpts),
                     ctypes.POINTER(LaneOpts), c_void_pp, P_ERR)
sb_lane_result_destroy = _fn("sb_lane_result_destroy", None, vp)
sb_lane_render_buffer = _fn("sb_lane_render_buffer", ctypes.c_int, vp, ctypes.c_int,
                            c_void_pp, P_SZ, P_ERR)

sb_bench_name = _fn("sb_bench_name", ctypes.c_char_p, vp)
sb_bench_tag = _fn("sb_bench_tag", ctypes.c_char_p, vp)
sb_bench_digest = _fn("sb_bench_digest", ctypes.c_char_p, vp)
sb_bench_children = _fn("sb_bench_children", ctypes.c_size_t, vp)
sb_bench_output = _fn("sb_bench_output", ctypes.c_int, vp, ctypes.c_size_t, c_char_pp,
                      ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)), P_SZ, P_ERR)
sb_index_list = _fn("sb_index_list", ctypes.c_int, vp, c_void_pp, P_ERR)
sb_index_forget = _fn("sb_index_forget", ctypes.c_int, vp, ctypes.c_char_p, c_void_pp, P_ERR)
sb_bench_list_destroy = _fn("sb_bench_list_destroy", None, vp)
sb_bench_list_render_buffer = _fn("sb_bench_list_render_buffer", ctypes.c_int, vp, ctypes.c_int,
                                  c_void_pp, P_SZ, P_ERR)

# status.h: what sbctl prints as "sbctl CMD: warning: ..." after a status
sb_status_warning_count = _fn("sb_status_warning_count", ctypes.c_size_t, vp)
sb_status_warning = _fn("sb_status_warning", ctypes.c_char_p, vp, ctypes.c_size_t)
sb_status_children = _fn("sb_status_children", ctypes.c_size_t, vp)


# bundle.h
class BundleOpts(ctypes.Structure):
    _fields_ = [("key_path", ctypes.c_char_p), ("partial", ctypes.c_bool)]


class BundleVerifyOpts(ctypes.Structure):
    _fields_ = [("pubkey_path", ctypes.c_char_p), ("against", ctypes.c_char_p)]


class BundleVerdict(ctypes.Structure):
    # problem is the library's (sb_bundle_verdict_release frees it): read
    # it as bytes, never assign it
    _fields_ = [
        ("ok", ctypes.c_bool),
        ("problem", ctypes.c_char_p),
        ("keyid", ctypes.c_char * 65),
        ("sha256", ctypes.c_char * 65),
        ("benchmark_digest", ctypes.c_char * 65),
        ("name", ctypes.c_char * 256),
        ("children", ctypes.c_size_t),
        ("succeeded", ctypes.c_size_t),
        ("subjects", ctypes.c_size_t),
        ("partial", ctypes.c_bool),
    ]


class _Lazy:
    """A function of the library declared at its first call rather than at
    import: a library built before the function was added still loads (and
    every other function works); calling this one then raises ctypes's
    AttributeError, "undefined symbol: NAME"."""

    def __init__(self, name, restype, *argtypes):
        self.name, self.restype, self.argtypes = name, restype, argtypes
        self.fn = None

    def __call__(self, *args):
        return self.resolve()(*args)

    def resolve(self):
        """The ctypes function itself (for a loop that calls it often)."""
        if self.fn is None:
            self.fn = _fn(self.name, self.restype, *self.argtypes)
        return self.fn


sb_bundle_export = _fn("sb_bundle_export", ctypes.c_int, vp, ctypes.POINTER(BundleOpts), c_void_pp,
                       P_SZ, P_ERR)
sb_bundle_verify = _Lazy("sb_bundle_verify", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                         ctypes.POINTER(BundleVerifyOpts), ctypes.POINTER(BundleVerdict), P_ERR)
sb_bundle_verdict_release = _Lazy("sb_bundle_verdict_release", None, ctypes.POINTER(BundleVerdict))
sb_bundle_verdict_json = _Lazy("sb_bundle_verdict_json", ctypes.c_int, ctypes.POINTER(BundleVerdict),
                               c_void_pp, P_SZ, P_ERR)

# status.h: the JSON document of a status in pieces (sbench.iter_status)
sb_status_render_child = _Lazy("sb_status_render_child", ctypes.c_int, vp, sz, c_void_pp, P_SZ,
                               P_ERR)
sb_status_render_top = _Lazy("sb_status_render_top", ctypes.c_int, vp, c_void_pp, P_SZ, P_ERR)

# buffers the library returns are freed by the library's own allocator
_free = getattr(lib, "sb_free", None) or ctypes.CDLL(None).free
_free.restype = None
_free.argtypes = [ctypes.c_void_p]


def take_buffer(ptr, length):
    """The bytes of a malloc'd buffer the library returned, freed."""
    try:
        return ctypes.string_at(ptr, length)
    finally:
        _free(ptr)


def fspath(path):
    """A path argument as the C string the library takes: a NUL would cut
    it short ('py\\0x' naming 'py'), so it is refused."""
    b = os.fsencode(os.fspath(path))
    if b"\0" in b:
        raise _errors.UsageError("a path or name may not contain a NUL byte: %r" % (path,))
    return b


_SPEC_POS = re.compile(r"^(?P<path>.*?):(?P<line>\d+):(?P<column>\d+): ")


def raise_error(err, spec=False):
    """Raises the exception for a failed call: the same message sbctl prints,
    the class for its exit status (2: UsageError, NotFound, SpecError; 1:
    Error, SchedulerError)."""
    msg = err.msg.decode("utf-8", "replace")
    code = err.code
    if spec and code in (ERR_INPUT, ERR_NONE, ERR_RUNTIME):
        m = _SPEC_POS.match(msg)
        if m:
            raise _errors.SpecError(msg, m.group("path"), int(m.group("line")),
                                    int(m.group("column")))
    if code == ERR_NOT_FOUND:
        raise _errors.NotFound(msg)
    if code == ERR_INPUT:
        if spec:
            raise _errors.SpecError(msg, None, None, None)
        raise _errors.UsageError(msg)
    if code == ERR_NOMEM:
        raise MemoryError(msg)
    if code == ERR_TIMEOUT:
        raise _errors.Timeout(msg)
    if code == ERR_SCHEDULER:
        raise _errors.SchedulerError(msg)
    raise _errors.Error(msg)


def render(fn, obj, fmt=FORMAT_JSON):
    """The rendering of a result object by the library's renderer fn."""
    err = Error_t()
    buf, n = ctypes.c_void_p(), ctypes.c_size_t()
    if fn(obj, fmt, ctypes.byref(buf), ctypes.byref(n), ctypes.byref(err)) < 0:
        raise_error(err)
    return take_buffer(buf, n.value)


class Context:
    """A libsbench context with the defaults sbctl would use: from
    os.environ (SB_ROOT, SB_AGENT, SB_INDEX, XDG_STATE_HOME, HOME,
    SB_LOOKUP_WINDOW), the sbagent installed beside this library, and the
    library's warnings sent to a Python callable."""

    def __init__(self, root=None, settle=None, warn=None):
        self.err = Error_t()
        self.ptr = sb_ctx_create(ctypes.byref(self.err))
        if not self.ptr:
            raise_error(self.err)
        env = [("%s=%s" % kv).encode("utf-8", "surrogateescape") for kv in os.environ.items()]
        envp = (ctypes.c_char_p * (len(env) + 1))(*env, None)
        try:
            if sb_ctx_load_env(self.ptr, envp, ctypes.byref(self.err)) < 0:
                raise_error(self.err)
            if not sb_ctx_agent(self.ptr):
                agent = tool_beside_library("sbagent")
                if agent and sb_ctx_set_agent(self.ptr, agent, ctypes.byref(self.err)) < 0:
                    raise_error(self.err)
            if root is not None and sb_ctx_set_root(self.ptr, fspath(root),
                                                     ctypes.byref(self.err)) < 0:
                raise_error(self.err)
            if settle is not None and sb_ctx_set_settle(self.ptr, float(settle),
                                                         ctypes.byref(self.err)) < 0:
                raise_error(self.err)
        except BaseException:
            self.close()
            raise
        self._warn = WARN_FN(lambda _user, msg: warn(msg.decode("utf-8", "replace"))) if warn else None
        if self._warn:
            sb_ctx_set_warn(self.ptr, self._warn, None)

    def set_stop(self, event):
        """Stops a wait of this context once the threading.Event is set."""
        self._stop = STOP_FN(lambda _user: 1 if event.is_set() else 0)
        sb_ctx_set_stop(self.ptr, self._stop, None)

    def close(self):
        if self.ptr:
            sb_ctx_destroy(self.ptr)
            self.ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def tool_beside_library(name):
    """The program name (sbagent, sbctl) installed with this library, or
    None: PREFIX/bin/NAME for PREFIX/lib/libsbench.so.0 (the build tree and
    a CMake install alike), sbench/_bin/NAME for sbench/_lib/libsbench.so.0
    (a wheel, where sbctl too finds the sbagent beside it)."""
    libdir = os.path.dirname(os.path.abspath(lib._name)) if os.path.isabs(lib._name) else None
    if libdir is None:
        return None
    bindir = "_bin" if os.path.basename(libdir) == "_lib" else "bin"
    path = os.path.join(os.path.dirname(libdir), bindir, name)
    return os.fsencode(path) if os.access(path, os.X_OK) else None


# watch.h
class WatchOpts(ctypes.Structure):
    _fields_ = [("bind", ctypes.c_char_p), ("until_done", ctypes.c_bool),
                ("track_status", ctypes.c_bool), ("timeout", ctypes.c_double),
                ("scan_interval", ctypes.c_double), ("stop", ctypes.c_void_p)]


WATCH_IDLE, WATCH_EVENT, WATCH_DONE = 0, 1, 2
sb_watch_open = _fn("sb_watch_open", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                    ctypes.POINTER(WatchOpts), c_void_pp, P_ERR)
sb_watch_next_json = _fn("sb_watch_next_json", ctypes.c_int, ctypes.c_void_p, ctypes.c_double,
                         c_void_pp, P_ERR)
sb_watch_close = _fn("sb_watch_close", None, ctypes.c_void_p)


def take_string(ptr):
    """The bytes of a malloc'd NUL-terminated string the library returned, freed."""
    try:
        return ctypes.string_at(ptr)
    finally:
        _free(ptr)
