"""The three versions `uxhost --version` names, each read from the one place that defines it:

- the host package's: pyproject.toml, in a checkout; the installed distribution's metadata (pyproject.toml's
  version, copied at install time) otherwise;
- the C core's: library.json, the core's PlatformIO library manifest (firmware/arm.mk builds the firmware's
  FW_VERSION, which INFO reports, on the same number);
- the link protocol's: docs/protocol.toml, generated into uxhost.protocol_spec.

A file that is not there (a package installed without its checkout) gives "unknown", never an error:
--version must answer wherever uxhost runs.
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "ux-filter"
UNKNOWN = "unknown"


def package_version() -> str:
    """The host package's version: the checkout's pyproject.toml when uxhost runs from one (an editable
    install's metadata is only as new as its last install), else the installed distribution's."""
    version = _pyproject_version(REPO_ROOT / "pyproject.toml")
    if version is not None:
        return version
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN


def _pyproject_version(path: Path) -> str | None:
    """[project] version of `path` when it is this project's pyproject.toml, else None. Read with a pattern,
    not tomllib, which Python 3.10 (still supported) lacks."""
    try:
        text = path.read_text()
    except OSError:
        return None
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if project is None or not re.search(rf'^name\s*=\s*"{DISTRIBUTION}"', project.group(1), re.MULTILINE):
        return None
    version = re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.MULTILINE)
    return version.group(1) if version else None


def core_version() -> str:
    """The C core's version, from its library manifest: library.json at the repository root, else the copy an
    installed package carries beside this module (setup.py puts it there with the core it compiles)."""
    for manifest in (REPO_ROOT / "library.json", Path(__file__).with_name("library.json")):
        try:
            return str(json.loads(manifest.read_text())["version"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return UNKNOWN


def protocol_version() -> int:
    """The link protocol's version (docs/protocol.toml, through its generated module)."""
    from .protocol_spec import PROTOCOL_VERSION

    return PROTOCOL_VERSION


def version_lines() -> list[str]:
    """What `uxhost --version` prints, one version a line."""
    return [f"uxhost {package_version()}", f"C core {core_version()}", f"protocol {protocol_version()}"]
