"""Posterior dumps: one header (filter configuration, device, trace) and one record per step.

Two formats, chosen by the file suffix:

- ``.jsonl``: one JSON object per line, ``{"record": "header", …}`` first, then ``{"record": "step", …}``.
  Floats are written with Python's shortest round-trip repr, so a dump reads back bit for bit. Each line
  is flushed as it is written, so an interrupted run keeps every step it received; a last line cut short
  by a crash is ignored when reading.
- ``.npz``: numpy arrays (``k u z x status mean var log_evidence cycles_predict cycles_update count atoms_x atoms_w``,
  atoms padded with NaN positions and zero weights; ``x`` NaN where unknown) and the header as JSON text.
  An archive cannot grow in place, so while a run is going the records go to a JSONL journal beside it
  (``NAME.npz.partial.jsonl``); closing the writer — also on Ctrl-C or an error — writes the archive and
  removes the journal. Only a killed process leaves the journal, which is itself a readable dump.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zipfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from . import __version__
from .config import ModelConfig
from .protocol import STATUS_SAYS, STATUS_WHY, CycleSource, ResetCause, Status

FORMAT = "uxhost-dump"
FORMAT_VERSION = 2  # 2: z null (NaN in .npz) for a step without observation; each step's log_evidence
READABLE_VERSIONS = (1, 2)  # version 1 is version 2 without missing observations
JOURNAL_SUFFIX = ".partial.jsonl"

# Cycle sources by the link's code (docs/protocol.md), with the unit a report should print.
CYCLE_SOURCES = {CycleSource.SYSTICK_ICOUNT: "qemu-icount", CycleSource.DWT: "dwt", CycleSource.HOST_NS: "host-ns"}
CYCLE_UNITS = {"qemu-icount": "virtual cycles (icount)", "dwt": "cycles", "host-ns": "ns", "none": "(none)"}


def reset_cause_name(code: int) -> str:
    """INFO's reset_cause as a dump header and a report write it: "power_on", "watchdog", …"""
    try:
        return ResetCause(code).name.lower()
    except ValueError:
        return f"unknown ({code})"


class DumpError(ValueError):
    """A dump that cannot be written or read as asked."""


@dataclass
class Header:
    config: ModelConfig
    board: str | None = None  # None for a dump the reference made itself
    firmware_version: str | None = None
    protocol: int | None = None
    real_bytes: int = 8
    cycle_source: str = "none"
    reset_cause: str | None = None  # why the device last started (reset_cause_name); None: no device, or an older dump
    trace: str | None = None
    trace_steps: int | None = None  # rows in the trace: more than the records when a run was cut short
    uxhost_version: str = __version__
    resumed_at: tuple[int, ...] = ()  # record indices at which a cut-short run was resumed (stream --resume)

    @property
    def cycle_unit(self) -> str:
        return CYCLE_UNITS.get(self.cycle_source, self.cycle_source)

    def to_json(self) -> dict:
        out = {"record": "header", "format": FORMAT, "format_version": FORMAT_VERSION}
        cfg = asdict(self.config)
        out.update(
            system=cfg.pop("system"),
            params=list(cfg.pop("params")),
            prior={"kind": cfg.pop("prior_kind"), "a": cfg.pop("prior_a"), "b": cfg.pop("prior_b")},
        )
        out.update(cfg)
        out.update({f.name: getattr(self, f.name) for f in fields(self) if f.name != "config"})
        return out

    @classmethod
    def from_json(cls, obj: dict, where: str) -> "Header":
        if obj.get("format") != FORMAT:
            raise DumpError(f"{where}: not a uxhost dump (no 'format': '{FORMAT}' in the header)")
        if obj.get("format_version") not in READABLE_VERSIONS:
            raise DumpError(
                f"{where}: dump format version {obj.get('format_version')!r}; this uxhost reads "
                f"versions {', '.join(map(str, READABLE_VERSIONS))}"
            )
        if not isinstance(obj.get("system"), str):  # str() would make a name of anything, null included
            raise DumpError(f"{where}: header lacks or garbles 'system' (a name)")
        try:
            prior = obj["prior"]
            config = ModelConfig(
                str(obj["system"]),
                tuple(float(v) for v in obj["params"]),
                int(obj["eta"]),
                str(obj["mode"]),
                str(obj["likelihood"]),
                str(prior["kind"]),
                float(prior["a"]),
                float(prior["b"]),
                system_id=obj.get("system_id"),
            )
            rest = {f.name: obj[f.name] for f in fields(cls) if f.name != "config" and f.name in obj}
            rest["resumed_at"] = tuple(int(i) for i in rest.get("resumed_at", ()))
        except (KeyError, TypeError, ValueError, OverflowError) as exc:  # int(1e999): an infinite count
            raise DumpError(f"{where}: header lacks or garbles {exc}") from None
        wrong = config_fault(config)
        if wrong:  # a plot or a validation of it would draw or compare a run no filter made
            raise DumpError(f"{where}: the header's configuration is no filter's: {wrong}")
        return cls(config, **rest)


