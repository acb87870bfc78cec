"""Builds layoutscope._engine with CMake (python/CMakeLists.txt) for the interpreter running pip.

    python3 -m pip install --no-build-isolation --no-deps ./python      # from the checkout
    python3 -m build --sdist --no-isolation python                      # a source archive that builds alone

Needs CMake >= 3.18, a C++20 compiler, pybind11 (Debian: pybind11-dev or python3-pybind11) and the
interpreter's headers (python3-dev). Nothing is downloaded.

The engine's sources are the checkout's shared/ (next to python/); an sdist carries a copy of them in its own
shared/, so that it builds where there is no checkout. The wheel's platform tag is manylinux_2_N when the
built extension meets that policy (checked on the binary: it needs no shared library but the C library's, and
no glibc symbol newer than 2.N; the C++ runtime is linked in), else the plain linux tag.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: pip install still works, only the tag check is not there
    bdist_wheel = None

HERE = Path(__file__).resolve().parent
# the engine's sources: an sdist's own copy, else the checkout around python/
ENGINE_ROOT = HERE if (HERE / "shared" / "CMakeLists.txt").exists() else HERE.parent


def engine_root() -> Path:
    root = Path(os.environ.get("LAYOUTSCOPE_ROOT", ENGINE_ROOT)).resolve()
    if not (root / "shared" / "CMakeLists.txt").exists():
        sys.exit(f"layoutscope: the engine is not at {root}/shared (set LAYOUTSCOPE_ROOT to the checkout)")
    return root


def cached_source(build: Path) -> str:
    """The source folder a CMake build folder was configured for ('' when it holds no cache)."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return ""
    m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(errors="replace"), re.M)
    return m.group(1).strip() if m else ""


def cmake_build_dir(base: Path) -> Path:
    """base, unless it holds the CMake cache of another source folder (a copied tree, another checkout's
    build/): CMake refuses to reuse that, so this source gets a folder of its own next to it."""
    source = cached_source(base)
    if not source or Path(source).resolve() == HERE:
        return base
    fresh = base.with_name(f"{base.name}-{hashlib.sha1(str(HERE).encode()).hexdigest()[:10]}")
    print(f"layoutscope: {base} was configured for {source}; building in {fresh}", file=sys.stderr)
    return fresh


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        out = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build = cmake_build_dir(Path(self.build_temp).resolve() / "cmake")
        root = engine_root()
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


class SdistWithEngine(sdist):
    """The source archive with the engine: the checkout's shared/ (its CMakeLists.txt, include/ and src/), the
    agent's results CSV printer and the repository's LICENSE are copied in, so that the archive builds a wheel on its own."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        base = Path(base_dir)
        root = engine_root()
        if not (base / "shared" / "CMakeLists.txt").exists():
            shared = root / "shared"
            for part in ("CMakeLists.txt", "include", "src"):
                src = shared / part
                if src.is_dir():
                    shutil.copytree(src, base / "shared" / part, ignore=shutil.ignore_patterns("*.o", "__pycache__"))
                else:
                    (base / "shared").mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, base / "shared" / part)
        # the agent's results CSV printer, which the module compiles in (python/CMakeLists.txt)
        for name in ("results_csv.hpp", "results_csv.cpp"):
            dst = base / "agent" / "bench" / "printers" / name
            if not dst.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(root / "agent" / "bench" / "printers" / name, dst)
        if not (base / "LICENSE").exists():
            shutil.copy2(root / "LICENSE", base / "LICENSE")


# Shared libraries a manylinux wheel may need from the system (PEP 600 / auditwheel's policy: glibc's own).
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2"}


def manylinux_tag(extension: Path) -> tuple:
    """('manylinux_2_N_ARCH', '') when the extension meets manylinux_2_N, else ('', why not)."""
    arch = sysconfig.get_platform().split("-", 1)[-1].replace("-", "_").replace(".", "_")
    if not sys.platform.startswith("linux") or arch not in ("x86_64", "aarch64"):
        return "", f"not a Linux x86_64/aarch64 build ({sysconfig.get_platform()})"
    try:
        dynamic = subprocess.run(["readelf", "-dW", str(extension)], capture_output=True, text=True, check=True).stdout
        symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(extension)], capture_output=True, text=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return "", f"readelf could not read {extension.name} ({e})"
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    extra = sorted(needed - MANYLINUX_LIBS)
    if extra:
        return "", f"{extension.name} needs {', '.join(extra)}, which a manylinux wheel may not"
    # the symbols it takes from the system (UND), by version: GLIBC_2.N, and nothing of GLIBCXX/CXXABI/GCC
    versions = set(re.findall(r"\sUND\s+\S+@(\w+?)_([\d.]+)", symbols))
    foreign = sorted({name for name, _ in versions if name != "GLIBC"})
    if foreign:
        return "", f"{extension.name} takes symbols of {', '.join(foreign)} from the system"
    glibc = max((tuple(int(p) for p in v.split(".")) for name, v in versions if name == "GLIBC"), default=(2, 17))
    minor = max(glibc[1] if len(glibc) > 1 else 0, 17)
    return f"manylinux_2_{minor}_{arch}", ""


if bdist_wheel is not None:

    class ManylinuxWheel(bdist_wheel):
        def get_tag(self):
            python, abi, platform = super().get_tag()
            if platform.startswith("linux_"):
                built = sorted(Path(self.bdist_dir).rglob("_engine*.so"))
                if built:
                    tag, why = manylinux_tag(built[0])
                    if tag:
                        platform = tag
                    else:
                        print(f"layoutscope: the wheel keeps the {platform} tag: {why}", file=sys.stderr)
            return python, abi, platform


README = (HERE / "README.md").read_text(encoding="utf-8")

setup(
    name="layoutscope",
    version="0.1.0",
    description="GPU data layouts: the layoutscope engine from Python",
    long_description=README,
    long_description_content_type="text/markdown",
    author="The layoutscope authors",
    # no url: the project has no public address yet, and a made-up one would send users to a stranger's page
    license="MIT",
    license_files=["LICENSE"],
    classifiers=[
        "License :: OSI Approved :: MIT License",
        "Programming Language :: Python :: 3",
        "Programming Language :: C++",
        "Operating System :: POSIX :: Linux",
        "Topic :: Scientific/Engineering",
    ],
    packages=["layoutscope"],
    package_data={"layoutscope": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("layoutscope._engine")],
    cmdclass={
        "build_ext": CMakeBuild,
        "sdist": SdistWithEngine,
        **({"bdist_wheel": ManylinuxWheel} if bdist_wheel is not None else {}),
    },
    python_requires=">=3.9",
    zip_safe=False,
)
