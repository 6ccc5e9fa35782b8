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
    fields = [{"name": "name", "type": "str"}, {"name": "n", "type": "u8"},
              {"name": "params", "count": "n", "fields": record}]
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
    values = {"name": "gss", "params": [{"pname": "sigma_v", "default": 3.0, "lo": 0.0, "hi": 10.0},
                                        {"pname": "sigma_n", "default": 1.0, "lo": 0.0, "hi": 5.0}]}
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
