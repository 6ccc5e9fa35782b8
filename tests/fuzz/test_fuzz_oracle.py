"""The fuzz harnesses' oracles and where a campaign puts what it finds (issue: core_fuzz.c aborted on any
update status it did not know, so once REFOCUSED was added it stopped on a correct answer, and `make fuzz`
saved that false finding under tests/fuzz/findings/, where `make test` replays it).

The statuses an oracle accepts come from docs/protocol.toml through scripts/codegen (fuzz/oracle.h); the
core's seeds reach every one of them; a status the table lacks is a finding; and a campaign writes its
findings to build/fuzz/findings/, never to the replayed set."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fuzz"))

import run as fuzz_run  # noqa: E402
import seeds  # noqa: E402

SPEC = tomllib.loads((ROOT / "docs" / "protocol.toml").read_text(encoding="utf-8"))
STATUSES = {v["value"]: v["name"] for v in SPEC["values"]["status"]["values"]}
ENV = {**os.environ, "ASAN_OPTIONS": "detect_leaks=0"}
CC = os.environ.get("CC", "cc")


def compile_core(tmp_path: Path, name: str, *defines: str, shim: str | None = None) -> Path:
    """The core harness with the replay driver; with `shim`, core_fuzz.c calls fuzz_shim_update (C text
    given) in place of ux_filter_update."""
    exe, flags = tmp_path / name, [*fuzz_run.FLAGS, "-fsanitize=address,undefined", *fuzz_run.INCLUDES]
    harness = str(ROOT / "fuzz" / "core_fuzz.c")
    sources = [s for s in fuzz_run.SOURCES["core"] if s != harness] + [str(ROOT / "fuzz" / "driver.c")]
    if shim is not None:
        obj, shim_c = tmp_path / f"{name}_harness.o", tmp_path / f"{name}_shim.c"
        subprocess.run(
            [CC, *flags, *defines, "-Dux_filter_update=fuzz_shim_update", "-c", "-o", str(obj), harness],
            check=True,
            capture_output=True,
        )
        shim_c.write_text('#include "ux/ux.h"\n' + shim)
        sources += [str(obj), str(shim_c)]
    else:
        sources.append(harness)
    subprocess.run([CC, *flags, *defines, "-o", str(exe), *sources, "-lm"], check=True, capture_output=True)
    return exe


def test_the_oracle_is_the_protocol_tables(tmp_path):
    probe = tmp_path / "probe.c"
    probe.write_text(
        '#include <stdio.h>\n#include "oracle.h"\nint main(void)\n{\n    long v;\n'
        '    for (v = -300; v <= 300; ++v)\n'
        '        printf("%ld %d %d %d\\n", v, oracle_status(v), oracle_device_type(v), oracle_error_code(v));\n'
        '    return 0;\n}\n'
    )
    exe = tmp_path / "probe"
    subprocess.run(
        [CC, "-std=c11", f"-I{ROOT / 'fuzz'}", *fuzz_run.INCLUDES, "-o", str(exe), str(probe)],
        check=True,
        capture_output=True,
    )
    rows = [
        tuple(map(int, line.split()))
        for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    ]
    assert {v for v, s, _, _ in rows if s} == set(STATUSES)
    assert {v for v, _, t, _ in rows if t} == {m["type"] for m in SPEC["message"] if m["from"] == "device"}
    assert {v for v, _, _, e in rows if e} == {e["code"] for e in SPEC["error"]}


def test_the_core_seeds_reach_every_status_of_the_table_and_replay_clean(tmp_path):
    exe = compile_core(tmp_path, "core_trace", "-DFUZZ_TRACE")
    inputs = seeds.write("core", tmp_path / "seeds")
    proc = subprocess.run([str(exe), *map(str, inputs)], capture_output=True, text=True, timeout=600, env=ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = {
        int(line.rsplit(" ", 1)[1]) for line in proc.stderr.splitlines() if line.startswith("core_fuzz: update status ")
    }
    assert {STATUSES.get(s, s) for s in seen if s >= 0} == set(STATUSES.values())


@pytest.mark.parametrize("answer", ["in the table", "not in the table"])
def test_an_update_status_is_judged_by_the_table(tmp_path, answer):
    # A core whose update answers every OK with another status: one of the table's (the last added, as
    # REFOCUSED once was) replays clean; one past the table is a finding that says so.
    status = max(STATUSES) if answer == "in the table" else max(STATUSES) + 1
    shim = (
        "ux_status fuzz_shim_update(ux_filter *f, const double *z, const double *omega, unsigned J, unsigned m)\n"
        f"{{\n    ux_status st = ux_filter_update(f, z, omega, J, m);\n    return st == UX_OK ? {status} : st;\n}}\n"
    )
    exe = compile_core(tmp_path, "core_shim", shim=shim)
    inputs = seeds.write("core", tmp_path / "seeds")
    proc = subprocess.run([str(exe), *map(str, inputs)], capture_output=True, text=True, timeout=600, env=ENV)
    if answer == "in the table":
        assert proc.returncode == 0, proc.stderr[-3000:]
    else:
        assert proc.returncode != 0
        assert f"update status {status} is neither in docs/protocol.toml's status table nor a refusal" in proc.stderr


def test_a_campaign_writes_findings_to_scratch_not_the_replayed_set(tmp_path, monkeypatch):
    # A stand-in for a libFuzzer binary that finds something at once: the finding must land in the scratch
    # folder (with the log), and the replayed set must stay as it was.
    build, replayed = tmp_path / "build" / "fuzz", tmp_path / "tests" / "fuzz" / "findings"
    monkeypatch.setattr(fuzz_run, "BUILD", build)
    monkeypatch.setattr(fuzz_run, "SCRATCH", build / "findings", raising=False)
    monkeypatch.setattr(fuzz_run, "FINDINGS", replayed)
    fake = tmp_path / "fake_fuzzer"
    fake.write_text(
        "#!/bin/sh\nfor a in \"$@\"; do case $a in -artifact_prefix=*) p=${a#-artifact_prefix=};; esac; "
        "done\nprintf x > \"${p}crash-0001\"\necho 'stat::number_of_executed_units: 7' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    result = fuzz_run.run("core", fake, runs=10, max_len=64, max_seconds=10)
    assert result["findings"] == ["crash-0001"] and result["executions"] == 7
    assert (build / "findings" / "core" / "crash-0001").read_bytes() == b"x"
    assert "stat::number_of_executed_units: 7" in (build / "findings" / "core" / "log.txt").read_text()
    assert not replayed.exists()
    assert (
        "build/fuzz/findings"
        in subprocess.run(
            [sys.executable, str(ROOT / "fuzz" / "run.py"), "--help"], capture_output=True, text=True
        ).stdout
    )
