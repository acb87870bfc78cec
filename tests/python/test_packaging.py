"""The Python package as a user installs it: the source archive (python3 -m build --sdist) carries what it needs
to build alone (CMake files, the bindings, the engine), a wheel built from it with no checkout around, where
build/ already holds another source tree's CMake cache (CMake refuses to reuse one; the build must not), the
wheel's platform tag checked against the binary it carries, and the metadata pip shows.

One compile of the engine (minutes on two cores; ccache, when installed, makes the next run fast)."""

import email.parser
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

PY = sys.executable
# What a manylinux wheel may need from the system (PEP 600 defers to auditwheel's policy: glibc's libraries).
GLIBC_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "ld-linux-x86-64.so.2",
              "ld-linux-aarch64.so.1"}


def _env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LAYOUTSCOPE_ROOT")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    if shutil.which("ccache"):
        env.update(CMAKE_CXX_COMPILER_LAUNCHER="ccache", CCACHE_BASEDIR=str(tmp.parent))
    return env


@pytest.fixture(scope="module")
def sdist(tmp_path_factory, root) -> Path:
    pytest.importorskip("build", reason="python3-build is not installed (scripts/setup.sh)")
    out = tmp_path_factory.mktemp("sdist")
    # a copy of python/ so the checkout gets no egg-info from the build
    src = out / "python"
    shutil.copytree(root / "python", src, symlinks=False, ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                                           "__pycache__"))
    env = _env(out)
    env["LAYOUTSCOPE_ROOT"] = str(root)  # the copy is not inside the checkout: where the engine is
    run = subprocess.run([PY, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out / "dist"), str(src)],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-4000:]
    (archive,) = (out / "dist").glob("layoutscope-*.tar.gz")
    return archive


def test_the_sdist_holds_the_cmake_files_the_bindings_and_the_engine(sdist, root):
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for f in ("setup.py", "pyproject.toml", "CMakeLists.txt", "LICENSE", "README.md", "src/module.cpp",
              "layoutscope/__init__.py", "layoutscope/py.typed", "shared/CMakeLists.txt"):
        assert f in names, f
    engine = {str(p.relative_to(root)) for p in (root / "shared").rglob("*") if p.is_file()}
    missing = sorted(engine - names)
    assert not missing, f"engine files not in the sdist: {missing[:10]}"


