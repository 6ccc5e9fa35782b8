"""The statuses the studies give the Gaussian filters: the cells' gate and consistency test on their ratios."""

import itertools
import math

import numpy as np

from uxbench.rival_status import gated_statuses
from uxemu.bayes import Status
from uxemu.filter import NIS_LIMIT, nis_track


def test_a_ratio_above_the_gate_is_an_outlier_and_a_run_of_large_ones_inconsistent():
    ratios = [1.0, 30.0, 1.0] + [16.0] * 6 + [math.nan, 0.5]
    status = gated_statuses(ratios, 1)
    assert status[1] == Status.OUTLIER and status[0] == status[2] == Status.OK
    means = np.array(list(itertools.accumulate(ratios, nis_track, initial=1.0))[1:])
    expected = [
        Status.OUTLIER if r > 25 else Status.INCONSISTENT if m > NIS_LIMIT and r == r else Status.OK
        for r, m in zip(ratios, means)
    ]
    np.testing.assert_array_equal(status, expected)
    assert Status.INCONSISTENT in status.tolist() and status[9] == Status.OK  # no update, no status


def test_the_ratio_counts_per_observation_component():
    assert Status.INCONSISTENT in gated_statuses([8.0] * 20, 1).tolist()
    assert Status.INCONSISTENT not in gated_statuses([8.0] * 20, 4).tolist()