def config_fault(config: ModelConfig) -> str | None:
    """What makes `config` one no filter runs (an η, mode, likelihood or prior the filter has not, parameters
    outside a table system's domains), or None."""
    from uxemu import systems

    from .config import LIKELIHOODS, MODES, PRIOR_KINDS, etas

    for name, value, allowed in (
        ("eta", config.eta, etas()),
        ("mode", config.mode, MODES),
        ("likelihood", config.likelihood, LIKELIHOODS),
        ("prior kind", config.prior_kind, PRIOR_KINDS),
    ):
        if value not in allowed:
            return f"{name} {value!r} (one of {', '.join(map(str, allowed))})"
    if not (math.isfinite(config.prior_a) and math.isfinite(config.prior_b) and config.prior_b > 0):
        return f"prior ({config.prior_a}, {config.prior_b}): a finite location and a positive scale"
    spec = systems.SPECS.get(config.system)
    if spec is None or spec.id != config.system_id:  # a device's own system: its firmware knows its parameters
        return None if all(map(math.isfinite, config.params)) else f"parameters {config.params} not finite"
    if len(config.params) != len(spec.params):
        return f"{len(config.params)} parameters for {spec.name}, which has {len(spec.params)}"
    return next(
        (f"{p.name} = {v}: not {p.domain}" for p, v in zip(spec.params, config.params) if not p.admits(v)), None
    )


