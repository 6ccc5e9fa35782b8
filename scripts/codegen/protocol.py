"""The protocol schema (docs/protocol.toml) → firmware/app/proto.h, host/uxhost/protocol_spec.py, the
tables of docs/protocol.md and the fuzz harnesses' oracle (fuzz/oracle.h); the golden frames
(tests/golden/frames.toml) → tests/golden/frames.h.

A payload is a sequence of fields. A field is a scalar, a string (u8 byte count, then the bytes) or a
counted array (its count an earlier field, or a product of earlier fields, "count*dim") of scalars or of
records of scalars and strings. Every field's
byte offset is a constant until the first string or array; after that it depends on their sizes, so C gets
it as a macro of the counts (and string lengths) before it, e.g. CONFIGURE_PRIOR_KIND_AT(n_params).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .common import ROOT, banner, replace_region

SOURCE = "docs/protocol.toml"
GOLDEN = "tests/golden/frames.toml"
SCALARS = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "f64": 8}
STRUCT_CODES = {"u8": "B", "u16": "H", "u32": "I", "u64": "Q", "f64": "d"}
VALUE_TABLES = (
    "cycle_source",
    "reset_cause",
    "mode",
    "likelihood",
    "prior_kind",
    "param_domain",
    "status",
    "step_flags",
)


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


# --------------------------------------------------------------------------------------------------
# The schema, checked


def count_fields(count: str) -> list[str]:
    """The fields whose product is an array's count: "n" or "n*dim"."""
    return count.split("*")


def count_expr(count: str) -> str:
    """An array's count in C: (n) or (n) * (dim)."""
    return " * ".join(f"({c})" for c in count_fields(count))


def check_fields(fields: list[dict], where: str, record: bool = False) -> None:
    seen: dict[str, str] = {}
    for f in fields:
        name = f.get("name", "")
        if not name.isidentifier() or name != name.lower() or name in seen:
            raise SystemExit(f"{where}: field name {name!r} must be a new lower-case identifier")
        if "count" in f:
            if record:
                raise SystemExit(f"{where}.{name}: a record cannot hold an array")
            if any(seen.get(c) not in ("u8", "u16") for c in count_fields(f["count"])):
                raise SystemExit(
                    f"{where}.{name}: count {f['count']!r} must be an earlier u8/u16 field "
                    "(or a product of such fields, a*b)"
                )
            if ("fields" in f) == ("type" in f):
                raise SystemExit(f"{where}.{name}: an array has either `type` (a scalar) or `fields` (a record)")
            if "fields" in f:
                check_fields(f["fields"], f"{where}.{name}", record=True)
            elif f["type"] not in SCALARS:
                raise SystemExit(f"{where}.{name}: array elements are scalars {sorted(SCALARS)} or records")
        elif f.get("type") not in (*SCALARS, "str"):
            raise SystemExit(f"{where}.{name}: type must be one of {sorted(SCALARS)} or str")
        seen[name] = f.get("type", "array")


def load() -> dict:
    spec = tomllib.loads((ROOT / SOURCE).read_text(encoding="utf-8"))
    if set(spec["values"]) != set(VALUE_TABLES):
        raise SystemExit(f"{SOURCE}: [values.*] must be exactly {VALUE_TABLES}")
    check_fields(spec["frame"]["header"], f"{SOURCE} [frame] header")
    if any(f["type"] not in SCALARS for f in spec["frame"]["header"]) or spec["frame"]["crc"] not in SCALARS:
        raise SystemExit(f"{SOURCE}: the header and the CRC are scalars")
    types, codes = set(), set()
    for m in spec["message"]:
        if m["type"] in types or m["from"] not in ("host", "device"):
            raise SystemExit(f"{SOURCE} message {m['name']}: type must be unique, from host or device")
        types.add(m["type"])
        check_fields(m["fields"], f"{SOURCE} message {m['name']}")
        for f in m["fields"]:
            if "values" in f and f["values"] not in spec["values"]:
                raise SystemExit(f"{SOURCE} {m['name']}.{f['name']}: no [values.{f['values']}]")
    for e in spec["error"]:
        if e["code"] in codes or not 1 <= e["code"] <= 255:
            raise SystemExit(f"{SOURCE} error {e['name']}: code must be unique in 1…255")
        codes.add(e["code"])
    return spec


# --------------------------------------------------------------------------------------------------
# Layout: where each field is, in bytes and in the field count of ERR_CONFIG / ERR_EVIDENCE


