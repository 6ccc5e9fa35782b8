"""The one filtering entry of the public API: `uxemu.run_filter(model, data)` for a system of any state
dimension. The data is a plain array of observations (one per step: a number for a scalar system, a row of
dim_obs numbers for a vector-state one; k = 0, 1, … and u = 0) or, when k or u matter, anything with
arrays k, u and z (a `Trace`). A NaN observation (a row with a NaN) is a step that only predicts.

A scalar system (StateSpaceModel) runs on the BayesLaplace filter (uxemu.filter) and gives a FilterRun;
a vector-state one (joint_systems.JointModel) on the cell filter (uxemu.joint_cells; mode "cells", its default)
or the atom filter (uxemu.joint_filter; "refined", "paper") and gives a JointRun (means as rows, covariances).
"""

from __future__ import annotations

import numpy as np

from . import filter as scalar
from .joint_cells import run_joint_cells
from .joint_filter import DEFAULT_VECTOR_MODE, run_joint_filter
from .joint_systems import JointModel


def run_filter(
    model,
    data,
    eta: int = 16,
    mode: str | None = None,
    likelihood: str = "kernel",
    prior=None,
    gate: float = scalar.OUTLIER_GATE,
    gate_outliers: bool = False,
    nis_limit: float = scalar.NIS_LIMIT,
):
    """Filters every step of `data` (module docstring) with `model`'s filter; returns its run. `mode`: None for
    the default (a scalar system's "refined", a vector state's DEFAULT_VECTOR_MODE)."""
    if not isinstance(model, JointModel):
        return scalar.run_filter(model, data, eta, mode or "refined", likelihood, prior, gate, gate_outliers, nis_limit)
    mode = mode or DEFAULT_VECTOR_MODE
    # The joint filters have the kernel likelihood only: refuse what they would ignore.
    if likelihood != "kernel":
        raise ValueError(
            f"system {model.name!r} has a vector state: its filter has the kernel likelihood only, "
            f"not {likelihood!r}"
        )
    k, u, z = _steps(data)
    if z.shape[1:] != (model.dim_obs,):
        raise ValueError(
            f"system {model.name!r} observes {model.dim_obs} component(s) per step: the observations "
            f"must be {model.dim_obs} column(s), one row per step (got shape {z.shape})"
        )
    if mode == "cells":
        return run_joint_cells(model, z, eta, k, u, prior, gate=gate, gate_outliers=gate_outliers, nis_limit=nis_limit)
    return run_joint_filter(
        model, z, eta, mode, k, u, prior, gate=gate, gate_outliers=gate_outliers, nis_limit=nis_limit
    )


def _steps(data) -> tuple:
    """(k or None, u or None, z as rows) of a trace or of a plain array of observations."""
    if all(hasattr(data, name) for name in ("k", "u", "z")):
        k, u, z = data.k, data.u, data.z
    else:
        k, u, z = None, None, data
    z = np.asarray(z, dtype=np.float64)
    return k, u, z.reshape(-1, 1) if z.ndim == 1 else z
