"""The reference's standard quantizations (uxemu.laws.standard_atoms) → the C core's table of them.

A Gaussian, Laplace, Uniform or Exponential law is quantized as loc + scale·(its standard law's atoms),
so the C core needs those atoms only once, as constants. They are the reference's numbers, written as
exact hexadecimal floats, so both sides scale the same bits. Needs numpy and scipy (the venv's python).
"""

from __future__ import annotations

import sys

from . import facts
from .common import ROOT, banner

SOURCE = "emulator/uxemu/laws.py (STANDARD_FORMS, standard_atoms)"
OUTPUT = ROOT / "firmware/src/ux/std_atoms.c"
MAX_LOG2_ETA = facts.limits()["MAX_LOG2_ETA"]
# The C name of each law class with a standard form; a new form without one stops generation.
C_KINDS = {
    "Normal": "UX_LAW_GAUSSIAN",
    "Laplace": "UX_LAW_LAPLACE",
    "Uniform": "UX_LAW_UNIFORM",
    "Exponential": "UX_LAW_EXPONENTIAL",
}


def forms():
    sys.path.insert(0, str(ROOT / "emulator"))
    from uxemu import laws

    for cls in laws.STANDARD_FORMS:
        if cls.__name__ not in C_KINDS:
            raise SystemExit(f"codegen: {cls.__name__} has a standard form but no C law kind in {__name__}")
        yield cls.__name__, C_KINDS[cls.__name__], laws.standard_atoms


def c_array(name: str, values) -> str:
    body = ",\n".join(f"    UX_R({float(v).hex()})" for v in values)
    return f"static const ux_real {name}[{len(values)}] = {{\n{body},\n}};\n"


def c_source() -> str:
    out = [
        banner(SOURCE, "//"),
        '#include "internal.h"\n',
        "/* Per law: the standard atoms at 2^n atoms for n = 0 … UX_MAX_LOG2_ETA, one level after the other\n"
        " * (level n starts at index 2^n − 1); weights normalised. */\n",
    ]
    cases = []
    for cls_name, kind, standard_atoms in forms():
        xs, ws = [], []
        for n in range(MAX_LOG2_ETA + 1):
            x, w = standard_atoms(getattr(sys.modules["uxemu.laws"], cls_name), n)
            if x.size != 1 << n:
                raise SystemExit(f"codegen: standard {cls_name} has {x.size} atoms at n = {n}, not {1 << n}")
            xs.extend(x)
            ws.extend(w)
        low = cls_name.lower()
        out.append(c_array(f"{low}_x", xs))
        out.append(c_array(f"{low}_w", ws))
        cases.append(
            f"    case {kind}:\n        *x = {low}_x + first;\n        *w = {low}_w + first;\n" "        return 1;\n"
        )
    out.append(
        "\nint ux_std_atoms(ux_law_kind kind, unsigned n, const ux_real **x, const ux_real **w)\n{\n"
        "    size_t first = ((size_t)1 << n) - 1;\n"
        "    if (n > UX_MAX_LOG2_ETA)\n        return 0;\n"
        "    switch (kind) {\n" + "".join(cases) + "    default:\n        return 0;\n    }\n}\n"
    )
    return "\n".join(out)


def outputs():
    return {OUTPUT: c_source()}
