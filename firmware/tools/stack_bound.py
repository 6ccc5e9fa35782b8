#!/usr/bin/env python3
"""The worst-case stack of a linked Cortex-M image, computed statically: frames × call graph + exceptions.

    stack_bound.py firmware.elf OBJDIR…             # the report: worst case and deepest path
    stack_bound.py --size firmware.elf OBJDIR…      # the reservation the build links with
    stack_bound.py --check firmware.elf OBJDIR…     # the report; fails when .stack is smaller
    stack_bound.py --explain firmware.elf OBJDIR…   # every frame of the deepest path, the indirect targets

OBJDIR are searched (recursively) for the `.su` files GCC writes with `-fstack-usage`. The image must be
linked with `-Wl,--emit-relocs`. Plain Python 3 standard library and the toolchain's objdump (ARM_PREFIX,
default arm-none-eabi-): the build needs no venv.

How the bound is made, and what it assumes (each assumption is checked where it can be, and the image
refused when a check fails; a refusal names the function or the cycle):

- Frames. A function compiled with `-fstack-usage` has its frame from GCC's `.su` line (saved registers,
  locals, spills, outgoing arguments; a local function's from its own file's line, the largest if
  several match); `dynamic` frames (VLA, alloca) are refused, `dynamic,bounded` ones taken at GCC's
  bound. A function without one (newlib-nano's libc and libm, libgcc — the soft-float routines on the
  M0) gets the sum of every stack-pointer decrement in its machine code: `push`, `vpush`, `stmdb sp!`,
  `sub sp, #N`, pre-indexed stores to sp, and `add sp, rN` / `sub sp, rN` where the instructions just
  before show rN's constant (the M0's frames above 508 B). That is an upper bound on the deepest the
  function itself goes if no loop grows the stack (a loop that pushes more than it pops would be
  unbounded allocation, which no compiler emits for C without alloca); a function that sets sp any other
  way (from a register it does not show, from memory, `msr msp`) is refused. On every function of the
  firmware that has a `.su` line, this reading of its code gives GCC's figure (a test checks it).
- Calls, from the linked machine code, so that calls the compiler adds (libgcc's soft-float and division
  routines, memcpy for a struct copy or a copy loop) and tail calls count: `bl`/`blx` to an address (to
  the function's own entry: recursion), and any branch out of the function (a tail call, taken at the
  caller's whole frame). A call into the middle of a function (libgcc's alternate entry points) counts as
  a call to the whole function; a branch to code outside every symbol (newlib's strcmp keeps a fragment
  before its entry) makes a function of the code from there to the next symbol.
- Indirect calls (`blx rN`, `bx rN` other than `bx lr`, a pc loaded from anything but the stack) may
  reach every function whose address the image holds: every 32-bit word and movw/movt pair the linker's
  relocations wrote (kept by --emit-relocs) that is a function's address with the Thumb bit — pointer
  tables such as the systems' model functions, literal pools such as the link's writer. Relocations, not
  a scan of the words, so that no constant that happens to equal an address counts. The vector table's
  words are not counted: its handlers are the roots below, not callees. A jump through a table of the
  function's own code addresses (the M0's C switch: `ldr rT, =table; ldr rN, [rT, rI]; mov pc, rN`)
  stays in the function, the table taken to end at its first word that is not such an address.
- Recursion is refused, naming the cycle: the firmware has none (firmware/README.md) and a bound would
  need a depth limit the code does not state.
- Roots and exceptions. The thread starts at the ELF's entry point (Reset_Handler: reset leaves nothing
  on the stack). Every other word of the `.vectors` section is an exception handler and runs on the same
  (main) stack. Assumed, not checked: the firmware never changes an exception priority (no board code
  writes SHPR or NVIC_IPR; a board that did would need its preemption levels stated here), so at their
  reset priority 0 the configurable exceptions (SysTick, PendSV, SVC, faults, interrupts) cannot preempt
  one another; HardFault (−1) and NMI (−2) can.
  So the deepest nesting is the thread, then the deepest configurable handler, then HardFault, then NMI,
  each entry adding its exception frame: 32 B of registers, 104 B when an FP context can be active (the
  image executes a VFP instruction: lazy stacking still reserves the space), plus 4 B of alignment
  padding (CCR.STKALIGN).
"""

from __future__ import annotations

import argparse
import bisect
import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

