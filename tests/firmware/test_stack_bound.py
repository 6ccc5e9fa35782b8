"""firmware/tools/stack_bound.py, the static worst-case stack the build reserves, on small programs built
with the real arm-none-eabi-gcc beside the boards' own startup code and linker script: known frames along
a chain, an indirect call through a table, the exception frames, recursion and frames it cannot bound
refused; on the firmware images, its reading of machine code against GCC's own frames; and `make arm`
refusing a reservation below the bound."""

import importlib.util
import re
import shutil
import subprocess
import sys

import pytest

from uxhost import elf as elf_info
from uxhost import qemu

ROOT = qemu.REPO_ROOT
TOOL = ROOT / "firmware" / "tools" / "stack_bound.py"
CORTEX_M = ROOT / "boards" / "common" / "cortex-m"
M4F = ["-mthumb", "-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"]
M0 = ["-mthumb", "-mcpu=cortex-m0", "-mfloat-abi=soft"]

pytestmark = pytest.mark.skipif(
    shutil.which("arm-none-eabi-gcc") is None, reason="arm-none-eabi-gcc is missing (make deps)"
)


@pytest.fixture(scope="module")
def sb():
    spec = importlib.util.spec_from_file_location("stack_bound", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def build(tmp_path, c_source, cpu=M4F, asm_source=None):
    """prog.c (and prog_asm.s) + the boards' startup.c, linked with their sections.ld as the build links its
    first image (no stack yet). Returns the ELF; the .su files are beside it."""
    (tmp_path / "prog.c").write_text(
        "#include <stdint.h>\nvoid SysTick_Handler(void) { volatile uint32_t t[4]; t[0] = 1; }\n" + c_source
    )
    (tmp_path / "memory.ld").write_text(
        "MEMORY\n{\n    FLASH (rx) : ORIGIN = 0, LENGTH = 64K\n"
        "    RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 16K\n}\nINCLUDE sections.ld\n"
    )
    sources = [tmp_path / "prog.c", CORTEX_M / "startup.c"]
    if asm_source:
        (tmp_path / "prog_asm.s").write_text(asm_source)
        sources.append(tmp_path / "prog_asm.s")
    objects = []
    for source in sources:
        obj = tmp_path / (source.stem + ".o")
        subprocess.run(
            [
                "arm-none-eabi-gcc",
                *cpu,
                "-std=c11",
                "-O2",
                "-fstack-usage",
                "-ffunction-sections",
                "-c",
                str(source),
                "-o",
                str(obj),
            ],
            check=True,
        )
        objects.append(obj)
    image = tmp_path / "prog.elf"
    subprocess.run(
        [
            "arm-none-eabi-gcc",
            *cpu,
            "--specs=nano.specs",
            "-nostartfiles",
            "-Wl,--gc-sections",
            "-Wl,--emit-relocs",
            f"-L{tmp_path}",
            f"-L{CORTEX_M}",
            "-T",
            "memory.ld",
            "-Wl,--defsym=STACK_SIZE=0",
            "-o",
            str(image),
            *map(str, objects),
            "-lm",
        ],
        check=True,
    )
    return image


def su_frames(tmp_path):
    """name → bytes, read from GCC's .su files directly."""
    frames = {}
    for su in tmp_path.glob("*.su"):
        for line in su.read_text().splitlines():
            location, size, _kind = line.split("\t")
            frames[location.rsplit(":", 1)[1]] = int(size)
    return frames


def run_tool(image, *args):
    return subprocess.run(
        [sys.executable, str(TOOL), *args, str(image), str(image.parent)], capture_output=True, text=True
    )


CHAIN = """
__attribute__((noinline)) static int leaf(int x)
{
    volatile uint8_t buf[LEAF];
    buf[0] = (uint8_t)x;
    return buf[0] + buf[LEAF - 1];
}
__attribute__((noinline)) int middle(int x)
{
    volatile uint8_t buf[200];
    buf[0] = (uint8_t)x;
    return leaf(buf[0]) + buf[199];
}
__attribute__((noinline)) int shallow(int x) { return x + 1; }
int main(void)
{
    volatile int x = 0;
    volatile float f = 1.0f;
    for (;;) {
        x = middle(x) + shallow(x);
        f = f * 3.0f; /* a VFP instruction: exceptions stack the FP context */
    }
}
"""


def test_a_chain_of_known_frames_adds_up(sb, tmp_path):
    (tmp_path / "small").mkdir()
    (tmp_path / "bigger").mkdir()
    image = build(tmp_path / "small", "#define LEAF 64\n" + CHAIN)
    b = sb.bound(image, [image.parent], "arm-none-eabi-objdump")
    frames = su_frames(image.parent)
    assert [name for name, _ in b.thread] == ["Reset_Handler", "main", "middle", "prog.c:leaf"]
    assert [frame for _, frame in b.thread] == [
        frames["Reset_Handler"],
        frames["main"],
        frames["middle"],
        frames["leaf"],
    ]
    # Exceptions nest on the thread: the deepest configurable handler, then HardFault, then NMI, each with
    # the FP extended frame (104 B) and 4 B of alignment.
    assert [(level, [n for n, _ in path], entry) for level, path, entry in b.exceptions] == [
        ("configurable", ["SysTick_Handler"], 108),
        ("HardFault", ["Default_Handler"], 108),
        ("NMI", ["Default_Handler"], 108),
    ]
    handlers = frames["SysTick_Handler"] + 2 * frames["Default_Handler"]
    assert b.total == sum(frame for _, frame in b.thread) + 3 * 108 + handlers
    # The frame of leaf grows by exactly the bytes its array grows by, and so does the bound.
    bigger = build(tmp_path / "bigger", "#define LEAF 320\n" + CHAIN)
    assert sb.bound(bigger, [bigger.parent], "arm-none-eabi-objdump").total == b.total + 256
    assert run_tool(image).stdout == (
        f"worst case {b.total} B, deepest path: Reset_Handler → main → middle → "
        "prog.c:leaf, preempted by SysTick_Handler, by HardFault (Default_Handler), "
        "by NMI (Default_Handler)\n"
    )


def test_without_an_fpu_the_exception_frame_is_the_basic_one(sb, tmp_path):
    image = build(tmp_path, "#define LEAF 64\n" + CHAIN, cpu=M0)
    b = sb.bound(image, [tmp_path], "arm-none-eabi-objdump")
    assert [entry for _, _, entry in b.exceptions] == [36, 36, 36]
    # float arithmetic is libgcc's here, framed from its code (it has no .su)
    assert "__aeabi_fmul" in b.from_code


def test_an_indirect_call_reaches_the_functions_of_its_table(sb, tmp_path):
    image = build(
        tmp_path,
        """
typedef int (*op)(int);
__attribute__((noinline)) static int small(int x) { return x + 1; }
__attribute__((noinline)) static int big(int x)
{
    volatile uint8_t buf[512];
    buf[0] = (uint8_t)x;
    return buf[0] + buf[511];
}
static op const table[] = {small, big};
int main(void)
{
    volatile int i = 0;
    for (;;)
        i = table[i & 1](i);
}
""",
    )
    b = sb.bound(image, [tmp_path], "arm-none-eabi-objdump")
    assert sorted(b.indirect_targets) == ["prog.c:big", "prog.c:small"]
    assert [name for name, _ in b.thread] == ["Reset_Handler", "main", "prog.c:big"]
    assert b.thread[-1][1] == su_frames(tmp_path)["big"] >= 512


def test_recursion_is_refused_naming_the_cycle(tmp_path):
    image = build(
        tmp_path,
        """
__attribute__((noinline)) int odd(int n);
__attribute__((noinline)) int even(int n) { volatile int k = n; return k == 0 ? 1 : odd(k - 1) + 1; }
__attribute__((noinline)) int odd(int n) { volatile int k = n; return k == 0 ? 0 : even(k - 1) + 1; }
int main(void)
{
    volatile int n = 5;
    for (;;)
        n = even(n);
}
""",
    )
    proc = run_tool(image, "--name", "prog")
    assert proc.returncode == 1 and proc.stdout == ""
    assert re.fullmatch(
        r"prog: no stack bound: recursion: (even → odd → even|odd → even → odd) \(a recursive "
        r"call has no static stack bound\)\n",
        proc.stderr,
    ), proc.stderr


def test_a_function_calling_itself_is_refused(tmp_path):
    image = build(
        tmp_path,
        """
__attribute__((noinline)) int walk(int n)
{
    volatile uint8_t buf[16];
    buf[0] = (uint8_t)n;
    return n > 0 ? walk(n - 1) + buf[0] : buf[0];
}
int main(void)
{
    volatile int n = 5;
    for (;;)
        n = walk(n);
}
""",
    )
    proc = run_tool(image, "--name", "prog")
    assert proc.returncode == 1
    assert proc.stderr == "prog: no stack bound: recursion: walk → walk (a recursive call has no static stack bound)\n"


def test_a_variable_length_array_is_refused(tmp_path):
    image = build(
        tmp_path,
        """
__attribute__((noinline)) int sum(int n)
{
    volatile uint8_t buf[n];
    buf[0] = 1;
    return buf[0] + buf[n - 1];
}
int main(void)
{
    volatile int n = 10;
    for (;;)
        n = sum(n) + 9;
}
""",
    )
    proc = run_tool(image, "--name", "prog")
    assert proc.returncode == 1
    assert proc.stderr == (
        "prog: no stack bound: sum allocates a dynamic frame (-fstack-usage: dynamic: a VLA or "
        "alloca): its stack cannot be bounded\n"
    )


ASM = """
    .syntax unified
    .thumb
    .text
    .global {name}
    .type {name}, %function
{name}:
    {body}
    .size {name}, . - {name}
"""


def test_a_function_without_gcc_frame_is_framed_from_its_code_or_refused(sb, tmp_path):
    """Assembly has no .su: a frame its code bounds (push, sub sp, #N) is summed; one set by a register is
    refused."""
    main = "int bounded(int); int grow(int);\nint main(void) { volatile int n = 8; for (;;) n = bounded(n); }\n"
    image = build(
        tmp_path,
        main,
        asm_source=ASM.format(
            name="bounded",
            body="push {r4, r5, r6, r7, lr}\n    sub sp, #40\n    add sp, #40\n    pop {r4, r5, r6, r7, pc}",
        ),
    )
    b = sb.bound(image, [tmp_path], "arm-none-eabi-objdump")
    assert b.thread[-1] == ("bounded", 20 + 40) and "bounded" in b.from_code

    (tmp_path / "grow").mkdir()
    image = build(
        tmp_path / "grow",
        main.replace("= bounded(n)", "= grow(n)"),
        asm_source=ASM.format(name="grow", body="sub sp, sp, r0\n    add sp, sp, r0\n    bx lr"),
    )
    proc = run_tool(image, "--name", "prog")
    assert proc.returncode == 1
    assert re.fullmatch(
        r"prog: no stack bound: grow has no -fstack-usage entry and its code sets sp in a way it "
        r"does not bound \(sub(\.w)? sp, sp, r0 at 0x[0-9a-f]+\): its frame is unknown\n",
        proc.stderr,
    )


@pytest.mark.parametrize("board", qemu.all_boards())
def test_the_code_reading_agrees_with_gcc_on_the_firmware(sb, board):
    """Library functions are framed from their machine code; on every function of the firmware that also has
    GCC's frame, both readings give the same bytes — on the M0 (`add sp, rN` frames) as on the M4F and M7."""
    image = qemu.image_path(board)
    if not image.is_file():
        pytest.skip(f"no image at {image} (make firmware)")
    elf = sb.read_elf(image)
    sb.analyse_code(elf, sb.disassemble(image, "arm-none-eabi-objdump"), sb.read_su([image.parent / "obj"]))
    compared = [(fn.name, fn.frame, fn.code_frame) for fn in elf.functions.values() if fn.frame_from == "su"]
    assert len(compared) > 90
    assert [c for c in compared if c[1] != c[2]] == []


def test_make_arm_refuses_a_reservation_below_the_bound(tmp_path):
    """The build links with the bound; a smaller STACK_SIZE imposed on the command line fails the build with
    the bound and the path, and leaves no image with too small a stack."""
    built = ROOT / "build" / "microbit"
    if not (built / "firmware.elf").is_file():
        pytest.skip(f"no image in {built} (make firmware)")
    shutil.copytree(built, tmp_path / "microbit", symlinks=True)  # the objects: only the links run again
    out = tmp_path / "microbit"
    (out / "firmware.elf").unlink()
    make = ["make", "-s", "-C", str(ROOT / "firmware"), "arm", "BOARD=microbit", f"BUILD={out}"]
    ok = subprocess.run(make, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    line = re.fullmatch(
        r"microbit: flash \d+ bytes, RAM \d+ bytes \(stack reservation (\d+) B, worst case (\d+) B, "
        r"deepest path: Reset_Handler → main → .*\)\n",
        ok.stdout,
    )
    assert line, ok.stdout
    reservation, worst = int(line.group(1)), int(line.group(2))
    assert reservation == -(-worst // 8) * 8 == elf_info.section(out / "firmware.elf", ".stack")[1]

    (out / "firmware.elf").unlink()
    small = subprocess.run(make + [f"STACK_SIZE={worst - 4}"], capture_output=True, text=True)
    assert small.returncode != 0
    assert (
        f"microbit: stack reservation {worst - 4} B is below the worst case {worst} B (deepest path: " in small.stderr
    )
    assert not (out / "firmware.elf").exists() and not (out / "firmware.elf.tmp").exists()
