"""Reading the board an image was built for from its ELF symbols."""

import pytest

from uxhost import qemu
from uxhost.elf import board_of, check_board
from uxhost.errors import InputError


@pytest.mark.parametrize("board", qemu.boards())
def test_each_built_image_names_its_board(board):
    elf = qemu.image_path(board)
    if not elf.is_file():
        pytest.skip(f"no image at {elf} (make firmware)")
    assert board_of(elf) == board
    check_board(elf, board)
    other = next((b for b in qemu.boards() if b != board), None)
    if other:
        with pytest.raises(InputError, match=f"was built for board {board}, not {other}"):
            check_board(elf, other)


@pytest.mark.parametrize("content", [b"", b"\x7fELF", b"\x7fELF\x01\x01" + b"\xff" * 60, b"not an elf at all"])
def test_a_file_that_cannot_tell_its_board_is_left_to_the_loader(tmp_path, content):
    path = tmp_path / "x.elf"
    path.write_bytes(content)
    assert board_of(path) is None
    check_board(path, "mps2-an500")  # no claim, no refusal: qemu.check_image reports what is wrong


@pytest.mark.parametrize("board", qemu.boards())
def test_each_built_image_has_its_stack_section(board):
    elf = qemu.image_path(board)
    if not elf.is_file():
        pytest.skip(f"no image at {elf} (make firmware)")
    from uxhost.elf import section

    address, size = section(elf, ".stack")
    # the reservation the build sized from the image's static worst case (firmware/arm.mk)
    assert address >= 0x20000000 and size == int((elf.parent / "stack_size").read_text())
    assert section(elf, ".no-such-section") is None
