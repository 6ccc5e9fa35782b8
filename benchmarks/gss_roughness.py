"""What keeps gss's log-likelihood rough at η = 16, and what would smooth it.

On the four gss traces whose default fits are furthest off a quadratic in `results/stderr_calibration.md`
(η = 16, mixture mode), log L along σ_v (±20 % of the simulated 3 in 41 steps, σ_n at the simulated 1):
its rms residual off a quartic — 0 for a smooth curve on this scale, the exact likelihood's (grid filter)
a few thousandths — for the filter as it is at η = 16, 32 and 64, and two ways of building the predictive
mixture at η = 16 that are not the contract's (docs/semantics.md, "Filter", cell spreads):

- `points`: each posterior cell carried as 9 Gauss–Hermite points of its mean and spread, each a component
  of the process noise's scale (the cell's law as a Gaussian, resolved);
- `deeper cells`: the mixture from the nodes' TTR two levels deeper (4η cells, each carried as its two
  points, as the contract carries a cell), the posterior value still the η atoms.

Then, on 20 100-step gss traces, the deeper cells' filtering beside the filter as it is (both on the
reference engine, for the CPU time): RMSE, and the log-likelihood's gap to the grid filter per step.

    .venv/bin/python benchmarks/gss_roughness.py     # ~30 min on 2 cores; writes results/gss_roughness.md
"""
from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from stderr_calibration import trace as calibration_trace  # noqa: E402
from uxbench import runner  # noqa: E402
from uxbench.exact_loglik import ExactLogLikelihood  # noqa: E402
from uxbench.report import commit as checkout_commit  # noqa: E402
from uxemu import native, systems, traces  # noqa: E402
from uxemu import filter as uxfilter  # noqa: E402
from uxemu._ttr_linear import ttr_linear  # noqa: E402
from uxemu.value import Value, normalise  # noqa: E402

TRACES = (66, 177, 24, 1)  # stderr_calibration's roughest gss fits at η = 16
SCALE = np.linspace(0.8, 1.2, 41)  # σ_v over its simulated value
FILTERS = ("η = 16", "η = 32", "η = 64", "points", "deeper cells", "exact")
HERMITE_POINTS = 9
DEEPER_LEVELS = 2
FILTERING = dict(traces=20, steps=100, seed=77, etas=(8, 16))
GSS = systems.spec("gss")
SIMULATED_SIGMA_V = GSS.param_vector()[GSS.param_names.index("sigma_v")]


class PointsPerCell(uxfilter.BayesLaplaceFilter):
    """Mixture mode whose predictive mixture carries each cell as HERMITE_POINTS points of its mean and
    spread (Gauss–Hermite), each a component of the process noise's scale."""

    def predict(self, k: int, u: float = 0.0):
        atoms = super().predict(k, u)
        if self._spreads is not None and self._pending is not None:
            nodes, weights = np.polynomial.hermite_e.hermegauss(HERMITE_POINTS)
            x = (self.posterior.x[:, None] + np.sqrt(self._spreads)[:, None] * nodes[None, :]).ravel()
            w = (self.posterior.w[:, None] * (weights / weights.sum())[None, :]).ravel()
            noise = self.model.process_noise
            centres = np.asarray(self.model.transition(x, np.zeros_like(x), k, u), dtype=np.float64) + noise.mu
            self._pending = (centres, w, np.full(x.size, float(noise.sigma)))
        return atoms


class DeeperCells(uxfilter.BayesLaplaceFilter):
    """Mixture mode whose predictive mixture comes from the nodes' TTR DEEPER_LEVELS deeper than the
    posterior's, each of those cells carried as its two points."""

    def _mixture_posterior(self):
        done = super()._mixture_posterior()
        self._deeper = None
        if done and self.mode == "mixture":
            t, e, _, h = self.density.quadrature(self.density.region)
            x, w, v = ttr_linear(e, t[0], h, self.n + DEEPER_LEVELS, spreads=True)
            self._deeper = (Value(x, normalise(w), self.eta << DEEPER_LEVELS), v)
        return done

    def predict(self, k: int, u: float = 0.0):
        atoms = super().predict(k, u)
        if self._spreads is not None and getattr(self, "_deeper", None) is not None:
            self._pending = uxfilter.mixture_components(self.model, self._deeper[0], k, u, self._deeper[1])
        return atoms


