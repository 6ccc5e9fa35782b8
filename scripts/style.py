"""`python3 -m style [--fix]` from scripts/ (make lint, make format): ruff's lint and format check over the
tracked Python, clang-format over the tracked C, each skipping the files scripts/codegen writes (their
generator owns their layout, and a drift test holds them to it). --fix formats instead of checking."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

from codegen.__main__ import GENERATORS
from codegen.common import ROOT

C_SUFFIXES = (".c", ".h")


def generated() -> set[Path]:
    """Every file a generator writes whole."""
    paths: set[Path] = set()
    for name in GENERATORS:
        paths.update(p.resolve() for p in importlib.import_module(f"codegen.{name}").outputs())
    return paths


def tracked(suffixes: tuple[str, ...], skip: set[Path]) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    names = [n for n in out.decode().split("\0") if n.endswith(suffixes)]
    return [n for n in names if (ROOT / n).resolve() not in skip and (ROOT / n).exists()]


def tool(name: str) -> str:
    found = shutil.which(name) or (str(Path(sys.executable).parent / name) if name == "ruff" else None)
    if not found or not Path(found).exists():
        raise SystemExit(f"style: {name} is not installed (make deps / make venv install it)")
    return found


def run(args: list[str]) -> int:
    return subprocess.run(args, cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    fix = "--fix" in argv
    skip = generated()
    python, c = tracked((".py",), skip), tracked(C_SUFFIXES, skip)
    ruff, clang = tool("ruff"), tool("clang-format")
    if fix:
        return run([ruff, "format", *python]) or run([clang, "-i", "--style=file", *c])
    failed = run([ruff, "check", "--quiet", *python]) | run([ruff, "format", "--check", "--quiet", *python])
    failed |= run([clang, "--dry-run", "--Werror", "--style=file", *c])
    if failed:
        print("style: run `make format` (and fix what ruff check names)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
