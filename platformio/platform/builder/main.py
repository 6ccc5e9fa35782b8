"""SCons script of the ux-filter local PlatformIO platform.

A project env names its board with `custom_ux_board` (default: the env's own name): a folder under the
repository's boards/. The compiler and linker flags are the firmware Makefile's own ARM_CFLAGS and
ARM_LDFLAGS for that board, evaluated by make, so `pio run` and `make firmware` cannot drift apart. The
toolchain is the system's arm-none-eabi-gcc: nothing is downloaded.

The stack reservation is sized as the Makefile sizes it (firmware/arm.mk): the image is linked with no
stack, firmware/tools/stack_bound.py computes its worst case from the link and the objects' -fstack-usage
files, and the image is linked again with STACK_SIZE that figure, then checked.

Sources: the project's src_dir (the serial-protocol app for the repository's own envs, the user's
application in examples/), the ux core as the library of the repository's library.json (lib_deps), and
the board's sources (BOARD_SRCS of its board.mk).
"""

import importlib.util
import os
import shlex
import subprocess
import sys

from SCons.Script import AlwaysBuild, Default, DefaultEnvironment

env = DefaultEnvironment()
REPO = os.path.realpath(os.path.join(env.PioPlatform().get_dir(), "..", ".."))
FIRMWARE = os.path.join(REPO, "firmware")
BOARDS = os.path.join(REPO, "boards")
BOARD = env.GetProjectOption("custom_ux_board", env.subst("$PIOENV"))
BUILD = env.subst("$BUILD_DIR")

if not os.path.isfile(os.path.join(BOARDS, BOARD, "board.mk")):
    sys.stderr.write(f"ux-filter: no board {BOARD!r} (expected {BOARDS}/{BOARD}/board.mk); set custom_ux_board\n")
    env.Exit(1)


def make_variables(*names):
    """The firmware Makefile's variables for this board, as make itself expands them."""
    # $(info) prints the raw value (no shell in between to reinterpret its quotes)
    rule = "ux-print-variables:\n" + "".join(f"\t$(info {n}=$({n}))\n" for n in names) + "\t@:\n"
    out = subprocess.run(
        [
            "make",
            "-s",
            "--no-print-directory",
            "-f",
            "Makefile",
            "-f",
            "-",
            "ux-print-variables",
            f"BOARD={BOARD}",
            f"BUILD={BUILD}",
        ],
        cwd=FIRMWARE,
        input=rule,
        text=True,
        capture_output=True,
        check=True,
    ).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def absolute(flags, base):
    """Flags with make's relative -I/-L paths made absolute (make runs them from firmware/), each quoted
    for the shell SCons runs commands through (-DBOARD_NAME='"…"' must stay a string literal)."""
    out = []
    for flag in shlex.split(flags):
        if flag in ("-MMD", "-MP"):  # make's dependency files; SCons scans headers itself
            continue
        for prefix in ("-I", "-L"):
            if flag.startswith(prefix) and not os.path.isabs(flag[2:]):
                flag = prefix + os.path.normpath(os.path.join(base, flag[2:]))
        out.append(shlex.quote(flag))
    return out


v = make_variables("ARM_CFLAGS", "ARM_LDFLAGS", "BOARD_SRCS")
env.Replace(
    CC="arm-none-eabi-gcc",
    AS="arm-none-eabi-gcc",
    AR="arm-none-eabi-ar",
    RANLIB="arm-none-eabi-ranlib",
    LINK="arm-none-eabi-gcc",
    OBJCOPY="arm-none-eabi-objcopy",
    SIZETOOL="arm-none-eabi-size",
    PROGNAME="firmware",
    PROGSUFFIX=".elf",
)
env.Append(CCFLAGS=absolute(v["ARM_CFLAGS"], FIRMWARE), LINKFLAGS=absolute(v["ARM_LDFLAGS"], FIRMWARE), LIBS=["m"])
env.BuildSources(
    os.path.join("$BUILD_DIR", "board"), BOARDS, src_filter=["-<*>"] + [f"+<{src}>" for src in v["BOARD_SRCS"].split()]
)

