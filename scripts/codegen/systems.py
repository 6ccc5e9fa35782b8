"""The system table (firmware/src/models/systems.toml) → the C registry's data, the reference's table and
the table in docs/semantics.md."""

from __future__ import annotations

import tomllib
from pathlib import Path

from . import facts
from .common import ROOT, banner, replace_region

SOURCE = "firmware/src/models/systems.toml"
DOMAINS = {"real": "UX_PARAM_REAL", "positive": "UX_PARAM_POSITIVE", "nonnegative": "UX_PARAM_NONNEGATIVE"}
PRIORS = {"gaussian": "UX_LAW_GAUSSIAN", "laplace": "UX_LAW_LAPLACE"}
DOMAIN_TEXT = {"real": "", "positive": " > 0", "nonnegative": " ≥ 0"}


MAX_DIM = facts.limits()["MAX_DIM"]


def _prior_ok(prior) -> bool:
    return len(prior) == 3 and prior[0] in PRIORS and prior[2] > 0


def _entry(name: str, entry: dict, keys: set, ids: set, where: str) -> dict:
    """One checked entry: a bad one stops generation with its name."""
    if not name.isidentifier() or name != name.lower():
        raise SystemExit(f"{where}: a system name is a lower-case C identifier")
    if set(entry) != keys:
        raise SystemExit(f"{where}: needs exactly {', '.join(sorted(keys))} (has {sorted(entry)})")
    if not (isinstance(entry["id"], int) and 1 <= entry["id"] <= 255) or entry["id"] in ids:
        raise SystemExit(f"{where}: id must be an integer in 1…255, unique across scalar and joint systems")
    ids.add(entry["id"])
    for p in entry["params"]:
        if len(p) != 3 or not str(p[0]).isidentifier() or p[2] not in DOMAINS:
            raise SystemExit(f"{where}: parameter {p!r} is not [name, default, {'|'.join(DOMAINS)}]")
    return {"name": name, **entry}


def load() -> tuple[list[dict], list[dict]]:
    """The scalar systems and the joint systems ([joint.NAME]), each in file order, checked."""
    table = tomllib.loads((ROOT / SOURCE).read_text(encoding="utf-8"))
    joint_table = table.pop("joint", {})
    systems, joint, ids = [], [], set()
    for name, entry in table.items():
        s = _entry(name, entry, {"id", "title", "params", "prior"}, ids, f"{SOURCE} [{name}]")
        if not _prior_ok(s["prior"]):
            raise SystemExit(f"{SOURCE} [{name}]: prior must be [{'|'.join(PRIORS)}, loc, scale > 0]")
        systems.append(s)
    for name, entry in joint_table.items():
        where = f"{SOURCE} [joint.{name}]"
        s = _entry(name, entry, {"id", "dim", "title", "params", "prior"}, ids, where)
        if not (isinstance(s["dim"], int) and 2 <= s["dim"] <= MAX_DIM):
            raise SystemExit(f"{where}: dim must be an integer in 2…{MAX_DIM}")
        if len(s["prior"]) != s["dim"] or not all(_prior_ok(p) for p in s["prior"]):
            raise SystemExit(f"{where}: prior must hold dim entries [{'|'.join(PRIORS)}, loc, scale > 0]")
        joint.append(s)
    return systems, joint


def _c_law(prior) -> str:
    law, loc, scale = prior
    return f"{{{PRIORS[law]}, {float(loc)!r}, {float(scale)!r}, 0.0}}"


