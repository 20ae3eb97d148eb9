"""Builds the meshquery Python package with the C library inside it.

`pip install ./tools/python` (from the top of a meshquery checkout) runs CMake
on the checkout (the folder two levels up, or MESHQUERY_SOURCE_DIR), builds
only the shared library (no tests, tools or docs) and copies it into the
package as meshquery/libmeshquery.so, where meshquery/_capi.py looks first.
`pip uninstall meshquery` removes it with the package. Needs cmake, a C
compiler and the library's build dependencies (libcglm-dev, pkg-config);
nothing is downloaded. MESHQUERY_CMAKE_ARGS adds CMake arguments (e.g.
"-DMQ_FORCE_SCALAR=ON" for a portable build).
"""
import os
import shlex
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    path = os.path.join(_source_dir(), "CMakeLists.txt")
    try:
        with open(path) as f:
            for line in f:
                if line.strip().startswith("project(") and "VERSION" in line:
                    return line.split("VERSION")[1].split()[0].strip(")")
    except OSError:
        pass
    return "0.0.0"


def _source_dir():
    return os.environ.get("MESHQUERY_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))


class BuildWithLibrary(build_py):
    """build_py, plus CMake's shared library copied into the package."""

    def run(self):
        super().run()
        src = _source_dir()
        if not os.path.exists(os.path.join(src, "include", "meshquery", "meshquery.h")):
            raise SystemExit("meshquery: no C sources at %s (set MESHQUERY_SOURCE_DIR to a meshquery checkout)" % src)
        build = os.path.abspath(os.path.join(self.build_lib, "..", "meshquery-cmake"))
        args = ["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DMQ_BUILD_TESTS=OFF",
                "-DMQ_BUILD_TOOLS=OFF", "-DMQ_INSTALL=OFF", "-DMQ_BUILD_DOCS=OFF"]
        args += shlex.split(os.environ.get("MESHQUERY_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", build, "--target", "meshquery_shared", "-j", jobs])
        lib = os.path.join(build, "libmeshquery.so")
        if not os.path.exists(lib):
            raise SystemExit("meshquery: CMake built no %s" % lib)
        dest = os.path.join(self.build_lib, "meshquery", "libmeshquery.so")
        shutil.copyfile(os.path.realpath(lib), dest)  # the real file, not the soname symlink


class BinaryDistribution(Distribution):
    """The package carries a compiled library: wheels are platform wheels."""

    def has_ext_modules(self):
        return True


setup(
    name="meshquery",
    version=_version(),
    description="Exact, fast geometric queries on triangle meshes (ctypes binding of libmeshquery)",
    long_description=__doc__,
    license="MIT",
    packages=["meshquery"],
    python_requires=">=3.8",
    extras_require={"numpy": ["numpy"], "dask": ["dask[array]", "distributed"]},
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
    zip_safe=False,
)
