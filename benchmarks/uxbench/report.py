"""Writing results: markdown tables beside the paper's rows, raw numbers as CSV and JSON."""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path


def fmt(v, digits: int = 6) -> str:
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "—"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-4):
            return f"{v:.3e}"
        return f"{v:.{digits}g}"
    return str(v)


def markdown_table(columns: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def write_raw(out_dir: Path, name: str, records: list[dict], meta: dict) -> None:
    """records → NAME.csv (one row each) and NAME.json (with the run's metadata: sizes, seeds, machine)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    keys = sorted({k for r in records for k in r})
    with (out_dir / f"{name}.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(records)
    (out_dir / f"{name}.json").write_text(json.dumps({"meta": meta, "records": records}, indent=1, default=float))


def machine() -> dict:
    import os
    import platform
    return {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "load_avg": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}
