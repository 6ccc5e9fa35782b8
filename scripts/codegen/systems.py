"""The system table (firmware/src/models/systems.toml) → the C registry's data, the reference's table and
the table in docs/semantics.md."""
from __future__ import annotations

import tomllib
from pathlib import Path

from .common import ROOT, banner, replace_region

SOURCE = "firmware/src/models/systems.toml"
DOMAINS = {"real": "UX_PARAM_REAL", "positive": "UX_PARAM_POSITIVE", "nonnegative": "UX_PARAM_NONNEGATIVE"}
PRIORS = {"gaussian": "UX_LAW_GAUSSIAN", "laplace": "UX_LAW_LAPLACE"}
DOMAIN_TEXT = {"real": "", "positive": " > 0", "nonnegative": " ≥ 0"}


def load() -> list[dict]:
    """The table's entries in file order, checked: a bad entry stops generation with its name."""
    table = tomllib.loads((ROOT / SOURCE).read_text(encoding="utf-8"))
    systems, ids = [], set()
    for name, entry in table.items():
        where = f"{SOURCE} [{name}]"
        if not name.isidentifier() or name != name.lower():
            raise SystemExit(f"{where}: a system name is a lower-case C identifier")
        if set(entry) != {"id", "title", "params", "prior"}:
            raise SystemExit(f"{where}: needs exactly id, title, params, prior (has {sorted(entry)})")
        if not (isinstance(entry["id"], int) and 1 <= entry["id"] <= 255) or entry["id"] in ids:
            raise SystemExit(f"{where}: id must be a unique integer in 1…255")
        ids.add(entry["id"])
        for p in entry["params"]:
            if len(p) != 3 or not str(p[0]).isidentifier() or p[2] not in DOMAINS:
                raise SystemExit(f"{where}: parameter {p!r} is not [name, default, {'|'.join(DOMAINS)}]")
        law, loc, scale = entry["prior"]
        if law not in PRIORS or not scale > 0:
            raise SystemExit(f"{where}: prior must be [{'|'.join(PRIORS)}, loc, scale > 0]")
        systems.append({"name": name, **entry})
    return systems


def c_table(systems: list[dict]) -> str:
    out = [banner(SOURCE, "//"), '#include "ux/model.h"\n']
    for s in systems:
        out.append(f"extern const ux_model_code ux_code_{s['name']};")
    for s in systems:
        n = s["name"]
        names = ", ".join(f'"{p[0]}"' for p in s["params"])
        out.append(f"\nstatic const char *const {n}_param_names[] = {{{names}}};")
        out.append(f"static const ux_real {n}_defaults[] = {{{', '.join(repr(float(p[1])) for p in s['params'])}}};")
        out.append(f"static const uint8_t {n}_domains[] = {{{', '.join(DOMAINS[p[2]] for p in s['params'])}}};")
    out.append("\nconst ux_model ux_models[] = {")
    for s in systems:
        n, (law, loc, scale) = s["name"], s["prior"]
        out.append(f'    {{{s["id"]}, "{n}", "{s["title"]}", {len(s["params"])}, {n}_param_names, {n}_defaults, '
                   f"{n}_domains, {{{PRIORS[law]}, {float(loc)!r}, {float(scale)!r}, 0.0}}, &ux_code_{n}}},")
    out.append("};\n\nconst unsigned ux_models_count = sizeof ux_models / sizeof ux_models[0];\n")
    return "\n".join(out)


def py_table(systems: list[dict]) -> str:
    rows = []
    for s in systems:
        params = ", ".join(f"({p[0]!r}, {float(p[1])!r}, {p[2]!r})" for p in s["params"])
        law, loc, scale = s["prior"]
        rows.append(f"    {{\"id\": {s['id']}, \"name\": {s['name']!r}, \"title\": {s['title']!r},\n"
                    f"     \"params\": ({params},),\n"
                    f"     \"prior\": ({law!r}, {float(loc)!r}, {float(scale)!r})}},")
    return (banner(SOURCE, "#") + '"""The systems of the one system table, as data (see uxemu.systems)."""\n\n'
            "TABLE = (\n" + "\n".join(rows) + "\n)\n")


def doc_table(systems: list[dict]) -> str:
    lines = ["| id | name | system | parameters, in order (default) | default prior |", "|---|---|---|---|---|"]
    for s in systems:
        params = ", ".join(f"`{p[0]}`{DOMAIN_TEXT[p[2]]} ({p[1]:g})" for p in s["params"])
        law, loc, scale = s["prior"]
        lines.append(f"| {s['id']} | `{s['name']}` | {s['title']} | {params} | {law}({loc:g}, {scale:g}) |")
    return "\n".join(lines) + "\n"


def outputs() -> dict[Path, str]:
    systems = load()
    doc = ROOT / "docs/semantics.md"
    return {
        ROOT / "firmware/src/models/systems_table.c": c_table(systems),
        ROOT / "emulator/uxemu/system_table.py": py_table(systems),
        doc: replace_region(doc.read_text(encoding="utf-8"), "systems", doc_table(systems)),
    }