def c_table(systems: list[dict], joint: list[dict]) -> str:
    out = [banner(SOURCE, "//"), '#include "ux/joint_model.h"\n#include "ux/model.h"\n']
    for s in systems:
        out.append(f"extern const ux_model_code ux_code_{s['name']};")
    for s in joint:
        out.append(f"extern const ux_joint_model_code ux_jcode_{s['name']};")
    for s in systems + joint:
        n = s["name"]
        names = ", ".join(f'"{p[0]}"' for p in s["params"])
        out.append(f"\nstatic const char *const {n}_param_names[] = {{{names}}};")
        out.append(f"static const ux_real {n}_defaults[] = {{{', '.join(repr(float(p[1])) for p in s['params'])}}};")
        out.append(f"static const uint8_t {n}_domains[] = {{{', '.join(DOMAINS[p[2]] for p in s['params'])}}};")
    out.append("\nconst ux_model ux_models[] = {")
    for s in systems:
        n = s["name"]
        out.append(
            f'    {{{s["id"]}, "{n}", "{s["title"]}", {len(s["params"])}, {n}_param_names, {n}_defaults, '
            f"{n}_domains, {_c_law(s['prior'])}, &ux_code_{n}}},"
        )
    out.append("};\n\nconst unsigned ux_models_count = sizeof ux_models / sizeof ux_models[0];\n")
    out.append("const ux_joint_model ux_joint_models[] = {")
    for s in joint:
        n = s["name"]
        priors = ", ".join(_c_law(p) for p in s["prior"])
        out.append(
            f'    {{{s["id"]}, "{n}", "{s["title"]}", {len(s["params"])}, {n}_param_names, {n}_defaults, '
            f"{n}_domains, {s['dim']}, {{{priors}}}, &ux_jcode_{n}}},"
        )
    out.append("};\n\nconst unsigned ux_joint_models_count = sizeof ux_joint_models / sizeof ux_joint_models[0];\n")
    return "\n".join(out)


def _py_prior(prior) -> str:
    law, loc, scale = prior
    return f"({law!r}, {float(loc)!r}, {float(scale)!r})"


def _py_rows(systems: list[dict], joint: bool) -> str:
    rows = []
    for s in systems:
        params = ", ".join(f"({p[0]!r}, {float(p[1])!r}, {p[2]!r})" for p in s["params"])
        dim = f" \"dim\": {s['dim']}," if joint else ""
        prior = "(" + ", ".join(_py_prior(p) for p in s["prior"]) + ",)" if joint else _py_prior(s["prior"])
        rows.append(
            f"    {{\"id\": {s['id']}, \"name\": {s['name']!r}, \"title\": {s['title']!r},{dim}\n"
            f"     \"params\": ({params},),\n"
            f"     \"prior\": {prior}}},"
        )
    return "\n".join(rows)


def py_table(systems: list[dict], joint: list[dict]) -> str:
    return (
        banner(SOURCE, "#") + '"""The systems of the one system table, as data (see uxemu.systems and '
        'uxemu.joint_systems)."""\n\n'
        "TABLE = (\n" + _py_rows(systems, False) + "\n)\n\n"
        "JOINT_TABLE = (\n" + _py_rows(joint, True) + "\n)\n"
    )


def _doc_prior(prior) -> str:
    law, loc, scale = prior
    return f"{law}({loc:g}, {scale:g})"


def doc_table(systems: list[dict], joint: bool = False) -> str:
    lines = [
        f"| id | name | system |{' dim |' if joint else ''} parameters, in order (default) | default prior |",
        f"|---|---|---|{'---|' if joint else ''}---|---|",
    ]
    for s in systems:
        params = ", ".join(f"`{p[0]}`{DOMAIN_TEXT[p[2]]} ({p[1]:g})" for p in s["params"])
        prior = " × ".join(_doc_prior(p) for p in s["prior"]) if joint else _doc_prior(s["prior"])
        dim = f" {s['dim']} |" if joint else ""
        lines.append(f"| {s['id']} | `{s['name']}` | {s['title']} |{dim} {params} | {prior} |")
    return "\n".join(lines) + "\n"


def limits_header(joint: list[dict]) -> str:
    largest = max((s["dim"] for s in joint), default=1)
    return (
        banner(SOURCE, "//")
        + "#ifndef UX_SYSTEMS_LIMITS_H\n#define UX_SYSTEMS_LIMITS_H\n\n"
        + "/* The largest state dimension of the table's joint systems: what a firmware sizes its joint workspace\n"
        + " * for unless its board says otherwise (APP_JOINT_MAX_DIM). */\n"
        + f"#define UX_JOINT_SYSTEMS_MAX_DIM {largest}\n\n"
        + "#endif /* UX_SYSTEMS_LIMITS_H */\n"
    )


def outputs() -> dict[Path, str]:
    systems, joint = load()
    doc = ROOT / "docs/semantics.md"
    text = replace_region(doc.read_text(encoding="utf-8"), "systems", doc_table(systems))
    text = replace_region(text, "joint-systems", doc_table(joint, joint=True))
    return {
        ROOT / "firmware/src/models/systems_table.c": c_table(systems, joint),
        ROOT / "emulator/uxemu/system_table.py": py_table(systems, joint),
        ROOT / "firmware/include/ux/systems_limits.h": limits_header(joint),
        doc: text,
    }
