"""Prepares PlatformIO's core directory for offline use (`make pio` runs it).

PlatformIO runs its builds with SCons from a core package, tool-scons, which it would otherwise download.
This installs that package from platformio/tool-scons/ into the core directory: a two-line shim over SCons
from PyPI, announced as the version this PlatformIO asks for (read from PlatformIO itself, never copied).

    python scripts/pio-setup.py CORE_DIR
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from platformio.dependencies import get_core_dependencies

ROOT = Path(__file__).resolve().parents[1]


def install_scons(core: Path) -> Path:
    wanted = get_core_dependencies()["tool-scons"]  # e.g. "~4.41101.0"
    version = wanted.lstrip("~^=<> ")
    package = core / "packages" / "tool-scons"
    package.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "platformio" / "tool-scons" / "scons.py", package / "scons.py")
    (package / "package.json").write_text(json.dumps({"name": "tool-scons", "version": version}))
    spec = {"owner": "platformio", "id": None, "name": "tool-scons", "requirements": None, "uri": None}
    (package / ".piopm").write_text(
        json.dumps({"type": "tool", "name": "tool-scons", "version": version, "spec": spec})
    )
    return package


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(f"pio-setup: tool-scons (SCons from PyPI) in {install_scons(Path(sys.argv[1]))}")
