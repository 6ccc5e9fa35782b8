"""Loading a trace CSV (k,u,z[,x], optional `# key: value` metadata lines first) and checking it for
what the link and the filter need; every error names the file and line. An empty (or `nan`) z is a
missing observation: the step is streamed without evidence and only predicts."""
from __future__ import annotations

import csv
import math
from pathlib import Path

from .errors import InputError

_U32 = 1 << 32


def load_trace(path, z_col: str = "z"):
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
    lines = _data_line_numbers(path)
    for name in ("z", "u", "x"):
        column = getattr(trace, name)
        if column is None:
            continue
        # A NaN z is a missing observation (an empty field); an infinite one is an error like any other.
        missing_ok = name == "z"
        bad = [i for i, v in enumerate(column) if not (math.isfinite(v) or (missing_ok and math.isnan(v)))]
        if bad:
            i = bad[0]
            label = z_col if name == "z" else name
            raise InputError(f"{path}:{lines[i]}: column {label!r} is not finite ({column[i]!r})")
    for i, k in enumerate(trace.k):
        if not 0 <= k < _U32:
            raise InputError(f"{path}:{lines[i]}: step index k={k} is outside 0 .. 2^32-1")
    return trace


def _data_line_numbers(path: Path) -> list[int]:
    """The file line of each data row (metadata lines and the header skipped, blank rows too)."""
    with path.open(newline="") as fh:
        lines = fh.read().splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    reader = csv.reader(lines[first:])
    next(reader, None)
    return [first + reader.line_num for row in reader if row]
