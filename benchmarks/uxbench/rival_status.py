"""The statuses a Gaussian filter (the EKF's, the UKF's) would report with the cells' own tests on its
normalised innovations squared: OUTLIER above the gate, INCONSISTENT while the running mean of the ratios per
observation component is above its limit at a reading that passes (docs/semantics.md, "Innovation gate",
"Consistency"), else OK; a NaN ratio (no update) is OK and leaves the mean."""

from __future__ import annotations

import numpy as np

from uxemu.bayes import Status
from uxemu.filter import NIS_LIMIT, OUTLIER_GATE, nis_track


def gated_statuses(nis, dim_obs: int) -> np.ndarray:
    status = np.full(len(nis), int(Status.OK), dtype=np.int8)
    mean = 1.0
    for k, ratio in enumerate(np.asarray(nis, dtype=np.float64)):
        mean = nis_track(mean, float(ratio), dim_obs)
        if ratio > OUTLIER_GATE * OUTLIER_GATE:
            status[k] = Status.OUTLIER
        elif mean > NIS_LIMIT and ratio == ratio:
            status[k] = Status.INCONSISTENT
    return status
