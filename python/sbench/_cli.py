"""The console scripts sbctl and sbagent of a pip install: each replaces
this Python process with the program the wheel holds in sbench/_bin/, with
the same arguments, environment and process id.

The program runs from sbench/_bin/ (its /proc/self/exe), so sbctl finds the
sbagent beside it, and sbagent its helper sbagent-watch, as in an install.
"""
import os
import signal
import sys


def _exec(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", name)
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else name  # the script as invoked
    # Python ignores SIGPIPE and SIGXFSZ; an exec keeps an ignored signal
    # ignored, and the programs expect the defaults (sbctl log | head)
    for sig in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, sig):
            signal.signal(getattr(signal, sig), signal.SIG_DFL)
    try:
        os.execv(path, [argv0] + sys.argv[1:])
    except OSError as e:
        sys.stderr.write("%s: cannot run %s: %s\n" % (name, path, e.strerror))
        sys.exit(126 if os.path.exists(path) else 127)


def sbctl():
    _exec("sbctl")


def sbagent():
    _exec("sbagent")