BASIC_FRAME = 32  # r0–r3, r12, lr, pc, xPSR (ARMv7-M ARM B1.5.6; ARMv6-M the same)
EXTENDED_FRAME = 104  # + s0–s15, FPSCR and a reserved word (B1.5.7)
ALIGN_PAD = 4  # the frame is 8-byte aligned: up to 4 B of padding (CCR.STKALIGN)
STACK_ALIGN = 8  # the reservation's granularity (AAPCS: sp is 8-byte aligned at calls)
# Exception numbers with a fixed priority; every other one is configurable (reset priority 0).
NMI, HARDFAULT = 2, 3


class Refused(Exception):
    """The image cannot be bounded; the message says why."""


@dataclass
class Function:
    address: int
    size: int
    names: list[str]
    file: str | None = None  # the source file of a local symbol (STT_FILE before it)
    frame: int = 0
    frame_from: str = ""  # "su" or "code"
    code_frame: int | None = None  # the sum of its code's sp decrements (None: sp set by a register)
    vfp: bool = False  # it executes a VFP instruction
    problem: str | None = None  # why its frame cannot be bounded (refused when it is reached)
    calls: set[int] = field(default_factory=set)
    indirect: bool = False

    @property
    def name(self) -> str:
        """Its (strongest) name; a file-local one says its file: several files have a `transition`."""
        return f"{self.file}:{self.names[0]}" if self.file else self.names[0]


# ---------------------------------------------------------------------------------------------- ELF


@dataclass
class Elf:
    entry: int
    sections: dict[str, tuple[int, int, int, bytes]]  # name → (address, size, flags, contents or b"")
    functions: dict[int, Function]
    relocations: list[tuple[int, int]]  # (address, ELF relocation type) of every address the linker wrote

    def word(self, address: int) -> int | None:
        """The 32-bit word the image holds at `address`, or None outside its loaded contents."""
        for addr, size, flags, contents in self.sections.values():
            if flags & 2 and contents and addr <= address and address + 4 <= addr + size:
                return struct.unpack_from("<I", contents, address - addr)[0]
        return None


