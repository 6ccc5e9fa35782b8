"""The C core's public structs (firmware/include/ux/*.h) → their ctypes mirrors (uxemu/layouts.py) and the
layout table of the host library (firmware/host/abi_layout.h), so the binding never re-types a struct.

The headers are the source: each mirrored struct is read from its `typedef struct { … } name;` there. The
reader knows the few declaration forms the core's public structs use (scalars, arrays with constant sizes,
pointers, function pointers, nested structs) and stops generation on anything else. At load the binding
still compares every mirror with the compiler's offsets (ux_abi_field), so a misread cannot go unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import facts
from .common import ROOT, banner

SOURCE = "firmware/include/ux/*.h"
HEADERS = ROOT / "firmware/include/ux"
# The structs the Python binding mirrors, in an order where each comes after the structs it holds.
STRUCTS = (
    "ux_value",
    "ux_sources",
    "ux_law",
    "ux_rng",
    "ux_workspace",
    "ux_evidence",
    "ux_observation",
    "ux_model_ctx",
    "ux_model_noises",
    "ux_model_code",
    "ux_model",
    "ux_filter_config",
    "ux_joint",
    "ux_joint_filter_config",
    "ux_joint_model_code",
    "ux_joint_model",
)
SCALARS = {
    "ux_real": "R",
    "double": "C.c_double",
    "float": "C.c_float",
    "uint8_t": "C.c_uint8",
    "uint32_t": "C.c_uint32",
    "uint64_t": "C.c_uint64",
    "unsigned": "C.c_uint",
    "int": "C.c_int",
    "size_t": "C.c_size_t",
    "char": "C.c_char",
}


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


def _headers() -> str:
    return "\n".join(_strip_comments(p.read_text(encoding="utf-8")) for p in sorted(HEADERS.glob("*.h")))


def _constants(text: str) -> dict[str, int]:
    """Every UX_NAME that a `#define` gives an integer (after the names before it), with the facts' limits."""
    known = {f"UX_{name}": value for name, value in facts.limits().items()}
    for name, expr in re.findall(r"^\s*#define\s+(UX_\w+)\s+([^\n]+)$", text, flags=re.M):
        value = _evaluate(expr.strip(), known)
        if value is not None:
            known.setdefault(name, value)
    return known


def _evaluate(expr: str, known: dict[str, int]) -> int | None:
    """An integer expression of literals, known names, * + << and parentheses; None for anything else."""
    words = re.sub(r"\b\d+u?\b", lambda m: m.group(0).rstrip("u"), expr)
    words = re.sub(r"\bUX_\w+\b", lambda m: str(known.get(m.group(0), "?")), words)
    if not re.fullmatch(r"[\d\s*+()<-]+", words) or "?" in words:
        return None
    return int(eval(words, {"__builtins__": {}}))  # digits and operators only, checked just above


