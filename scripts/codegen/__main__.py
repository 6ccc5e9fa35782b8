"""`python3 -m codegen [--check]` from scripts/: regenerate every generated file, or list the drifted ones."""

from __future__ import annotations

import importlib
import sys

from .common import ROOT, emit

# One module per source of truth; each exposes outputs() -> {path: text}.
GENERATORS: tuple[str, ...] = ("facts", "layouts", "systems", "protocol", "std_atoms", "uxm_tables")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    changed = []
    for name in GENERATORS:
        module = importlib.import_module(f"codegen.{name}")
        for path, text in module.outputs().items():
            if emit(path, text, check):
                changed.append(path.relative_to(ROOT))
    for path in changed:
        print(f"{'drifted' if check else 'generated'}: {path}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