@dataclass
class StepRecord:
    k: int
    u: float
    z: float  # NaN: no observation at this step (JSON null); the status is then NO_EVIDENCE
    x: float | None  # the true state, when the trace has it
    status: int
    mean: float
    var: float
    atoms_x: tuple[float, ...]
    atoms_w: tuple[float, ...]
    cycles_predict: int = 0
    cycles_update: int = 0
    log_evidence: float = math.nan  # log p(z_k | z_0..k−1); NaN in a version 1 dump, which lacks it

    def posterior(self) -> tuple:
        """What the filter answered — status, mean, variance, log evidence, atoms — as bits, for exact
        comparison (the cycle counts are the board's clock, not the filter's answer)."""
        return (
            self.status,
            _bits(self.mean),
            _bits(self.var),
            _bits(self.log_evidence),
            tuple(map(_bits, self.atoms_x)),
            tuple(map(_bits, self.atoms_w)),
        )

    def to_json(self) -> dict:
        out = {"record": "step"}
        out.update(asdict(self))
        out["atoms_x"], out["atoms_w"] = list(self.atoms_x), list(self.atoms_w)
        if math.isnan(self.z):
            out["z"] = None  # strict JSON has no NaN
        if not math.isfinite(self.log_evidence):
            out["log_evidence"] = repr(self.log_evidence)  # "-inf" on a fallback: a string, read back by float()
        return out

    @classmethod
    def from_json(cls, obj: dict, where: str) -> "StepRecord":
        try:
            x, z = obj["x"], obj["z"]
            rec = cls(
                int(obj["k"]),
                float(obj["u"]),
                math.nan if z is None else float(z),
                None if x is None else float(x),
                int(obj["status"]),
                float(obj["mean"]),
                float(obj["var"]),
                tuple(float(v) for v in obj["atoms_x"]),
                tuple(float(v) for v in obj["atoms_w"]),
                int(obj["cycles_predict"]),
                int(obj["cycles_update"]),
                float(obj.get("log_evidence", math.nan)),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DumpError(f"{where}: step record lacks or garbles {exc}") from None
        return rec.checked(where)

    def checked(self, where: str) -> "StepRecord":
        """Itself, if its atoms are a law's: as many positions as weights, at least one."""
        if len(self.atoms_x) != len(self.atoms_w) or not self.atoms_x:
            raise DumpError(
                f"{where}: step k={self.k} has {len(self.atoms_x)} positions and " f"{len(self.atoms_w)} weights"
            )
        return self


def _bits(v: float) -> bytes:
    return struct.pack("<d", v)


def count_statuses(statuses) -> dict:
    """How many of `statuses` are each status that says something (every one but OK), in the statuses' order."""
    counts = dict.fromkeys(STATUS_SAYS, 0)
    for s in statuses:
        if s in counts:
            counts[Status(s)] += 1
    return counts


def status_lines(counts: dict, skip=()) -> list[str]:
    """One line per status some step answered, but those in `skip`: "N <says> (status NAME): <why>", its words
    from docs/protocol.toml ([values.status]); what stream's summary and validate's report print."""
    return [
        f"{n} {STATUS_SAYS[status]} (status {status.name}): {STATUS_WHY[status]}"
        for status, n in counts.items()
        if n and status not in skip
    ]


class StatusCounts:
    """What a run's statuses say, for every dump (a scalar state's, uxhost.joint.JointDump's): `steps` with
    a `status`, `header.trace_steps`."""

    def status_counts(self) -> dict:
        """count_statuses of its steps."""
        return count_statuses(s.status for s in self.steps)

    @property
    def complete(self) -> bool:
        return self.header.trace_steps is None or len(self.steps) >= self.header.trace_steps


@dataclass
class Dump(StatusCounts):
    header: Header
    steps: list[StepRecord] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.steps)

    def column(self, name: str) -> np.ndarray:
        return np.array([getattr(s, name) for s in self.steps])

    @property
    def truth(self) -> np.ndarray | None:
        """The true states, when every record has one."""
        if not self.steps or any(s.x is None for s in self.steps):
            return None
        return self.column("x").astype(np.float64)

    @property
    def missing(self) -> int:
        """Steps without observation (predict only)."""
        return sum(math.isnan(s.z) for s in self.steps)


# --------------------------------------------------------------------------------------------------
# Writing


class JsonlWriter:
    """Appends records line by line, flushed, so that what was received survives an interruption.

    `kept`: records of an earlier run that this one continues. They are written with the header to a file
    beside `path` that then replaces it, so the earlier records are never absent from disk."""

    def __init__(self, path, header: Header, kept=()):
        self.path = Path(path)
        self.count = 0
        tmp = self.path.with_name(self.path.name + ".tmp")
        self._fh = tmp.open("w", encoding="utf-8")
        self._line(header.to_json())
        for step in kept:
            self.write(step)
        os.replace(tmp, self.path)

    def _line(self, obj: dict) -> None:
        self._fh.write(json.dumps(obj) + "\n")
        self._fh.flush()

    def write(self, step: StepRecord) -> None:
        self._line(step.to_json())
        self.count += 1

    def close(self) -> None:
        self._fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class NpzWriter:
    """Journals records as JSONL while the run goes, then writes the archive on close."""

    def __init__(self, path, header: Header, kept=()):
        self.path = Path(path)
        self.journal = self.path.with_name(self.path.name + JOURNAL_SUFFIX)
        self._jsonl = JsonlWriter(self.journal, header, kept)

    @property
    def count(self) -> int:
        return self._jsonl.count

    def write(self, step: StepRecord) -> None:
        self._jsonl.write(step)

    def close(self) -> None:
        if self._jsonl._fh.closed:
            return
        self._jsonl.close()
        save_npz(load_jsonl(self.journal), self.path)
        self.journal.unlink()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def dump_format(path: Path) -> str:
    """'jsonl' or 'npz' by the file's suffix; DumpError for anything else."""
    name = path.name.lower()
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".npz"):
        return "npz"
    raise DumpError(f"{path}: a dump file must end in .jsonl or .npz")


