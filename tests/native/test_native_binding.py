"""The ctypes binding itself: how it finds the library and what it says when the library is missing."""

import pickle

import pytest

from uxemu import native


def test_missing_library_says_how_to_build_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="make native"):
        native.Native(tmp_path / "libux.so")


def test_environment_variable_chooses_the_library(monkeypatch, tmp_path):
    monkeypatch.setenv("UX_NATIVE_LIB", str(tmp_path / "elsewhere.so"))
    assert native.library_path() == tmp_path / "elsewhere.so"
    assert not native.available()
    monkeypatch.delenv("UX_NATIVE_LIB")
    assert native.library_path().name == "libux.so"
    assert native.library_path(float_build=True).name == "libux_float.so"


def test_status_codes_become_exceptions(nat):
    with pytest.raises(native.NativeDomainError):
        nat.gaussian(0.0, -1.0)
    with pytest.raises(native.NativeError, match="UX_ERR_ARG"):
        nat.gaussian(0.0, 1.0, eta=12)
    # Raised in a benchmark's worker process, an error crosses to the parent whole (it broke the pool).
    for error in (native.NativeError(-1, "ux_filter_predict"), native.NativeDomainError(-2, "ux_gaussian")):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error) and copy.status == error.status
    with pytest.raises(ValueError, match="system 9"):
        nat.model(9)


@pytest.mark.parametrize("build", ["double", "float"])
def test_every_mirrored_struct_matches_the_library(nat, nat_f, build):
    n = nat if build == "double" else nat_f
    assert n.mirrors(), "the binding mirrors at least the value and model structs"
    assert native.layout_mismatches(n.lib, n.mirrors()) == []


def test_a_mirror_that_drifted_from_c_is_refused(nat):
    """A field of the wrong width, a field C does not have, and a missing field are each named."""
    import ctypes as C

    class WrongLaw(C.Structure):  # a, b as float in the double build: offsets and sizes move
        _fields_ = [("kind", C.c_int), ("a", C.c_float), ("b", C.c_float), ("c", C.c_double)]

    class ExtraField(C.Structure):
        _fields_ = [("next", C.c_uint32), ("spare", C.c_uint32)]

    class MissingField(C.Structure):
        _fields_ = [("mem", C.c_void_p)]

    problems = native.layout_mismatches(
        nat.lib, {"ux_law": WrongLaw, "ux_sources": ExtraField, "ux_workspace": MissingField}
    )
    text = "\n".join(problems)
    assert "ux_law.a is at 8 (8 bytes) in C, at 4 (4 bytes) here" in text
    assert "ux_sources.spare does not exist in C" in text
    assert "ux_workspace has 2 fields in C, 1 here" in text


def test_load_refuses_a_library_of_another_layout(nat_f):
    """The float library opened with the double build's mirrors (a mismatched .so) fails at load time
    with the list of differences, not later with corrupted memory."""
    with pytest.raises(native.NativeLayoutError, match=r"sizeof\(ux_value\) is \d+ in C") as err:
        native.Native(nat_f.path, float_build=False)
    assert "make native" in str(err.value)


def test_workspace_sizes_come_from_the_core_and_are_tight(nat):
    """The binding asks the core how much workspace an entry point needs: that much is enough, one word
    less is refused (so the binding neither guesses nor over-allocates)."""
    import ctypes as C

    a, b = nat.gaussian(0.0, 1.0, eta=16), nat.uniform(0.0, 1.0, eta=8)
    need = nat.lib.ux_abi_lift_workspace_bytes(len(a) * len(b))
    ca, cb, out = nat.to_c(a), nat.to_c(b), nat.Value()
    for nbytes, expected in ((need, native.OK), (need - 8, native.ERR_WORKSPACE)):
        buf = (C.c_uint64 * (nbytes // 8))()
        ws = nat.Workspace(C.cast(buf, C.c_void_p), nbytes)
        assert nat.lib.ux_add(C.byref(out), C.byref(ca), C.byref(cb), C.byref(ws)) == expected