def read_elf(path: Path) -> Elf:
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise Refused(f"{path} is not a 32-bit little-endian ELF file")
    (entry,) = struct.unpack_from("<I", data, 24)
    (shoff,) = struct.unpack_from("<I", data, 32)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 46)
    raw = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = raw[shstrndx]

    def name_at(table, offset):
        start = table[4] + offset
        return data[start : data.index(b"\0", start)].decode()

    sections = {}
    relocations: list[tuple[int, int]] = []
    for sh in raw:
        name, kind, flags, addr, offset, size = sh[0], sh[1], sh[2], sh[3], sh[4], sh[5]
        contents = data[offset : offset + size] if kind != 8 else b""  # SHT_NOBITS has none
        sections[name_at(strtab, name)] = (addr, size, flags, contents)
        if kind == 9 and raw[sh[7]][2] & 2:  # SHT_REL of an allocated section (kept by --emit-relocs)
            relocations += [(r_offset, r_info & 0xFF) for r_offset, r_info in struct.iter_unpack("<II", contents)]
    if not relocations:
        raise Refused(
            f"{path} keeps no relocations: link it with -Wl,--emit-relocs (the targets of indirect "
            "calls are the function addresses the linker wrote)"
        )
    symtab = next((sh for sh in raw if sh[1] == 2), None)  # SHT_SYMTAB
    if symtab is None:
        raise Refused(f"{path} has no symbol table (stripped?)")
    names = raw[symtab[6]]
    functions: dict[int, Function] = {}
    rank: dict[str, int] = {}
    current_file = None
    for i in range(symtab[5] // 16):
        st_name, value, size, info, _other, shndx = struct.unpack_from("<IIIBBH", data, symtab[4] + 16 * i)
        kind, bind = info & 0xF, info >> 4
        if kind == 4:  # STT_FILE: the local symbols after it come from this source file
            current_file = name_at(names, st_name)
            continue
        if kind != 2 or shndx == 0 or size == 0:  # STT_FUNC, defined, with a size
            continue
        name = name_at(names, st_name)
        address = value & ~1
        fn = functions.setdefault(address, Function(address, size, [], current_file if bind == 0 else None))
        fn.size = max(fn.size, size)
        # Aliases share an address (the weak exception handlers of Default_Handler): the strong global
        # name first, then weak, then local ones.
        fn.names.append(name)
        rank[name] = {1: 0, 2: 1}.get(bind, 2)
        fn.names.sort(key=lambda n: rank[n])
        if bind != 0:
            fn.file = None
    return Elf(entry & ~1, sections, functions, relocations)


def words(contents: bytes) -> list[int]:
    return list(struct.unpack_from(f"<{len(contents) // 4}I", contents)) if len(contents) >= 4 else []


# --------------------------------------------------------------------------------------- .su files

_SU_LINE = re.compile(r"^(.*?):\d+:\d+:(\S+)\t(\d+)\t(\S+)$")


def read_su(dirs: list[Path]) -> dict[str, list[tuple[str, int, str]]]:
    """name → [(source file's base name, bytes, qualifier)] over every .su file under `dirs`."""
    table: dict[str, list[tuple[str, int, str]]] = {}
    for d in dirs:
        for su in sorted(Path(d).rglob("*.su")):
            for line in su.read_text().splitlines():
                match = _SU_LINE.match(line)
                if match is None:
                    raise Refused(f"{su}: cannot read the line {line!r}")
                source, name, size, qualifier = match.groups()
                table.setdefault(name, []).append((os.path.basename(source), int(size), qualifier))
    return table


def su_frame(fn: Function, su: dict) -> int | None:
    """GCC's frame for `fn`, the largest of the entries that can be it; None when there is none."""
    entries = [e for name in fn.names for e in su.get(name, [])]
    if fn.file is not None:  # a local symbol: only its own file's entry
        entries = [e for e in entries if e[0] == fn.file]
    if not entries:
        return None
    for _source, _size, qualifier in entries:
        if qualifier not in ("static", "dynamic,bounded"):
            raise Refused(
                f"{fn.name} allocates a dynamic frame (-fstack-usage: {qualifier}: a VLA or "
                "alloca): its stack cannot be bounded"
            )
    return max(size for _source, size, _qualifier in entries)


# ----------------------------------------------------------------------------------- machine code

_INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\t?(.*)$")
_TARGET = re.compile(r"\b([0-9a-f]+) <")
_BRANCH = re.compile(r"^(b|bl|blx)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?(\.n|\.w)?$|^cbn?z$")
_REGLIST = re.compile(r"\{([^}]*)\}")
_IMM = re.compile(r"#(-?\d+)")


def disassemble(path: Path, objdump: str) -> list[tuple[int, str, str, str]]:
    """(address, mnemonic, operands, objdump's comment) of every instruction (literal data, which objdump
    shows as .word, left out)."""
    try:
        out = subprocess.run(
            [objdump, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise Refused(f"cannot disassemble {path} with {objdump}: {e}") from e
    insns = []
    for line in out.splitlines():
        match = _INSN.match(line)
        if match and not match.group(2).startswith("."):
            operands, _, comment = match.group(3).partition("@")
            insns.append((int(match.group(1), 16), match.group(2), operands.strip(), comment.strip()))
    return insns


def reglist_bytes(operands: str) -> int:
    """Bytes a register list moves: 4 per core or s register, 8 per d register; ranges included."""
    total = 0
    for item in _REGLIST.search(operands).group(1).split(","):
        item = item.strip()
        first, _, last = item.partition("-")
        count = int(last[1:]) - int(first[1:]) + 1 if last else 1
        total += count * (8 if first.startswith("d") else 4)
    return total


def sp_decrement(mnemonic: str, operands: str) -> int | None:
    """Bytes this instruction moves sp down by (0 when it does not), or None when it sets sp in a way
    that its own encoding does not bound (from a register, from memory)."""
    m = mnemonic.split(".")[0]
    ops = operands.replace(" ", "")
    if m == "msr" and ops.lower().startswith(("msp", "psp")):
        return None  # a stack pointer set from a register
    if m in ("push", "vpush") or (m in ("stmdb", "stmfd", "vstmdb") and ops.startswith("sp!")):
        return reglist_bytes(operands)
    if re.search(r"\[sp,#-\d+\]!$", ops):  # str rX, [sp, #-N]! and strd, vstr alike
        return int(re.search(r"#-(\d+)\]!$", ops).group(1))
    if not ops.startswith("sp,") or m in ("cmp", "cmn", "tst", "teq", "str", "strd", "strb", "strh"):
        if m.startswith("ldm") and re.search(r"\bsp\b", ops.split("{", 1)[-1]):
            return None  # sp loaded from memory
        return 0
    if m in ("sub", "subw", "add", "addw"):
        imm = _IMM.search(ops)
        if imm is None or re.match(r"sp,(sp,)?(r\d+|ip|fp|sl|lr)", ops):
            return None  # sp moved by a register's value
        value = int(imm.group(1))
        value = value if m.startswith("sub") else -value
        return max(value, 0)
    return None  # mov sp, rN / ldr sp, … : sp from a value this instruction does not show


def own_table(elf: Elf, fn: Function, address: int | None) -> bool:
    """Whether a jump through the table at `address` stays inside `fn`: a C switch's table of the
    function's own code addresses (the M0's `ldr rT, =table; ldr rN, [rT, rI]; mov pc, rN`; `mov pc`
    ignores bit 0, so the entries carry no Thumb bit). The table is
    taken to end at its first word that is not such an address; one that is none at all is no switch."""
    if address is None:
        return False
    inside = 0
    while (w := elf.word(address + 4 * inside)) is not None and fn.address < (w & ~1) < fn.address + fn.size:
        inside += 1
    return inside > 0


def track(elf: Elf, known: dict[str, int], table: dict[str, int], mnemonic: str, operands: str, comment: str) -> None:
    """Follows the constants a function's straight-line code puts in registers — literal loads, small
    immediates and their shifts — and the registers loaded from a table at a known address; any other
    write to a register forgets what it held. Only what the instruction just before a use shows matters
    here (M0 frames above 508 B, switch tables), so branches are not followed."""
    ops = operands.replace(" ", "").split(",")
    dest = ops[0]
    literal_at = re.match(r"\(([0-9a-f]+) <", comment)
    value = None
    if mnemonic in ("ldr", "ldr.w") and ops[1:2] == ["[pc"] and literal_at:
        value = elf.word(int(literal_at.group(1), 16))
    elif mnemonic in ("ldr", "ldr.w") and len(ops) == 3 and ops[1][1:] in known and ops[2].endswith("]"):
        table[dest] = known[ops[1][1:]]
        known.pop(dest, None)
        return
    elif mnemonic in ("movs", "mov", "mov.w", "movw") and len(ops) == 2 and ops[1].startswith("#"):
        value = int(ops[1][1:]) & 0xFFFFFFFF
    elif mnemonic in ("lsls", "lsl.w") and ops[-1].startswith("#") and ops[-2] in known:
        value = (known[ops[-2]] << int(ops[-1][1:])) & 0xFFFFFFFF
    elif mnemonic == "negs" and ops[-1] in known:
        value = -known[ops[-1]] & 0xFFFFFFFF
    if mnemonic.startswith(("str", "cmp", "cmn", "tst", "teq", "b", "push", "vpush", "vstr", "it")):
        return  # writes no register
    table.pop(dest, None)
    known.pop(dest, None)
    if value is not None:
        known[dest] = value


def note_immediate(
    mnemonic: str, operands: str, dest: str, at: int, movw: dict[str, int], immediates: dict[int, int]
) -> None:
    """The value a movw/movt pair builds, at the instruction's address (movw's low half kept by register)."""
    imm = _IMM.search(operands) if mnemonic.startswith(("movw", "movt")) else None
    if imm is None:
        return
    if mnemonic.startswith("movw"):
        movw[dest] = immediates[at] = int(imm.group(1)) & 0xFFFF
    else:
        immediates[at] = (int(imm.group(1)) & 0xFFFF) << 16 | movw.get(dest, 0)


def sp_step(mnemonic: str, operands: str, known: dict[str, int]) -> int | None:
    """How much the instruction lowers sp (0 when it does not touch it), or None when the code does not
    bound it."""
    step = sp_decrement(mnemonic, operands)
    by_register = re.match(r"^(add|sub)(\.w)?$", mnemonic) and re.match(r"sp,(sp,)?(\w+)$", operands.replace(" ", ""))
    if step is None and by_register and by_register.group(2) in known:
        # The M0's large frames: `ldr rN, =-N; add sp, rN`, and `movs rN, #n; lsls rN, #k; add sp, rN`
        # to free them: a constant the code shows, as bounded as an immediate.
        value = known[by_register.group(2)]
        value = value - (1 << 32) if value >= 1 << 31 else value
        step = max(-value if mnemonic.startswith("add") else value, 0)
    return step


def note_branch(elf: Elf, fn: Function, mnemonic: str, operands: str, dest: str, table: dict[str, int]) -> None:
    """A call the instruction makes into `fn.calls`, or `fn.indirect` when it jumps where the code does not say."""
    end = fn.address + fn.size
    target = _TARGET.search(operands)
    if _BRANCH.match(mnemonic) and target:
        to = int(target.group(1), 16)
        # A branch inside the function is its own control flow (a Thumb-1 `bl` can be a far jump), except
        # a call to its own entry: recursion.
        if not (fn.address <= to < end) or (to == fn.address and mnemonic.startswith("bl")):
            fn.calls.add(to)
    elif mnemonic.startswith("blx"):
        fn.indirect = True
    elif (
        mnemonic.startswith("bx")
        and operands != "lr"
        or (
            re.match(r"^(mov|add|ldr)", mnemonic)
            and dest == "pc"
            and not operands.replace(" ", "").startswith("pc,[sp]")
        )
    ):
        jump = operands.split(",")[-1].strip() if mnemonic.startswith("bx") else operands.split(",", 1)[1].strip()
        if not own_table(elf, fn, table.get(jump)):
            fn.indirect = True


def settle_frame(fn: Function, su: dict, decrements: int, unbounded: str | None) -> None:
    """`fn`'s frame: its .su entry's, else what its code lowers sp by when the code bounds it, else a problem."""
    fn.code_frame = None if unbounded else decrements
    try:
        frame = su_frame(fn, su)
    except Refused as e:
        fn.problem = str(e)
        return
    if frame is not None:
        fn.frame, fn.frame_from = frame, "su"
    elif unbounded:
        fn.problem = (
            f"{fn.name} has no -fstack-usage entry and its code sets sp in a way it does not bound "
            f"({unbounded}): its frame is unknown"
        )
    else:
        fn.frame, fn.frame_from = decrements, "code"


def analyse_function(
    elf: Elf, fn: Function, code: list[tuple[int, str, str, str]], su: dict, immediates: dict[int, int]
) -> None:
    """Fills `fn`'s frame, calls and indirect calls from its code and its .su entry; adds the values its
    movw/movt pairs build to `immediates`, by the instruction's address."""
    movw: dict[str, int] = {}
    known: dict[str, int] = {}  # register → the constant it holds, where the code shows it
    table: dict[str, int] = {}  # register → the address of the table it was loaded from
    decrements, unbounded = 0, None
    for at, mnemonic, operands, comment in code:
        dest = operands.split(",")[0].strip()
        track(elf, known, table, mnemonic, operands, comment)
        fn.vfp = fn.vfp or mnemonic.startswith("v")  # VFP (and only VFP) mnemonics begin with v
        note_immediate(mnemonic, operands, dest, at, movw, immediates)
        step = sp_step(mnemonic, operands, known)
        if step is None:
            unbounded = unbounded or f"{mnemonic} {operands} at {at:#x}"
        else:
            decrements += step
        note_branch(elf, fn, mnemonic, operands, dest, table)
    settle_frame(fn, su, decrements, unbounded)


def analyse_code(elf: Elf, insns: list[tuple[int, str, str, str]], su: dict) -> dict[int, int]:
    """Fills every function's frame and calls; returns the values movw/movt pairs build, by the address of
    the instruction. A branch to code that no function symbol covers (hand-written library routines keep
    fragments outside their symbol: newlib's Thumb-2 strcmp returns through code placed before its entry)
    makes a function of the code from there to the next symbol."""
    immediates: dict[int, int] = {}
    done: set[int] = set()
    while True:
        starts = sorted(elf.functions)
        by_function: dict[int, list[tuple[int, str, str, str]]] = {}
        for insn in insns:
            i = bisect.bisect_right(starts, insn[0]) - 1
            if i >= 0 and insn[0] < starts[i] + elf.functions[starts[i]].size:
                by_function.setdefault(starts[i], []).append(insn)
        for address in starts:
            if address not in done:
                analyse_function(elf, elf.functions[address], by_function.get(address, []), su, immediates)
                done.add(address)
        uncovered = {to for fn in elf.functions.values() for to in fn.calls if covering(elf, starts, to) is None}
        if not uncovered:
            return immediates
        for to in uncovered:
            nxt = starts[bisect.bisect_right(starts, to)] if bisect.bisect_right(starts, to) < len(starts) else None
            last = max((at for at, *_ in insns if at >= to and (nxt is None or at < nxt)), default=None)
            if last is None:
                raise Refused(f"a branch to {to:#x}, where the image has no code")
            elf.functions[to] = Function(to, (nxt if nxt is not None else last + 4) - to, [f"code at {to:#x}"])


def covering(elf: Elf, starts: list[int], address: int) -> Function | None:
    """The function whose code holds `address` (`starts`: the functions' sorted addresses), or None."""
    i = bisect.bisect_right(starts, address) - 1
    if i >= 0 and address < starts[i] + elf.functions[starts[i]].size:
        return elf.functions[starts[i]]
    return None


# ------------------------------------------------------------------------------------------- bound


@dataclass
class Bound:
    total: int
    thread: list[tuple[str, int]]  # the deepest call path from the entry: (function, frame)
    exceptions: list[tuple[str, list[tuple[str, int]], int]]  # (level, handler's deepest path, entry frame)
    indirect_targets: list[str]  # what an indirect call may reach
    from_code: list[str]  # functions on some path framed from their code (no .su)

    def path_text(self) -> str:
        """The deepest path: the thread's calls, then each nested exception's handler."""
        text = " → ".join(name for name, _frame in self.thread)
        for level, path, _entry in self.exceptions:
            handler = " → ".join(name for name, _frame in path)
            text += f", preempted by {handler}" if level == "configurable" else f", by {level} ({handler})"
        return text

    def explain(self) -> str:
        lines = [f"worst case {self.total} B"]
        lines += [f"  {frame:6} B  {name}" for name, frame in self.thread]
        for level, path, entry in self.exceptions:
            lines.append(f"  {entry:6} B  exception frame ({level})")
            lines += [f"  {frame:6} B  {name}" for name, frame in path]
        lines.append(f"indirect calls may reach ({len(self.indirect_targets)}): {', '.join(self.indirect_targets)}")
        lines.append(f"framed from their machine code ({len(self.from_code)}): {', '.join(self.from_code)}")
        return "\n".join(lines)


def function_at(elf: Elf, address: int) -> Function:
    fn = elf.functions.get(address) or covering(elf, sorted(elf.functions), address)
    if fn is None:
        raise Refused(f"a call to {address:#x}, which no function of the image covers")
    return fn


def indirect_targets(elf: Elf, immediates: dict[int, int]) -> list[int]:
    """The functions an indirect call may reach: every function address the linker wrote outside the vector
    table, as 32-bit words (R_ARM_ABS32, R_ARM_TARGET1) or movw/movt immediates (R_ARM_THM_MOVW_ABS_NC,
    R_ARM_THM_MOVT_ABS: the pair's value is at the movt)."""
    vectors = elf.sections.get(".vectors")

    def in_vectors(at: int) -> bool:
        return vectors is not None and vectors[0] <= at < vectors[0] + vectors[1]

    held = {elf.word(at) for at, kind in elf.relocations if kind in (2, 38) and not in_vectors(at)}
    held |= {immediates[at] for at, kind in elf.relocations if kind in (47, 48) and at in immediates}
    return sorted({w & ~1 for w in held if w is not None and w & 1 and (w & ~1) in elf.functions})


class Depths:
    """The deepest call path from each function (its frame plus its deepest callee's), memoised; recursion
    is refused, as it has no static bound."""

    def __init__(self, elf: Elf, targets: list[int]):
        self.elf, self.targets = elf, targets
        self.depth: dict[int, tuple[int, list[int]]] = {}
        self.on_path: list[int] = []

    def deepest(self, address: int) -> tuple[int, list[int]]:
        if address in self.depth:
            return self.depth[address]
        elf = self.elf
        if address in self.on_path:
            cycle = self.on_path[self.on_path.index(address) :] + [address]
            raise Refused(
                "recursion: "
                + " → ".join(elf.functions[a].name for a in cycle)
                + " (a recursive call has no static stack bound)"
            )
        self.on_path.append(address)
        fn = elf.functions[address]
        if fn.problem:
            raise Refused(fn.problem)
        callees = {function_at(elf, to).address for to in fn.calls} | (set(self.targets) if fn.indirect else set())
        best, best_path = 0, []
        for callee in sorted(callees):
            d, p = self.deepest(callee)
            if d > best:
                best, best_path = d, p
        self.on_path.pop()
        self.depth[address] = (fn.frame + best, [address] + best_path)
        return self.depth[address]

    def framed(self, path: list[int]) -> list[tuple[str, int]]:
        return [(self.elf.functions[a].name, self.elf.functions[a].frame) for a in path]


def exception_levels(elf: Elf) -> dict[str, set[int]]:
    """The handlers of the vector table (entries 2 on) by the level they run at: NMI, HardFault, or one
    configurable priority (every other handler, as they may nest)."""
    vectors = elf.sections.get(".vectors")
    levels: dict[str, set[int]] = {"configurable": set(), "HardFault": set(), "NMI": set()}
    for number, word in enumerate(words(vectors[3]) if vectors else []):
        if number >= 2 and word != 0:
            level = "NMI" if number == NMI else "HardFault" if number == HARDFAULT else "configurable"
            levels[level].add(function_at(elf, word & ~1).address)
    return levels


def bound(path: Path, su_dirs: list[Path], objdump: str) -> Bound:
    elf = read_elf(path)
    insns = disassemble(path, objdump)
    immediates = analyse_code(elf, insns, read_su(su_dirs))
    targets = indirect_targets(elf, immediates)
    depths = Depths(elf, targets)
    if elf.entry not in elf.functions:
        raise Refused(f"the entry point {elf.entry:#x} is not a function of the image")
    thread, thread_path = depths.deepest(elf.entry)
    levels = exception_levels(elf)
    for address in sorted(set().union(*levels.values())):
        depths.deepest(address)
    # An FP context can be active when an exception comes if any code that runs executes a VFP instruction.
    vfp = any(elf.functions[a].vfp for a in depths.depth)
    entry_frame = (EXTENDED_FRAME if vfp else BASIC_FRAME) + ALIGN_PAD
    exceptions, total = [], thread
    for level, handlers in levels.items():
        if handlers:
            d, p = max(depths.deepest(a) for a in sorted(handlers))
            exceptions.append((level, depths.framed(p), entry_frame))
            total += entry_frame + d
    from_code = sorted({elf.functions[a].name for a in depths.depth if elf.functions[a].frame_from == "code"})
    return Bound(total, depths.framed(thread_path), exceptions, [elf.functions[a].name for a in targets], from_code)


def reservation(total: int) -> int:
    """The stack the build reserves for a worst case of `total` bytes: the bound itself, rounded up to the
    stack's alignment. No margin: the bound is an upper bound, not an estimate (the QEMU high-water mark
    test checks it against a measurement)."""
    return -(-total // STACK_ALIGN) * STACK_ALIGN


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf", type=Path)
    ap.add_argument("objdirs", type=Path, nargs="+", help="directories holding the image's .su files")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--size", action="store_true", help="print only the reservation for the bound")
    mode.add_argument("--check", action="store_true", help="fail when the image's .stack is below the bound")
    mode.add_argument(
        "--explain",
        action="store_true",
        help="every frame of the deepest path, the indirect " "targets and the functions framed from code",
    )
    ap.add_argument("--name", default=None, help="what to call the image in messages (default: its path)")
    ap.add_argument("--objdump", default=os.environ.get("ARM_PREFIX", "arm-none-eabi-") + "objdump")
    args = ap.parse_args(argv)
    name = args.name or str(args.elf)
    try:
        b = bound(args.elf, args.objdirs, args.objdump)
    except Refused as e:
        print(f"{name}: no stack bound: {e}", file=sys.stderr)
        return 1
    if args.size:
        print(reservation(b.total))
        return 0
    if args.explain:
        print(b.explain())
        return 0
    text = f"worst case {b.total} B, deepest path: {b.path_text()}"
    if args.check:
        stack = read_elf(args.elf).sections.get(".stack")
        if stack is None:
            print(f"{name}: no .stack section to check the worst case ({b.total} B) against", file=sys.stderr)
            return 1
        if stack[1] < b.total:
            print(
                f"{name}: stack reservation {stack[1]} B is below the worst case {b.total} B "
                f"(deepest path: {b.path_text()})",
                file=sys.stderr,
            )
            return 1
        text = f"stack reservation {stack[1]} B, {text}"
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
