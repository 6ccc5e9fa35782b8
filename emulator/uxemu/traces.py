"""Sensor traces: generation from a model (seeded) and CSV input/output.

CSV columns: k, u, z and, when the truth is known, x. One row per step; the first observation is of
the initial state (k = 0). A missing observation is an empty z field (or `nan`): that step only
predicts. Lines before the column header that start with `#` are the trace's metadata,
`# key: value` (a simulated trace names the system and parameters that made it).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .model import StateSpaceModel


# The columns a trace has besides its observation, and what each holds.
TRACE_COLUMNS = {"k": "step index", "u": "control input", "x": "true state"}


@dataclass
class Trace:
    k: np.ndarray
    u: np.ndarray
    z: np.ndarray
    x: np.ndarray | None = None  # the true state, when known
    meta: dict[str, str] = field(default_factory=dict)  # e.g. {"system": "gss", "params": "3.0,1.0"}

    def __len__(self) -> int:
        return self.z.size

    def to_csv(self, path) -> None:
        path = Path(path)
        with path.open("w", newline="") as fh:
            for key, value in self.meta.items():
                fh.write(f"# {key}: {value}\n")
            out = csv.writer(fh)
            out.writerow(["k", "u", "z"] + (["x"] if self.x is not None else []))
            for i in range(len(self)):
                z = float(self.z[i])
                row = [int(self.k[i]), repr(float(self.u[i])), "" if np.isnan(z) else repr(z)]
                if self.x is not None:
                    row.append(repr(float(self.x[i])))
                out.writerow(row)

    @classmethod
    def from_csv(cls, path, z_col: str = "z") -> "Trace":
        """Reads a trace. The observation is column `z_col`; k, u and x are used when present; any other
        column (a timestamp, a second sensor) is ignored. k must hold integers (1.5 is refused, not cut) that fit
        64 bits. A header naming a column twice is refused (which copy is meant?), as is a z_col that names
        k, u or x. A UTF-8 byte-order mark (a spreadsheet's export) is not part of the first column's name."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"trace file {path} does not exist")
        if z_col in ("k", "u", "x"):
            raise ValueError(f"{path}: {z_col!r} is the trace's {TRACE_COLUMNS[z_col]} column, not an observation; "
                             "name the observation's column")
        with path.open(newline="", encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines(keepends=True)
        meta, skipped = _read_meta(lines)
        rows = list(csv.reader(lines[skipped:]))
        head = [h.strip() for h in rows[0]] if rows else []
        used = _columns_used(path, head, z_col)
        cols, row_lines = _read_columns(path, rows[1:], skipped + 2, head, used)
        z = np.array(cols["z"])
        k = np.array(cols["k"], dtype=np.int64) if "k" in cols else np.arange(z.size)
        _check_increasing(path, k, row_lines)
        u = np.array(cols["u"]) if "u" in cols else np.zeros(z.size)
        x = np.array(cols["x"]) if "x" in cols else None
        return cls(k, u, z, x, meta)


def _read_meta(lines: list[str]) -> tuple[dict[str, str], int]:
    """The `# key: value` lines at the top of a trace file, and how many comment lines there are."""
    meta, skipped = {}, 0
    while skipped < len(lines) and lines[skipped].startswith("#"):
        key, sep, value = lines[skipped][1:].partition(":")
        if sep:
            meta[key.strip()] = value.strip()
        skipped += 1
    return meta, skipped


def _columns_used(path, head: list[str], z_col: str) -> dict[str, int]:
    """{k, u, x, z: index in the header} of the columns present (z: z_col's), or a ValueError for a header
    that names a column twice or has no observation column."""
    twice = sorted({h for h in head if head.count(h) > 1})
    if twice:
        raise ValueError(f"{path}: the header names column {', '.join(map(repr, twice))} more than once")
    if z_col not in head:
        raise ValueError(f"{path}: the header has no observation column {z_col!r} (it has: "
                         f"{', '.join(head) or 'nothing'}); the columns are k,u,z[,x], or name one with z_col")
    used = {name: head.index(name) for name in ("k", "u", "x") if name in head}
    used["z"] = head.index(z_col)
    return used


def _field(path, line_no: int, name: str, text: str, column: str) -> float:
    """One field of a data row as a number: an empty z is a missing observation (NaN); k an integer that fits
    64 bits."""
    if name == "z" and not text.strip():
        return float("nan")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{path}:{line_no}: column {column!r} is not a number: {text!r}") from None
    if name == "k" and not value.is_integer():
        raise ValueError(f"{path}:{line_no}: step index k={text} is not an integer")
    if name == "k" and not abs(value) < 2.0**63:
        raise ValueError(f"{path}:{line_no}: step index k={text} does not fit 64 bits")
    return value


def _read_columns(path, rows: list[list[str]], first_line: int, head: list[str],
                  used: dict[str, int]) -> tuple[dict[str, list[float]], list[int]]:
    """The used columns' values of the data rows (blank rows skipped), and the file line of each row."""
    cols: dict[str, list[float]] = {name: [] for name in used}
    row_lines = []
    for line_no, row in enumerate(rows, start=first_line):
        if not row:
            continue
        row_lines.append(line_no)
        if len(row) != len(head):
            raise ValueError(f"{path}:{line_no}: expected {len(head)} fields, got {len(row)}")
        for name, i in used.items():
            cols[name].append(_field(path, line_no, name, row[i], head[i]))
    return cols, row_lines


def _check_increasing(path, k: np.ndarray, row_lines: list[int]) -> None:
    """Steps must come in increasing k (gaps are steps the trace does not have): a k that repeats or goes back
    is refused, naming its line, rather than filtered out of order."""
    back = np.flatnonzero(np.diff(k) <= 0)
    if back.size:
        row = int(back[0]) + 1
        raise ValueError(f"{path}:{row_lines[row]}: step index k={k[row]} does not follow k={k[row - 1]}: the steps "
                         "must come in increasing k")


def simulate(model: StateSpaceModel, T: int, rng: np.random.Generator, u=None) -> Trace:
    """T steps of the model: x_0 from the prior, x_k = f(x_{k−1}, w_k, k, u_k), z_k = h(x_k, noise)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed)")
    u = np.zeros(T) if u is None else np.asarray(u, dtype=np.float64)
    x = np.empty(T)
    x[0] = model.prior.sample(rng)
    for k in range(1, T):
        x[k] = model.sample_transition(np.array(x[k - 1]), k, u[k], rng)
    z = model.sample_observation(x, rng)
    meta = {"system": model.name, "params": ",".join(repr(float(p)) for p in model.params)} if model.params else {}
    return Trace(np.arange(T), u, z, x, meta)


def simulate_many(model: StateSpaceModel, n_traces: int, T: int, seed: int) -> list[Trace]:
    """n_traces independent traces from one seed (trace i uses the i-th spawned stream)."""
    streams = np.random.SeedSequence(seed).spawn(n_traces)
    return [simulate(model, T, np.random.default_rng(s)) for s in streams]
