"""`python -m uxbench` knows every benchmark: each registered study imports and has its shape, and every module
of the package that looks like a study (it defines a top-level `report` or `main`) is registered."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from uxbench import registry
from uxbench.__main__ import main as uxbench

PACKAGE = Path(registry.__file__).parent
# Modules with a `main` that are not studies: the command line itself, and the worker process the particles
# library check runs in its own environment.
NOT_STUDIES = {"__main__", "particles_worker"}
SWEEP = ("SIZES", "tasks", "run_task", "report")
STUDY = ("arguments", "run", "report")


def top_level_functions(path: Path) -> set[str]:
    """The module's top-level functions, by `def` or bound to a name (`report = write_study`)."""
    body = ast.parse(path.read_text()).body
    defined = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    return defined | {t.id for n in body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def test_list_prints_every_registered_study_on_one_line():
    out = subprocess.run([sys.executable, "-m", "uxbench", "--list"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(registry.NAMES)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)  # a name and what it does


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_registered_study_imports_with_its_shape(name):
    module = registry.load(name)
    shape = SWEEP if name in registry.SWEEPS else STUDY
    assert all(hasattr(module, attr) for attr in shape) or (name in registry.STUDIES and hasattr(module, "main"))


def test_every_module_that_looks_like_a_study_is_registered():
    looks = {p.stem for p in PACKAGE.glob("*.py") if top_level_functions(p) & {"report", "main"}} - NOT_STUDIES
    assert looks == set(registry.NAMES)
    assert len(registry.NAMES) == len(set(registry.NAMES))


def test_an_unknown_name_is_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exc:
        uxbench(["no_such_study"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown benchmark no_such_study" in err and "evidence" in err and "soak" in err


def test_a_study_takes_its_own_options_and_refuses_others(capsys):
    with pytest.raises(SystemExit) as exc:
        uxbench(["joint_loglik", "--no-such-option"])
    assert exc.value.code == 2
    assert "uxbench joint_loglik" in capsys.readouterr().err
