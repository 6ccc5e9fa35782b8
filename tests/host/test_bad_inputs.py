"""Bad inputs a user can hand `uxhost`: each is refused in one line with exit 2 — never a traceback, never an
exit 0 that read it as something else — and no output a user did not let go is replaced or created.

The first tests are the cases found by hand (issue 38); `test_generated_bad_inputs` then drives `stream`,
`fit`, `validate`, `plot` and `simulate` in-process with over a thousand inputs generated from fixed seeds:
mutated trace CSVs, damaged JSONL and NPZ dumps, and bad option values."""

import io
import json
import random
import re
import traceback
import zipfile
from pathlib import Path

import numpy as np
import pytest

import uxemu
from uxhost.cli import main
from uxhost.config import ModelConfig
from uxhost.dump import JOURNAL_SUFFIX, Dump, load_dump, save_dump
from uxhost.validate import reference_dump

from peers import ReferenceDevice

ERROR_LINE = re.compile(r"^uxhost [a-z]+: error: \S.*$")


def uxhost(capsys, *argv):
    """(exit code, stdout, stderr) of `uxhost ARGV…` in-process; argparse's usage errors included (SystemExit)."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> bool:
    """stderr says one error, in one line (argparse puts its usage line before it)."""
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if ERROR_LINE.match(line)]
    return len(errors) == 1 and lines[-1] == errors[0] and all(l.startswith(("usage:", " ")) for l in lines[:-1])


def assert_refused(code, err, *words):
    assert code == 2 and one_error_line(err) and "Traceback" not in err, (code, err)
    for word in words:
        assert word in err, (word, err)


@pytest.fixture(scope="module")
def lg_trace():
    return uxemu.simulate_many(uxemu.systems.get("lg"), 1, 8, 3)[0]


@pytest.fixture
def trace_csv(tmp_path, lg_trace):
    path = tmp_path / "trace.csv"
    lg_trace.to_csv(path)
    return path


def good_dump(trace) -> Dump:
    return reference_dump(
        ModelConfig(
            "lg", (0.95, 0.5, 1.0), 4, "refined", "kernel", "gaussian", 0.0, 2.0, system_id=uxemu.systems.spec("lg").id
        ),
        trace,
    )


# --------------------------------------------------------------------------------------------------
# No silent overwrite, no folder made


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
def test_stream_refuses_an_existing_output_unless_forced(suffix, device, trace_csv, tmp_path, capsys):
    # Before, -o replaced whatever was there (a .jsonl or .npz of any content, a dump or not).
    out = tmp_path / f"old{suffix}"
    out.write_bytes(b"not a dump, and not uxhost's to replace")
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", "loop://", "--eta", 4, "-o", out)
    assert_refused(code, err)
    assert err == f"uxhost stream: error: {out} exists; pass --force to replace it\n"
    assert out.read_bytes() == b"not a dump, and not uxhost's to replace"
    dev = device()
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", dev.url, "--eta", 4, "-o", out, "--force")
    assert code == 0, err
    assert len(load_dump(out)) == 8


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
def test_a_cut_short_dump_is_kept_and_the_refusal_names_resume(suffix, device, trace_csv, tmp_path, capsys):
    # The abort message says the dump keeps its steps; the next stream to the same -o used to replace it.
    out = tmp_path / f"partial{suffix}"
    code, _, err = uxhost(
        capsys,
        "stream",
        trace_csv,
        "--port",
        device(die_after=5).url,
        "--eta",
        4,
        "--timeout",
        0.5,
        "--retries",
        0,
        "-o",
        out,
    )
    assert_refused(code, err, f"the dump {out} keeps the 5 step(s) before it")
    kept = out.read_bytes()
    assert len(load_dump(out)) == 5
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", "loop://", "--eta", 4, "-o", out)
    assert (
        err
        == (f"uxhost stream: error: {out} exists; pass --force to replace it, or --resume {out} to " "continue it\n")
        and code == 2
    )
    assert out.read_bytes() == kept
    # --resume continues it (and takes no --force: it replaces nothing).
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", "loop://", "--resume", out, "--force")
    assert_refused(code, err, "pass one of them")
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", device().url, "--resume", out)
    assert code == 0, err
    assert len(load_dump(out)) == 8


def test_a_killed_npz_runs_journal_is_not_replaced(trace_csv, tmp_path, capsys):
    out = tmp_path / "run.npz"
    journal = out.with_name(out.name + JOURNAL_SUFFIX)
    journal.write_text("the steps a killed run received\n")
    code, _, err = uxhost(capsys, "stream", trace_csv, "--port", "loop://", "--eta", 4, "-o", out)
    assert_refused(code, err, f"{journal} exists; pass --force to replace it")
    assert journal.read_text() == "the steps a killed run received\n"


def test_no_command_makes_a_folder(trace_csv, tmp_path, capsys):
    # `-o /nonexistent/dir/x.jsonl` made the folders; every output is now refused there, before any work.
    save_dump(good_dump(uxemu.Trace.from_csv(trace_csv)), tmp_path / "d.jsonl")
    missing = tmp_path / "no" / "such"
    for argv in (
        ("stream", trace_csv, "--port", "loop://", "-o", missing / "x.jsonl"),
        ("stream", trace_csv, "--port", "loop://", "-o", missing / "x.npz"),
        ("simulate", "--system", "lg", "--steps", 5, "--seed", 1, "-o", missing / "t.csv"),
        ("simulate", "--system", "pendulum", "--steps", 5, "--seed", 1, "-o", missing / "t.csv"),
        ("plot", tmp_path / "d.jsonl", "-o", missing / "p.png"),
        ("fit", trace_csv, "--free", "q", "--json", missing / "f.json"),
    ):
        code, _, err = uxhost(capsys, *argv)
        assert_refused(code, err, f"the folder {missing} does not exist (no folder is created)")
    assert not (tmp_path / "no").exists()


def test_simulate_and_fit_refuse_an_existing_output(trace_csv, tmp_path, capsys):
    csv_out, json_out = tmp_path / "t.csv", tmp_path / "f.json"
    csv_out.write_text("mine\n")
    json_out.write_text("mine\n")
    code, _, err = uxhost(capsys, "simulate", "--system", "lg", "--steps", 5, "--seed", 1, "-o", csv_out)
    assert_refused(code, err, f"{csv_out} exists; pass --force to replace it")
    code, _, err = uxhost(
        capsys, "simulate", "--system", "lg", "--steps", 5, "--seed", 1, "--traces", 2, "-o", tmp_path / "t.csv"
    )
    assert code == 0, err  # t-000.csv and t-001.csv are new
    code, _, err = uxhost(
        capsys, "simulate", "--system", "lg", "--steps", 5, "--seed", 2, "--traces", 2, "-o", tmp_path / "t.csv"
    )
    assert_refused(code, err, "t-000.csv exists")
    code, _, err = uxhost(capsys, "fit", trace_csv, "--free", "q", "--json", json_out)
    assert_refused(code, err, f"{json_out} exists; pass --force to replace it")
    assert csv_out.read_text() == json_out.read_text() == "mine\n"
    code, _, err = uxhost(capsys, "simulate", "--system", "lg", "--steps", 5, "--seed", 1, "-o", csv_out, "--force")
    assert code == 0 and len(uxemu.Trace.from_csv(csv_out)) == 5


# --------------------------------------------------------------------------------------------------
# Every failure one line


def test_simulate_refuses_a_step_count_above_its_limit(tmp_path, capsys):
    # numpy tried to allocate 745 GiB and died with a traceback.
    from uxhost.commands.simulate import MAX_ROWS

    out = tmp_path / "t.csv"
    code, _, err = uxhost(capsys, "simulate", "--system", "sv", "--steps", 100_000_000_000, "--seed", 1, "-o", out)
    assert_refused(code, err, f"a run simulates at most {MAX_ROWS:,}")
    code, _, err = uxhost(
        capsys, "simulate", "--system", "sv", "--steps", MAX_ROWS, "--traces", 2, "--seed", 1, "-o", out
    )
    assert_refused(code, err, f"is {2 * MAX_ROWS:,} rows")
    # Parameters under which the system diverges: the trace would be inf and NaN.
    code, _, err = uxhost(
        capsys, "simulate", "--system", "lg", "--params", "a=1e308", "--steps", 5, "--seed", 1, "-o", out
    )
    assert_refused(code, err, "lg with these parameters diverges")
    assert not out.exists()


@pytest.mark.parametrize("command", ["validate", "plot"])
def test_a_corrupt_npz_or_deeply_nested_json_is_one_line(command, tmp_path, capsys):
    # BadZipFile and RecursionError escaped as tracebacks.
    bad_zip, deep = tmp_path / "d.npz", tmp_path / "d.jsonl"
    bad_zip.write_bytes(b"PK\x03\x04" + bytes(range(200)))
    deep.write_text("[" * 100_000 + "\n")
    for path, words in ((bad_zip, "not a readable npz archive"), (deep, "nested too deep")):
        argv = [command, path] + (["-o", tmp_path / "p.png"] if command == "plot" else [])
        code, _, err = uxhost(capsys, *argv)
        assert_refused(code, err, words)


def test_a_start_where_log_l_is_flat_is_not_reported_converged_below_the_optimum(tmp_path, capsys):
    # From sigma_eta = 1e-300 log L is flat: the search stayed there and said "converged", 31 nats below the
    # optimum. The run from the default start now beats it and the fit climbs from there.
    trace = tmp_path / "sv.csv"
    assert main(["simulate", "--system", "sv", "--steps", "200", "--seed", "3", "-o", str(trace)]) == 0
    code, plain, err = uxhost(capsys, "fit", trace, "--free", "sigma_eta", "--json", tmp_path / "a.json")
    assert code == 0, err
    code, started, err = uxhost(
        capsys, "fit", trace, "--free", "sigma_eta", "--start", "sigma_eta=1e-300", "--json", tmp_path / "b.json"
    )
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert b["log_likelihood"] >= a["log_likelihood"] - 1e-3 or (code == 1 and not b["converged"]), started
    assert b["estimate"]["sigma_eta"] > 0.05


def test_an_influential_outlier_is_named(tmp_path, capsys, lg_trace):
    # One 1e6 observation in 200 took φ from 0.98 to 0.30 (or beyond 1) with no word.
    trace = uxemu.simulate_many(uxemu.systems.get("sv"), 1, 200, 3)[0]
    clean, spoiled = tmp_path / "clean.csv", tmp_path / "spoiled.csv"
    trace.to_csv(clean)
    trace.z[49] = 1e6
    trace.to_csv(spoiled)
    code, out, err = uxhost(capsys, "fit", spoiled, "--free", "phi", "--json", tmp_path / "f.json")
    assert "Traceback" not in err and code in (0, 1), err
    warnings = [line for line in out.splitlines() if "influential outlier" in line]
    assert len(warnings) == 1 and "1 influential outlier(s) at the optimum: k=49 " in warnings[0], out
    assert json.loads((tmp_path / "f.json").read_text())["outliers"] == [49]
    code, out, err = uxhost(capsys, "fit", clean, "--free", "phi")
    assert code == 0 and "influential outlier" not in out, out


def test_bounds_that_hold_no_point_are_refused(trace_csv, capsys):
    for bounds in ("q=1:0", "q=2:2", "q=nan:1", "q=0:nan"):
        code, _, err = uxhost(capsys, "fit", trace_csv, "--free", "q", "--bounds", bounds)
        assert_refused(code, err, "expected LO below HI")


# --------------------------------------------------------------------------------------------------
# Generated bad inputs

SEED = 38
JUNK_WORDS = ("abc", "1.2.3", "--", "0x1p3", "1e", "e5", "½", "1,5e", "NaN%", "\x00", "1;2", "ten", "+-1", "..")
NOT_FINITE = ("inf", "-inf", "Infinity", "1e999", "-1e400")
BAD_K = ("1e20", "9.3e18", "4294967296", "9223372036854775808", "-1", "1.5", "-0.5", "2e9.5", "18446744073709551616")


class Mutant:
    """A generated input and whether it must be refused ("refused") or may be valid ("any")."""

    def __init__(self, kind: str, data: bytes, expect: str, suffix: str = ".csv"):
        self.kind, self.data, self.expect, self.suffix = kind, data, expect, suffix


def csv_lines(trace) -> tuple[list[str], list[str]]:
    """(metadata lines, header and data rows) of a trace's CSV."""
    meta = [f"# {k}: {v}" for k, v in trace.meta.items()]
    rows = ["k,u,z,x"] + [
        f"{int(k)},{float(u)!r},{float(z)!r},{float(x)!r}" for k, u, z, x in zip(trace.k, trace.u, trace.z, trace.x)
    ]
    return meta, rows