def element_bytes(f: dict) -> int:
    """Bytes of one element of an array whose records hold scalars only."""
    if "fields" in f:
        if any(r["type"] == "str" for r in f["fields"]):
            raise SystemExit(f"{f['name']}: records with strings have no fixed size (read them in order)")
        return sum(SCALARS[r["type"]] for r in f["fields"])
    return SCALARS[f["type"]]


def expr(fixed: int, terms: list[str]) -> str:
    return " + ".join([f"{fixed}u", *terms]) if terms else f"{fixed}u"


def layout(fields: list[dict]) -> list[dict]:
    """Per field: byte offset and field index, each a constant plus terms in the sizes before it."""
    out, at, at_terms, index, index_terms, args, index_doc = [], 0, [], 0, [], [], []
    for f in fields:
        row = {
            "field": f,
            "at": expr(at, at_terms),
            "index": expr(index, index_terms),
            "args": list(args),
            "index_doc": "+".join([str(index)] * (index > 0 or not index_doc) + index_doc),
        }
        out.append(row)
        if "count" in f:
            count = f["count"]
            nfields = len(f.get("fields", [f]))
            has_str = any(r.get("type") == "str" for r in f.get("fields", []))
            row["element"] = None if has_str else element_bytes(f)
            if has_str:
                args.append(f"{f['name']}_bytes")
            else:
                args.extend(c for c in count_fields(count) if c not in args)
            at_terms = at_terms + [
                f"{row['element']}u * {count_expr(count)}" if not has_str else f"({f['name']}_bytes)"
            ]
            index_terms = index_terms + [count_expr(count) if nfields == 1 else f"{nfields}u * {count_expr(count)}"]
            shown = count.replace("*", "·")
            index_doc = index_doc + [shown if nfields == 1 else f"{nfields}·{shown}"]
        elif f["type"] == "str":
            at += 1
            args.append(f"{f['name']}_len")
            at_terms = at_terms + [f"({f['name']}_len)"]
            index += 1
        else:
            at += SCALARS[f["type"]]
            index += 1
    out.append({"field": None, "at": expr(at, at_terms), "args": list(args)})  # the end: payload size
    return out


def signature(formula: str, args: list[str]) -> tuple[str, str]:
    """A constant, or a macro of the arguments its formula uses."""
    used = [a for a in args if f"({a})" in formula]
    return (f"({', '.join(used)})" if used else ""), (f"({formula})" if used else formula)


# --------------------------------------------------------------------------------------------------
# firmware/app/proto.h


