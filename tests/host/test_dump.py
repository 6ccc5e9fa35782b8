"""Posterior dumps: exact round trips in both formats, and what survives an interrupted run."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from uxhost.config import ModelConfig
from uxhost import dump
from uxhost.dump import JOURNAL_SUFFIX, Dump, DumpError, Header, StepRecord, load_dump, open_writer, save_dump


def awkward_dump(truth=True) -> Dump:
    """Values whose decimal forms are long, tiny, huge and negative zero: a lossy writer shows here."""
    cfg = ModelConfig("cubic", (0.1, 0.05, 0.95, 0.05, 0.05, 0.01), 4, "paper", "sampler", "laplace", -0.0, 0.1)
    header = Header(
        cfg,
        board="mps2-an386",
        firmware_version="1.2.3",
        protocol=1,
        real_bytes=4,
        cycle_source="qemu-icount",
        trace="traces/x.csv",
        trace_steps=5,
    )
    rng = np.random.default_rng(1)
    steps = []
    for k in range(3):
        n = 4 - k  # ragged: the npz pads
        x = np.sort(rng.normal(size=n)) * 10.0 ** (k * 100 - 100)
        w = rng.random(n)
        w /= w.sum()
        steps.append(
            StepRecord(
                k,
                0.1 * k,
                1 / 3 + k,
                (2**-1074 if k == 1 else 1 / 7) if truth else None,
                k % 2,
                float(x @ w),
                1e-300 * (k + 1),
                tuple(x),
                tuple(w),
                2**32 - 1 - k,
                17 * k,
                -math.inf if k == 1 else -1 / 3 - k,
            )
        )  # a fallback's log evidence is −∞
    return Dump(header, steps)


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
@pytest.mark.parametrize("truth", [True, False])
def test_round_trip_is_exact(suffix, truth, tmp_path):
    dump = awkward_dump(truth)
    path = tmp_path / f"d{suffix}"
    save_dump(dump, path)
    back = load_dump(path)
    assert back.header == dump.header
    assert back.steps == dump.steps  # float equality: bit for bit
    assert (back.truth is None) == (not truth)
    assert not (tmp_path / f"d{suffix}{JOURNAL_SUFFIX}").exists()


def test_jsonl_and_npz_agree(tmp_path):
    dump = awkward_dump()
    save_dump(dump, tmp_path / "a.jsonl")
    save_dump(load_dump(tmp_path / "a.jsonl"), tmp_path / "b.npz")
    assert load_dump(tmp_path / "b.npz").steps == dump.steps


@pytest.mark.parametrize("suffix", [".jsonl", ".npz"])
def test_a_step_without_observation_is_marked_and_round_trips(suffix, tmp_path):
    dump = awkward_dump()
    dump.steps[1].z, dump.steps[1].status, dump.steps[1].log_evidence = math.nan, 2, 0.0  # NO_EVIDENCE
    save_dump(dump, tmp_path / f"d{suffix}")
    if suffix == ".jsonl":
        record = json.loads((tmp_path / "d.jsonl").read_text().splitlines()[2])
        assert record["z"] is None and record["status"] == 2  # strict JSON: null, not NaN
    back = load_dump(tmp_path / f"d{suffix}")
    assert back.missing == 1 and math.isnan(back.steps[1].z) and back.steps[1].status == 2
    assert [s.z for s in back.steps[::2]] == [s.z for s in dump.steps[::2]]
    assert back.steps[1].atoms_x == dump.steps[1].atoms_x


def test_a_version_1_dump_still_reads(tmp_path):
    save_dump(awkward_dump(), tmp_path / "d.jsonl")
    lines = (tmp_path / "d.jsonl").read_text().splitlines()
    head = json.loads(lines[0])
    head["format_version"] = 1
    steps = [json.loads(line) for line in lines[1:]]
    for step in steps:
        del step["log_evidence"]  # version 1 had none
    (tmp_path / "v1.jsonl").write_text("\n".join(json.dumps(r) for r in [head] + steps) + "\n")
    back = load_dump(tmp_path / "v1.jsonl").steps
    assert all(math.isnan(s.log_evidence) for s in back)
    assert [s.posterior()[:3] for s in back] == [s.posterior()[:3] for s in awkward_dump().steps]


def test_jsonl_header_names_the_format_and_configuration(tmp_path):
    save_dump(awkward_dump(), tmp_path / "d.jsonl")
    head = json.loads((tmp_path / "d.jsonl").read_text().splitlines()[0])
    assert (
        head["record"] == "header" and head["format"] == "uxhost-dump" and head["format_version"] == dump.FORMAT_VERSION
    )
    assert head["system"] == "cubic" and head["eta"] == 4 and head["mode"] == "paper"
    assert head["prior"] == {"kind": "laplace", "a": -0.0, "b": 0.1}
    assert head["board"] == "mps2-an386" and head["real_bytes"] == 4 and head["cycle_source"] == "qemu-icount"


def test_npz_writer_interrupted_still_writes_the_archive(tmp_path):
    dump = awkward_dump()
    path = tmp_path / "d.npz"
    with pytest.raises(KeyboardInterrupt):
        with open_writer(path, dump.header) as out:
            out.write(dump.steps[0])
            out.write(dump.steps[1])
            raise KeyboardInterrupt
    back = load_dump(path)
    assert back.steps == dump.steps[:2]
    assert not back.complete
    assert not path.with_name(path.name + JOURNAL_SUFFIX).exists()


def test_npz_journal_of_a_killed_run_is_a_readable_dump(tmp_path):
    dump = awkward_dump()
    path = tmp_path / "d.npz"
    out = open_writer(path, dump.header)
    out.write(dump.steps[0])
    # No close: as if the process had been killed. The archive does not exist, the journal does.
    journal = path.with_name(path.name + JOURNAL_SUFFIX)
    with pytest.raises(DumpError, match="interrupted run left .*partial.jsonl"):
        load_dump(path)
    assert load_dump(journal).steps == dump.steps[:1]
    out.close()
    assert load_dump(path).steps == dump.steps[:1]


def test_jsonl_half_written_last_line_is_dropped(tmp_path):
    dump = awkward_dump()
    path = tmp_path / "d.jsonl"
    save_dump(dump, path)
    text = path.read_text()
    path.write_text(text[: len(text) - 25])  # the last record cut in the middle, no newline
    assert load_dump(path).steps == dump.steps[:-1]


def test_jsonl_garbage_in_the_middle_names_the_line(tmp_path):
    path = tmp_path / "d.jsonl"
    save_dump(awkward_dump(), path)
    lines = path.read_text().splitlines()
    lines[2] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DumpError, match=r"d.jsonl:3: not JSON"):
        load_dump(path)


@pytest.mark.parametrize(
    "first, complaint",
    [
        ('{"record": "step"}', "starts with its header"),
        ('{"record": "header", "format": "other"}', "not a uxhost dump"),
        ('{"record": "header", "format": "uxhost-dump", "format_version": 99}', "format version 99"),
        ('{"record": "header", "format": "uxhost-dump", "format_version": 1, "system": "gss"}', "lacks or garbles"),
        ('[1, 2]', "must be a JSON object"),
    ],
)
def test_bad_header_is_reported(first, complaint, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(first + "\n")
    with pytest.raises(DumpError, match=complaint):
        load_dump(path)


def test_step_with_mismatched_atoms_is_reported(tmp_path):
    path = tmp_path / "d.jsonl"
    save_dump(awkward_dump(), path)
    lines = path.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["atoms_w"] = rec["atoms_w"][:-1]
    lines[1] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DumpError, match=r"d.jsonl:2: step k=0 has 4 positions and 3 weights"):
        load_dump(path)


def test_unknown_suffix_and_missing_file(tmp_path):
    with pytest.raises(DumpError, match="must end in .jsonl or .npz"):
        save_dump(awkward_dump(), tmp_path / "d.json")
    with pytest.raises(DumpError, match="does not exist"):
        load_dump(tmp_path / "nope.jsonl")


def test_npz_that_is_not_an_archive(tmp_path):
    path = tmp_path / "d.npz"
    path.write_bytes(b"not a zip file")
    with pytest.raises(DumpError, match="not a readable npz archive"):
        load_dump(path)


def test_columns_and_truth(tmp_path):
    dump = awkward_dump()
    np.testing.assert_array_equal(dump.column("k"), [0, 1, 2])
    assert dump.truth[1] == 2**-1074 and math.isclose(dump.truth[0], 1 / 7)
    dump.steps[1].x = None
    assert dump.truth is None


def test_every_status_but_ok_is_counted_and_said_in_protocol_toml_words():
    # The words come from docs/protocol.toml's [values.status] (says, why, legend) and nowhere else: stream's
    # summary, validate's report and plot's legend all print them.
    import tomllib

    from uxhost.dump import count_statuses, status_lines
    from uxhost.plot import STATUS_MARKS
    from uxhost.protocol import STATUS_LEGEND, STATUS_SAYS, Status

    spec = tomllib.loads((Path(__file__).resolve().parents[2] / "docs" / "protocol.toml").read_text())
    words = {v["name"]: v for v in spec["values"]["status"]["values"] if v["name"] != "OK"}
    assert {s.name for s in STATUS_SAYS} == set(words) == {s.name for s in Status if s != Status.OK}
    assert {code for code, *_ in STATUS_MARKS} == set(STATUS_LEGEND)
    counts = count_statuses([Status.OK, Status.OUTLIER, Status.OUTLIER, Status.INCONSISTENT, Status.OK])
    assert counts[Status.OUTLIER] == 2 and counts[Status.INCONSISTENT] == 1 and Status.OK not in counts
    w = words["OUTLIER"]
    assert status_lines(counts) == [
        f"2 {w['says']} (status OUTLIER): {w['why']}",
        f"1 {words['INCONSISTENT']['says']} (status INCONSISTENT): {words['INCONSISTENT']['why']}",
    ]
    assert status_lines(counts, skip=(Status.OUTLIER,)) == status_lines(counts)[1:]


def test_the_stream_summary_says_each_status_once():
    from uxhost.dump import count_statuses
    from uxhost.protocol import Status
    from uxhost.streaming import StreamSummary

    empty = np.array([], dtype=np.int64)
    counts = count_statuses([Status.FALLBACK, Status.NO_EVIDENCE, Status.REFOCUSED, Status.DEPARTED])
    lines = StreamSummary(4, empty, empty, "cycles", 0, statuses=counts).lines()
    assert lines[0] == "4 steps, 1 fallback(s), 1 without observation, 0 resent request(s)"
    # fallbacks and steps without observation are in the first line, not again below it
    assert [line.split(" (status ")[1].split(")")[0] for line in lines[1:]] == ["REFOCUSED", "DEPARTED"]
