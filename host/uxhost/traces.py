"""Loading a trace CSV (k,u,z[,x], or k,u,z0 …[,x0 …] for a vector-state system; optional `# key: value`
metadata lines first) and checking it for what the link and the filter need; every error names the file
and line. An empty (or `nan`) z is a missing observation: the step is streamed without evidence and only
predicts."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import numpy as np

from .errors import InputError

_U32 = 1 << 32


def load_trace(path, z_col: str = "z", dim_obs: int | None = None, dim: int | None = None):
    """The one trace reader of the host: a uxemu.Trace of a scalar system's CSV (k,u,z[,x]) or of a
    vector-state one's (k,u,z0 … [,x0 …]: rows). `dim_obs` / `dim`, given for a vector-state system, must be
    its observation / state components; its z is then rows even where the CSV has one z column."""
    from uxemu import Trace

    path = Path(path)
    try:
        trace = Trace.from_csv(path, z_col)
    except FileNotFoundError:
        raise InputError(f"trace file {path} does not exist") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text CSV file") from None
    except (ValueError, csv.Error) as exc:
        raise InputError(f"malformed trace: {exc}") from None
    if len(trace) == 0:
        raise InputError(f"{path}: the trace has no rows")
    if dim_obs is not None:
        trace = _as_rows(path, trace, dim_obs, dim)
    lines = _data_line_numbers(path)
    for name in ("z", "u", "x"):
        column = getattr(trace, name)
        if column is None:
            continue
        # A NaN z is a missing observation (an empty field); an infinite one is an error like any other.
        missing_ok = name == "z"
        bad = np.argwhere(~(np.isfinite(column) | (missing_ok & np.isnan(column))))
        if bad.size:
            i, c = int(bad[0][0]), (int(bad[0][1]) if column.ndim == 2 else None)
            label = (z_col if name == "z" else name) if c is None else f"{name}{c}"
            value = column[i] if c is None else column[i, c]
            raise InputError(f"{path}:{lines[i]}: column {label!r} is not finite ({float(value)!r})")
    for i, k in enumerate(trace.k):
        if not 0 <= k < _U32:
            raise InputError(f"{path}:{lines[i]}: step index k={k} is outside 0 .. 2^32-1")
    return trace


def _as_rows(path: Path, trace, dim_obs: int, dim: int | None):
    """A vector-state system's trace: z (and x) as rows, their widths checked against the system's."""
    z = trace.z.reshape(len(trace), -1)
    if z.shape[1] != dim_obs:
        raise InputError(f"{path}: {z.shape[1]} observation column(s); the system observes {dim_obs} per step")
    x = None if trace.x is None else trace.x.reshape(len(trace), -1)
    if x is not None and dim is not None and x.shape[1] != dim:
        raise InputError(f"{path}: {x.shape[1]} state column(s); the system's state has {dim} components")
    return dataclasses.replace(trace, z=z, x=x)


def _data_line_numbers(path: Path) -> list[int]:
    """The file line of each data row (metadata lines and the header skipped, blank rows too)."""
    with path.open(newline="") as fh:
        lines = fh.read().splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    reader = csv.reader(lines[first:])
    next(reader, None)
    return [first + reader.line_num for row in reader if row]
