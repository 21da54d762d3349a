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
ERR_NONE, ERR_RUNTIME, ERR_INPUT, ERR_NOT_FOUND, ERR_NOMEM = range(5)


class Error_t(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * SB_ERROR_MAX), ("code", ctypes.c_int)]


# format.h / plan.h / logview.h: text 0, JSON 1
FORMAT_TEXT, FORMAT_JSON = 0, 1

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
sb_logview_verify_buffer = _fn("sb_logview_verify_buffer", ctypes.c_int, ctypes.c_char_p,
                               ctypes.POINTER(LogviewOpts), c_void_pp,
                               ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(LogviewSummary),
                               P_ERR)

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
    """A path argument as the C string the library takes."""
    return os.fsencode(os.fspath(path))


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
    raise _errors.Error(msg)
