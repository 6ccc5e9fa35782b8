"""docs/usage.md's Python examples that show their output run as shown: each ```python block followed by a
```text block is run with the venv's Python and must print exactly that (test_readme's rule for README.md)."""

from pathlib import Path

import pytest
from test_readme import blocks, check_python_example

USAGE = Path(__file__).resolve().parents[1] / "docs" / "usage.md"
BLOCKS = blocks(USAGE.read_text(encoding="utf-8"))
PYTHON = [
    (lines, BLOCKS[i + 1][1], start)
    for i, (kind, lines, start) in enumerate(BLOCKS)
    if kind == "python" and i + 1 < len(BLOCKS) and BLOCKS[i + 1][0] == "text"
]


def test_usage_has_examples_to_check():
    assert PYTHON, "docs/usage.md shows no Python example with its output"


@pytest.mark.parametrize("code,shown,start", PYTHON, ids=[f"line{s}" for _, _, s in PYTHON])
def test_usage_example(code, shown, start, tmp_path):
    check_python_example(code, shown, f"docs/usage.md line {start}", tmp_path)
