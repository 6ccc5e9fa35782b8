"""Every generated file (scripts/codegen: C headers, Python tables, doc tables, golden frames) is what its
one hand-written source gives: `python -m codegen --check` lists any that drifted."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def test_generated_files_match_their_sources():
    proc = subprocess.run([sys.executable, "-m", "codegen", "--check"], cwd=SCRIPTS, capture_output=True, text=True)
    assert proc.returncode == 0, f"run `make generate`:\n{proc.stdout}{proc.stderr}"


def test_schema_expresses_strings_and_arrays_of_records_with_strings():
    # A message like SYSTEM but with more floats per record: `name:str n:u8 (pname:str default:f64 lo:f64 hi:f64)[n]`. Both
    # generators take it, and the host codec built from the generated layout round-trips it.
    sys.path.insert(0, str(SCRIPTS))
    from codegen import protocol as gen

    from uxhost import protocol as p

    spec = gen.load()
    record = [{"name": "pname", "type": "str"}] + [{"name": n, "type": "f64"} for n in ("default", "lo", "hi")]
    fields = [
        {"name": "name", "type": "str"},
        {"name": "n", "type": "u8"},
        {"name": "params", "count": "n", "fields": record},
    ]
    gen.check_fields(fields, "EXAMPLE")
    spec["message"].append({"name": "EXAMPLE", "type": 0xF5, "from": "device", "fields": fields})
    header = gen.c_header(spec)
    assert "#define EXAMPLE_N_AT(name_len) (1u + (name_len))" in header
    assert "#define EXAMPLE_PARAMS_AT(name_len) (2u + (name_len))" in header
    assert "#define EXAMPLE_BYTES(name_len, params_bytes) (2u + (name_len) + (params_bytes))" in header
    assert "`name:str n:u8 params:(pname:str default:f64 lo:f64 hi:f64)[n]`" in gen.doc_messages(spec)
    namespace: dict = {}
    exec(gen.py_module(spec), namespace)
    layout = namespace["LAYOUTS"][namespace["MsgType"].EXAMPLE]
    values = {
        "name": "gss",
        "params": [
            {"pname": "sigma_v", "default": 3.0, "lo": 0.0, "hi": 10.0},
            {"pname": "sigma_n", "default": 1.0, "lo": 0.0, "hi": 5.0},
        ],
    }
    payload = p._pack_fields(layout, values, "EXAMPLE")
    assert payload[:5] == b"\x03gss\x02" and payload[5:13] == b"\x07sigma_v"
    assert p._unpack_fields(layout, payload, 0, "EXAMPLE") == ({**values, "n": 2}, len(payload))


def test_schema_errors_name_the_bad_field():
    sys.path.insert(0, str(SCRIPTS))
    from codegen import protocol as gen

    with pytest.raises(SystemExit, match=r"STEP\.evidence: count 'n' must be an earlier u8/u16 field"):
        gen.check_fields([{"name": "evidence", "count": "n", "type": "f64"}, {"name": "n", "type": "u8"}], "STEP")
    with pytest.raises(SystemExit, match="type must be one of"):
        gen.check_fields([{"name": "x", "type": "f32"}], "STEP")


FACTS = """
[limits]
MAX_LOG2_ETA = [6, "n of the largest η"]
[status]
OK = [0, "success"]
ERR_ARG = [-1, "bad argument"]
[law_kinds]
GAUSSIAN = [0, "normal"]
[modes]
REFINED = [0, "refined"]
[likelihoods]
KERNEL = [0, "kernel"]
"""


def test_facts_give_one_header_and_one_module_with_the_same_numbers():
    sys.path.insert(0, str(SCRIPTS))
    from codegen import facts as gen

    table = gen.load(FACTS)
    header, module = gen.c_header(table), gen.py_module(table)
    assert "#define UX_MAX_ETA (1 << UX_MAX_LOG2_ETA)" in header and "#define UX_ERR_ARG (-1)" in header
    assert "    UX_LAW_GAUSSIAN = 0 /* normal */" in header
    namespace: dict = {}
    exec(module, namespace)
    assert namespace["MAX_ETA"] == 64 and namespace["ERR_ARG"] == -1 and namespace["ERRORS"] == {-1: "UX_ERR_ARG"}
    assert list(namespace["Status"]) == [0] and namespace["LAW_KINDS"] == {"gaussian": 0}
    assert namespace["MODES"] == {"refined": 0} and namespace["LIKELIHOODS"] == {"kernel": 0}
    assert "typedef enum {\n    UX_MODE_REFINED = 0 /* refined */\n} ux_mode;" in header


@pytest.mark.parametrize(
    "text, message",
    [
        (FACTS.replace("[modes]\nREFINED = [0, \"refined\"]\n", ""), "needs exactly the sections"),
        (FACTS.replace('ERR_ARG = [-1', 'ERR_ARG = [0'), r"\[status\]: two names share a value"),
        (FACTS.replace('OK = [0, "success"]', 'OK = [0]'), r"\[status\] OK: needs \[integer value"),
        (FACTS.replace("GAUSSIAN", "gaussian"), "a name is an upper-case C identifier"),
        (FACTS.replace("MAX_LOG2_ETA", "MAX_ARGS"), "MAX_LOG2_ETA is required"),
    ],
)
def test_a_bad_fact_stops_generation_with_its_name(text, message):
    sys.path.insert(0, str(SCRIPTS))
    from codegen import facts as gen

    with pytest.raises(SystemExit, match=message):
        gen.load(text)


def test_layouts_read_every_declaration_form_of_the_headers():
    sys.path.insert(0, str(SCRIPTS))
    from codegen import layouts as gen

    body = """const ux_model *model; uint32_t count, eta; ux_real x[UX_MAX_ETA * 2]; const char *const *names;
              void (*noises)(const ux_real *params, ux_law *out); ux_fn f; const ux_value *const *noise;
              ux_law_kind kind; ux_law prior[3]; ux_innovation *innovation;"""
    known = {"enums": {"ux_law_kind"}, "fn_types": {"ux_fn"}, "mirrored": {"ux_model", "ux_value", "ux_law"}}
    assert gen._fields("s", body, {"UX_MAX_ETA": 64}, known) == [
        ("model", "C.POINTER(ux_model)"),
        ("count", "C.c_uint32"),
        ("eta", "C.c_uint32"),
        ("x", "R * 128"),
        ("names", "C.POINTER(C.c_char_p)"),
        ("noises", "C.c_void_p"),
        ("f", "C.c_void_p"),
        ("noise", "C.POINTER(C.POINTER(ux_value))"),
        ("kind", "C.c_int"),
        ("prior", "ux_law * 3"),
        ("innovation", "C.c_void_p"),
    ]


@pytest.mark.parametrize(
    "body, message",
    [
        ("widget w;", "no ctypes mirror for the type 'widget'"),
        ("ux_real x[UX_UNKNOWN];", r"s\.x: array size 'UX_UNKNOWN' is not a constant"),
        ("uint8_t x : 3;", "cannot read s's declarator"),
    ],
)
def test_a_struct_the_reader_cannot_mirror_stops_generation(body, message):
    sys.path.insert(0, str(SCRIPTS))
    from codegen import layouts as gen

    with pytest.raises(SystemExit, match=message):
        gen._fields("s", body, {}, {"enums": set(), "fn_types": set(), "mirrored": set()})