def open_writer(path, header: Header, kept=()):
    """A writer for `path` (format by suffix), starting with the records `kept` of a run it continues;
    use it as a context manager."""
    path = Path(path)
    kind = _format_for(path, header)
    return JsonlWriter(path, header, kept) if kind == "jsonl" else NpzWriter(path, header, kept)


def _format_for(path: Path, header) -> str:
    """The format of a dump at `path`, by its suffix (every kind of run has both)."""
    return dump_format(path)


def save_dump(dump, path) -> None:
    """Writes a whole dump (a Dump or a JointDump) at once (format by suffix)."""
    path = Path(path)
    if _format_for(path, dump.header) == "npz":
        save_npz(dump, path)
        return
    with open_writer(path, dump.header) as out:
        for step in dump.steps:
            out.write(step)


def save_npz(dump, path: Path) -> None:
    """An archive of arrays, one row per step: a scalar state's (scalar_arrays) or a vector state's
    (uxhost.joint.joint_arrays), with the header as JSON text."""
    from .joint import JointDump, joint_arrays

    steps = joint_arrays(dump.steps) if isinstance(dump, JointDump) else scalar_arrays(dump.steps)
    arrays = {"header": np.array(json.dumps(dump.header.to_json())), **steps}
    # Written beside the target and renamed, so a reader never sees half an archive.
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def scalar_arrays(steps: list[StepRecord]) -> dict:
    """A scalar state's steps as arrays: atoms padded to the widest step (NaN positions, 0 weights)."""
    T = len(steps)
    width = max((len(s.atoms_x) for s in steps), default=0)
    atoms_x = np.full((T, width), np.nan)
    atoms_w = np.zeros((T, width))
    for i, s in enumerate(steps):
        atoms_x[i, : len(s.atoms_x)] = s.atoms_x
        atoms_w[i, : len(s.atoms_w)] = s.atoms_w
    return {
        **step_columns(steps),
        "z": np.array([s.z for s in steps], dtype=np.float64),
        "x": np.array([np.nan if s.x is None else s.x for s in steps], dtype=np.float64),
        "mean": np.array([s.mean for s in steps], dtype=np.float64),
        "var": np.array([s.var for s in steps], dtype=np.float64),
        "atoms_x": atoms_x,
        "atoms_w": atoms_w,
    }


def step_columns(steps) -> dict:
    """The arrays every kind of step record has: k, u, status, log evidence, cycles and atom count."""
    return {
        "k": np.array([s.k for s in steps], dtype=np.int64),
        "u": np.array([s.u for s in steps], dtype=np.float64),
        "status": np.array([s.status for s in steps], dtype=np.int64),
        "log_evidence": np.array([s.log_evidence for s in steps], dtype=np.float64),
        "cycles_predict": np.array([s.cycles_predict for s in steps], dtype=np.int64),
        "cycles_update": np.array([s.cycles_update for s in steps], dtype=np.int64),
        "count": np.array([len(s.atoms_w) for s in steps], dtype=np.int64),
    }


# --------------------------------------------------------------------------------------------------
# Reading


def load_dump(path) -> Dump:
    path = Path(path)
    if not path.exists():
        journal = path.with_name(path.name + JOURNAL_SUFFIX)
        hint = f" (an interrupted run left {journal}, which is readable)" if journal.exists() else ""
        raise DumpError(f"dump file {path} does not exist{hint}")
    return load_jsonl(path) if dump_format(path) == "jsonl" else load_npz(path)


def load_unfinished(path) -> Dump:
    """The dump of a run that may have been cut short: the file itself, or the journal a killed .npz
    run left beside it."""
    path = Path(path)
    journal = path.with_name(path.name + JOURNAL_SUFFIX)
    if not path.exists() and dump_format(path) == "npz" and journal.exists():
        return load_jsonl(journal)
    return load_dump(path)


