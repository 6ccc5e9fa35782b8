"""Host builds of the firmware's protocol code (firmware/app) with a test board, for the tests that run
the exact code of the firmware natively: the sanitizer fuzzing (test_app_native.py) and the golden frames
(test_golden_native.py, tests/golden/record.py)."""

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
CC = os.environ.get("CC", "cc")


def build_app(
    exe: Path,
    board_source: Path,
    fw_version: str,
    own_main: bool = False,
    includes: tuple[Path, ...] = (),
    defines: tuple[str, ...] = (),
) -> Path:
    """Compiles firmware/app with `board_source` (which implements board.h; with `own_main`, also main()
    in place of app/main.c's protocol loop) into `exe`, under AddressSanitizer and UBSan. Raises
    RuntimeError with the compiler's message on failure."""
    if shutil.which(CC) is None:
        raise RuntimeError(f"no C compiler ({CC}) to build the host harness")
    sources = sorted(str(s) for s in (FIRMWARE / "app").glob("*.c") if not (own_main and s.name == "main.c"))
    # What the firmware links (sources.mk's UX_SRCS): the core and the models, not host-only code.
    sources += sorted(str(s) for d in ("ux", "models") for s in (FIRMWARE / "src" / d).glob("*.c"))
    sources.append(str(board_source))
    cmd = [
        CC,
        "-std=c11",
        "-O1",
        "-g",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-ffp-contract=off",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
        "-fno-omit-frame-pointer",
        f"-I{FIRMWARE / 'include'}",
        f"-I{FIRMWARE / 'src' / 'ux'}",
        f"-I{FIRMWARE / 'app'}",
        *(f"-I{d}" for d in includes),
        *(f"-D{d}" for d in defines),
        f'-DAPP_FW_VERSION="{fw_version}"',
        "-o",
        str(exe),
        *sources,
        "-lm",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"host build of firmware/app failed:\n{' '.join(cmd)}\n{proc.stderr}")
    return exe


def run_env() -> dict:
    return {**os.environ, "ASAN_OPTIONS": "detect_leaks=0"}
