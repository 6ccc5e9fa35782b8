"""HELLO / INFO from the real firmware, and the basic request cycle."""

import pytest
from fwutil import GSS, SV, board_setting, largest_eta, prior_on, real_bytes_of, serves_joint

from uxemu import joint_systems, systems
from uxhost import link
from uxhost import protocol as p

pytestmark = pytest.mark.qemu

GSS_PRIOR = ((p.PriorKind.GAUSSIAN, 0.0, 5.0),)


def test_hello_reports_version_board_and_real_size(dev, board):
    info = dev.hello()
    assert info.protocol == p.PROTOCOL_VERSION
    assert info.board == board
    assert info.real_bytes == real_bytes_of(board)
    assert info.max_eta == int(board_setting(board, "BOARD_MAX_ETA"))
    assert info.cycle_source == p.CycleSource.SYSTICK_ICOUNT
    # The device describes exactly the system table it was built with (defaults in its own precision): the
    # scalar systems, then the joint ones where the board serves them.
    names = systems.names() + (joint_systems.names() if serves_joint(board) else [])
    assert info.n_systems == len(names)
    described = dev.systems(info)
    assert list(described) == names
    for name, spec in described.items():
        joint = name in joint_systems.SPECS
        table = joint_systems.spec(name) if joint else systems.spec(name)
        assert (spec.id, spec.title, spec.param_names) == (table.id, table.title, table.param_names)
        assert spec.prior == (prior_on(board, table.prior) if joint else prior_on(board, (table.prior,))[0])
        assert [q.domain for q in spec.params] == [q.domain for q in table.params]
        assert spec.defaults == pytest.approx(table.defaults, rel=1e-7)
    assert info.fw_version.startswith("0.2.0")


def test_configure_reports_prior_size_and_workspace(dev):
    max_eta = dev.hello().max_eta
    for eta in sorted({1, 2, 8, max_eta}):
        done = dev.configure(GSS, eta, params=(3.0, 1.0), priors=GSS_PRIOR)
        assert done.count == eta
        assert 0 < done.workspace_bytes <= 256 * 1024


def test_configure_refuses_an_eta_above_the_boards_largest(dev):
    max_eta = dev.hello().max_eta
    if max_eta == 64:
        pytest.skip("this board holds every η the protocol allows (≤ 64)")
    with pytest.raises(link.DeviceError, match="ERR_CONFIG"):
        dev.configure(GSS, 2 * max_eta, params=(3.0, 1.0), priors=GSS_PRIOR)
    assert dev.configure(GSS, max_eta, params=(3.0, 1.0), priors=GSS_PRIOR).count == max_eta


def test_step_answers_a_valid_posterior(dev):
    eta = largest_eta(dev, 16)
    dev.configure(SV, eta, params=(0.98, 0.0, 0.2, 1.0), priors=((p.PriorKind.GAUSSIAN, 0.0, 2.25),))
    first = dev.step(0, False, 0.0, 0.3)
    assert first.cycles_predict == 0 and first.cycles_update > 0
    post = dev.step(1, True, 0.0, -0.4)
    assert post.k == 1 and post.status == p.Status.OK and post.count == eta
    assert all(a < b for a, b in zip(post.x, post.x[1:]))
    assert all(w > 0 for w in post.w) and abs(sum(post.w) - 1) < 1e-6
    assert post.cycles_predict > 0 and post.cycles_update > 0
    mean = sum(x * w for x, w in zip(post.x, post.w))
    assert post.dim == 1 and abs(mean - post.mean[0]) <= 1e-6 * (1 + abs(mean))


def test_reset_forgets_the_configuration(dev):
    dev.configure(GSS, 4, params=(3.0, 1.0), priors=GSS_PRIOR)
    dev.step(0, False, 0.0, 1.0)
    dev.reset()
    with pytest.raises(link.DeviceError, match="ERR_NOT_CONFIGURED"):
        dev.step(1, True, 0.0, 1.0)
