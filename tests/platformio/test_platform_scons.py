"""The local platform's SCons (platformio/platform/platform.py, `ensure_scons`), without running PlatformIO:
what PlatformIO then finds in its tool package folder, and the one line a Python without SCons gets."""

import importlib.util
import json

import pytest

from uxhost import qemu

pytestmark = pytest.mark.pio

pytest.importorskip("platformio", reason="PlatformIO is not installed in .venv (make venv installs it)")
from platformio.dependencies import get_core_dependencies  # noqa: E402
from platformio.exception import UserSideException  # noqa: E402
from platformio.package.manager.core import get_core_package_dir  # noqa: E402
from platformio.package.manager.tool import ToolPackageManager  # noqa: E402

PLATFORM = qemu.REPO_ROOT / "platformio" / "platform" / "platform.py"


@pytest.fixture
def platform():
    spec = importlib.util.spec_from_file_location("uxfilter_platform", PLATFORM)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def core(tmp_path, monkeypatch):
    """An empty PlatformIO core directory; nothing may be downloaded into it."""
    monkeypatch.setenv("PLATFORMIO_CORE_DIR", str(tmp_path / "core"))
    monkeypatch.delenv("PLATFORMIO_PACKAGES_DIR", raising=False)

    def no_download(*args, **kwargs):
        raise AssertionError("PlatformIO tried to install a package")

    monkeypatch.setattr(ToolPackageManager, "install", no_download)
    return tmp_path / "core"


def test_installs_scons_where_platformio_looks_for_it(platform, core):
    path = platform.ensure_scons(ToolPackageManager())
    assert get_core_package_dir("tool-scons") == path  # found, not downloaded
    assert (core / "packages" / "tool-scons" / "scons.py").read_text() == (
        qemu.REPO_ROOT / "platformio" / "tool-scons" / "scons.py"
    ).read_text()
    assert platform.ensure_scons(ToolPackageManager()) == path  # a second call keeps it


def test_a_version_platformio_refuses_is_set_aside_not_deleted(platform, core):
    old = core / "packages" / "tool-scons"
    old.mkdir(parents=True)
    (old / "package.json").write_text(json.dumps({"name": "tool-scons", "version": "3.30101.0"}))
    (old / "scons.py").write_text("# old\n")
    path = platform.ensure_scons(ToolPackageManager())
    assert get_core_package_dir("tool-scons") == path
    assert (core / "packages" / "tool-scons@3.30101.0" / "scons.py").read_text() == "# old\n"
    wanted = get_core_dependencies()["tool-scons"].lstrip("~^=<> ")
    assert json.loads((core / "packages" / "tool-scons" / "package.json").read_text())["version"] == wanted


def test_a_python_without_scons_is_one_line_naming_the_fix(platform, core, monkeypatch):
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "SCons" else find_spec(name, *a))
    with pytest.raises(UserSideException) as error:
        platform.ensure_scons(ToolPackageManager())
    message = str(error.value)
    assert "\n" not in message and "-m pip install scons" in message
    assert not (core / "packages" / "tool-scons").exists()
