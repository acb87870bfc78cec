"""Builds layoutscope._engine with CMake (python/CMakeLists.txt) for the interpreter running pip.

    python3 -m pip install --no-build-isolation --no-deps ./python

Needs CMake >= 3.18, a C++20 compiler, pybind11 (Debian: pybind11-dev or python3-pybind11) and the
interpreter's headers (python3-dev). Nothing is downloaded.
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        out = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build = Path(self.build_temp).resolve() / "cmake"
        root = Path(os.environ.get("LAYOUTSCOPE_ROOT", HERE.parent)).resolve()
        if not (root / "shared" / "CMakeLists.txt").exists():
            sys.exit(f"layoutscope: the engine is not at {root}/shared (set LAYOUTSCOPE_ROOT to the checkout)")
        args = [
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-DLAYOUTSCOPE_PY_OUTPUT={out}",
            f"-DLAYOUTSCOPE_ROOT={root}",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
        try:
            import pybind11  # Debian's python3-pybind11 or a pip pybind11 both carry the CMake config

            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass  # pybind11-dev's config in /usr/lib/cmake is found by CMake itself
        build.mkdir(parents=True, exist_ok=True)
        subprocess.check_call(["cmake", "-S", str(HERE), "-B", str(build), *args])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", str(build), "--target", "_engine", "-j", jobs])


setup(
    name="layoutscope",
    version="0.1.0",
    description="GPU data layouts: the layoutscope engine from Python",
    packages=["layoutscope"],
    package_data={"layoutscope": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("layoutscope._engine")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
