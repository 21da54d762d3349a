"""The wheel of sbench (pip install --no-build-isolation .): the Python
package python/sbench, and the C library and tools CMake builds, inside it:

    sbench/_lib/libsbench.so.0          the library the package loads (ctypes)
    sbench/_bin/sbctl, sbagent          the tools (console scripts sbctl and
    sbench/_bin/sbagent-watch           sbagent run them; live watch's helper,
                                        which sbagent finds beside itself)

sbctl finds sbagent beside itself, and the package finds it as _bin/ beside
_lib/ (sbench/_lib.py), so batch scripts name the sbagent of this install.

The version is CMake's (project(sbench VERSION ...) in CMakeLists.txt).
Environment:
    SBENCH_CMAKE_BUILD_DIR  build in this directory and keep it (a second
                            build reuses it); else a temporary one, removed
    SBENCH_CMAKE_ARGS       more arguments for CMake's configure step
                            (e.g. -DSB_WERROR=ON)
    CMAKE_BUILD_PARALLEL_LEVEL  parallel jobs (default: the CPU count)
"""
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def cmake_version():
    """The version in CMakeLists.txt's project() call, the single source."""
    with open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"^\s*project\(\s*sbench\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)\b", f.read(), re.M)
    if not m:
        raise RuntimeError("setup.py: no 'project(sbench VERSION X.Y.Z' in CMakeLists.txt")
    return m.group(1)


# what goes into the package: (file in the CMake build tree, directory in sbench/)
PACKAGED = [("bin/sbctl", "_bin"), ("bin/sbagent", "_bin"), ("bin/sbagent-watch", "_bin"),
            ("lib/libsbench.so.0", "_lib")]


class BuildWithCMake(build_py):
    """build_py, then the C library and tools, built by CMake (Release, no
    tests) and copied into the package."""

    def run(self):
        super().run()
        kept = os.environ.get("SBENCH_CMAKE_BUILD_DIR")
        build = os.path.abspath(kept) if kept else tempfile.mkdtemp(prefix="sbench-cmake-")
        try:
            self.cmake(build)
            dest = os.path.join(self.build_lib, "sbench")
            for src, sub in PACKAGED:
                path = os.path.join(build, src)
                if not os.path.isfile(path):
                    raise RuntimeError("setup.py: CMake built no %s" % path)
                os.makedirs(os.path.join(dest, sub), exist_ok=True)
                # a copy of the file itself: a wheel holds no symbolic links,
                # and the library is loaded by its SONAME, libsbench.so.0
                out = os.path.join(dest, sub, os.path.basename(src))
                shutil.copyfile(os.path.realpath(path), out)
                shutil.copymode(os.path.realpath(path), out)
        finally:
            if not kept:
                shutil.rmtree(build, ignore_errors=True)

    def cmake(self, build):
        configure = ["cmake", "-S", HERE, "-B", build, "-DSB_BUILD_TESTS=OFF",
                     "-DCMAKE_BUILD_TYPE=Release"]
        configure += shlex.split(os.environ.get("SBENCH_CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        for cmd in (configure, ["cmake", "--build", build, "-j", jobs]):
            self.announce("running " + " ".join(shlex.quote(c) for c in cmd), level=2)
            subprocess.run(cmd, check=True)


class BinaryDistribution(Distribution):
    """Not pure Python: the wheel is for this platform (it holds ELF files)."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithCMake}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        """Tagged py3-none-PLATFORM: the C code does not use Python's ABI
        (ctypes), so any Python 3 of the platform can load it."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none") + tuple(super().get_tag()[2:])

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:  # no wheel package: only a plain build/install
    pass

setup(
    name="sbench",
    version=cmake_version(),
    description="Trustworthy benchmark and experiment runs on Slurm clusters",
    python_requires=">=3.9",
    package_dir={"": "python"},
    packages=["sbench"],
    entry_points={"console_scripts": ["sbctl = sbench._cli:sbctl",
                                      "sbagent = sbench._cli:sbagent"]},
    cmdclass=cmdclass,
    distclass=BinaryDistribution,
    zip_safe=False,
    # setuptools' own build directory: not build/, which is CMake's
    options={"build": {"build_base": "build-pip"}},
)
