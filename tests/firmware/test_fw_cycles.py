"""Virtual cycle counts (SysTick under QEMU -icount) are exactly reproducible: two fresh boots given the
same trace report the same cycles for every step, and so does a rerun on one boot after the device sat
idle for a different time."""

import time

import pytest
from fwutil import configure_args, trace

from uxhost import protocol as p
from uxhost import qemu

pytestmark = pytest.mark.qemu


def run(dev, system, eta, T, seed, pause=0.0, likelihood=p.Likelihood.KERNEL):
    tr = trace(system, T, seed)
    dev.configure(**configure_args(system, eta, likelihood=likelihood))
    out = []
    for i in range(T):
        time.sleep(pause)  # idle time must not leak into the counts
        out.append(dev.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i])))
    return out


def test_cycles_identical_across_two_fresh_boots(boot):
    first = run(boot(), p.System.GSS, 16, T=8, seed=11)
    second = run(boot(), p.System.GSS, 16, T=8, seed=11, pause=0.05)
    cycles = [(s.cycles_predict, s.cycles_update) for s in first]
    assert cycles == [(s.cycles_predict, s.cycles_update) for s in second]
    assert first == second
    assert all(c > 0 for pair in cycles[1:] for c in pair)


def test_cycles_identical_on_a_rerun(dev):
    # η = 32 on the cubic system: updates of ~13M cycles span several 2^24-tick SysTick periods.
    first = run(dev, p.System.CUBIC_BL, 32, T=6, seed=5)
    dev.reset()
    second = run(dev, p.System.CUBIC_BL, 32, T=6, seed=5, pause=0.03)
    assert [(s.cycles_predict, s.cycles_update) for s in first] == [
        (s.cycles_predict, s.cycles_update) for s in second
    ]


def test_cycles_grow_with_eta(dev):
    # η² predictive atoms: the predict step's cost must grow clearly faster than η.
    costs = {}
    for eta in (8, 32):
        steps = run(dev, p.System.GSS, eta, T=2, seed=3)
        costs[eta] = steps[1].cycles_predict
    assert costs[32] > 4 * costs[8]


def test_counts_above_2_to_the_32_do_not_wrap(dev, boot):
    # -icount shift=10 makes every instruction 16 times longer in virtual time than the default shift=6,
    # so a cubic η = 32 sampler update (~4·10^8 instructions, ~2 s under QEMU) takes more than 2^32
    # virtual cycles. Its count must be 16 times the default-shift count of the very same step; a count
    # wrapped or saturated at 32 bits would be off by billions. SysTick's handler runs 16 times as often
    # at shift=10, a few thousand instructions more out of 4·10^8: hence the 1e-4.
    assert qemu.DEFAULT_ICOUNT_SHIFT == 6
    args = (p.System.CUBIC_BL, 32, 2, 1)
    slow = run(boot(icount_shift=10), *args, likelihood=p.Likelihood.SAMPLER)[1]
    base = run(dev, *args, likelihood=p.Likelihood.SAMPLER)[1]
    assert base.cycles_update < 2**32 < slow.cycles_update
    assert slow.cycles_update == pytest.approx(16 * base.cycles_update, rel=1e-4)
    assert slow.cycles_predict == pytest.approx(16 * base.cycles_predict, rel=1e-4)
    assert (slow.mean, slow.x, slow.w) == (base.mean, base.x, base.w)
