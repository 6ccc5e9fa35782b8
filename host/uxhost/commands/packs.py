"""`uxhost packs`: debug-probe targets and CMSIS packs, offline."""

from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    parser = sub.add_parser(
        "packs",
        help="list pyOCD targets; add a local CMSIS pack (.pdsc/.pack), offline",
        description="pyOCD's built-in targets, and CMSIS packs added from local files: "
        "each device's core, FPU, memory and flash algorithms, and the build "
        "a board with it takes. Nothing is downloaded.",
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    targets = verbs.add_parser("targets", help="pyOCD's built-in targets (with flash algorithms)")
    targets.add_argument("pattern", nargs="?", default="", help="only names containing this text")
    add = verbs.add_parser("add", help="add a local .pdsc or .pack to the pack store")
    add.add_argument("file", type=Path)
    verbs.add_parser("list", help="the devices of the packs added so far")
    for p in (add, verbs.choices["list"]):
        p.add_argument("--store", type=Path, help="pack store (default: $UXHOST_PACKS or ~/.cache/uxhost/packs)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from .. import packs

    if args.verb == "targets":
        names = [t for t in packs.probe_targets() if args.pattern.lower() in t]
        print("\n".join(names) if names else f"no pyOCD target contains {args.pattern!r}")
        return 0
    found = packs.add_pack(args.file, args.store) if args.verb == "add" else list(packs.devices(args.store).values())
    if not found:
        print("no packs added yet: uxhost packs add FILE.pdsc")
    for d in found:
        kind, flags = d.build()
        print(
            f"{d.name}: {d.core}, FPU {d.fpu or 'none'}, flash {d.flash // 1024} KiB, RAM {d.ram // 1024} KiB, "
            f"{len(d.algorithms)} flash algorithm(s) ({d.pack})"
        )
        print(f"  board.mk: BOARD_CPU := {flags}   ({kind} build)")
    return 0
