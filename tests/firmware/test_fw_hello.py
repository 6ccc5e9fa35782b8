"""HELLO / INFO from the real firmware, and the basic request cycle."""

import pytest

from uxhost import link
from uxhost import protocol as p

pytestmark = pytest.mark.qemu

REAL_BYTES = {"mps2-an500": 8, "mps2-an386": 4}


def test_hello_reports_version_board_and_real_size(dev, board):
    info = dev.hello()
    assert info.protocol == p.PROTOCOL_VERSION
    assert info.board == board
    assert info.real_bytes == REAL_BYTES[board]
    assert info.max_eta == 64
    assert info.cycle_source == p.CycleSource.SYSTICK_ICOUNT
    assert info.system_ids == [p.System.SV, p.System.GSS, p.System.CUBIC_BL]
    assert info.fw_version.startswith("0.2.0")


def test_configure_reports_prior_size_and_workspace(dev):
    for eta in (1, 2, 8, 64):
        done = dev.configure(p.System.GSS, eta, params=(3.0, 1.0), prior_a=0.0, prior_b=5.0)
        assert done.count == eta
        assert 0 < done.workspace_bytes <= 256 * 1024


def test_step_answers_a_valid_posterior(dev):
    dev.configure(p.System.SV, 16, params=(0.98, 0.0, 0.2, 1.0), prior_a=0.0, prior_b=2.25)
    first = dev.step(0, False, 0.0, 0.3)
    assert first.cycles_predict == 0 and first.cycles_update > 0
    post = dev.step(1, True, 0.0, -0.4)
    assert post.k == 1 and post.status == p.Status.OK and post.count == 16
    assert all(a < b for a, b in zip(post.x, post.x[1:]))
    assert all(w > 0 for w in post.w) and abs(sum(post.w) - 1) < 1e-6
    assert post.cycles_predict > 0 and post.cycles_update > 0
    mean = sum(x * w for x, w in zip(post.x, post.w))
    assert abs(mean - post.mean) <= 1e-6 * (1 + abs(mean))


def test_reset_forgets_the_configuration(dev):
    dev.configure(p.System.GSS, 4, params=(3.0, 1.0), prior_a=0.0, prior_b=5.0)
    dev.step(0, False, 0.0, 1.0)
    dev.reset()
    with pytest.raises(link.DeviceError, match="ERR_NOT_CONFIGURED"):
        dev.step(1, True, 0.0, 1.0)
