"""CMSIS packs and debug-probe targets, offline.

pyOCD knows a few hundred targets with their flash algorithms built in; any other part comes from its
vendor's CMSIS pack. cmsis-pack-manager parses a local `.pdsc` (or a `.pack`) with no network — it cannot
download packs here — into an index of devices: core, FPU, memory regions, flash algorithms. From a
device's core and FPU follow a board's compiler flags and which build (double or float) it takes.
"""
from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import UserError

# cmsis-pack-manager's names for a core → GCC's -mcpu; its FPU names → the build a board takes.
CPUS = {"CortexM0": "cortex-m0", "CortexM0Plus": "cortex-m0plus", "CortexM3": "cortex-m3",
        "CortexM4": "cortex-m4", "CortexM7": "cortex-m7", "CortexM33": "cortex-m33", "CortexM55": "cortex-m55"}
FPU_BUILDS = {
    "DoublePrecision": ("double", "-mfpu=fpv5-d16 -mfloat-abi=hard"),
    "SinglePrecision": ("float (-DUX_REAL_FLOAT)", "-mfpu=fpv4-sp-d16 -mfloat-abi=hard"),
    None: ("float (-DUX_REAL_FLOAT), soft floating point", "-mfloat-abi=soft"),
}


def default_store() -> Path:
    return Path(os.environ.get("UXHOST_PACKS", Path.home() / ".cache" / "uxhost" / "packs"))


@dataclass(frozen=True)
class Device:
    name: str
    core: str
    fpu: str | None
    flash: int  # bytes of the startup ROM region
    ram: int  # bytes of writable RAM regions
    algorithms: tuple[str, ...]
    pack: str

    def build(self) -> tuple[str, str]:
        """(which build, GCC flags) for a board with this device."""
        cpu = CPUS.get(self.core)
        if cpu is None:
            raise UserError(f"{self.name}: core {self.core} is not a Cortex-M core this project builds for")
        kind, fpu_flags = FPU_BUILDS.get(self.fpu, FPU_BUILDS[None])
        return kind, f"-mthumb -mcpu={cpu} {fpu_flags}"


def _device(entry: dict) -> Device:
    proc = (entry.get("processors") or [{}])[0]
    memories = entry.get("memories", {}).values()
    flash = sum(m["size"] for m in memories if m["access"].get("execute") and not m["access"].get("write"))
    ram = sum(m["size"] for m in memories if m["access"].get("write"))
    pack = entry.get("from_pack", {})
    fpu = proc.get("fpu")
    return Device(entry["name"], proc.get("core", "?"), None if fpu in (None, "None") else fpu, flash, ram,
                  tuple(a["file_name"] for a in entry.get("algorithms", [])),
                  f"{pack.get('vendor', '?')}.{pack.get('pack', '?')} {pack.get('version', '')}".strip())


def add_pack(path: Path, store: Path | None = None) -> list[Device]:
    """Parses a local .pdsc or .pack into the store's index (offline); returns the devices it describes.
    Packs are named Vendor.Pack[.version].pdsc/.pack, as CMSIS publishes them."""
    import cmsis_pack_manager

    path, store = Path(path), Path(store or default_store())
    if not path.is_file() or path.suffix.lower() not in (".pdsc", ".pack"):
        raise UserError(f"{path}: expected an existing .pdsc or .pack file")
    store.mkdir(parents=True, exist_ok=True)
    cache = cmsis_pack_manager.Cache(True, True, json_path=str(store), data_path=str(store))
    try:
        cache.add_pack_from_path(str(path.resolve()))
    except Exception as exc:  # the Rust parser reports any malformed description this way
        raise UserError(f"{path}: not a CMSIS pack description cmsis-pack-manager can read ({exc})") from None
    vendor_pack = ".".join(path.name.split(".")[:2])
    found = [d for d in devices(store).values() if d.pack.split(" ")[0] == vendor_pack]
    if not found:
        raise UserError(f"{path} describes no device (or is not named Vendor.Pack.pdsc)")
    return found


def devices(store: Path | None = None) -> dict[str, Device]:
    """Every device in the store's index, by name."""
    index = Path(store or default_store()) / "index.json"
    if not index.is_file():
        return {}
    return {name: _device(entry) for name, entry in json.loads(index.read_text()).items()}


def probe_targets() -> list[str]:
    """pyOCD's built-in targets (each with its flash algorithm)."""
    from pyocd.target import TARGET

    return sorted(TARGET)


def check_target(name: str) -> str:
    """`name` when pyOCD knows it, else a UserError with the closest names."""
    known = probe_targets()
    if name.lower() in known:
        return name.lower()
    close = difflib.get_close_matches(name.lower(), known, n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `uxhost packs targets` lists them"
    raise UserError(f"pyOCD has no target {name!r}{hint} (a part missing there needs its CMSIS pack: "
                    "uxhost flash --pack FILE.pack)")