def log_likelihood(name: str, tr, p) -> float:
    if name == "exact":
        return float(ExactLogLikelihood("gss", tr)(p))
    if name.startswith("η"):
        eta = int(name.split("=")[1])
        return float(native.load().run_filter(GSS.id, tr.k, tr.u, tr.z, eta, "mixture", "kernel",
                                              params=p, atoms=False).log_likelihood)
    cls = PointsPerCell if name == "points" else DeeperCells
    return float(cls(systems.from_param_vector(GSS.id, p), 16, "mixture").run(tr).log_likelihood)


def quartic_residual(x: np.ndarray, y: np.ndarray) -> float:
    t = (x - x.mean()) / x.std()
    return float(np.sqrt(np.mean((y - np.polyval(np.polyfit(t, y, 4), t)) ** 2)))


def task(t: dict) -> dict:
    if t["kind"] == "scan":
        tr = calibration_trace("gss", t["trace"])
        sigma = SCALE * SIMULATED_SIGMA_V
        values = np.array([log_likelihood(t["filter"], tr, GSS.param_vector(sigma_v=s)) for s in sigma])
        return dict(t, sigma=sigma, values=values)
    model = systems.get("gss")
    tr = traces.simulate_many(model, FILTERING["traces"], FILTERING["steps"], FILTERING["seed"])[t["trace"]]
    exact = float(ExactLogLikelihood("gss", tr)(GSS.param_vector()))
    out = {}
    for name, cls in (("as it is", uxfilter.BayesLaplaceFilter), ("deeper cells", DeeperCells)):
        t0 = time.process_time()
        run = cls(model, t["eta"], "mixture").run(tr)
        out[name] = (float(np.mean((run.mean - tr.x) ** 2)), (run.log_likelihood - exact) / len(tr.z),
                     time.process_time() - t0)
    return dict(t, **out)


def report(scans: list[dict], filtering: list[dict], meta: str) -> str:
    what, ways = __doc__.split("\n\n")[1:3]
    lines = ["# gss: what keeps log L rough at η = 16", "", meta, "", what.replace("\n", " "), "", ways, "",
             "rms off a quartic along σ_v (nats):", "",
             "| trace | " + " | ".join(FILTERS) + " |", "|---" * (len(FILTERS) + 1) + "|"]
    by_trace = {i: {r["filter"]: r for r in scans if r["trace"] == i} for i in TRACES}
    for i, row in by_trace.items():
        lines.append(f"| {i} | " + " | ".join(f"{quartic_residual(row[f]['sigma'], row[f]['values']):.3f}"
                                               for f in FILTERS) + " |")
    lines += ["", "Worst step-to-step jump of log L minus the exact one along the same σ_v (nats):", "",
              "| trace | " + " | ".join(FILTERS[:-1]) + " |", "|---" * len(FILTERS) + "|"]
    for i, row in by_trace.items():
        exact = row["exact"]["values"]
        lines.append(f"| {i} | " + " | ".join(f"{np.abs(np.diff(row[f]['values'] - exact)).max():.3f}"
                                               for f in FILTERS[:-1]) + " |")
    lines += ["", f"Filtering, {FILTERING['traces']} gss traces of {FILTERING['steps']} steps (seed "
              f"{FILTERING['seed']}), reference engine:", "",
              "| η | filter | RMSE | log L − exact per step: mean | largest | CPU s (all traces) |",
              "|---|---|---|---|---|---|"]
    for eta in FILTERING["etas"]:
        rows = [r for r in filtering if r["eta"] == eta]
        for name in ("as it is", "deeper cells"):
            mse, gap, cpu = (np.array([r[name][j] for r in rows]) for j in range(3))
            lines.append(f"| {eta} | {name} | {np.sqrt(mse.mean()):.3f} | {gap.mean():+.2e} | "
                         f"{np.abs(gap).max():.2e} | {cpu.sum():.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    t0, commit = time.time(), checkout_commit()
    scans = runner.execute([{"kind": "scan", "trace": i, "filter": f} for i in TRACES for f in FILTERS], task,
                           workers=2, desc="log L along sigma_v")
    filtering = runner.execute([{"kind": "filtering", "trace": i, "eta": eta} for eta in FILTERING["etas"]
                                for i in range(FILTERING["traces"])], task, workers=2, desc="filtering")
    meta = (f"Measured on {platform.machine()}, {os.cpu_count()} CPUs, commit {commit}, {time.time() - t0:.0f} s. "
            "Regenerate: `.venv/bin/python benchmarks/gss_roughness.py`.")
    out = HERE / "results" / "gss_roughness.md"
    out.write_text(report(scans, filtering, meta))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
