"""The core's facts (firmware/src/ux/facts.toml: limits, status codes, law kinds, filter modes, likelihood
forms) → the C header ux/facts.h and the reference's uxemu/facts.py."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .common import ROOT, banner

SOURCE = "firmware/src/ux/facts.toml"
SECTIONS = ("limits", "status", "law_kinds", "modes", "likelihoods")
# Each enum section: its C type, the prefix of its constants, and what the C header says of it.
ENUMS = {
    "law_kinds": ("ux_law_kind", "UX_LAW_", "The kind of a ux_law and what its fields a, b, c hold."),
    "modes": ("ux_mode", "UX_MODE_", "The filter's modes (numbering matches the link protocol)."),
    "likelihoods": ("ux_likelihood", "UX_LIK_", "The observation model's forms."),
}


def load(text: str | None = None) -> dict[str, dict[str, tuple[int, str]]]:
    """{section: {NAME: (value, doc)}} of the source (or of `text`) in file order, checked: a bad entry stops
    generation with its name."""
    table = tomllib.loads(text if text is not None else (ROOT / SOURCE).read_text(encoding="utf-8"))
    if set(table) != set(SECTIONS):
        raise SystemExit(f"{SOURCE}: needs exactly the sections {', '.join(SECTIONS)} (has {sorted(table)})")
    facts = {}
    for section in SECTIONS:
        entries = {}
        for name, entry in table[section].items():
            if not (name.isidentifier() and name == name.upper()):
                raise SystemExit(f"{SOURCE} [{section}] {name}: a name is an upper-case C identifier")
            if not (
                isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int) and isinstance(entry[1], str)
            ):
                raise SystemExit(f"{SOURCE} [{section}] {name}: needs [integer value, \"what it means\"]")
            entries[name] = (entry[0], entry[1])
        if len({v for v, _ in entries.values()}) != len(entries) and section != "limits":
            raise SystemExit(f"{SOURCE} [{section}]: two names share a value")
        facts[section] = entries
    if "MAX_LOG2_ETA" not in facts["limits"]:
        raise SystemExit(f"{SOURCE} [limits]: MAX_LOG2_ETA is required (UX_MAX_ETA is derived from it)")
    return facts


def limits() -> dict[str, int]:
    """The limits with the derived MAX_ETA, for the other generators."""
    values = {name: value for name, (value, _) in load()["limits"].items()}
    values["MAX_ETA"] = 1 << values["MAX_LOG2_ETA"]
    return values


def _c_define(name: str, value: int, doc: str) -> str:
    text = f"({value})" if value < 0 else str(value)
    return f"#define UX_{name} {text} /* {doc} */"


def c_header(facts) -> str:
    out = [banner(SOURCE, "//") + "#ifndef UX_FACTS_H\n#define UX_FACTS_H\n"]
    for name, (value, doc) in facts["limits"].items():
        out.append(_c_define(name, value, doc))
        if name == "MAX_LOG2_ETA":
            out.append("#define UX_MAX_ETA (1 << UX_MAX_LOG2_ETA)")
    out.append(
        "\n/* Every fallible call returns one of these. Errors are negative so `status < 0` tests for failure. */"
    )
    out.append("typedef int ux_status;")
    out += [_c_define(name, value, doc) for name, (value, doc) in facts["status"].items()]
    for section, (ctype, prefix, doc) in ENUMS.items():
        out.append(f"\n/* {doc} */\ntypedef enum {{")
        entries = list(facts[section].items())
        for i, (name, (value, what)) in enumerate(entries):
            comma = "," if i + 1 < len(entries) else ""
            out.append(f"    {prefix}{name} = {value}{comma} /* {what} */")
        out.append(f"}} {ctype};")
    out.append("\n#endif /* UX_FACTS_H */\n")
    return "\n".join(out)


def py_module(facts) -> str:
    lim = facts["limits"]
    out = [
        banner(SOURCE, "#") + '"""The C core\'s limits, status codes and law kinds (ux/facts.h), as Python."""\n',
        "import enum\n",
    ]
    for name, (value, doc) in lim.items():
        out.append(f"{name} = {value}  # {doc}")
        if name == "MAX_LOG2_ETA":
            out.append("MAX_ETA = 1 << MAX_LOG2_ETA")
    out.append("\n\nclass Status(enum.IntEnum):")
    out.append('    """What a filter step or a BayesLaplace call reports when it succeeds (ux_status ≥ 0)."""\n')
    for name, (value, doc) in facts["status"].items():
        if value >= 0:
            out.append(f"    {name} = {value}  # {doc}")
    out.append("\n\n# The core's errors (ux_status < 0), by their C names.")
    errors = ", ".join(f"{value}: \"UX_{name}\"" for name, (value, _) in facts["status"].items() if value < 0)
    out.append(f"ERRORS = {{{errors}}}")
    for name, (value, _) in facts["status"].items():
        if value < 0:
            out.append(f"{name} = {value}")
    for section, (ctype, _, _) in ENUMS.items():
        out.append(f"\n# {ctype} by the reference's lower-case names, in the C numbering.")
        names = ", ".join(f"\"{name.lower()}\": {value}" for name, (value, _) in facts[section].items())
        out.append(f"{section.upper()} = {{{names}}}")
    return "\n".join(out) + "\n"


def outputs() -> dict[Path, str]:
    facts = load()
    return {
        ROOT / "firmware/include/ux/facts.h": c_header(facts),
        ROOT / "emulator/uxemu/facts.py": py_module(facts),
    }
