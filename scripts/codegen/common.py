"""What every generator of this repository shares: a banner that marks a file as generated, and a writer
that either updates the file (only when its text changes, so `make` sees no spurious change) or, in
check mode, reports the drift without touching anything.

A generator is a module with ``outputs() -> dict[Path, str]``; ``python3 -m codegen`` (run from
``scripts/``) writes them all, ``python3 -m codegen --check`` fails when a checked-in file differs.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def banner(source: str, prefix: str) -> str:
    """The first lines of a generated file, as comments with `prefix` ('//', '#', …)."""
    lines = [
        f"GENERATED from {source} by scripts/codegen — do not edit by hand.",
        "Change the source and run `make generate`; tests fail when this file and its source drift apart.",
    ]
    return "".join(f"{prefix} {line}\n" for line in lines)


def emit(path: Path, text: str, check: bool) -> bool:
    """Write `text` to `path` unless it is already there. Returns True when the file was (or, in check
    mode, would be) changed."""
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current == text:
        return False
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return True


def replace_region(text: str, name: str, content: str) -> str:
    """`text` with the lines between the markers `<!-- BEGIN GENERATED name -->` and
    `<!-- END GENERATED name -->` replaced by `content` (a generated table inside hand-written prose)."""
    begin, end = f"<!-- BEGIN GENERATED {name} -->", f"<!-- END GENERATED {name} -->"
    head, sep, rest = text.partition(begin)
    if not sep or end not in rest:
        raise SystemExit(f"codegen: markers for {name!r} not found ({begin} … {end})")
    tail = rest.partition(end)[2]
    return f"{head}{begin}\n{content}{end}{tail}"
