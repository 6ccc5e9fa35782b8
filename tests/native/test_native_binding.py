"""The ctypes binding itself: how it finds the library and what it says when the library is missing."""
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
    with pytest.raises(ValueError, match="system 9"):
        nat.model(9)
