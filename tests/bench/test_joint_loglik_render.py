"""joint_loglik's roughness: the residual of a quartic follows a curved log L and sees a step in it."""

import math

import numpy as np

from uxbench import joint_loglik as jl


def test_a_curved_log_l_is_smooth_and_a_step_is_not():
    x = jl.SCALES - 1.0
    curved = -500.0 * x * x + 3.0 * x  # a well-determined parameter: second differences 0.6 nats, no roughness
    assert abs(np.diff(curved, 2)).max() > 0.5 and jl.quartic_residual(curved) < 1e-9
    stepped = curved + np.where(x > 0.01, 0.5, 0.0)  # a decision flipping at one θ
    assert jl.quartic_residual(stepped) > 0.05
    assert jl.quartic_residual(np.where(x > 0, -math.inf, curved)) == math.inf


def test_the_table_has_the_roughness_column():
    rows = [dict(system="sv", mode="mixture", eta=16, param="sigma_eta", curve=list(-50.0 * (jl.SCALES - 1.0) ** 2))]
    md = jl.render(rows, "meta")
    assert "rms off a quartic (nats)" in md and "| sv | scalar mixture | 16 | sigma_eta |" in md
