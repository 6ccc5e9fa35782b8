"""README.md's code runs as shown.

Every fenced block of README.md is one of:
  ```python   an example, run with the venv's Python; the ```text block right after it is what it prints
  ```text     the output of the python block before it (compared line by line, exactly)
  ```console  a shell session: `$ ` lines are commands, the lines up to the next command are the output
              shown for it; each shown line must match a line of the real output ("…" matches anything,
              a line that is only "…" stands for lines left out)
  ```sh       commands, one a line (a `#` and what follows is a comment)
Any other kind of block fails the test, so nothing lands in the README unchecked.

Shell commands run with bash, one session per block, in a fresh folder whose `.venv` is the repository's
(so `source .venv/bin/activate` is the README's own line), on the already-built tree (`make test` builds
build/native and build/<board> before pytest runs). Each must exit 0. A command that cannot run here is
listed in SKIP with the reason; SKIP naming a command the README no longer has fails too.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
VENV = REPO / ".venv"
MAX_LINES = 160

# Commands not run here, each with its reason.
SKIP = {
    "make demo": "installs the toolchain and rebuilds build/; the session below runs the same steps",
    "make test": "the whole suite, this test included (minutes)",
}

# Seconds a block may take before it counts as broken (a loaded 2-core machine; they take ~15 s idle).
BLOCK_TIMEOUT = 240

FENCE = re.compile(r"^```(\S*)\s*$")


def blocks(text: str) -> list[tuple[str, list[str], int]]:
    """(kind, lines, line number of the opening fence) of every fenced block."""
    found, kind, body, start = [], None, [], 0
    for no, line in enumerate(text.splitlines(), start=1):
        m = FENCE.match(line)
        if kind is None:
            if m:
                kind, body, start = m.group(1), [], no
        elif line.strip() == "```":
            found.append((kind, body, start))
            kind = None
        else:
            body.append(line)
    assert kind is None, f"README.md: the block opened at line {start} is never closed"
    return found


BLOCKS = blocks(README.read_text(encoding="utf-8"))


def sh_commands(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        cmd = line.split("#", 1)[0].strip()
        if cmd:
            out.append(cmd)
    return out


def console_session(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(command, output lines shown) in order."""
    session: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("$ "):
            session.append((line[2:].strip(), []))
        else:
            assert session, f"console output before any command: {line!r}"
            session[-1][1].append(line)
    return session


def shown_matches(shown: str, actual: list[str]) -> bool:
    pattern = ".*".join(re.escape(part) for part in shown.rstrip().split("…"))
    return any(re.fullmatch(pattern, line.rstrip()) for line in actual)


def run_session(commands: list[str], cwd: Path) -> list[tuple[str, int, list[str]]]:
    """Runs the commands in one bash process (so `source` carries over); each command's exit code and
    output (stdout and stderr together)."""
    script = []
    for i, cmd in enumerate(commands):
        script.append(f"printf '\\n@@@begin {i}\\n'")
        script.append(f"{cmd} 2>&1")
        script.append(f"printf '\\n@@@end {i} %d\\n' $?")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    env["MPLBACKEND"] = "Agg"
    # PATH without the venv: the README's own `source .venv/bin/activate` has to put uxhost there.
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p).resolve() != (VENV / "bin").resolve()
    )
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=BLOCK_TIMEOUT,
    )
    results, current, lines = [], None, []
    for line in proc.stdout.splitlines():
        begin = re.fullmatch(r"@@@begin (\d+)", line)
        end = re.fullmatch(r"@@@end (\d+) (\d+)", line)
        if begin:
            current, lines = int(begin.group(1)), []
        elif end:
            assert current == int(end.group(1))
            results.append((commands[current], int(end.group(2)), lines))
            current = None
        elif current is not None and line:
            lines.append(line)
    assert len(results) == len(commands), f"the session stopped early:\n{proc.stdout}"
    return results


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    if not (VENV / "bin" / "python").exists():
        pytest.fail(f"{VENV} is missing: `make test` builds it before running this test")
    (tmp_path / ".venv").symlink_to(VENV)
    return tmp_path


