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
    """One row per step. A scalar system's z (and x) are 1-D; a vector-state system's are rows, z of dim_obs
    components (CSV columns z0, z1, …) and x of dim (x0, x1, …)."""

    k: np.ndarray
    u: np.ndarray
    z: np.ndarray
    x: np.ndarray | None = None  # the true state, when known
    meta: dict[str, str] = field(default_factory=dict)  # e.g. {"system": "gss", "params": "3.0,1.0"}

    def __len__(self) -> int:
        return len(self.z)

    def observation(self, i: int):
        """Row i's observation (a number, or a row of components), or None for a step without one."""
        z = self.z[i]
        return None if np.isnan(z).any() else z

    def to_csv(self, path) -> None:
        path = Path(path)
        rows = self.z.ndim == 2
        # Each layout keeps the bytes it has always been written with (rows: "\n" line ends, UTF-8).
        with path.open("w", newline="", encoding="utf-8" if rows else None) as fh:
            for key, value in self.meta.items():
                fh.write(f"# {key}: {value}\n")
            out = csv.writer(fh, lineterminator="\n") if rows else csv.writer(fh)
            out.writerow(["k", "u", *_names("z", self.z)] + (_names("x", self.x) if self.x is not None else []))
            for i in range(len(self)):
                z = ["" if np.isnan(v) else repr(float(v)) for v in np.atleast_1d(self.z[i])]
                x = [] if self.x is None else [repr(float(v)) for v in np.atleast_1d(self.x[i])]
                out.writerow([int(self.k[i]), repr(float(self.u[i])), *z, *x])

    @classmethod
    def from_csv(cls, path, z_col: str = "z") -> "Trace":
        """Reads a trace. The observation is column `z_col`, or the columns z0, z1, … of a vector-state
        system's trace (whose true state is then x0, x1, …); k, u and x are used when present; any other
        column (a timestamp, a second sensor) is ignored. k must hold integers (1.5 is refused, not cut) that fit
        64 bits. A header naming a column twice is refused (which copy is meant?), as is a z_col that names
        k, u or x. A UTF-8 byte-order mark (a spreadsheet's export) is not part of the first column's name."""
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"trace file {path} does not exist")
        if z_col in ("k", "u", "x"):
            raise ValueError(
                f"{path}: {z_col!r} is the trace's {TRACE_COLUMNS[z_col]} column, not an observation; "
                "name the observation's column"
            )
        meta, skipped = {}, 0
        with path.open(newline="", encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines(keepends=True)
        while skipped < len(lines) and lines[skipped].startswith("#"):
            key, sep, value = lines[skipped][1:].partition(":")
            if sep:
                meta[key.strip()] = value.strip()
            skipped += 1
        rows = list(csv.reader(lines[skipped:]))
        head = [h.strip() for h in rows[0]] if rows else []
        z_cols, x_cols = _columns(path, head, z_col, skipped + 1)
        used = {name: head.index(name) for name in ("k", "u") if name in head}
        cols = {name: [] for name in used}
        z_rows, x_rows = [], []
        row_lines = []  # the file line of each data row
        for line_no, row in enumerate(rows[1:], start=skipped + 2):
            if not row:
                continue
            row_lines.append(line_no)
            if len(row) != len(head):
                raise ValueError(f"{path}:{line_no}: expected {len(head)} fields, got {len(row)}")
            where = f"{path}:{line_no}"
            for name, i in used.items():
                cols[name].append(_number(row[i], head[i], where, index=name == "k"))
            z_rows.append(_observation(row, head, z_cols, where))
            x_rows.append([_number(row[head.index(c)], c, where) for c in x_cols])
        vector = z_col not in head
        z = np.array(z_rows) if vector else np.array([r[0] for r in z_rows])
        k = np.array(cols["k"], dtype=np.int64) if "k" in cols else np.arange(len(z))
        _check_increasing(path, k, row_lines)
        u = np.array(cols["u"]) if "u" in cols else np.zeros(len(z))
        x = None
        if x_cols:
            x = np.array(x_rows) if vector else np.array([r[0] for r in x_rows])
        return cls(k, u, z, x, meta)


def _names(prefix: str, values: np.ndarray) -> list[str]:
    """The CSV columns of z or x: "z" for a scalar's, "z0", "z1", … for rows."""
    return [f"{prefix}{c}" for c in range(values.shape[1])] if values.ndim == 2 else [prefix]


def _columns(path, head: list[str], z_col: str, line: int) -> tuple[list[str], list[str]]:
    """The observation and true-state columns the header names: z_col and x, or z0, z1, … and x0, x1, …"""
    twice = sorted({h for h in head if head.count(h) > 1})
    if twice:
        raise ValueError(f"{path}:{line}: the header names column {', '.join(map(repr, twice))} more than once")
    if z_col in head:
        return [z_col], ["x"] if "x" in head else []
    z_cols = [h for h in head if h[:1] == "z" and h[1:].isdigit()]
    x_cols = [h for h in head if h[:1] == "x" and h[1:].isdigit()]
    if z_col != "z" or not z_cols:
        raise ValueError(
            f"{path}: the header has no observation column {z_col!r} (it has: "
            f"{', '.join(head) or 'nothing'}); the columns are k,u,z[,x], or name one with z_col"
        )
    if z_cols != [f"z{c}" for c in range(len(z_cols))] or x_cols != [f"x{c}" for c in range(len(x_cols))]:
        raise ValueError(f"{path}:{line}: columns z0, z1, … (and x0, x1, …) in order, none skipped")
    return z_cols, x_cols


def _number(text: str, column: str, where: str, index: bool = False) -> float:
    """A field's number; with `index`, a step index k: an integer that fits 64 bits."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: column {column!r} is not a number: {text!r}") from None
    if index and not value.is_integer():
        raise ValueError(f"{where}: step index k={text} is not an integer")
    if index and not abs(value) < 2.0**63:
        raise ValueError(f"{where}: step index k={text} does not fit 64 bits")
    return value


def _observation(row: list[str], head: list[str], z_cols: list[str], where: str) -> list[float]:
    """A row's observation components; every field empty (a missing observation) gives NaN in each."""
    fields = [row[head.index(c)].strip() for c in z_cols]
    if all(f == "" for f in fields):
        return [float("nan")] * len(fields)
    if any(f == "" for f in fields):
        raise ValueError(
            f"{where}: some observation components are empty: a missing observation leaves " "every z field empty"
        )
    return [_number(f, c, where) for f, c in zip(fields, z_cols)]


def _check_increasing(path, k: np.ndarray, row_lines: list[int]) -> None:
    """Steps must come in increasing k (gaps are steps the trace does not have): a k that repeats or goes back
    is refused, naming its line, rather than filtered out of order."""
    back = np.flatnonzero(np.diff(k) <= 0)
    if back.size:
        row = int(back[0]) + 1
        raise ValueError(
            f"{path}:{row_lines[row]}: step index k={k[row]} does not follow k={k[row - 1]}: the steps "
            "must come in increasing k"
        )


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
