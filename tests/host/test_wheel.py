"""The product wheel, installed like a user installs it: the C core compiled into it, no benchmarks, the CLI.

The wheel is built once, with pip, from a copy of the tree without build/ (so nothing `make native` left
there can reach it), and installed into a throwaway venv that sees only the wheel and, through a .pth
line, the folder this interpreter takes numpy, scipy, matplotlib, pyserial and tqdm from (no download).
The build runs without isolation when this interpreter's setuptools meets pyproject.toml's requirement
(the [test] extra installs it), else isolated: then pip fetches setuptools from the index.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# Not part of what `pip install .` builds from: outputs, caches and the venvs.
NOT_SOURCE = (
    ".git",
    ".venv",
    "build",
    "dist",
    ".pio",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    "out",
)
LIBRARIES = ("libux.so", "libux_float.so", "libuxm.so")  # libuxm: the reference's exp, log… (uxemu.libm)
RUNTIME = ("numpy", "scipy", "matplotlib", "serial", "tqdm")  # pyproject.toml's dependencies, by module
# Variables that would point the installed package back at the checkout, or pass a parent make's jobs on.
DROPPED = (
    "UX_NATIVE_LIB",
    "UX_NATIVE_LIB_FLOAT",
    "PYTHONPATH",
    "PYTHONHOME",
    "VIRTUAL_ENV",
    "MAKEFLAGS",
    "MFLAGS",
    "MAKELEVEL",
)


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    return env


def run(argv, cwd, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_env(), capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, argv))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def setuptools_suffices() -> bool:
    """This interpreter's setuptools meets [build-system] requires (a `setuptools>=N` line)."""
    need = re.search(r'"setuptools>=(\d+)', (REPO / "pyproject.toml").read_text())
    try:
        have = int(metadata.version("setuptools").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return need is not None and have >= int(need.group(1))


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("wheel")


@pytest.fixture(scope="module")
def source(work) -> Path:
    """The tree as it is now, without build outputs."""
    src = work / "src"
    shutil.copytree(REPO, src, ignore=shutil.ignore_patterns(*NOT_SOURCE), symlinks=True)
    return src


@pytest.fixture(scope="module")
def wheel(work, source) -> Path:
    isolation = ["--no-build-isolation"] if setuptools_suffices() else []
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", work / "dist", source], work)
    (built,) = (work / "dist").glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(work, wheel) -> Path:
    """A throwaway venv with the wheel installed; returns its bin/ folder."""
    env = work / "venv"
    run([sys.executable, "-m", "venv", env], work)
    python = env / "bin" / "python"
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"], work).stdout.strip())
    deps = sorted({str(Path(__import__(m).__file__).resolve().parents[1]) for m in RUNTIME})
    (site / "_test_runtime_deps.pth").write_text("\n".join(deps) + "\n")
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", wheel], work)
    return env / "bin"


def in_venv(venv, code: str, cwd) -> str:
    return run([venv / "python", "-c", code], cwd).stdout


def test_the_wheel_carries_the_core_and_not_the_benchmarks(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for lib in LIBRARIES:
        assert f"uxemu/_native/{lib}" in names
    assert "uxhost/library.json" in names
    assert {n.split("/")[0] for n in names} == {"uxemu", "uxhost", wheel.name.split("-py3")[0] + ".dist-info"}
    assert not [n for n in names if "uxbench" in n or n.startswith("benchmarks/")]
    # ctypes loads the core: tied to the platform, to no Python ABI
    assert re.search(r"-py3-none-linux_[a-z0-9_]+\.whl$", wheel.name), wheel.name


def test_the_extras_name_the_hardware_and_test_tools(wheel):
    meta = (
        zipfile.ZipFile(wheel)
        .read(next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA")))
        .decode()
    )
    extras = set(re.findall(r"^Provides-Extra: (\S+)$", meta, re.MULTILINE))
    assert {"hw", "test"} <= extras
    hw = {
        m.group(1).lower()
        for m in re.finditer(r"^Requires-Dist: ([A-Za-z0-9_.-]+).*extra == \"hw\"", meta, re.MULTILINE)
    }
    assert {"pyocd", "platformio"} <= hw


def test_the_packaged_core_is_the_makefiles_build(work, source, wheel):
    """Byte for byte what `make native` builds from the same sources (its flags: -ffp-contract=off …)."""
    ref = work / "make-native"
    run(["make", "-C", source / "firmware", "host", f"BUILD={ref}"], work)
    packed = zipfile.ZipFile(wheel)
    for lib in LIBRARIES:
        assert packed.read(f"uxemu/_native/{lib}") == (ref / lib).read_bytes(), lib


def test_the_installed_package_loads_its_own_core(work, venv):
    out = in_venv(
        venv,
        """
import importlib.util, json, sys
from uxemu import _library, libm, native
print(json.dumps({"path": str(native.library_path()), "float": str(native.library_path(True)),
                  "uxm": str(_library.uxm_library_path()), "exp0": libm.exp(0.0),
                  "available": [native.available(), native.available(True)],
                  "loaded": [str(native.load().path), str(native.load(True).path)],
                  "uxbench": importlib.util.find_spec("uxbench") is not None, "prefix": sys.prefix}))
""",
        work,
    )
    got = json.loads(out)
    site = Path(got["prefix"])
    assert got["available"] == [True, True]
    assert got["loaded"] == [got["path"], got["float"]]  # load() checked each one's struct layout, too
    for path, lib in zip((got["path"], got["float"]), LIBRARIES):
        assert Path(path).name == lib and site in Path(path).parents and Path(path).parent.name == "_native"
    assert got["uxbench"] is False
    assert Path(got["uxm"]).parent == Path(got["path"]).parent and got["exp0"] == 1.0


def test_uxhost_version_installed(work, venv):
    lines = run([venv / "uxhost", "--version"], work).stdout.splitlines()
    package = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    core = json.loads((REPO / "library.json").read_text())["version"]
    assert lines[:2] == [f"uxhost {package}", f"C core {core}"]
    assert re.fullmatch(r"protocol \d+", lines[2])


def test_simulate_then_fit_an_sv_trace_on_the_native_core(work, venv):
    """The installed `uxhost fit` runs the packaged core, and its log-likelihood at the estimate is the
    reference's (the Python twin in this checkout) to 1e-9."""
    from uxemu import fit
    from uxemu.traces import Trace

    trace, out = work / "sv.csv", work / "fit.json"
    run([venv / "uxhost", "simulate", "--system", "sv", "--steps", 300, "--seed", 7, "-o", trace], work)
    run([venv / "uxhost", "fit", trace, "--free", "phi,sigma_eta", "--engine", "native", "--json", out], work)
    result = json.loads(out.read_text())
    assert result["engine"] == "native" and result["steps"] == 300
    assert result["converged"], result
    print(
        f"\ninstalled uxhost fit, sv, 300 steps, 2 free: {result['evaluations']} filter runs, "
        f"{result['cpu_seconds']:.2f} s CPU"
    )
    reference = fit.LogLikelihood(
        "sv",
        Trace.from_csv(trace),
        eta=result["eta"],
        mode=result["mode"],
        likelihood=result["likelihood"],
        engine="reference",
    )
    assert reference.engine == "reference"
    expected = reference([result["params"][name] for name in reference.spec.param_names])
    assert result["log_likelihood"] == pytest.approx(expected, rel=1e-9, abs=0)
