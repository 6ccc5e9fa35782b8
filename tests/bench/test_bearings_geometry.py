"""`python -m uxbench bearings_geometry` on a tiny size, its verdict rule, and the setting reaching every filter."""

import gzip
import json

import numpy as np

from uxbench import bearings_geometry as bg
from uxbench import joint_native
from uxbench.__main__ import main as uxbench
from uxemu import joint_systems


def test_a_tiny_run_scores_every_method_in_every_setting(tmp_path):
    out = tmp_path / "g.md"
    assert uxbench(["bearings_geometry", "--traces", "1", "--steps", "5", "--out", str(out)]) == 0
    settings = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))["settings"]
    assert [(s["range_sd"], s["r"]) for s in settings] == [(sd, r) for sd in bg.RANGE_SDS for r in bg.NOISES]
    for s in settings:
        assert list(s["rows"]) == [label for label, _ in bg.METHODS] + ["reference PF"]
        for label, row in s["rows"].items():
            assert len(row["rmse"]) == 4 and all(v > 0 for v in row["rmse"]), (label, row)
            assert (row["nll"] is None) == (label == "reference PF")
    md = out.read_text()
    assert md.count("\n### range sd ") == len(settings)


def test_cells_beat_only_when_below_both_rivals_everywhere():
    row = lambda rmse, nll: dict(rmse=rmse, nll=nll)  # noqa: E731
    rows = {
        "EKF": row([2, 2, 2, 2], 3.0),
        "UKF": row([2, 2, 1, 2], 2.0),
        "cells η=2": row([1, 1, 1.5, 1], 1.0),  # above the UKF in one component
        "cells η=8": row([1, 1, 0.5, 1], 2.5),  # NLL above the UKF's
        "cells η=16": row([1, 1, 0.5, 1], 1.0),
    }
    assert bg.verdict(rows) == "η=16"
    rows["cells η=16"]["nll"] = 2.0  # a tie is not a win
    assert bg.verdict(rows) == "none"


def test_the_setting_reaches_the_c_filters():
    """The table's own prior given explicitly changes nothing; a wider range prior changes the cells' answer."""
    lib = joint_native.load()
    table, _ = bg.setting(4.0, 0.02)
    _, z = joint_systems.simulate(table, 12, 5)
    plain = lib.run_cells("bearings", z, 8)
    _, same = bg.setting(4.0, 0.02)
    np.testing.assert_array_equal(lib.run_cells("bearings", z, 8, **same).mean, plain.mean)
    _, wide = bg.setting(8.0, 0.005)
    assert wide["prior"][0][2] == 8.0 and wide["params"][-1] == 0.005
    assert not np.array_equal(lib.run_cells("bearings", z, 8, **wide).mean, plain.mean)
    for method in ("ekf", "ukf"):
        assert not np.array_equal(
            lib.run_kf("bearings", z, method, **wide).mean, lib.run_kf("bearings", z, method).mean
        )