def trace_mutants(trace, rng: random.Random, count: int) -> list[Mutant]:
    meta, rows = csv_lines(trace)

    def text(body, head=meta):
        return ("\n".join(head + body) + "\n").encode()

    def set_field(col: int, value: str, body=None):
        body = list(body or rows)
        i = rng.randrange(1, len(body))
        fields = body[i].split(",")
        fields[col] = value
        body[i] = ",".join(fields)
        return body

    def refused():
        choice = rng.randrange(12)
        if choice == 0:  # a column named twice
            names = ["k", "u", "z", "x"]
            dup = rng.choice(names)
            return "duplicate column", text([",".join(names + [dup])] + [r + ",1.0" for r in rows[1:]])
        if choice == 1:
            return "non-numeric", text(set_field(rng.randrange(4), rng.choice(JUNK_WORDS)))
        if choice == 2:
            return "not finite", text(set_field(rng.choice((1, 2, 3)), rng.choice(NOT_FINITE)))
        if choice == 3:
            return "nan u or x", text(set_field(rng.choice((1, 3)), rng.choice(("nan", "NaN", ""))))
        if choice == 4:
            return "bad k", text(set_field(0, rng.choice(BAD_K)))
        if choice == 5:  # a k that repeats or goes back
            body = list(rows)
            i = rng.randrange(2, len(body))
            body[i - 1], body[i] = (body[i], body[i - 1]) if rng.random() < 0.5 else (body[i - 1], body[i - 1])
            return "k not increasing", text(body)
        if choice == 6:
            return "empty", rng.choice((b"", b"\n", b"\n\n", text([]), text([rows[0]])))
        if choice == 7:  # not UTF-8 (a NUL and a byte no UTF-8 text has)
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
            return "binary junk", junk[: len(junk) // 2] + b"\x00\xff" + junk[len(junk) // 2 :]
        if choice == 8:  # a row with a field too few or too many
            body = list(rows)
            i = rng.randrange(1, len(body))
            body[i] = body[i].rsplit(",", 1)[0] if rng.random() < 0.5 else body[i] + ",7"
            return "row of another width", text(body)
        if choice == 9:
            return "no z column", text(["k,u,y,x"] + rows[1:])
        if choice == 10:  # the header itself garbled
            return "garbled header", text([rng.choice(("k;u;z;x", "k u z x", "", "1,2,3,4", "K,U,Z,X"))] + rows[1:])
        return "a huge k then a small one", text(set_field(0, "4294967295", rows[:3]) + rows[3:])

    def maybe():
        choice = rng.randrange(7)
        if choice == 0:
            return "BOM", b"\xef\xbb\xbf" + text(rows, [])
        if choice == 1:
            return "CRLF", text(rows).replace(b"\n", b"\r\n")
        if choice == 2:  # a gap in k
            body = [rows[0]] + [f"{int(r.split(',')[0]) * 3},{r.split(',', 1)[1]}" for r in rows[1:]]
            return "gapped k", text(body)
        if choice == 3:
            return "missing z", text(set_field(2, rng.choice(("", "nan"))))
        if choice == 4:
            data = text(rows)
            return "truncated", data[: rng.randrange(len(data))]
        if choice == 5:
            data = bytearray(text(rows))
            data[rng.randrange(len(data))] = rng.randrange(32, 127)
            return "one byte changed", bytes(data)
        return "extra column", text([rows[0] + ",t"] + [r + f",{i}" for i, r in enumerate(rows[1:])])

    out = []
    for _ in range(count):
        expect = "refused" if rng.random() < 0.85 else "any"
        kind, data = refused() if expect == "refused" else maybe()
        out.append(Mutant(kind, data, expect))
    return out


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def jsonl_mutants(dump_text: str, rng: random.Random, count: int) -> list[Mutant]:
    lines = dump_text.splitlines()
    header = json.loads(lines[0])
    steps = [json.loads(line) for line in lines[1:]]

    def text(head, body):
        return ("\n".join(json.dumps(h) if not isinstance(h, str) else h for h in [head, *body]) + "\n").encode()

    def a_step_with(key, value):
        body = [dict(s) for s in steps]
        body[rng.randrange(len(body))][key] = value
        return body

    def refused():
        choice = rng.randrange(12)
        if choice == 0:
            where = rng.randrange(len(lines))
            body = [deep(rng.choice((2000, 100_000)))] if where else []
            return "deep JSON", text(header if where else deep(100_000), steps[:where] + body)
        if choice == 1:
            return "empty", rng.choice((b"", b"\n", b"\n\n\n"))
        if choice == 2:
            junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
            return "binary junk", junk.replace(b"\n", b" ") + b"\n"
        if choice == 3:
            return "no header", text(steps[0], steps[1:])
        if choice == 4:
            return "not an object", text(header, steps[:2] + [rng.choice(("[1, 2]", "3", '"step"', "null"))])
        if choice == 5:
            bad = dict(header, **{rng.choice(("format", "format_version")): rng.choice(("x", 99, None, [1]))})
            return "foreign format", text(bad, steps)
        if choice == 6:
            body = [dict(s) for s in steps]
            del body[rng.randrange(len(body))][
                rng.choice(
                    (
                        "k",
                        "u",
                        "z",
                        "x",
                        "status",
                        "mean",
                        "var",
                        "atoms_x",
                        "atoms_w",
                        "cycles_predict",
                        "cycles_update",
                    )
                )
            ]
            return "step lacks a key", text(header, body)
        if choice == 7:
            key = rng.choice(("k", "status", "cycles_predict", "mean", "var", "u"))
            return "step garbles a key", text(
                header,
                a_step_with(
                    key,
                    rng.choice(
                        ("abc", [1], {"a": 1}, 1e999)
                        if key in ("k", "status", "cycles_predict")
                        else ("abc", [1], {"a": 1})
                    ),
                ),
            )
        if choice == 8:
            return "atoms mismatch", text(header, a_step_with("atoms_w", rng.choice(([], [1.0] * 3, [0.5] * 40))))
        if choice == 9:
            key, value = rng.choice(
                (
                    ("eta", 1e999),
                    ("eta", "x"),
                    ("params", 3),
                    ("prior", None),
                    ("system", None),
                    ("prior", {"kind": "gaussian"}),
                    ("params", ["a"]),
                    ("eta", None),
                )
            )
            return "header garbles a key", text(dict(header, **{key: value}), steps)
        if choice == 10:
            return "unknown record", text(header, steps[:1] + [{"record": rng.choice(("foo", None, 1))}] + steps[1:])
        key, value = rng.choice(
            (
                ("eta", 3),
                ("eta", 0),
                ("eta", 1 << 40),
                ("mode", "bogus"),
                ("likelihood", "x"),
                ("system", "nope"),
                ("params", [1.0]),
                ("prior", {"kind": "cauchy", "a": 0, "b": 1}),
                ("prior", {"kind": "gaussian", "a": 0, "b": -1}),
                ("params", [0.95, -1.0, 1.0]),
            )
        )
        return "header names no valid run", text(dict(header, **{key: value}), steps)

    def maybe():
        choice = rng.randrange(4)
        if choice == 0:
            data = text(header, steps)
            return "truncated", data[: rng.randrange(len(lines[0]) + 2, len(data))]
        if choice == 1:
            key = rng.choice(("mean", "var", "u", "z", "x", "log_evidence"))
            return "a value changed", text(header, a_step_with(key, rng.choice((0.0, -1.0, 1e300, None, "nan", "inf"))))
        if choice == 2:
            return "steps dropped", text(header, steps[: rng.randrange(len(steps))])
        return "a count changed", text(
            header, a_step_with(rng.choice(("cycles_update", "status", "k")), rng.choice((-1, 0, 7, 1 << 62)))
        )

    out = []
    for _ in range(count):
        expect = "refused" if rng.random() < 0.8 else "any"
        kind, data = refused() if expect == "refused" else maybe()
        out.append(Mutant(kind, data, expect, ".jsonl"))
    return out


def npz_bytes(arrays: dict) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def npz_mutants(npz: bytes, rng: random.Random, count: int) -> list[Mutant]:
    with np.load(io.BytesIO(npz)) as data:
        arrays = {key: data[key] for key in data.files}

    def refused():
        choice = rng.randrange(6)
        if choice == 0:
            return "truncated", npz[: rng.randrange(len(npz) - 22)]  # the end-of-archive record cut
        if choice == 1:
            return "not a zip", rng.choice((b"", b"PK", b"PK\x03\x04" + bytes(rng.randrange(256) for _ in range(64))))
        if choice == 2:
            lacking = dict(arrays)
            del lacking[rng.choice(sorted(set(lacking) - {"log_evidence"}))]  # a version 1 dump lacks that one
            return "an array missing", npz_bytes(lacking)
        if choice == 3:
            header = rng.choice(
                (
                    np.array(3.0),
                    np.array("{"),
                    np.array(deep(100_000)),
                    np.array("[1]"),
                    np.array(json.dumps({"format": "uxhost-dump", "format_version": 99})),
                )
            )
            return "header garbled", npz_bytes(dict(arrays, header=header))
        if choice == 4:
            key = rng.choice(("atoms_x", "atoms_w", "k", "mean"))
            return "array of another shape", npz_bytes(
                dict(arrays, **{key: np.zeros((2, 2, 2)) if key.startswith("atoms") else np.array([[1.0]])})
            )
        with zipfile.ZipFile(io.BytesIO(npz)) as z:  # a member that is not .npy
            members = {name: z.read(name) for name in z.namelist()}
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for name, blob in members.items():
                z.writestr(name, blob[: rng.randrange(len(blob))] if rng.random() < 0.5 else blob[::-1])
        return "members damaged", buf.getvalue()

    def maybe():
        data = bytearray(npz)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return "bits flipped", bytes(data)

    out = []
    for _ in range(count):
        expect = "refused" if rng.random() < 0.75 else "any"
        kind, data = refused() if expect == "refused" else maybe()
        out.append(Mutant(kind, data, expect, ".npz"))
    return out


def option_cases(trace: Path, dump: Path, tmp: Path, rng: random.Random) -> list[tuple[str, list]]:
    """(what, argv) of option values every command must refuse."""
    existing = tmp / "existing.png"
    existing.write_bytes(b"mine")
    sim = ["simulate", "--system", "lg", "--steps", "5", "--seed", "1"]
    cases = []
    for steps in ("0", "-3", "abc", "1e3", "100000000000", "", "5.5"):
        cases.append(
            ("simulate --steps", ["simulate", "--system", "lg", "--steps", steps, "--seed", "1", "-o", tmp / "s.csv"])
        )
    for seed in ("-1", "x", "1.5", ""):
        cases.append(
            ("simulate --seed", ["simulate", "--system", "lg", "--steps", "5", "--seed", seed, "-o", tmp / "s.csv"])
        )
    for params in ("q=nan", "q=inf", "q=-1", "q", "1,2", "zeta=1", "a=1,2", "q=1e400", "r=0", "a=1e308", ",=,"):
        cases.append(("simulate --params", sim + ["--params", params, "-o", tmp / "s.csv"]))
    for extra in (["--system", "nope"], ["--traces", "0"], ["--traces", "x"], ["--model", "nope.py:f"]):
        cases.append(("simulate options", ["simulate", "--steps", "5", "--seed", "1", "-o", tmp / "s.csv"] + extra))
    cases += [
        ("simulate -o", sim + ["-o", tmp / "no" / "s.csv"]),
        ("simulate -o", sim + ["-o", tmp]),
        ("simulate -o", sim + ["-o", existing]),
    ]
    fit = ["fit", trace, "--system", "lg"]
    for free in ("", "nope", "q,q", "q,nope", ",", "a,a,q"):
        cases.append(("fit --free", fit + ["--free", free]))
    for start in ("q=abc", "q", "q=nan", "q=inf", "zeta=1", "q=0", "q=-1", "r=1", "q=1e400", "=1"):
        cases.append(("fit --start", fit + ["--free", "q", "--start", start]))
    for bounds in ("q=abc", "q=1", "q=1:0", "q=nan:1", "r=0:1", "q=:nan", "q=3:3"):
        cases.append(("fit --bounds", fit + ["--free", "q", "--bounds", bounds]))
    for extra in (
        ["--eta", "3"],
        ["--eta", "x"],
        ["--mode", "x"],
        ["--engine", "x"],
        ["--evidence", "x"],
        ["--params", "q=nan"],
        ["--params", "1,2"],
        ["--z-col", "k"],
        ["--z-col", "nope"],
        ["--system", "nope"],
        ["--system", "pendulum"],
        ["--prior", "gaussian:0"],
        ["--prior", "laplace:0,-1"],
        ["--prior", "foo:1,2"],
        ["--prior", "gaussian:nan,1"],
        ["--json", tmp / "no" / "f.json"],
        ["--json", existing],
        ["--json", tmp],
        ["--engine", "native", "--model", "x.py:f"],
        ["--likelihood", "x"],
        ["--timeout", "-1"],
    ):
        cases.append(("fit options", fit + ["--free", "q"] + extra))
    for extra in (
        ["-o", tmp / "p.jpg"],
        ["-o", existing],
        ["-o", tmp / "no" / "p.png"],
        ["-o", tmp],
        ["-o", tmp / "p.png", "--trace", tmp / "none.csv"],
    ):
        cases.append(("plot options", ["plot", dump] + extra))
    for extra in (
        ["--rtol", "0"],
        ["--rtol", "-1"],
        ["--rtol", "nan"],
        ["--rtol", "x"],
        ["--reference", "x"],
        ["--trace", tmp / "none.csv"],
        ["--native-lib", tmp / "none.so", "--reference", "step"],
    ):
        cases.append(("validate options", ["validate", tmp / "none.jsonl"] + extra))
    stream = ["stream", trace, "--port", "loop://", "--timeout", "0.01", "--retries", "0"]
    # (--system NAME of no table system is not among them: the device may have it, so it is asked.)
    for extra in (
        ["--eta", "3"],
        ["--params", "q=-1"],
        ["--mode", "x"],
        ["--prior", "gaussian:0,0"],
        ["--z-col", "k"],
        ["--z-col", "nope"],
        ["-o", tmp / "d.csv"],
        ["-o", tmp / "no" / "d.jsonl"],
        ["-o", existing],
        ["--timeout", "0", "-o", tmp / "d.jsonl"],
        ["--retries", "-1", "-o", tmp / "d.jsonl"],
        ["--resume", tmp / "none.jsonl"],
        ["--resume", dump, "--eta", "4"],
        ["--baud", "x", "-o", tmp / "d.jsonl"],
    ):
        cases.append(
            (
                "stream options",
                stream + (extra if "-o" in extra or "--resume" in extra else extra + ["-o", tmp / "d.jsonl"]),
            )
        )
    rng.shuffle(cases)
    return cases


class Tally:
    """What the generated cases found: failures (with their input), and counts by command and expectation."""

    def __init__(self, capsys):
        self.capsys, self.failures, self.counts = capsys, [], {}

    def run(self, what: str, expect: str, argv: list, device_free: bool = False, created=None) -> None:
        self.counts[(argv[0], expect)] = self.counts.get((argv[0], expect), 0) + 1
        try:
            code, _, err = uxhost(self.capsys, *argv)
        except BaseException:  # anything but SystemExit: a traceback the user would have seen
            self.capsys.readouterr()
            self.failures.append(f"{what}: {argv}: {traceback.format_exc(limit=-3)}")
            return
        problem = None
        if "Traceback" in err:
            problem = "a traceback"
        elif code == 2 and not one_error_line(err):
            problem = "exit 2 without one error line"
        elif expect == "refused" and code != 2:
            problem = f"exit {code}: read as valid"
        elif code not in (0, 1, 2):
            problem = f"exit {code}"
        elif device_free and "loop://" in err:
            problem = "refused only by the device: the input was read as valid"
        elif created is not None and created.exists():
            problem = f"{created} was written"
        if problem:
            self.failures.append(f"{what} ({expect}): {problem}: {[str(a) for a in argv]}\n    {err.strip()[:300]}")


def test_generated_bad_inputs(tmp_path, capsys, lg_trace):
    rng = random.Random(SEED)
    tally = Tally(capsys)
    good = good_dump(lg_trace)
    trace_path, dump_path = tmp_path / "trace.csv", tmp_path / "good.jsonl"
    lg_trace.to_csv(trace_path)
    save_dump(good, dump_path)
    save_dump(good, tmp_path / "good.npz")
    case = tmp_path / "case"
    case.mkdir()
    device = [None]

    def write(m: Mutant, i: int) -> Path:
        path = case / f"m{i}{m.suffix}"
        path.write_bytes(m.data)
        return path

    # Traces: stream (refused before any device is opened: loop:// would be one), fit, validate --trace.
    for i, m in enumerate(trace_mutants(lg_trace, rng, 230)):
        path = write(m, i)
        out = case / f"o{i}.jsonl"
        if m.expect == "refused":
            tally.run(
                f"stream {m.kind}",
                m.expect,
                [
                    "stream",
                    path,
                    "--system",
                    "lg",
                    "--eta",
                    4,
                    "--port",
                    "loop://",
                    "--timeout",
                    0.01,
                    "--retries",
                    0,
                    "-o",
                    out,
                ],
                device_free=True,
                created=out,
            )
            tally.run(f"fit {m.kind}", m.expect, ["fit", path, "--system", "lg", "--free", "q", "--eta", 4])
            tally.run(f"validate --trace {m.kind}", m.expect, ["validate", dump_path, "--trace", path])
        elif i % 3 == 0:  # a trace that may be valid streams to a device that answers
            device[0] = ReferenceDevice()
            try:
                tally.run(
                    f"stream {m.kind}",
                    m.expect,
                    ["stream", path, "--system", "lg", "--eta", 4, "--port", device[0].url, "--timeout", 2, "-o", out],
                )
            finally:
                device[0].close()
        else:
            tally.run(f"validate --trace {m.kind}", m.expect, ["validate", dump_path, "--trace", path])
    # Dumps: validate, and plot where refused (a valid one's PNG costs a render).
    dumps = jsonl_mutants(dump_path.read_text(), rng, 230) + npz_mutants((tmp_path / "good.npz").read_bytes(), rng, 100)
    for i, m in enumerate(dumps):
        path = write(m, i + 1000)
        tally.run(f"validate {m.kind}", m.expect, ["validate", path])
        if m.expect == "refused" or i % 8 == 0:
            png = case / f"p{i}.png"
            tally.run(
                f"plot {m.kind}", m.expect, ["plot", path, "-o", png], created=png if m.expect == "refused" else None
            )
    for what, argv in option_cases(trace_path, dump_path, tmp_path, rng):
        tally.run(what, "refused", argv, device_free=argv[0] == "stream")
    total = sum(tally.counts.values())
    assert total >= 1000, tally.counts
    assert not tally.failures, f"{len(tally.failures)} of {total} cases failed:\n" + "\n".join(tally.failures[:15])