def _kinds(first: dict) -> tuple:
    """(header, step record, dump) classes of the dump whose header record is `first`: a joint system's
    (uxhost.joint) when its format says so, else the scalar one's."""
    from . import joint

    if first.get("format") == joint.FORMAT:
        return joint.JointHeader, joint.JointStep, joint.JointDump
    return Header, StepRecord, Dump


def load_jsonl(path: Path):
    """A JSONL dump of either kind: a Dump, or a JointDump for a joint system's run."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.split("\n")
    cut_short = not text.endswith("\n")  # the writer ends every record with a newline
    header, steps = None, []
    header_cls, step_cls, dump_cls = Header, StepRecord, Dump
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json_value(line, where)
        except DumpError:
            if cut_short and number == len(lines):
                break  # the last record of a killed run, half written
            raise
        if not isinstance(obj, dict):
            raise DumpError(f"{where}: a record must be a JSON object")
        if header is None:
            if obj.get("record") != "header":
                raise DumpError(f"{where}: a dump starts with its header record")
            header_cls, step_cls, dump_cls = _kinds(obj)
            header = header_cls.from_json(obj, where)
        elif obj.get("record") == "step":
            steps.append(step_cls.from_json(obj, where))
        else:
            raise DumpError(f"{where}: unexpected record {obj.get('record')!r}")
    if header is None:
        raise DumpError(f"{path}: empty dump (no header)")
    return dump_cls(header, steps)


def json_value(text: str, where: str):
    """The JSON value `text` holds; DumpError for anything else, a value nested too deep for the parser too."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DumpError(f"{where}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise DumpError(f"{where}: not a dump record (JSON nested too deep to read)") from None


def load_npz(path: Path) -> Dump:
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
    # A damaged archive fails in zipfile (BadZipFile, EOFError on a cut member) or in numpy's .npy reader.
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise DumpError(f"{path}: not a readable npz archive ({_one_line(exc)})") from None
    if not isinstance(arrays.get("header"), np.ndarray) or arrays["header"].dtype.kind != "U":
        raise DumpError(f"{path}: archive lacks the header (a text array)")
    header = json_value(str(arrays["header"]), f"{path} (header)")
    if not isinstance(header, dict):
        raise DumpError(f"{path}: the header is not a JSON object")
    header_cls, _, dump_cls = _kinds(header)
    try:
        head = header_cls.from_json(header, str(path))
        if dump_cls is Dump:
            return Dump(head, _npz_steps(arrays, path))
        from .joint import joint_steps_from_arrays

        return dump_cls(head, joint_steps_from_arrays(arrays, head.config.dim, path))
    except KeyError as exc:
        raise DumpError(f"{path}: archive lacks the array {exc}") from None
    except (IndexError, TypeError, ValueError, OverflowError) as exc:  # arrays of the wrong shape or kind
        raise DumpError(f"{path}: archive's arrays do not make step records ({_one_line(exc)})") from None


def _one_line(exc: BaseException) -> str:
    return " ".join((str(exc) or type(exc).__name__).split())


def _npz_steps(arrays: dict, path: Path) -> list[StepRecord]:
    """The step records of an archive's arrays, one per entry of `count`."""
    count = arrays["count"]
    steps = []
    for i in range(count.size):
        n = int(count[i])
        x = float(arrays["x"][i])
        steps.append(
            StepRecord(
                int(arrays["k"][i]),
                float(arrays["u"][i]),
                float(arrays["z"][i]),
                None if math.isnan(x) else x,
                int(arrays["status"][i]),
                float(arrays["mean"][i]),
                float(arrays["var"][i]),
                tuple(float(v) for v in arrays["atoms_x"][i, :n]),
                tuple(float(v) for v in arrays["atoms_w"][i, :n]),
                int(arrays["cycles_predict"][i]),
                int(arrays["cycles_update"][i]),
                float(arrays["log_evidence"][i]) if "log_evidence" in arrays else math.nan,
            ).checked(f"{path}: step {i}")
        )
    return steps
