"""The cell filter's departure against the exact answer: on the pendulum, a reading 20 noise sd off (the regime
study's outlier cell, uxbench.joint_regimes) leaves the cells some exact sd from the grid filter's posterior, and
the departure they keep at that step points the way they are off, about as far (docs/semantics.md, "Cell filter")."""

import numpy as np
import pytest

from uxemu.joint_cells import JointCellsFilter
from uxbench import joint_regimes
from uxbench.baselines.joint_grid import joint_grid_filter

OUTLIER_CELL = next(c for c in joint_regimes.cells() if c["label"] == "outlier")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_departure_at_an_outlier_is_how_far_the_cells_are_from_the_exact_posterior(seed):
    model, _, z = joint_regimes.trace("pendulum", OUTLIER_CELL, seed)
    at = len(z) // 2  # the moved reading
    z = z[: at + 1]
    exact = joint_grid_filter(model, z, points=256)
    f = JointCellsFilter(model, eta=16)
    for k in range(len(z)):
        if k > 0:
            f.predict(k)
        f.update(z[k])
    off, d = f.mean() - exact.mean[at], f.departure
    metric = np.linalg.inv(exact.cov[at])
    off_sd, d_sd = np.sqrt(off @ metric @ off), np.sqrt(d @ metric @ d)
    assert off_sd > 0.3  # the cells are off (0.4, 5.4 and 22 exact sd on these seeds)
    assert 0.5 < d_sd / off_sd < 2.5
    assert (off @ metric @ d) / (off_sd * d_sd) > 0.95  # the same direction