def c_header(spec: dict) -> str:
    header = spec["frame"]["header"]
    out = [
        banner(SOURCE, "//").rstrip("\n"),
        "/*",
        " * proto.h — the link protocol's numbers and payload layouts (docs/protocol.md). Offsets are in bytes",
        " * from the start of the payload; a field after a string or an array has its offset as a macro of",
        " * the counts before it. FIELD_ numbers are the detail of ERR_CONFIG / ERR_EVIDENCE: fields counted",
        " * from 0 in payload order, each array element (each field of a record element) one field.",
        " */",
        "#ifndef APP_PROTO_H",
        "#define APP_PROTO_H",
        "",
        f"#define PROTO_VERSION {spec['version']}u",
        f"#define PROTO_HEADER_BYTES {sum(SCALARS[f['type']] for f in header)}u",
        f"#define PROTO_CRC_BYTES {SCALARS[spec['frame']['crc']]}u",
        f"#define PROTO_MAX_PAYLOAD {spec['limits']['max_payload']}u",
        "#define PROTO_MAX_FRAME (PROTO_HEADER_BYTES + PROTO_MAX_PAYLOAD + PROTO_CRC_BYTES)",
        f"#define PROTO_MAX_EVIDENCE {spec['limits']['max_evidence']}u",
        "",
        "/* Header fields. */",
    ]
    out += [f"#define HEADER_{f['name'].upper()}_AT {row['at']}" for f, row in zip(header, layout(header))]
    out += ["", "/* Message types. */"]
    out += [f"#define MSG_{m['name']} 0x{m['type']:02X}u" for m in spec["message"]]
    out += ["", "/* ERROR.code */"]
    out += [f"#define ERR_{e['name']} {e['code']}u" for e in spec["error"]]
    for name, table in spec["values"].items():
        out += ["", f"/* {name} */"]
        out += [
            f"#define {table['c']}_{v['name']} 0x{v['value']:02X}u"
            if table.get("bits")
            else f"#define {table['c']}_{v['name']} {v['value']}u"
            for v in table["values"]
        ]
    for m in spec["message"]:
        out += ["", f"/* {m['name']}: {payload_text(m['fields']) or 'empty'} */"]
        rows = layout(m["fields"])
        for row in rows[:-1]:
            f, name = row["field"], f"{m['name']}_{row['field']['name'].upper()}"
            params, value = signature(row["at"], row["args"])
            out.append(f"#define {name}_AT{params} {value}")
            if "count" in f and row["element"] is not None:
                out.append(f"#define {name}_BYTES {row['element']}u /* one element */")
                for r, sub in zip(f.get("fields", []), layout(f.get("fields", []))):
                    out.append(f"#define {name}_{r['name'].upper()}_AT {sub['at']} /* within an element */")
        params, value = signature(rows[-1]["at"], rows[-1]["args"])
        out.append(f"#define {m['name']}_BYTES{params} {value}")
        if params:
            fixed = rows[-1]["at"].split(" + ")[0]
            out.append(f"#define {m['name']}_MIN_BYTES {fixed} /* every count 0, every string empty */")
        if m["from"] == "host":
            for row in rows[:-1]:
                f, name = row["field"], f"{m['name']}_FIELD_{row['field']['name'].upper()}"
                params, value = signature(row["index"], row["args"])
                if "count" in f:
                    members = f.get("fields", [])
                    if not members:
                        args = params[1:-1] + ", i" if params else "i"
                        out.append(f"#define {name}({args}) ({row['index']} + (i))")
                    for k, r in enumerate(members):
                        args = params[1:-1] + ", i" if params else "i"
                        out.append(
                            f"#define {name}_{r['name'].upper()}({args}) "
                            f"({row['index']} + {len(members)}u * (i) + {k}u)"
                        )
                else:
                    out.append(f"#define {name}{params} {value}")
    out += ["", "#endif /* APP_PROTO_H */", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------
# host/uxhost/protocol_spec.py


def py_layout(fields: list[dict]) -> str:
    items = []
    for f in fields:
        if "count" in f:
            element = py_layout(f["fields"]) if "fields" in f else repr(f["type"])
            items.append(f"({f['name']!r}, {element}, {f['count']!r})")
        else:
            items.append(f"({f['name']!r}, {f['type']!r})")
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def py_module(spec: dict) -> str:
    header = spec["frame"]["header"]
    out = [
        banner(SOURCE, "#").rstrip("\n"),
        '"""The link protocol\'s numbers and payload layouts (docs/protocol.md), for uxhost.protocol.',
        "",
        "A layout is a tuple of fields in payload order: (name, scalar type) or (name, 'str') or, for a",
        "counted array, (name, element, count field) where element is a scalar type or a layout.",
        '"""',
        "",
        "import enum",
        "import struct",
        "",
        f"PROTOCOL_VERSION = {spec['version']}",
        f"MAX_PAYLOAD = {spec['limits']['max_payload']}",
        f"MAX_EVIDENCE = {spec['limits']['max_evidence']}",
        f"HEADER = struct.Struct(\"<{''.join(STRUCT_CODES[f['type']] for f in header)}\")  # "
        + " ".join(f["name"] for f in header),
        f"CRC = struct.Struct(\"<{STRUCT_CODES[spec['frame']['crc']]}\")",
        f"SCALARS = {{{', '.join(f'{k!r}: {v!r}' for k, v in STRUCT_CODES.items())}}}  # struct codes",
        "",
        "",
        "class MsgType(enum.IntEnum):",
    ]
    out += [f"    {m['name']} = 0x{m['type']:02X}" for m in spec["message"]]
    out += ["", "", "class ErrorCode(enum.IntEnum):"]
    out += [f"    {e['name']} = {e['code']}  # {e['when']}" for e in spec["error"]]
    for name, table in spec["values"].items():
        base = "IntFlag" if table.get("bits") else "IntEnum"
        out += ["", "", f"class {camel(name)}(enum.{base}):"]
        out += [f"    {v['name']} = {v['value']}  # {v['doc']}" for v in table["values"]]
        out += value_words(name, table["values"])
    out += ["", "", "LAYOUTS = {"]
    out += [f"    MsgType.{m['name']}: {py_layout(m['fields'])}," for m in spec["message"]]
    out += ["}", ""]
    return "\n".join(out)


def value_words(name: str, values: list[dict]) -> list[str]:
    """Each word a value table gives beyond name, value and doc (the statuses' says, why, legend) as a dict
    <TABLE>_<WORD> from the enum's members to their text."""
    out = []
    for word in dict.fromkeys(k for v in values for k in v if k not in ("name", "value", "doc")):
        out += ["", "", f"{name.upper()}_{word.upper()} = {{"]
        out += [f"    {camel(name)}.{v['name']}: {v[word]!r}," for v in values if word in v]
        out += ["}"]
    return out


# --------------------------------------------------------------------------------------------------
# docs/protocol.md


def payload_text(fields: list[dict]) -> str:
    parts = []
    for f in fields:
        if "count" in f:
            element = f"({payload_text(f['fields'])})" if "fields" in f else f["type"]
            parts.append(f"{f['name']}:{element}[{f['count']}]")
        else:
            parts.append(f"{f['name']}:{f['type']}")
    return " ".join(parts)


def doc_constants(spec: dict) -> str:
    header = spec["frame"]["header"]
    header_bytes = sum(SCALARS[f["type"]] for f in header)
    crc_bytes = SCALARS[spec["frame"]["crc"]]
    limits = spec["limits"]
    return (
        "\n".join(
            [
                "| constant | value |",
                "|---|---|",
                f"| protocol version | {spec['version']} |",
                f"| header | `{payload_text(header)}` ({header_bytes} bytes) |",
                f"| crc32 | `{spec['frame']['crc']}` ({crc_bytes} bytes) |",
                f"| `MAX_PAYLOAD` | {limits['max_payload']} bytes |",
                f"| largest decoded frame | {header_bytes + limits['max_payload'] + crc_bytes} bytes |",
                f"| `MAX_EVIDENCE` | {limits['max_evidence']} (STEP `n_evidence` ≤ this) |",
            ]
        )
        + "\n"
    )


def doc_messages(spec: dict) -> str:
    lines = ["| type | name | direction | payload |", "|---|---|---|---|"]
    for m in spec["message"]:
        direction = "host → dev" if m["from"] == "host" else "dev → host"
        payload = f"`{payload_text(m['fields'])}`" if m["fields"] else "empty"
        note = f" — {m['doc']}" if "doc" in m else ""
        lines.append(f"| 0x{m['type']:02X} | {m['name']} | {direction} | {payload}{note} |")
    return "\n".join(lines) + "\n"


def doc_values(spec: dict) -> str:
    lines = ["| field | value | name | meaning |", "|---|---|---|---|"]
    users: dict[str, str] = {}  # the first message field that uses each table
    for m in spec["message"]:
        for f in m["fields"]:
            if "values" in f:
                users.setdefault(f["values"], f"{m['name']}.`{f['name']}`")
    for name, table in spec["values"].items():
        for v in table["values"]:
            value = f"0x{v['value']:02X} (bit)" if table.get("bits") else str(v["value"])
            lines.append(f"| {users.get(name, name)} | {value} | {v['name']} | {v['doc']} |")
    return "\n".join(lines) + "\n"


def doc_errors(spec: dict) -> str:
    lines = ["| code | name | when | detail |", "|---|---|---|---|"]
    lines += [f"| {e['code']} | ERR_{e['name']} | {e['when']} | {e['detail']} |" for e in spec["error"]]
    return "\n".join(lines) + "\n"


def doc_field_indices(spec: dict) -> str:
    lines = []
    for m in spec["message"]:
        if m["from"] != "host" or not m["fields"]:
            continue
        parts = []
        for row in layout(m["fields"])[:-1]:
            f, base = row["field"], row["index_doc"]
            if "count" in f:
                members = f.get("fields", [])
                if not members:
                    parts.append(f"`{f['name']}[i]`={base}+i")
                for k, r in enumerate(members):
                    parts.append(f"`{f['name']}[i].{r['name']}`={base}+{len(members)}i" + (f"+{k}" if k else ""))
            else:
                parts.append(f"`{f['name']}`={base}")
        lines.append(f"- {m['name']}: " + ", ".join(parts))
    return "\n".join(lines) + "\n"


def doc(spec: dict) -> str:
    path = ROOT / "docs/protocol.md"
    text = path.read_text(encoding="utf-8")
    for name, content in (
        ("constants", doc_constants(spec)),
        ("messages", doc_messages(spec)),
        ("values", doc_values(spec)),
        ("errors", doc_errors(spec)),
        ("field-indices", doc_field_indices(spec)),
    ):
        text = replace_region(text, name, content)
    return text


# --------------------------------------------------------------------------------------------------
# fuzz/oracle.h


def c_switch(name: str, doc: str, cases: list[tuple[int | str, str]]) -> list[str]:
    """A C function that is 1 for each listed value and 0 for any other."""
    out = [f"/* {doc} */", f"static inline int {name}(long v)", "{", "    switch (v) {"]
    out += [f"    case {value}: /* {label} */" for value, label in cases]
    out += ["        return 1;", "    default:", "        return 0;", "    }", "}"]
    return out


def fuzz_oracle(spec: dict) -> str:
    statuses = spec["values"]["status"]["values"]
    out = [
        banner(SOURCE, "//").rstrip("\n"),
        "/*",
        " * oracle.h — what the fuzz harnesses (fuzz/*_fuzz.c) accept, taken from the protocol's tables: the",
        " * statuses of a step that answers with a posterior ([values.status], each the core's UX_<name> of the",
        " * same value, checked below at compile time), the device's message types and the ERROR codes. A",
        " * status, message or code added to docs/protocol.toml reaches the oracles with `make generate`; one",
        " * the core returns and the table lacks is a finding (the device would send what the host cannot read).",
        " */",
        "#ifndef FUZZ_ORACLE_H",
        "#define FUZZ_ORACLE_H",
        "",
        '#include "ux/config.h"',
        "",
    ]
    out += [
        f'_Static_assert(UX_{v["name"]} == {v["value"]}, "docs/protocol.toml: status {v["name"]} is '
        f'{v["value"]}, the core\'s UX_{v["name"]} is not");'
        for v in statuses
    ]
    out += [""] + c_switch(
        "oracle_status",
        "1 when `v` is a status of [values.status] (a step answered), else 0.",
        [(v["value"], v["name"]) for v in statuses],
    )
    out += [""] + c_switch(
        "oracle_device_type",
        "1 when `v` is the type of a message from the device, else 0.",
        [(f"0x{m['type']:02X}", m["name"]) for m in spec["message"] if m["from"] == "device"],
    )
    out += [""] + c_switch(
        "oracle_error_code",
        "1 when `v` is an ERROR code of the protocol, else 0.",
        [(e["code"], e["name"]) for e in spec["error"]],
    )
    out += ["", "#endif /* FUZZ_ORACLE_H */", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------------
# tests/golden/frames.h


def c_bytes(name: str, data: bytes) -> list[str]:
    rows = [", ".join(f"0x{b:02x}" for b in data[i : i + 16]) for i in range(0, len(data), 16)]
    return [f"static const uint8_t {name}[] = {{"] + [f"    {row}," for row in rows] + ["};"]


def golden_header() -> str:
    cases = tomllib.loads((ROOT / GOLDEN).read_text(encoding="utf-8"))["case"]
    out = [
        banner(GOLDEN, "//").rstrip("\n"),
        "/* frames.h — the golden frames for tests/golden/golden_test.c. */",
        "#ifndef GOLDEN_FRAMES_H",
        "#define GOLDEN_FRAMES_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "typedef struct {",
        "    const uint8_t *request;",
        "    size_t request_len;",
        "    const uint8_t *answer;",
        "    size_t answer_len;",
        "} golden_exchange;",
        "",
        "typedef struct {",
        "    const char *name;",
        "    const golden_exchange *exchanges;",
        "    size_t n_exchanges;",
        "} golden_case;",
    ]
    for c, case in enumerate(cases):
        for x, ex in enumerate(case["exchange"]):
            out += [""] + c_bytes(f"case{c}_request{x}", bytes.fromhex(ex["request"]))
            out += c_bytes(f"case{c}_answer{x}", bytes.fromhex(ex["answer"]))
        out += ["", f"static const golden_exchange case{c}[] = {{"]
        out += [
            f"    {{case{c}_request{x}, sizeof case{c}_request{x}, case{c}_answer{x}, sizeof case{c}_answer{x}}},"
            for x in range(len(case["exchange"]))
        ]
        out += ["};"]
    out += ["", "static const golden_case golden_cases[] = {"]
    out += [f"    {{\"{case['name']}\", case{c}, sizeof case{c} / sizeof case{c}[0]}}," for c, case in enumerate(cases)]
    out += [
        "};",
        "",
        "static const size_t golden_cases_count = sizeof golden_cases / sizeof golden_cases[0];",
        "",
        "#endif /* GOLDEN_FRAMES_H */",
        "",
    ]
    return "\n".join(out)


def outputs() -> dict[Path, str]:
    spec = load()
    return {
        ROOT / "firmware/app/proto.h": c_header(spec),
        ROOT / "host/uxhost/protocol_spec.py": py_module(spec),
        ROOT / "docs/protocol.md": doc(spec),
        ROOT / "tests/golden/frames.h": golden_header(),
        ROOT / "fuzz/oracle.h": fuzz_oracle(spec),
    }
