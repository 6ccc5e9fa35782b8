"""PlatformIO runs `python scons.py …` from its tool-scons package: hand over to SCons from PyPI (pinned in
constraints.txt), so no package is downloaded. The local platform (platformio/platform/platform.py) runs
this file in place of the package."""

import sys

try:
    import SCons.Script
except ImportError:
    sys.exit(
        f"ux-filter: SCons is not installed in {sys.executable}; install it beside PlatformIO: "
        f"{sys.executable} -m pip install scons (or `make venv` in the repository)"
    )

SCons.Script.main()
