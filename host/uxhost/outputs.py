"""Where a command writes its result: checked before any work, so that a run never replaces a file the user
did not say it may (a cut-short dump included), and never creates folders the user did not make."""

from __future__ import annotations

from pathlib import Path

from .errors import InputError


def check_output(path, force: bool, also=(), resume_hint: bool = False) -> None:
    """Refuses `path` (and the files `also` it would replace, e.g. a dump's journal) when one exists, unless
    `force`, and `path` when its folder is missing or it is a folder. `resume_hint`: the message names
    `--resume PATH` too (the existing file is a run that can be continued)."""
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        # Made folders would hide a mistyped path; the user makes them.
        why = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(f"{path}: the folder {folder} {why} (no folder is created)")
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file to write")
    if force:
        return
    for existing in (path, *map(Path, also)):
        if existing.exists() or existing.is_symlink():
            way = f", or --resume {path} to continue it" if resume_hint else ""
            raise InputError(f"{existing} exists; pass --force to replace it{way}")
