"""The subcommands of `uxhost`: each module has `register(subparsers)`, which sets `run(args) -> int`.

Modules are imported only to build the parser; heavy dependencies (matplotlib, the reference filter,
QEMU handling) are imported inside `run`, so `uxhost --help` stays fast.
"""

from __future__ import annotations

import importlib

COMMANDS = ("simulate", "qemu", "flash", "stream", "validate", "plot", "fit", "demo", "ports", "packs", "check")


def load(name: str):
    return importlib.import_module(f"{__name__}.{name}")
