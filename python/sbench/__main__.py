"""python -m sbench: the version, and where the library and the tools this
package uses are (exit 1 when the library cannot be loaded, saying where it
was looked for)."""
import importlib
import os
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    try:  # the module itself: sbench's attribute _lib stands in for it when it failed
        _lib = importlib.import_module("sbench._lib")
    except (ImportError, OSError) as e:
        print("sbench: package %s" % here)
        msg = str(e)
        print(msg if msg.startswith("sbench:") else "sbench: cannot load libsbench: " + msg,
              file=sys.stderr)
        return 1
    import sbench
    rows = [("sbench", sbench.__version__), ("package", here),
            ("library", os.path.abspath(_lib.lib._name))]
    for name in ("sbctl", "sbagent"):
        path = _lib.tool_beside_library(name)
        rows.append((name, os.fsdecode(path) if path else "(not found beside the library)"))
    rows.append(("python", "%s (%s)" % (sys.executable, sys.version.split()[0])))
    for k, v in rows:
        print("%-8s %s" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
