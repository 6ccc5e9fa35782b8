"""What a firmware image says about itself, read from its ELF file without running it: the board it was
built for (the `board_name` string every board defines, see firmware/app/board.h) and where its vector
table is."""

from __future__ import annotations

import struct
from pathlib import Path

SHT_SYMTAB = 2
PT_LOAD = 1
VECTOR_SECTIONS = (".vectors", ".isr_vector", ".intvecs")  # ours, STM32Cube's, TI's


def _sections(data: bytes) -> list[tuple[int, ...]]:
    """The section headers of a 32-bit little-endian ELF: (name, type, flags, addr, offset, size, link, …)."""
    (shoff,) = struct.unpack_from("<I", data, 32)
    shentsize, shnum = struct.unpack_from("<HH", data, 46)
    return [struct.unpack_from("<10I", data, shoff + i * shentsize) for i in range(shnum)]


def _named_sections(data: bytes) -> dict[str, tuple[int, ...]]:
    """The section headers by name."""
    sections = _sections(data)
    (shstrndx,) = struct.unpack_from("<H", data, 50)
    names = sections[shstrndx][4]
    return {data[names + sh[0] : data.index(b"\0", names + sh[0])].decode(): sh for sh in sections}


def section(elf: Path | str, name: str) -> tuple[int, int] | None:
    """(address, size) of the section `name` (e.g. ".stack"), or None when the image has none."""
    sh = _named_sections(Path(elf).read_bytes()).get(name)
    return None if sh is None else (sh[3], sh[5])


def vector_table_address(elf: Path | str) -> int:
    """Load address of the Cortex-M vector table (initial SP, then the reset vector): the section named
    like one, else the lowest loadable segment, where every Cortex-M image starts."""
    data = Path(elf).read_bytes()
    for name, sh in _named_sections(data).items():
        if name in VECTOR_SECTIONS:
            return sh[3]
    (phoff,) = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    loads = [struct.unpack_from("<8I", data, phoff + i * phentsize) for i in range(phnum)]
    return min(ph[3] for ph in loads if ph[0] == PT_LOAD and ph[5] > 0)  # p_paddr of segments with file bytes


def board_of(elf: Path | str) -> str | None:
    """The board an image was built for, or None when it cannot tell: no symbol table (a stripped image),
    or not a well-formed 32-bit little-endian ELF (uxhost.qemu.check_image says what is wrong then)."""
    data = Path(elf).read_bytes()
    try:
        return _board_name(data) if data[:4] == b"\x7fELF" and data[4:6] == b"\x01\x01" else None
    except (struct.error, IndexError, ValueError):
        return None


def _board_name(data: bytes) -> str | None:
    sections = _sections(data)
    for sh in sections:
        if sh[1] != SHT_SYMTAB:
            continue
        strtab = sections[sh[6]]
        for at in range(sh[4], sh[4] + sh[5], 16):
            st_name, value, size, _info, _other, shndx = struct.unpack_from("<IIIBBH", data, at)
            end = data.index(b"\0", strtab[4] + st_name)
            if data[strtab[4] + st_name : end] != b"board_name" or not 0 < shndx < len(sections):
                continue
            home = sections[shndx]
            offset = home[4] + value - home[3]
            return data[offset : offset + size].split(b"\0", 1)[0].decode("utf-8", "replace")
    return None


def check_board(elf: Path | str, board: str) -> None:
    """Refuses, before anything boots or is flashed, an image built for another board: run on the wrong
    core it would only crash or hang, and the link would just time out."""
    from .errors import InputError

    built_for = board_of(elf)
    if built_for is not None and built_for != board:
        raise InputError(
            f"{elf} was built for board {built_for}, not {board}: build it for {board} "
            f"(make firmware) or pick --board {built_for}"
        )
