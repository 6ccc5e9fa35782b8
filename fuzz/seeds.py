"""Seed inputs of the fuzz harnesses, written as files: the golden frames' requests for the link (each
case's requests in sequence, as a device receives them), and for the core one input per law kind and per
system × likelihood × mode with the table's own numbers, and one per answered status of an update (the
shapes of core_fuzz.c's input), and for the cell filter one per joint system and η (cells_fuzz.c)."""

from __future__ import annotations

import struct
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "emulator"))

LAWS = [
    (0, 0.0, 1.0, 0.0),
    (1, 0.5, 2.0, 0.0),
    (2, -1.0, 3.0, 0.0),
    (3, 2.0, 0.0, 0.0),
    (4, 3.0, 0.0, 1.0),
    (5, 0.0, 0.5, 0.0),
    (6, 4.0, 0.0, 0.0),
]


def frames() -> dict[str, bytes]:
    table = tomllib.loads((ROOT / "tests" / "golden" / "frames.toml").read_text(encoding="utf-8"))
    return {case["name"]: b"".join(bytes.fromhex(x["request"]) for x in case["exchange"]) for case in table["case"]}


def core() -> dict[str, bytes]:
    from uxemu import systems

    out = {}
    for kind, a, b, c in LAWS:
        out[f"law-{kind}"] = bytes([1, 4, kind]) + struct.pack("<ddd", a, b, c)
    observe = bytes([1, 1, 0, 0]) + struct.pack("<ddd", 0.5, 1.0, 0.1)  # J, m, ω given?, predict?; z, ω, t
    predict = bytes([0, 0, 0, 1]) + struct.pack("<d", 0.0)  # …, predict: u
    missing = bytes([0, 0, 0, 0]) + struct.pack("<d", 0.0)  # J = 0, m = 0: no observation; t
    for index, spec in enumerate(systems.SPECS.values()):
        for lik in (0, 1):
            for mode in (0, 1):
                head = bytes([0, index, 3, mode, lik]) + bytes(len(spec.params)) + bytes([0])  # defaults, prior
                steps = [observe, predict, observe, predict, missing, predict, observe]
                out[f"{spec.name}-lik{lik}-mode{mode}"] = head + bytes([len(steps)]) + b"".join(steps)
    # One seed per answered status beyond OK and NO_EVIDENCE (defaults, η = 8, kernel): on lg, a prior far
    # wider than the likelihood in mixture mode (REFOCUSED; refined takes the linear update), an observation
    # 60 sd off (OUTLIER) and one so far off that every likelihood is zero (FALLBACK); on gss, whose kernel is
    # curved, a reading back near the data after one 50 off that the posterior did not follow (DEPARTED); on lg,
    # readings 3–5 sd off by turns, each within the gate, until their running mean passes 3 (INCONSISTENT).
    specs = list(systems.SPECS.values())

    def head(name: str, mode: int, prior=None) -> bytes:
        index = next(i for i, s in enumerate(specs) if s.name == name)
        out = bytes([0, index, 3, mode, 0]) + bytes(len(specs[index].params))
        return out + (bytes([1, prior[0]]) + struct.pack("<dd", *prior[1:]) if prior else bytes([0]))

    def obs(z: float) -> bytes:
        return bytes([1, 1, 0, 0]) + struct.pack("<ddd", z, 1.0, 0.0)

    for name, first, steps in (
        ("refocused", head("lg", 2, (0, 0.0, 1e4)), [obs(0.5), predict, obs(0.5)]),
        ("outlier", head("lg", 0), [obs(0.5), predict, obs(0.4), predict, obs(60.0)]),
        ("fallback", head("lg", 0), [obs(0.5), predict, obs(1e200)]),
        ("departed", head("gss", 0), [obs(0.5), predict, obs(0.4), predict, obs(50.0), predict, obs(0.5)]),
        ("inconsistent", head("lg", 0), [obs(0.5), predict, obs(4.5), predict, obs(-4.0), predict, obs(4.5)]),
    ):
        out[f"status-{name}"] = first + bytes([len(steps)]) + b"".join(steps)
    return out


def cells() -> dict[str, bytes]:
    """cells_fuzz.c's input: (system, log2 η, a flag per parameter — 0: its default —, a prior flag, steps),
    each step (J, m, ω flag, predict flag) then u, or z's dim_obs components; one seed per joint system and η,
    and one whose observation no cell can explain (FALLBACK)."""
    from uxemu import joint_systems

    def obs(*z: float) -> bytes:
        return bytes([1, 1, 0, 0]) + struct.pack(f"<{len(z)}d", *z)

    predict = bytes([0, 0, 0, 1]) + struct.pack("<d", 0.0)
    out = {}
    for index, name in enumerate(joint_systems.names()):
        spec = joint_systems.spec(name)
        _, z = joint_systems.simulate(joint_systems.get(name), 3, seed=1)
        for log2 in (0, 2, 4):
            steps = [obs(*z[0]), predict, obs(*z[1]), predict, bytes([0, 0, 0, 0]), predict, obs(*z[2])]
            head = bytes([index, log2]) + bytes(len(spec.params)) + bytes([0])
            out[f"{name}-eta{1 << log2}"] = head + bytes([len(steps)]) + b"".join(steps)
    head = bytes([1, 3]) + bytes(len(joint_systems.spec(joint_systems.names()[1]).params)) + bytes([0])
    out["fallback"] = head + bytes([1]) + obs(1e200)
    return out


SEEDS = {"frames": frames, "core": core, "cells": cells}


def write(harness: str, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in SEEDS[harness]().items():
        path = directory / f"seed-{name}"
        path.write_bytes(data)
        paths.append(path)
    return paths
