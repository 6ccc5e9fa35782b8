"""A model of the user's own on the command line: `--model FILE.py:FUNCTION`, a Python function of keyword
parameters with numeric defaults that returns a uxemu StateSpaceModel (uxemu.fit.ModelFamily). `simulate`
writes its traces and `fit` fits its parameters; it runs on the reference engine, as in the library.

The file is run as Python — a model is code — so it is only ever the one the user names on the command line,
never one a trace's header names."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from .errors import InputError

HELP = (
    "a model of your own: FUNCTION in the Python file FILE, of keyword parameters with numeric defaults, "
    "returning a uxemu StateSpaceModel (runs on the reference engine)"
)


def load_function(text: str):
    """The function `FILE.py:FUNCTION` names (the file's directory importable while it runs, as a script's)."""
    import importlib.util

    file_text, sep, name = text.rpartition(":")
    if not sep or not file_text or not name.isidentifier():
        raise InputError(f"--model {text!r}: expected FILE.py:FUNCTION")
    path = Path(file_text)
    if not path.is_file():
        raise InputError(f"--model: {path} does not exist")
    spec = importlib.util.spec_from_file_location(f"uxhost_user_model_{path.stem}", path)
    if spec is None:
        raise InputError(f"--model: {path} is not a Python file (expected FILE.py:FUNCTION)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import would: dataclasses and pickle look their module up there
    directory = str(path.parent.resolve())
    sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: any failure is theirs to read, at their line
        del sys.modules[spec.name]
        raise InputError(
            f"--model: running {path} failed at {_where(exc, path)}: {type(exc).__name__}: {exc}"
        ) from None
    finally:
        sys.path.remove(directory)
    function = getattr(module, name, None)
    if not callable(function):
        defined = sorted(
            n for n, v in vars(module).items() if callable(v) and getattr(v, "__module__", None) == module.__name__
        )
        raise InputError(f"--model: {path} defines no function {name} (it defines: {', '.join(defined) or 'none'})")
    return function


def family(function, text: str):
    """uxemu.fit.ModelFamily of the function `text` named, its complaints as one line. Its parameters are
    all real here: `fit` makes those bounded at 0 positive (uxemu.fit.fit)."""
    from uxemu import fit

    try:
        return fit.ModelFamily(function)
    except Exception as exc:  # ModelFamily's checks, or the user's code as it builds the default model
        path = Path(text.rpartition(":")[0])
        where = _where(exc, path)
        at = "" if where == str(path) else f"{function.__name__}() failed at {where}: {type(exc).__name__}: "
        raise InputError(f"--model: {at}{exc}") from None


def _where(exc: BaseException, path: Path) -> str:
    """FILE:LINE of the deepest frame in the user's file (a syntax error's own line), else the file."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{path}:{exc.lineno}"
    inside = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path.resolve()]
    return f"{path}:{inside[-1].lineno}" if inside else str(path)


def from_arguments(args):
    """The ModelFamily --model names, or None without it; refused beside --system."""
    if not getattr(args, "model", None):
        return None
    if args.system:
        raise InputError("--model and --system: give one (a model of your own, or a system of the table)")
    return family(load_function(args.model), args.model)
