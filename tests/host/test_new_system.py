"""Adding a system is one C file and one table entry, for real.

A throwaway system — a room thermometer with Laplace noises, tests/host/data/thermo.c, which has no
Python twin — is added to a copy of the tree (the C file and one systems.toml entry, nothing else),
generated, built for QEMU and for the host, streamed to QEMU by the unchanged host tools (which learn
the system from the device) and validated against the host build of the same C code.
"""

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from uxemu import joint_systems, systems
from uxhost import qemu
from uxhost.cli import main
from uxhost.dump import load_dump

pytestmark = pytest.mark.qemu

BOARD = qemu.DEFAULT_BOARD
ENTRY = """
[thermo]
id = 200
title = "room thermometer (throwaway test system)"
params = [["a", 0.9, "real"], ["t_env", 20.0, "real"], ["b", 0.3, "positive"], ["s", 0.5, "positive"]]
prior = ["gaussian", 18.0, 3.0]
"""


def run(args, cwd):
    res = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"{' '.join(map(str, args))}:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    return res.stdout


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    if shutil.which(qemu.QEMU) is None or shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc (make deps)")
    root = tmp_path_factory.mktemp("tree")
    for part in ("firmware", "boards", "scripts", "docs", "tests/golden"):  # what the build and codegen read
        shutil.copytree(qemu.REPO_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(qemu.REPO_ROOT / "tests" / "host" / "data" / "thermo.c", root / "firmware/src/models/thermo.c")
    with open(root / "firmware/src/models/systems.toml", "a") as table:
        table.write(ENTRY)
    run([sys.executable, "-m", "codegen"], root / "scripts")
    build = root / "build"
    run(["make", "-s", "-C", root / "firmware", "arm", f"BOARD={BOARD}", f"BUILD={build / BOARD}"], root)
    run(["make", "-s", "-C", root / "firmware", f"BUILD={build / 'native'}", build / "native" / "libux.so"], root)
    return root


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A thermometer's log written by hand (the reference cannot simulate a system it does not have)."""
    rng = np.random.default_rng(7)
    x, rows = 19.0, []
    for k in range(20):
        if k:
            x = 0.9 * x + 0.1 * 20.0 + rng.laplace(0.0, 0.3)
        rows.append(f"{k},0.0,{x + rng.laplace(0.0, 0.5)!r},{x!r}")
    path = tmp_path_factory.mktemp("thermo") / "thermo.csv"
    path.write_text("k,u,z,x\n" + "\n".join(rows) + "\n")
    return path


def test_a_new_system_streams_and_validates_against_its_own_c(tree, trace, tmp_path, capsys):
    elf = tree / "build" / BOARD / "firmware.elf"
    dump = tmp_path / "thermo.jsonl"
    code = main(
        [
            "stream",
            str(trace),
            "--board",
            BOARD,
            "--elf",
            str(elf),
            "--system",
            "thermo",
            "--params",
            "b=0.3",
            "--eta",
            "16",
            "-o",
            str(dump),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "model: thermo (a=0.9, t_env=20, b=0.3, s=0.5), η=16" in out  # the device's own defaults
    header = load_dump(dump).header
    assert (header.config.system, header.config.system_id) == ("thermo", 200)

    code = main(["validate", str(dump), "--native-lib", str(tree / "build" / "native" / "libux.so")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "within tolerance 1e-09 on every step: OK" in out and "RMSE" in out


def test_the_host_build_of_another_tree_is_refused_for_it(tree, trace, tmp_path, capsys):
    """Validating against a library that lacks the system says which library and what to pass."""
    dump = tmp_path / "thermo.jsonl"
    assert (
        main(
            [
                "stream",
                str(trace),
                "--board",
                BOARD,
                "--elf",
                str(tree / "build" / BOARD / "firmware.elf"),
                "--system",
                "thermo",
                "--eta",
                "4",
                "-o",
                str(dump),
            ]
        )
        == 0
    )
    capsys.readouterr()
    main_lib = qemu.REPO_ROOT / "build" / "native" / "libux.so"
    if not main_lib.is_file():
        pytest.skip("no host build of this tree (make native)")
    assert main(["validate", str(dump), "--native-lib", str(main_lib)]) == 2
    assert "has no system thermo with id 200: pass --native-lib" in capsys.readouterr().err


def test_firmware_without_the_system_lists_what_it_has(trace, tmp_path, capsys):
    elf = qemu.image_path(BOARD)
    if not elf.is_file():
        pytest.skip("no firmware image (make firmware)")
    code = main(["stream", str(trace), "--board", BOARD, "--system", "thermo", "-o", str(tmp_path / "d.jsonl")])
    assert code == 2
    err = capsys.readouterr().err
    assert (
        "no system 'thermo' in the firmware" in err
        and f"on {BOARD} (it has: {', '.join([*systems.names(), *joint_systems.names()])})" in err
    )


def test_a_system_only_the_device_has_is_fitted_on_it(tree, trace, tmp_path, capsys):
    """`uxhost fit --board` learns the system from the device and climbs the device's log-likelihood: the
    same fit as the host build of the same C code gives (double precision: bit for bit)."""
    from uxemu import fit, native
    from uxemu.traces import Trace

    out = tmp_path / "fit.json"
    code = main(
        [
            "fit",
            str(trace),
            "--board",
            BOARD,
            "--elf",
            str(tree / "build" / BOARD / "firmware.elf"),
            "--system",
            "thermo",
            "--free",
            "s",
            "--eta",
            "4",
            "--json",
            str(out),
        ]
    )
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "fit s of thermo" in stdout and f"{BOARD} device engine" in stdout
    on_device = json.loads(out.read_text())

    lib = native.Native(tree / "build" / "native" / "libux.so")
    spec = systems.SystemSpec(
        200,
        "thermo",
        "room thermometer",
        (
            systems.Param("a", 0.9, "real"),
            systems.Param("t_env", 20.0, "real"),
            systems.Param("b", 0.3, "positive"),
            systems.Param("s", 0.5, "positive"),
        ),
        ("gaussian", 18.0, 3.0),
    )
    rows = Trace.from_csv(trace)

    class HostBuild(fit.Evaluated):  # the same C code's log-likelihood, on the host
        engine, evidence = "native (the tree's)", "update"

        def __init__(self):
            self.spec, self.trace = spec, rows

        def _value(self, params):
            return lib.run_filter(
                200,
                rows.k,
                rows.u,
                rows.z,
                4,
                "mixture",
                "kernel",
                params=params,
                prior=("gaussian", 18.0, 3.0),
                atoms=False,
            ).log_likelihood

    on_host = fit.maximise(HostBuild(), ["s"])
    assert on_device["estimate"] == on_host.estimate and on_device["stderr"] == on_host.stderr
    assert on_device["log_likelihood"] == on_host.log_likelihood
