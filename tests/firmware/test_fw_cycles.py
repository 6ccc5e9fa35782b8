"""Virtual cycle counts (SysTick under QEMU -icount) are exactly reproducible: two fresh boots given the
same trace report the same cycles for every step, and so does a rerun on one boot after the device sat
idle for a different time."""

import time

import pytest
from fwutil import configure_args, trace

from uxhost import protocol as p

pytestmark = pytest.mark.qemu


def run(dev, system, eta, T, seed, pause=0.0):
    tr = trace(system, T, seed)
    dev.configure(**configure_args(system, eta))
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