def test_the_sdist_metadata_names_no_home_page(sdist):
    """The project has no public address yet: its metadata carries no home page or project URL rather than a
    made-up one that would send a user to whoever owns that name."""
    with tarfile.open(sdist) as tar:
        (info,) = [m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")]
        msg = email.parser.Parser().parsestr(tar.extractfile(info).read().decode())
    assert msg["Name"] == "layoutscope"
    assert msg["Summary"].startswith("GPU data layouts")
    assert msg["Home-page"] is None, msg["Home-page"]
    assert msg.get_all("Project-URL") is None
    assert "github.com/layoutscope" not in msg.as_string()


@pytest.fixture(scope="module")
def wheel(sdist, tmp_path_factory) -> Path:
    """The wheel pip builds from the unpacked sdist, alone in a temp folder, with another tree's CMake cache in
    the build folder setup.py uses."""
    work = tmp_path_factory.mktemp("from-sdist")
    with tarfile.open(sdist) as tar:
        tar.extractall(work)
    (tree,) = work.glob("layoutscope-*")
    build_temp = tree / "build" / f"temp.{sysconfig.get_platform()}-{sys.implementation.cache_tag}" / "cmake"
    build_temp.mkdir(parents=True)
    (build_temp / "CMakeCache.txt").write_text(
        "# This is the CMakeCache file.\n"
        "CMAKE_HOME_DIRECTORY:INTERNAL=/another/checkout/python\n"
        "CMAKE_CACHEFILE_DIR:INTERNAL=/another/checkout/python/build/temp/cmake\n"
    )
    out = work / "wheels"
    run = subprocess.run([PY, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w",
                          str(out), str(tree)], capture_output=True, text=True, env=_env(work), cwd=work)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    (whl,) = out.glob("layoutscope-*.whl")
    return whl


def test_a_wheel_built_from_the_sdist_alone_imports_and_answers(wheel, tmp_path):
    target = tmp_path / "site"
    run = subprocess.run([PY, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target), str(wheel)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    # the chapter's fragment: cell (5, 3) is lane 21, slot 1
    code = ("import layoutscope; "
            "L = layoutscope.Layout('S[(8,4,2):(4@laneid,1@laneid,1@reg)]', shape=(8, 8)); "
            "print(layoutscope.__file__); print(L[5, 3])")
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, answer = out.stdout.splitlines()
    assert where.startswith(str(target))
    assert answer == "[{'laneid': 21, 'reg': 1}]"
    show = subprocess.run([PY, "-m", "pip", "show", "layoutscope"], capture_output=True, text=True, env=env)
    fields = dict(line.split(": ", 1) for line in show.stdout.splitlines() if ": " in line)
    assert fields["Name"] == "layoutscope"
    assert fields["License"] == "MIT"
    assert fields["Summary"].startswith("GPU data layouts")
    # no public address exists yet: no home page rather than an invented one (pip shows the field empty)
    assert fields.get("Home-page", "") == ""


def test_the_wheel_metadata_and_its_licence(wheel, root):
    with zipfile.ZipFile(wheel) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        msg = email.parser.Parser().parsestr(z.read(meta).decode())
        licences = [n for n in z.namelist() if re.search(r"\.dist-info/(licenses/)?LICENSE$", n)]
        assert licences, z.namelist()
        assert z.read(licences[0]).decode() == (root / "LICENSE").read_text()
    assert msg["License"] == "MIT"
    assert "License :: OSI Approved :: MIT License" in msg.get_all("Classifier")
    assert msg["Home-page"] is None and msg.get_all("Project-URL") is None
    assert "pybind11 extension" in msg.get_payload()  # the README is the long description


def test_the_platform_tag_is_what_the_binary_meets(wheel, tmp_path):
    """manylinux_2_N: the extension needs only glibc's libraries and no glibc symbol version newer than 2.N,
    and no C++ runtime symbols from the system (read here with readelf, independently of setup.py)."""
    tag = wheel.name[:-4].split("-")[-1]
    with zipfile.ZipFile(wheel) as z:
        (so,) = [n for n in z.namelist() if re.search(r"_engine.*\.so$", n)]
        z.extract(so, tmp_path)
    lib = tmp_path / so
    if not shutil.which("readelf"):
        pytest.skip("readelf missing (binutils)")
    dynamic = subprocess.run(["readelf", "-dW", str(lib)], capture_output=True, text=True, check=True).stdout
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(lib)], capture_output=True, text=True,
                             check=True).stdout
    needed = set(re.findall(r"Shared library: \[([^\]]+)\]", dynamic))
    versions = set(re.findall(r"\sUND\s+\S+@([A-Z]+)_([\d.]+)", symbols))
    m = re.fullmatch(r"manylinux_2_(\d+)_(x86_64|aarch64)", tag)
    assert m, f"the wheel is tagged {tag}; a plain linux tag is only right when the binary needs more than glibc"
    assert needed <= GLIBC_LIBS, needed - GLIBC_LIBS
    assert {name for name, _ in versions} <= {"GLIBC"}, versions
    newest = max(int(v.split(".")[1]) for name, v in versions if name == "GLIBC" and v.count(".") >= 1)
    assert newest <= int(m.group(1)), (newest, tag)
    # and the tag is no stricter than needed: it names the newest version the binary uses (at least 2.17)
    assert int(m.group(1)) == max(newest, 17)


def test_a_foreign_cmake_cache_gets_a_fresh_build_folder(tmp_path, root):
    """The unit of the rule the wheel above went through: a build folder configured for another source tree is
    not reused; one configured for this one is."""
    sys.path.insert(0, str(root / "python"))
    try:
        import importlib

        setup_py = (root / "python" / "setup.py").read_text()
        ns = {"__file__": str(root / "python" / "setup.py"), "__name__": "layoutscope_setup"}
        exec(compile(setup_py.split("\nREADME = ")[0], "setup.py", "exec"), ns)
    finally:
        sys.path.pop(0)
        importlib.invalidate_caches()
    base = tmp_path / "cmake"
    assert ns["cmake_build_dir"](base) == base  # nothing there yet
    base.mkdir()
    (base / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={root / 'python'}\n")
    assert ns["cmake_build_dir"](base) == base
    (base / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/another/checkout/python\n")
    fresh = ns["cmake_build_dir"](base)
    assert fresh != base and fresh.parent == base.parent
