"""Every generated file (scripts/codegen: C headers, Python tables, doc tables, golden frames) is what its
one hand-written source gives: `python -m codegen --check` lists any that drifted."""

import subprocess
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def test_generated_files_match_their_sources():
    proc = subprocess.run([sys.executable, "-m", "codegen", "--check"], cwd=SCRIPTS, capture_output=True, text=True)
    assert proc.returncode == 0, f"run `make generate`:\n{proc.stdout}{proc.stderr}"