def _bodies(text: str) -> tuple[dict[str, str], set[str], set[str]]:
    """{struct name: body}, the enum type names and the function-pointer type names of the headers."""
    structs = dict((name, body) for body, name in re.findall(r"typedef struct\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S))
    enums = set(re.findall(r"typedef enum\s*\{.*?\}\s*(\w+)\s*;", text, re.S))
    fn_types = set(re.findall(r"typedef[^;{}]*?\(\s*\*\s*(\w+)\s*\)\s*\(", text))
    return structs, enums, fn_types


def _ctype(base: str, stars: int, known_types: dict) -> str:
    """The ctypes spelling of `base` behind `stars` pointers."""
    enums, fn_types, mirrored = known_types["enums"], known_types["fn_types"], known_types["mirrored"]
    if base in fn_types:  # a function pointer is passed through, never called from here
        return _pointers("C.c_void_p", stars)
    if base == "char" and stars >= 1:
        return _pointers("C.c_char_p", stars - 1)
    if base == "void" and stars >= 1:
        return _pointers("C.c_void_p", stars - 1)
    if base in mirrored:
        return _pointers(base, stars)
    if base in enums:
        return _pointers("C.c_int", stars)
    if base in SCALARS:
        return _pointers(SCALARS[base], stars)
    if stars:
        return _pointers("C.c_void_p", stars - 1)  # a struct not mirrored (yet): an opaque pointer
    raise SystemExit(f"codegen: no ctypes mirror for the type {base!r} ({SOURCE})")


def _pointers(inner: str, stars: int) -> str:
    for _ in range(stars):
        inner = f"C.POINTER({inner})"
    return inner


def _fields(name: str, body: str, constants: dict, known_types: dict) -> list[tuple[str, str]]:
    """[(field, ctypes spelling)] of one struct body, in declaration order."""
    out = []
    for decl in (d.strip() for d in body.split(";")):
        if not decl:
            continue
        fn = re.fullmatch(r"[\w\s*]+\(\s*\*\s*(\w+)\s*\)\s*\(.*\)", decl, re.S)
        if fn:
            out.append((fn.group(1), "C.c_void_p"))
            continue
        head = re.match(r"((?:const\s+)?(\w+))\s*", decl)
        if not head:
            raise SystemExit(f"codegen: cannot read {name}'s declaration {decl!r} ({SOURCE})")
        base = head.group(2)
        for declarator in decl[head.end() :].split(","):
            m = re.fullmatch(r"\s*((?:\*\s*(?:const\s+)?)*)(\w+)\s*(?:\[([^\]]+)\])?\s*", declarator)
            if not m:
                raise SystemExit(f"codegen: cannot read {name}'s declarator {declarator!r} ({SOURCE})")
            ctype = _ctype(base, m.group(1).count("*"), known_types)
            if m.group(3):
                size = _evaluate(m.group(3), constants)
                if size is None:
                    raise SystemExit(f"codegen: {name}.{m.group(2)}: array size {m.group(3)!r} is not a constant")
                ctype = f"{ctype} * {size}"
            out.append((m.group(2), ctype))
    return out


def read() -> dict[str, list[tuple[str, str]]]:
    """{struct: [(field, ctypes spelling)]} for every struct in STRUCTS, read from the headers."""
    text = _headers()
    structs, enums, fn_types = _bodies(text)
    constants = _constants(text)
    layouts, mirrored = {}, set()
    for name in STRUCTS:
        if name not in structs:
            raise SystemExit(f"codegen: struct {name} not found in {SOURCE}")
        known_types = {"enums": enums, "fn_types": fn_types, "mirrored": mirrored}
        layouts[name] = _fields(name, structs[name], constants, known_types)
        mirrored.add(name)
    return layouts


def py_module(layouts) -> str:
    out = [
        banner(SOURCE, "#") + '"""ctypes mirrors of the C core\'s public structs, read from its headers.\n\n'
        "Function pointers are plain addresses here (the binding passes them through); a pointer to a struct "
        "not\nmirrored before it in STRUCTS is opaque (c_void_p). `declare(R)` builds them for the real type R "
        '(c_double,\nor c_float for the float build)."""\n',
        "import ctypes as C\n",
        "STRUCTS = (\n" + "".join(f"    {name!r},\n" for name in layouts) + ")\n\n",
        "def declare(R) -> dict[str, type]:",
        '    """{C name: ctypes Structure} of every struct in STRUCTS, for the real type R."""',
    ]
    for name, fields in layouts.items():
        out.append(f"\n    class {name}(C.Structure):")
        rows = ",\n".join(f"            ({field!r}, {ctype})" for field, ctype in fields)
        out.append(f"        _fields_ = [\n{rows},\n        ]")
    out.append("\n    return {" + ", ".join(f"{name!r}: {name}" for name in layouts) + "}\n")
    return "\n".join(out)


def c_header(layouts) -> str:
    fields = " \\\n".join(f"    X({name}, {field})" for name, rows in layouts.items() for field, _ in rows)
    structs = " \\\n".join(f"    X({name})" for name in layouts)
    return (
        banner(SOURCE, "//")
        + "/* The structs the Python binding mirrors (uxemu/layouts.py), for abi.c's layout table:\n"
        " * UX_ABI_FIELDS(X) calls X(type, field) for each field in declaration order, UX_ABI_STRUCTS(X)\n"
        " * X(type) for each struct. */\n#ifndef UX_ABI_LAYOUT_H\n#define UX_ABI_LAYOUT_H\n\n"
        f"#define UX_ABI_FIELDS(X) \\\n{fields}\n\n#define UX_ABI_STRUCTS(X) \\\n{structs}\n\n"
        "#endif /* UX_ABI_LAYOUT_H */\n"
    )


def outputs() -> dict[Path, str]:
    layouts = read()
    return {
        ROOT / "emulator/uxemu/layouts.py": py_module(layouts),
        ROOT / "firmware/host/abi_layout.h": c_header(layouts),
    }
