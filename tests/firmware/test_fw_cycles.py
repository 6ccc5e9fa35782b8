"""Virtual cycle counts (SysTick under QEMU -icount) are exactly reproducible: two fresh boots given the
same trace report the same cycles for every step, and so does a rerun on one boot after the device sat
idle for a different time."""

import time

import pytest
from fwutil import CUBIC, GSS, SV, configure_args, largest_eta, trace

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
    dev = boot()
    eta = largest_eta(dev, 16)
    first = run(dev, GSS, eta, T=8, seed=11)
    second = run(boot(), GSS, eta, T=8, seed=11, pause=0.05)
    cycles = [(s.cycles_predict, s.cycles_update) for s in first]
    assert cycles == [(s.cycles_predict, s.cycles_update) for s in second]
    assert first == second
    assert all(c > 0 for pair in cycles[1:] for c in pair)


def test_cycles_identical_on_a_rerun(dev):
    # η = 32 on the cubic system: updates of ~13M cycles, near or across a 2^24-tick SysTick period. A
    # board that holds less takes the sampler likelihood at its largest η, as long (22M instructions on
    # the micro:bit's Cortex-M0).
    eta = largest_eta(dev, 32)
    likelihood = p.Likelihood.KERNEL if eta == 32 else p.Likelihood.SAMPLER
    first = run(dev, CUBIC, eta, T=6, seed=5, likelihood=likelihood)
    dev.reset()
    second = run(dev, CUBIC, eta, T=6, seed=5, pause=0.03, likelihood=likelihood)
    assert [(s.cycles_predict, s.cycles_update) for s in first] == [(s.cycles_predict, s.cycles_update) for s in second]


def test_cycles_grow_with_eta(dev):
    # η² predictive atoms, every one weighed by the update: its cost must grow faster than η (the predict, a few
    # instructions per point, no longer shows it). SV, and η halved: at η ≤ 4, or on GSS's two-mode likelihood,
    # smooth refined's points are often too few and its quadrature costs about what η = 8's points do.
    large = largest_eta(dev, 32)
    small = large // 2
    costs = {}
    for eta in (small, large):
        steps = run(dev, SV, eta, T=2, seed=3)
        costs[eta] = steps[1].cycles_update
    assert costs[large] > 2 * costs[small]


def test_counts_above_2_to_the_32_do_not_wrap(dev, boot):
    # A cubic η = 32 sampler update (~4·10^8 instructions, ~2 s under QEMU) at the default shift=6 and at
    # a shift 4 apart, which makes every instruction 16 times longer or shorter in virtual time: one count
    # lies below 2^32 virtual cycles, the other above, and the larger must be 16 times the smaller; a
    # count wrapped or saturated at 32 bits would be off by billions. At 25 MHz (MPS2) shift=6 stays
    # below 2^32 and shift=10 goes above; at 168 MHz (netduinoplus2) shift=6 is already above, and
    # shift=2 below. SysTick's handler runs 16 times as often at the longer shift: at most 25 instructions
    # a wrap (on the STM32 boards it also stretches the IWDG), a wrap every 2^24 / 172 = 97.5k
    # instructions at shift=10 on the 168 MHz machine, so under 2.6e-4 of the count: hence the 3e-4. A
    # count wrapped at 32 bits would be off by 2^32, over 6 % of it.
    assert qemu.DEFAULT_ICOUNT_SHIFT == 6
    args = (CUBIC, largest_eta(dev, 32), 2, 1)
    base = run(dev, *args, likelihood=p.Likelihood.SAMPLER)[1]
    other_shift = 2 if base.cycles_update > 2**32 else 10
    other = run(boot(icount_shift=other_shift), *args, likelihood=p.Likelihood.SAMPLER)[1]
    short, long = (other, base) if other_shift < 6 else (base, other)
    if long.cycles_update < 2**32:
        pytest.skip(
            f"{dev.hello().board}'s largest update, cubic η = {args[1]} with the sampler, counts "
            f"{long.cycles_update} < 2^32 virtual cycles even at -icount shift={max(6, other_shift)}"
        )
    assert short.cycles_update < 2**32 < long.cycles_update
    assert long.cycles_update == pytest.approx(16 * short.cycles_update, rel=3e-4)
    assert long.cycles_predict == pytest.approx(16 * short.cycles_predict, rel=3e-4)
    assert (long.mean, long.x, long.w) == (short.mean, short.x, short.w)