def test_readme_is_a_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; the front door holds {MAX_LINES}"


def test_readme_paths_exist():
    """Every repository path the README names in backticks exists."""
    text = README.read_text(encoding="utf-8")
    names = set(re.findall(r"`((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:md|toml|txt))`", text))
    missing = sorted(n for n in names if "<" not in n and not (REPO / n).exists())
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_readme_blocks_are_known_kinds():
    kinds = [kind for kind, _, _ in BLOCKS]
    unknown = [(kind, start) for kind, _, start in BLOCKS if kind not in ("python", "text", "console", "sh")]
    assert not unknown, f"README.md blocks of a kind this test cannot run (kind, line): {unknown}"
    for i, kind in enumerate(kinds):
        if kind == "python":
            assert i + 1 < len(kinds) and kinds[i + 1] == "text", "a python block is followed by what it prints"
        if kind == "text":
            assert i > 0 and kinds[i - 1] == "python", "a text block shows the output of the python block before it"
    assert "python" in kinds and "console" in kinds


def test_skip_list_names_readme_commands():
    commands = {c for kind, lines, _ in BLOCKS if kind == "sh" for c in sh_commands(lines)}
    commands |= {c for kind, lines, _ in BLOCKS if kind == "console" for c, _ in console_session(lines)}
    stale = sorted(set(SKIP) - commands)
    assert not stale, f"SKIP names commands the README no longer has: {stale}"


PYTHON = [
    (lines, BLOCKS[i + 1][1], start)
    for i, (kind, lines, start) in enumerate(BLOCKS)
    if kind == "python" and i + 1 < len(BLOCKS) and BLOCKS[i + 1][0] == "text"
]


def check_python_example(code: list[str], shown: list[str], where: str, cwd: Path) -> None:
    """Runs one example with the venv's Python in cwd: it must exit 0 and print exactly `shown`."""
    (cwd / "example.py").write_text("\n".join(code) + "\n", encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run(
        [str(VENV / "bin" / "python"), "example.py"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT,
    )
    assert proc.returncode == 0, f"{where}: the example failed:\n{proc.stderr}"
    assert proc.stdout.splitlines() == shown, (
        f"{where}: the example prints\n{proc.stdout}\nnot what the document shows:\n" + "\n".join(shown)
    )


@pytest.mark.parametrize("code,shown,start", PYTHON, ids=[f"line{s}" for _, _, s in PYTHON])
def test_python_example(code, shown, start, workdir):
    check_python_example(code, shown, f"README.md line {start}", workdir)


SHELL = [(kind, lines, start) for kind, lines, start in BLOCKS if kind in ("sh", "console")]


# What the README's commands use from the built tree (`make test` builds it before pytest runs).
BUILT = [REPO / "build" / "native" / "libux.so", REPO / "build" / "mps2-an500" / "firmware.elf"]


@pytest.mark.qemu
@pytest.mark.slow
@pytest.mark.parametrize("kind,lines,start", SHELL, ids=[f"{k}-line{s}" for k, _, s in SHELL])
def test_shell_block(kind, lines, start, workdir):
    if shutil.which("bash") is None:
        pytest.fail("bash is needed to run the README's commands")
    session = console_session(lines) if kind == "console" else [(c, []) for c in sh_commands(lines)]
    run = [(c, shown) for c, shown in session if c not in SKIP]
    if not run:
        pytest.skip("; ".join(f"{c}: {SKIP[c]}" for c, _ in session))
    missing = [str(p.relative_to(REPO)) for p in BUILT if not p.exists()]
    assert not missing, f"the tree is not built ({', '.join(missing)} missing): run `make native firmware`"
    results = run_session([c for c, _ in run], workdir)
    for (cmd, shown), (_, rc, actual) in zip(run, results):
        out = "\n".join(actual)
        assert rc == 0, f"README.md line {start}: `{cmd}` exited {rc}:\n{out}"
        for line in shown:
            if line.strip() == "…":
                continue
            assert shown_matches(
                line, actual
            ), f"README.md line {start}: `{cmd}` did not print\n  {line}\nIt printed:\n{out}"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