# Two links and the stack bound between them (see the docstring): the analysis of the first holds for the
# second, whose code is the same; the final image is analysed again and checked.
STACK_BOUND = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.join(FIRMWARE, 'tools', 'stack_bound.py'))}"
LINK = "$LINK -o {out} $LINKFLAGS {stack} $__RPATH $SOURCES $_LIBDIRFLAGS $_LIBFLAGS"
env.Replace(
    LINKCOM=[
        LINK.format(out="${TARGET}.unsized", stack="-Wl,--defsym=STACK_SIZE=0"),
        f"{STACK_BOUND} --size --name $PIOENV ${{TARGET}}.unsized $BUILD_DIR > ${{TARGET}}.stack_size",
        LINK.format(out="$TARGET", stack="-Wl,--defsym=STACK_SIZE=$$(cat ${TARGET}.stack_size)"),
        f"stack=$$({STACK_BOUND} --check --name $PIOENV $TARGET $BUILD_DIR) && echo \"$PIOENV: $$stack\"",
    ]
)

program = env.BuildProgram()
binary = env.Command(os.path.join("$BUILD_DIR", "firmware.bin"), program, "$OBJCOPY -O binary $SOURCE $TARGET")
size = env.Alias("size", program, "$SIZETOOL -A $SOURCE")
AlwaysBuild(size)
Default([program, binary])


# `pio run -t upload`: the host's own `uxhost flash` (host/uxhost/flash.py, docs/hardware.md section 2), run
# with PlatformIO's Python, so the image is loaded and verified as `uxhost flash` does it and fails with its
# one-line errors. upload_protocol picks the way:
#   gdb    through a GDB server at upload_port HOST:PORT (OpenOCD, pyOCD gdbserver, J-Link, or QEMU's:
#          `uxhost qemu --board BOARD --gdb` prints its address);
#   pyocd  through a debug probe with pyOCD, target custom_ux_pyocd_target; upload_port, when set, is the
#          probe's unique id.
# upload_flags go to `uxhost flash` as they are (e.g. --pack FILE.pack, --timeout 60).
def upload_command(env):
    """The `uxhost flash` command line for this env, or a one-line reason why there is none."""
    protocol = env.subst("$UPLOAD_PROTOCOL") or "gdb"
    port = env.subst("$UPLOAD_PORT")
    command = [
        sys.executable,
        "-m",
        "uxhost",
        "flash",
        env.subst("$BUILD_DIR/${PROGNAME}${PROGSUFFIX}"),
        "--board",
        BOARD,
    ]
    if protocol == "gdb":
        if not port:
            return None, (
                f"upload_protocol = gdb needs the GDB server's address: set upload_port = HOST:PORT "
                f"(127.0.0.1:3333 for OpenOCD or pyOCD gdbserver) or pass --upload-port; for QEMU, "
                f"`uxhost qemu --board {BOARD} --gdb` prints it"
            )
        command += ["--gdb", port]
    elif protocol == "pyocd":
        target = env.GetProjectOption("custom_ux_pyocd_target", "")
        if not target:
            return None, (
                "upload_protocol = pyocd needs the part: set custom_ux_pyocd_target (e.g. stm32f767zi; "
                "`uxhost packs targets` lists them)"
            )
        command += ["--probe", "pyocd", "--target", target] + (["--probe-id", port] if port else [])
    else:
        return None, f"upload_protocol = {protocol}: this platform uploads with gdb or pyocd"
    if importlib.util.find_spec("uxhost") is None:
        return None, (
            f"uploading runs `uxhost flash`, which is not installed in {sys.executable}: "
            "install the repository's host package there (`make venv` does)"
        )
    return command + [str(flag) for flag in env.get("UPLOAD_FLAGS", [])], None


def upload(target, source, env):
    command, reason = upload_command(env)
    if command is None:
        sys.stderr.write(f"ux-filter: {reason}\n")
        return 1
    print(" ".join(shlex.quote(part) for part in command))
    return subprocess.call(command)


env.AddPlatformTarget(
    "upload",
    program,
    env.VerboseAction(upload, "Uploading $SOURCE with uxhost flash"),
    "Upload",
    "Flash the image through a GDB server or a pyOCD probe (uxhost flash)",
)
