"""uxbench.joint_twin_fits: the linear twin's exact likelihood, and a tiny run of the study."""

import gzip
import json

import numpy as np

from uxemu import joint_systems
from uxemu.joint_cells import run_joint_cells
from uxbench import joint_twin_fits as jt
from uxbench.__main__ import main as uxbench
from uxbench.baselines.joint_kalman import kalman_log_likelihood


def test_the_twins_log_likelihood_is_the_kalman_filters():
    """On a linear-Gaussian model one cell is the Kalman filter (tests/emulator): its summed evidence is the
    Kalman log L, at the table's parameters and away from them; the twin's sensor is the position."""
    truth = joint_systems.get("cvrange").params
    x, z = joint_systems.simulate(jt.linear_twin(truth), 60, seed=4)
    for scale in (0.5, 1.0, 3.0):
        params = tuple(
            v * scale if n in ("q", "r") else v for v, n in zip(truth, joint_systems.spec("cvrange").param_names)
        )
        model = jt.linear_twin(params)
        cells = run_joint_cells(model, z, eta=1)
        r = params[joint_systems.spec("cvrange").param_names.index("r")]
        assert abs(kalman_log_likelihood(model, z, r) - float(np.sum(cells.log_evidence))) < 1e-9
    np.testing.assert_array_equal(jt.linear_twin(truth).loc_scale(x[:3])[0][:, 0], x[:3, 0])


def test_a_tiny_run_fits_and_judges(tmp_path):
    out = tmp_path / "t.md"
    assert uxbench(["joint_twin_fits", "--traces", "3", "--out", str(out)]) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    assert [f["trace"] for f in record["fits"]] == [0, 1, 2]
    assert all(f["converged"] and set(f["z"]) == {"q", "r"} and f["in_interval"] is not None for f in record["fits"])
    md = out.read_text()
    assert md.startswith("# What 2 standard errors allow with an exact likelihood")
    assert "| the first 3 | 3 |" in md
