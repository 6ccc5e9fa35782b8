"""The ux-filter local platform: nothing to download, the toolchain is the system's (builder/main.py).

PlatformIO runs every build with `python scons.py …` from its core package tool-scons, which it downloads
into the core directory (~/.platformio/packages) on first use; offline, that download fails after a minute
of retries with an empty `HTTPClientError:`. So before PlatformIO looks for tool-scons (it configures the
platform's packages first), this platform installs it from platformio/tool-scons/ when no version that
PlatformIO accepts is there: a shim over SCons from PyPI, which is installed beside PlatformIO (the
project's `hw` extra, pinned in constraints.txt), announced as the version this PlatformIO asks for. A
plain `pio run` or `pio test` then needs no network, whatever the core directory. A tool-scons that is
already installed (from the registry, say) is left as it is and used.
"""

import importlib.util
import json
import os
import shutil
import sys

from platformio.dependencies import get_core_dependencies
from platformio.exception import PlatformioException, UserSideException
from platformio.package.meta import PackageSpec
from platformio.public import PlatformBase

SHIM = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", "tool-scons", "scons.py"))


def ensure_scons(pm):
    """tool-scons in the tool package manager `pm`'s folder: the installed one if PlatformIO accepts its
    version, else the shim over SCons from PyPI, written there now. Returns the package's folder."""
    wanted = get_core_dependencies()["tool-scons"]  # e.g. "~4.41101.0"
    spec = PackageSpec(owner="platformio", name="tool-scons", requirements=wanted)
    pkg = pm.get_package(spec)
    if pkg:
        return pkg.path
    if importlib.util.find_spec("SCons") is None:
        raise UserSideException(
            f"ux-filter: PlatformIO's Python ({sys.executable}) has no SCons and tool-scons is not installed; "
            f"run `{sys.executable} -m pip install scons` (the repository's `make venv` does)"
        )
    version = wanted.lstrip("~^=<> ")
    package = os.path.join(pm.package_dir, "tool-scons")
    if os.path.isdir(package):  # a version this PlatformIO does not take: set aside as PlatformIO would
        try:
            old = pm.load_manifest(package).get("version", "old")
        except PlatformioException:
            old = "old"
        if os.path.exists(f"{package}@{old}"):  # the same version, set aside before
            shutil.rmtree(package)
        else:
            os.replace(package, f"{package}@{old}")
    # Written aside and renamed into place: a pio running at the same time finds it whole or not at all.
    staging = f"{package}.{os.getpid()}.tmp"
    os.makedirs(staging)
    shutil.copyfile(SHIM, os.path.join(staging, "scons.py"))
    with open(os.path.join(staging, "package.json"), "w") as f:
        json.dump(
            {
                "name": "tool-scons",
                "version": version,
                "description": "SCons from PyPI, installed by the ux-filter local platform",
            },
            f,
        )
    with open(os.path.join(staging, ".piopm"), "w") as f:
        json.dump(
            {
                "type": "tool",
                "name": "tool-scons",
                "version": version,
                "spec": {"owner": "platformio", "id": None, "name": "tool-scons", "requirements": None, "uri": None},
            },
            f,
        )
    try:
        os.rename(staging, package)
    except OSError:  # another pio put it there first
        shutil.rmtree(staging)
    pm.memcache_reset()
    return package


class UxfilterPlatform(PlatformBase):
    def is_embedded(self):
        return True

    def configure_default_packages(self, options, targets):
        ensure_scons(self.pm)
        return super().configure_default_packages(options, targets)
