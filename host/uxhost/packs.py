"""CMSIS packs and debug-probe targets, offline.

pyOCD knows a few hundred targets with their flash algorithms built in; any other part comes from its
vendor's CMSIS pack. cmsis-pack-manager parses a local `.pdsc` (or a `.pack`) with no network — it cannot
download packs here — into an index of devices: core, FPU, memory regions, flash algorithms. From a
device's core and FPU follow a board's compiler flags and which build (double or float) it takes.

cmsis-pack-manager's parser recurses once per level of nesting and says nothing of a description it cannot
read: a file nested 50,000 elements deep overflowed its stack (SIGSEGV), and a truncated one was taken for a
pack without devices. So every description is first read here by a streaming parser (expat: no recursion,
no tree kept) within bounds — MAX_PDSC_BYTES, MAX_DEPTH — and one that is too large, too deep or not
well-formed XML is refused with the reason before the parser sees it.
"""

from __future__ import annotations

import difflib
import json
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.parsers import expat

from .errors import InputError

# A CMSIS description nests about a dozen elements deep (package, devices, family, subFamily, device,
# variant, …) and the largest published ones are a few MB; these bounds leave room for any of them.
MAX_DEPTH = 64
MAX_PDSC_BYTES = 64 << 20

# cmsis-pack-manager's names for a core → GCC's -mcpu; its FPU names → the build a board takes.
CPUS = {
    "CortexM0": "cortex-m0",
    "CortexM0Plus": "cortex-m0plus",
    "CortexM3": "cortex-m3",
    "CortexM4": "cortex-m4",
    "CortexM7": "cortex-m7",
    "CortexM33": "cortex-m33",
    "CortexM55": "cortex-m55",
}
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
            raise InputError(f"{self.name}: core {self.core} is not a Cortex-M core this project builds for")
        kind, fpu_flags = FPU_BUILDS.get(self.fpu, FPU_BUILDS[None])
        return kind, f"-mthumb -mcpu={cpu} {fpu_flags}"


def _device(entry: dict) -> Device:
    proc = (entry.get("processors") or [{}])[0]
    memories = entry.get("memories", {}).values()
    flash = sum(m["size"] for m in memories if m["access"].get("execute") and not m["access"].get("write"))
    ram = sum(m["size"] for m in memories if m["access"].get("write"))
    pack = entry.get("from_pack", {})
    fpu = proc.get("fpu")
    return Device(
        entry["name"],
        proc.get("core", "?"),
        None if fpu in (None, "None") else fpu,
        flash,
        ram,
        tuple(a["file_name"] for a in entry.get("algorithms", [])),
        f"{pack.get('vendor', '?')}.{pack.get('pack', '?')} {pack.get('version', '')}".strip(),
    )


class _TooDeep(Exception):
    pass


def _scan(stream: BinaryIO, size: int, name: str) -> None:
    """Reads one description from `stream` (`size` bytes, as its file or zip entry says) in chunks with expat,
    counting the nesting; an InputError unless it is well-formed XML within the bounds, rooted at <package>."""
    if size > MAX_PDSC_BYTES:
        raise InputError(
            f"{name}: not a readable .pdsc: {size:,} bytes, more than the {MAX_PDSC_BYTES:,} a "
            "CMSIS description is allowed here (refused unread)"
        )
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    depth, root = 0, []

    def start(tag, attrs):
        nonlocal depth
        depth += 1
        if not root:
            root.append(tag)
        if depth > MAX_DEPTH:
            raise _TooDeep

    def end(tag):
        nonlocal depth
        depth -= 1

    parser.StartElementHandler, parser.EndElementHandler = start, end
    seen = 0
    try:
        while chunk := stream.read(1 << 16):
            seen += len(chunk)
            if seen > MAX_PDSC_BYTES:  # a zip entry may understate its size
                raise InputError(
                    f"{name}: not a readable .pdsc: more than the {MAX_PDSC_BYTES:,} bytes a CMSIS "
                    "description is allowed here"
                )
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except _TooDeep:
        raise InputError(
            f"{name}: not a readable .pdsc: elements nested more than {MAX_DEPTH} deep (line "
            f"{parser.CurrentLineNumber}; a CMSIS description nests about a dozen)"
        ) from None
    except expat.ExpatError as exc:
        raise InputError(
            f"{name}: not a readable .pdsc: {expat.ErrorString(exc.code)} (line {exc.lineno}, "
            f"column {exc.offset + 1})"
        ) from None
    if root != ["package"]:
        raise InputError(f"{name}: not a readable .pdsc: its root element is <{root[0]}>, not <package>")


def check_description(path: Path) -> None:
    """An InputError, with the reason, unless `path` (a .pdsc, or a .pack: a zip with its .pdsc inside) holds
    a description cmsis-pack-manager can be handed: well-formed XML, at most MAX_PDSC_BYTES, nested at most
    MAX_DEPTH deep. Nothing else is read."""
    path = Path(path)
    if path.suffix.lower() != ".pack":
        with path.open("rb") as f:
            _scan(f, os.fstat(f.fileno()).st_size, str(path))
        return
    try:
        with zipfile.ZipFile(path) as pack:
            inside = [i for i in pack.infolist() if i.filename.upper().endswith(".PDSC")]
            if not inside:
                raise InputError(f"{path}: not a readable .pack: it holds no .pdsc")
            for info in inside:
                with pack.open(info) as f:
                    _scan(f, info.file_size, f"{path} ({info.filename})")
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        RuntimeError,
        EOFError,
        ValueError,
        zlib.error,
    ) as exc:
        raise InputError(f"{path}: not a readable .pack: {' '.join(str(exc).split()) or type(exc).__name__}") from None


def add_pack(path: Path, store: Path | None = None) -> list[Device]:
    """Parses a local .pdsc or .pack into the store's index (offline); returns the devices it describes.
    Packs are named Vendor.Pack[.version].pdsc/.pack, as CMSIS publishes them. The description is checked
    first (check_description): one too large, too deep or not XML is refused before the parser sees it."""
    import cmsis_pack_manager

    path, store = Path(path), Path(store or default_store())
    if not path.is_file() or path.suffix.lower() not in (".pdsc", ".pack"):
        raise InputError(f"{path}: expected an existing .pdsc or .pack file")
    check_description(path)
    store.mkdir(parents=True, exist_ok=True)
    cache = cmsis_pack_manager.Cache(True, True, json_path=str(store), data_path=str(store))
    try:
        cache.add_pack_from_path(str(path.resolve()))
    except Exception as exc:  # the Rust parser reports any malformed description this way
        raise InputError(f"{path}: not a CMSIS pack description cmsis-pack-manager can read ({exc})") from None
    vendor_pack = ".".join(path.name.split(".")[:2])
    found = [d for d in devices(store).values() if d.pack.split(" ")[0] == vendor_pack]
    if not found:
        raise InputError(f"{path} describes no device (or is not named Vendor.Pack.pdsc)")
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
    """`name` when pyOCD knows it, else an InputError with the closest names."""
    known = probe_targets()
    if name.lower() in known:
        return name.lower()
    close = difflib.get_close_matches(name.lower(), known, n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else "; `uxhost packs targets` lists them"
    raise InputError(
        f"pyOCD has no target {name!r}{hint} (a part missing there needs its CMSIS pack: "
        "uxhost flash --pack FILE.pack)"
    )
