"""Writing results: markdown tables, summary CSV, and the raw task results saved compressed, so that every
results file can be rendered again from them (`python -m uxbench … --render`) without rerunning."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import sys
from pathlib import Path

from . import environment

RESULTS = Path(__file__).resolve().parents[1] / "results"  # benchmarks/results: where committed results live


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


def write_csv(path: Path, records: list[dict]) -> None:
    keys = sorted({k for r in records for k in r})
    with Path(path).open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(records)


def save_figure(fig, path, dpi=None) -> None:
    """`fig` as a PNG of at most 256 colours (palette_png): a plot of lines and markers looks the same."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    Path(path).write_bytes(palette_png(buffer.getvalue()))


def palette_png(png: bytes) -> bytes:
    """A PNG again with a 256-colour palette, no dithering: a third of matplotlib's RGBA bytes, so the
    committed plots stay a small share of the repository."""
    from PIL import Image  # matplotlib's own dependency

    image = (
        Image.open(io.BytesIO(png))
        .convert("RGB")
        .quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


# -- the raw results of a run --------------------------------------------------------------------------
def results_path(out_dir, name: str) -> Path:
    return Path(out_dir) / f"{name}_results.json.gz"


# Significant digits a sweep's raw results keep: the tables print at most six, and the 17 of a double's repr
# doubled the committed files for digits no table or conclusion reads.
RAW_DIGITS = 6


def rounded(data, digits: int = RAW_DIGITS):
    """`data` (JSON-like: dicts, lists, numbers) with every float rounded to `digits` significant digits."""
    if isinstance(data, float):
        return float(f"{data:.{digits}g}")
    if isinstance(data, dict):
        return {k: rounded(v, digits) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [rounded(v, digits) for v in data]
    return data


def save_run(out_dir, name: str, results: list, meta: dict) -> list:
    """{meta, results} as gzip'd JSON (write_json_gz), the results' floats `rounded`; returns those rounded
    results, which the run's own tables are drawn from, so that `--render` draws the same."""
    kept = rounded(results)
    write_json_gz(results_path(out_dir, name), {"meta": meta, "results": kept})
    return kept


def load_run(out_dir, name: str) -> tuple[list, dict]:
    path = results_path(out_dir, name)
    if not path.exists():
        raise SystemExit(f"uxbench: {path} is missing: run the benchmark first (without --render)")
    data = read_json_gz(path)
    return data["results"], data["meta"]


def write_json_gz(path, data) -> None:
    """`data` as gzip'd JSON, no name and mtime 0 in its header, so the same results give the same bytes: how
    every raw result is committed (a fraction of plain JSON's lines)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(json.dumps(data, default=float).encode())


def write_study(results: dict, args) -> None:
    """A study's results files (its `report`): the markdown at --out, its record as .json.gz beside it."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(results["markdown"])
    write_json_gz(args.out.with_suffix(".json.gz"), results["record"])
    print(f"wrote {args.out} (+ {args.out.with_suffix('.json.gz').name})", file=sys.stderr)


def read_json_gz(path):
    with gzip.open(path, "rt") as fh:
        return json.load(fh)


def run_meta(seconds: float | None = None, sizes: dict | None = None) -> dict:
    """Where and when the numbers were taken (uxbench.environment's block), with the run's wall time."""
    return environment.block(sizes, seconds)


def statement(meta: dict | None, size_name: str | None, bench: str, how: str) -> str:
    """The one line at the top of a results file: how the numbers were taken and how to regenerate them."""
    m = meta or {}
    where = environment.describe(m)
    rescored = m.get("density_rescored")
    if rescored:
        where += (
            f"; the ux rows' NLL scored again with the filter density of commit {rescored.get('commit')} "
            f"(`--rescore-density`, {rescored.get('rows')} runs, each reproducing its RMSE bit for bit)"
        )
    retimed = m.get("retimed")
    if retimed:
        where += (
            f"; every latency timed again at commit {retimed.get('commit')}, load average "
            f"{fmt(retimed.get('load_avg'), 3)} (`--retime`; the accuracy is the run's)"
        )
    if size_name is None:
        return f"{how} Measured on {where}, at a custom size (not one of the benchmark's SIZES).\n"
    cmd = f".venv/bin/python -m uxbench --{size_name} --only {bench}"
    return (
        f"{how} Measured on {where}. Regenerate: `{cmd}`; render these files again from "
        f"`{bench}_results.json.gz`: `{cmd} --render`.\n"
    )
