"""The outside check's worker: the bootstrap filter of the `particles` library (N. Chopin) on our traces.

Runs inside its own virtual environment (particles 0.4 needs numpy < 2; see particles_check.py), as

    python particles_worker.py IN.json OUT_DIR

IN.json: {"system": "sv" | "gss" | "cubic", "params": {...}, "prior": [mean, std], "quadrature": 64,
"particles": [N, ...], "runs": R, "traces": [{"index": i, "k": [...], "z": [...],
"seeds": {"N": [seed per run]}}]}. For each trace it writes OUT_DIR/trace_<i>.npz with, per N,
x_<N> and w_<N> of shape (R, T, N): the weighted particle set after each step's reweighting (before
the next resampling), and seconds_<N> (R,): wall time of each run. Metrics are computed by the caller
with uxemu.metrics, so their definitions stay in one place.

The three systems are written here from the paper's equations with particles' own distributions, not
from our model code: that is what makes this an outside check. Settings: systematic resampling at
every step (ESSrmin = 1: resample whenever ESS < N, i.e. unless the weights are already equal), the
bootstrap proposal, numpy's global generator seeded per run (particles draws from it). The cubic
system's observation has an inner noise m ~ N(0, σ_m²): its density is marginalised over m by
Gauss–Hermite quadrature with `quadrature` nodes. Step t of particles is step k = t of our traces
(the first observation is of x_0, as in our filters), which the worker checks.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import particles  # noqa: E402
from particles import distributions as dists  # noqa: E402
from particles import state_space_models as ssm  # noqa: E402


class StochVol(ssm.StateSpaceModel):
    """x_k = φx_{k−1} + c(1 − φ) + η_k, η ~ N(0, σ_η²);  y_k = ε_k exp(x_k / 2), ε ~ N(0, σ_ε²)."""

    def PX0(self):
        return dists.Normal(loc=self.mu0, scale=self.sigma0)

    def PX(self, t, xp):
        return dists.Normal(loc=self.phi * xp + self.c * (1.0 - self.phi), scale=self.sigma_eta)

    def PY(self, t, xp, x):
        return dists.Normal(loc=0.0, scale=self.sigma_eps * np.exp(0.5 * x))


class GordonSalmondSmith(ssm.StateSpaceModel):
    """x_k = x/2 + 25x/(1 + x²) + 8cos(1.2k) + υ_k, υ ~ N(0, σ_υ²);  z_k = x_k²/20 + ν_k, ν ~ N(0, σ_ν²)."""

    def PX0(self):
        return dists.Normal(loc=self.mu0, scale=self.sigma0)

    def PX(self, t, xp):
        return dists.Normal(loc=0.5 * xp + 25.0 * xp / (1.0 + xp**2) + 8.0 * np.cos(1.2 * t), scale=self.sigma_v)

    def PY(self, t, xp, x):
        return dists.Normal(loc=x**2 / 20.0, scale=self.sigma_n)


class BeerLambertObservation(dists.ProbDist):
    """y = g + h, g = e^{−x}(1 + m), h ~ Laplace(0, sqrt(σ_base² + g)), m ~ N(0, σ_m²), per particle x.

    The density marginalises m with Gauss–Hermite nodes (probabilists': weight e^{−t²/2}).
    """

    def __init__(self, x, sigma_m, sigma_base, nodes, weights):
        self.x = np.asarray(x, dtype=float)
        self.sigma_m = sigma_m
        self.m = sigma_m * nodes
        self.log_weights = np.log(weights / np.sqrt(2.0 * np.pi))
        self.sb2 = sigma_base**2

    def _loc_scale(self):
        g = np.exp(-self.x)[:, None] * (1.0 + self.m[None, :])
        return g, np.sqrt(self.sb2 + np.maximum(g, 0.0))

    def logpdf(self, y):
        g, s = self._loc_scale()
        a = self.log_weights[None, :] - np.abs(y - g) / s - np.log(2.0 * s)
        top = a.max(axis=1)
        return top + np.log(np.exp(a - top[:, None]).sum(axis=1))

    def rvs(self, size=None):
        g = np.exp(-self.x) * (1.0 + self.sigma_m * np.random.normal(size=self.x.shape))
        return g + np.sqrt(self.sb2 + np.maximum(g, 0.0)) * np.random.laplace(size=self.x.shape)


class CubicBeerLambert(ssm.StateSpaceModel):
    """d = c − x; x_k = x + αd − αβd³ + υ_k, υ ~ N(0, σ_υ²);  y_k as in BeerLambertObservation."""

    def PX0(self):
        return dists.Normal(loc=self.mu0, scale=self.sigma0)

    def PX(self, t, xp):
        d = self.c - xp
        return dists.Normal(loc=xp + self.alpha * d - self.alpha * self.beta * d**3, scale=self.sigma_v)

    def PY(self, t, xp, x):
        return BeerLambertObservation(x, self.sigma_m, self.sigma_base, self.nodes, self.weights)


SYSTEMS = {"sv": StochVol, "gss": GordonSalmondSmith, "cubic": CubicBeerLambert}


def model_for(spec: dict):
    params = dict(spec["params"])
    params["mu0"], params["sigma0"] = spec["prior"]
    if spec["system"] == "cubic":
        params["nodes"], params["weights"] = np.polynomial.hermite_e.hermegauss(int(spec.get("quadrature", 64)))
    return SYSTEMS[spec["system"]](**params)


def run_once(model, z, n: int, seed: int):
    """One bootstrap-filter run; (T, n) positions and weights after each step, and the wall time."""
    np.random.seed(seed)
    fk = ssm.Bootstrap(ssm=model, data=z)
    pf = particles.SMC(fk=fk, N=n, resampling="systematic", ESSrmin=1.0, collect="off")
    T = len(z)
    xs, ws = np.empty((T, n)), np.empty((T, n))
    t0 = time.perf_counter()
    for t in range(T):
        next(pf)
        xs[t], ws[t] = pf.X, pf.W
    return xs, ws, time.perf_counter() - t0


def main(argv) -> int:
    if len(argv) != 3:
        print(__doc__.splitlines()[0], "\nusage: particles_worker.py IN.json OUT_DIR", file=sys.stderr)
        return 2
    spec = json.loads(Path(argv[1]).read_text())
    out_dir = Path(argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    model = model_for(spec)
    for trace in spec["traces"]:
        z = np.asarray(trace["z"], dtype=float)
        if not np.array_equal(np.asarray(trace["k"]), np.arange(z.size)):
            raise SystemExit("particles_worker: the trace's step indices must be 0..T−1 (particles' time t)")
        arrays = {}
        for n in spec["particles"]:
            runs = [run_once(model, z, int(n), int(s)) for s in trace["seeds"][str(n)]]
            arrays[f"x_{n}"] = np.stack([r[0] for r in runs])
            arrays[f"w_{n}"] = np.stack([r[1] for r in runs])
            arrays[f"seconds_{n}"] = np.array([r[2] for r in runs])
        np.savez(out_dir / f"trace_{trace['index']}.npz", **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
