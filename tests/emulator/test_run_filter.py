"""`uxemu.run_filter`, the public filtering entry: a plain numpy array of observations or a Trace, for a
scalar and a vector-state system alike, each run bit for bit the run of its own filter."""

import dataclasses
import math

import numpy as np
import pytest

import uxemu as ux
from uxemu import joint_systems, systems
from uxemu.bayes import Status
from uxemu.joint_cells import run_joint_cells
from uxemu.joint_filter import run_joint_filter

T = 12


def joint_case(name="pendulum", seed=4):
    model = joint_systems.get(name)
    x, z = joint_systems.simulate(model, T, seed=seed)
    return model, x, z


def test_a_plain_array_runs_a_vector_state_system_as_its_joint_filter():
    model, _, z = joint_case()
    z = z.copy()
    z[5] = np.nan  # a missing observation: the step only predicts
    run = ux.run_filter(model, z[:, 0], eta=8, mode="refined")  # one component per step: a 1-D array is its column
    want = run_joint_filter(model, z, eta=8)
    assert run.mean.shape == (T, model.dim) and run.cov.shape == (T, model.dim, model.dim)
    np.testing.assert_array_equal(run.mean, want.mean)
    np.testing.assert_array_equal(run.cov, want.cov)
    np.testing.assert_array_equal(run.status, want.status)
    assert run.status[5] == ux.Status.NO_EVIDENCE
    assert run.log_likelihood == want.log_likelihood


def test_a_vector_state_runs_the_cell_filter_by_default_and_a_scalar_system_refuses_it():
    from uxemu.joint_cells import run_joint_cells

    model, _, z = joint_case("bearings", seed=3)
    run, want = ux.run_filter(model, z, eta=8), run_joint_cells(model, z, eta=8)
    np.testing.assert_array_equal(run.mean, want.mean)
    np.testing.assert_array_equal(run.cov, want.cov)
    with pytest.raises(ValueError, match="unknown mode 'cells'"):
        ux.run_filter(systems.get("lg"), np.zeros(5), eta=8, mode="cells")


def test_a_trace_gives_k_and_u_to_a_vector_state_system():
    model, _, z = joint_case("cvrange", seed=2)
    # the table's systems ignore k and u: this one's position moves by u·k at each predict
    driven = dataclasses.replace(model, transition=lambda x, w, k, u: model.transition(x, w, k, u) + [u * k, 0.0])
    k, u = np.arange(T) * 3, np.linspace(-0.5, 0.5, T)
    run = ux.run_filter(driven, ux.Trace(k, u, z), eta=8, mode="paper")
    want = run_joint_filter(driven, z, eta=8, mode="paper", k=k, u=u)
    np.testing.assert_array_equal(run.mean, want.mean)
    # k and u reach the filter: the plain array (k = 0, 1, …, u = 0) is another run
    assert not np.array_equal(ux.run_filter(driven, z, eta=8, mode="paper").mean, run.mean)


def test_a_plain_array_runs_a_scalar_system_as_its_filter():
    model = systems.get("lg")
    z = np.array([0.3, 1.1, np.nan, 1.9, 2.5])
    run = ux.run_filter(model, z, eta=16)
    want = ux.BayesLaplaceFilter(model, 16).run(ux.Trace(np.arange(z.size), np.zeros(z.size), z))
    np.testing.assert_array_equal(run.mean, want.mean)
    np.testing.assert_array_equal(run.var, want.var)
    np.testing.assert_array_equal(run.status, want.status)


@pytest.mark.parametrize("mode", ["cells", "refined"])
def test_what_the_joint_filter_lacks_is_refused_in_one_line(mode):
    model, _, z = joint_case()
    with pytest.raises(ValueError, match="kernel likelihood only") as info:
        ux.run_filter(model, z, eta=8, mode=mode, likelihood="sampler")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("mode", ["cells", "refined", "paper"])
def test_every_joint_filter_takes_its_gate_through_run_filter(mode):
    model, _, z = joint_case()
    z = z.copy()
    z[6] = z[6] + 50.0  # far beyond 5 sd of any predictive
    default = ux.run_filter(model, z, eta=8, mode=mode)
    gated = ux.run_filter(model, z, eta=8, mode=mode, gate_outliers=True)
    if mode == "cells":
        want = run_joint_cells(model, z, 8, gate_outliers=True)
    else:
        want = run_joint_filter(model, z, 8, mode, gate_outliers=True)
    assert default.status[6] == Status.OUTLIER and gated.log_evidence[6] == 0.0
    np.testing.assert_array_equal(gated.mean, want.mean)
    assert np.all(ux.run_filter(model, z, eta=8, mode=mode, gate=math.inf).status != Status.OUTLIER)


def test_observations_of_the_wrong_width_are_refused_in_one_line():
    model, _, z = joint_case()
    with pytest.raises(ValueError, match=r"observes 1 component\(s\) per step.*shape \(12, 2\)"):
        ux.run_filter(model, np.hstack([z, z]), eta=8)
