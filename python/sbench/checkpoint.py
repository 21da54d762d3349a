"""Checkpoint on request, for training scripts run by sbagent (docs/python.md,
"Checkpoints").

A spec with a ``checkpoint`` section makes Slurm signal the job shortly
before its time limit; sbagent forwards the signal to the command and names
it in ``$SB_CHECKPOINT_SIGNAL`` (``USR1`` unless the spec says otherwise).
Preemption and ``scancel`` arrive as SIGTERM.  A script takes part with::

    import sbench
    sbench.checkpoint_install()             # at the start: no signal is lost
    for epoch in range(start, epochs):
        train_one_epoch()
        if sbench.checkpoint_requested():   # the signal came: save and leave
            save(ckpt)
            sys.exit(0)

This module is pure Python: it works where libsbench cannot be loaded (a
compute node with only the Python package), as
``from sbench.checkpoint import checkpoint_requested``.
"""

import os
import signal
import threading

from sbench._errors import UsageError

__all__ = ["checkpoint_install", "checkpoint_requested"]

ENV = "SB_CHECKPOINT_SIGNAL"
"""The environment variable in which sbagent names the checkpoint signal."""

DEFAULT_SIGNAL = "USR1"

# the signals a spec's checkpoint section may name (as sbagent accepts them)
_NAMES = ("USR1", "USR2", "TERM", "INT", "HUP", "QUIT")

_requested = False   # set by the handlers: a signal asked for a checkpoint
_previous = None     # {signal number: the handler it had before}; None: not installed


def _signal_from_env() -> int:
    """The number of the signal $SB_CHECKPOINT_SIGNAL names (with or without
    "SIG", in any case; unset or empty: USR1)."""
    value = os.environ.get(ENV) or DEFAULT_SIGNAL
    name = value.upper()
    if name.startswith("SIG"):
        name = name[3:]
    if name not in _NAMES:
        raise UsageError("%s=%r is not a checkpoint signal: expected one of %s (with or "
                         "without SIG)" % (ENV, value, ", ".join(_NAMES)))
    return getattr(signal, "SIG" + name)


def _handler(signum, frame):
    """Sets the flag, then calls the handler installed before ours, if it
    was a Python function."""
    global _requested
    _requested = True
    previous = _previous.get(signum) if _previous else None
    if callable(previous) and previous is not signal.default_int_handler:
        previous(signum, frame)


def checkpoint_install() -> None:
    """Installs the handlers that :func:`checkpoint_requested` reads: for
    the signal ``$SB_CHECKPOINT_SIGNAL`` names (default USR1) and for
    SIGTERM (preemption, scancel).  Each handler only sets a flag, then
    calls the Python handler that was installed before it, if any (not
    Python's default SIGINT handler, which would raise KeyboardInterrupt).

    Call it early, so that a signal that comes before the first
    :func:`checkpoint_requested` is not lost.  Installing again does
    nothing.  The first call must come from the main thread (Python lets
    only that one install signal handlers): :class:`sbench.UsageError`
    otherwise, and for a variable that names no checkpoint signal.

    While installed, SIGTERM no longer ends the script by itself: the
    script ends when it sees the request (Slurm sends SIGKILL after
    KillWait)."""
    global _previous
    if _previous is not None:
        return
    if threading.current_thread() is not threading.main_thread():
        raise UsageError("sbench.checkpoint_install (or the first checkpoint_requested) "
                         "must be called from the main thread, not from %r: only the main "
                         "thread can install signal handlers" % threading.current_thread().name)
    signals = {_signal_from_env(), signal.SIGTERM}
    _previous = {}
    for sig in sorted(signals):
        _previous[sig] = signal.getsignal(sig)  # before ours: a signal may come at once
        signal.signal(sig, _handler)


def checkpoint_requested() -> bool:
    """True once the checkpoint signal (``$SB_CHECKPOINT_SIGNAL``, default
    USR1: the time limit is near) or SIGTERM (preemption, scancel) has
    arrived, and from then on: the script should save its checkpoint and
    exit.  Call it in the training loop; the first call installs the
    handlers (:func:`checkpoint_install`), so it must come from the main
    thread."""
    checkpoint_install()
    return _requested


def _reset() -> None:
    """Puts back the handlers found at installation and clears the flag
    (for tests)."""
    global _previous, _requested
    if _previous is not None:
        for sig, before in _previous.items():
            # None: a handler not installed from Python, which cannot be put back
            signal.signal(sig, before if before is not None else signal.SIG_DFL)
    _previous, _requested = None, False
