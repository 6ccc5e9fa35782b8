"""The QEMU tests' firmware image of a board, or a skip saying what is missing."""

import shutil

import pytest

from uxhost import qemu


def qemu_image(board):
    if shutil.which(qemu.QEMU) is None:
        pytest.skip(f"{qemu.QEMU} is not installed (make deps)")
    path = qemu.image_path(board)
    if not path.is_file():
        pytest.skip(f"no firmware image at {path} (make firmware)")
    return path
