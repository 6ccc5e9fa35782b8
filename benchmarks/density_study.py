"""Which density to read from a filter's posterior: candidate constructions scored by the NLL of the truth.

For each system (sv, gss, cubic) and η, on `--traces` traces × `--steps` steps (simulate_many, seed
2026), the reference filter (refined mode, kernel likelihood) runs once; every step's posterior is read
back with each construction below, and its log density at the true state is scored like
uxemu.metrics.nll (clamped at −20, floor hits counted). The grid filter (1501 points) is the near-exact
reference; "gap" is NLL − the grid's NLL on the same steps. Cost: µs per evaluation of the density at
one point in this Python study (after any per-step set-up), a rough guide only.

  (a) bins      today's TTR-binned density (Value.pdf)
  (b) gtail     TTR bins inside, the two outer half-bins replaced by half-normal tails of the same mass and
                mean (a half-bin of width d has mean offset d/2 = σ√(2/π), so σ = (d/2)·√(π/2))
  (c) plcdf     piecewise-linear cdf through the split points (one uniform bin per atom between its split
                points; outer edges mirrored as in (a))
  (d) kde       weighted Gaussian KDE of the atoms, Scott's bandwidth (uxbench.metrics.kde_logpdf);
      kde-silv  the same with Silverman's bandwidth (0.9·min(σ, IQR/1.34)·n_eff^(−1/5))
  (e) mix       predictive mixture L(z|x) Σ w_i q(x − f(x_i)) / Z with Z = the update's evidence
                Σ over the η² predictive atoms of w·L (step 0: prior density × L / Σ prior atoms w·L)
      mix-exact the same with Z by dense quadrature (the density then integrates to 1 up to the grid)
      mix-scott the mixture with each component widened by the previous posterior's own spread: component i
                is N(f(x_i, 0), σ² + s_i²), s_i = |f(x_i + h, 0) − f(x_i − h, 0)| / 2, h = Scott's
                bandwidth of the previous posterior's atoms (Z as in mix; -exact: by quadrature)

Run: .venv/bin/python benchmarks/density_study.py [--traces 10] [--steps 100] [--etas 4 8 16 32]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from uxbench.baselines import grid_filter  # noqa: E402
from uxbench.metrics import kde_bandwidth, kde_logpdf  # noqa: E402
from uxemu import systems  # noqa: E402
from uxemu.filter import BayesLaplaceFilter  # noqa: E402
from uxemu.metrics import nll  # noqa: E402
from uxemu.traces import simulate_many  # noqa: E402
from uxemu.value import binned_density, split_points  # noqa: E402

SEED = 2026
CANDIDATES = ("bins", "gtail", "plcdf", "kde", "kde-silv", "mix", "mix-exact", "mix-scott", "mix-scott-exact")


def _log(p):
    return math.log(p) if p > 0 else -math.inf


def log_bins(x, w, t):
    edges, heights = binned_density(x, w)
    i = np.searchsorted(edges, t, side="right") - 1
    return _log(heights[i]) if 0 <= i < heights.size else -math.inf


def log_gtail(x, w, t):
    """Inner bins as (a); the outer half-bins [l_0, x_0) and [x_{M−1}, r) become half-normal tails with
    the half-bin's mass and the half-bin's mean offset (uniform mean width/2 = σ√(2/π))."""
    if x.size < 2:
        return -math.inf
    edges, heights = binned_density(x, w)
    if t < x[0] or t >= x[-1]:
        if t < x[0]:
            width, mass, d = x[0] - edges[0], heights[0] * (x[0] - edges[0]), x[0] - t
        else:
            width, mass, d = edges[-1] - x[-1], heights[-1] * (edges[-1] - x[-1]), t - x[-1]
        s = width / 2.0 * math.sqrt(math.pi / 2.0)
        if not (s > 0 and mass > 0):
            return -math.inf
        return _log(mass) + math.log(2.0) - 0.5 * (d / s) ** 2 - math.log(s) - 0.5 * math.log(2 * math.pi)
    return log_bins(x, w, t)


def log_plcdf(x, w, t):
    if x.size < 2:
        return -math.inf
    s = split_points(x, w)
    e = np.concatenate([[x[0] - (s[0] - x[0])], s, [x[-1] + (x[-1] - s[-1])]])
    i = np.searchsorted(e, t, side="right") - 1
    return _log(w[i] / (e[i + 1] - e[i])) if 0 <= i < x.size else -math.inf


def log_kde_silverman(x, w, t):
    mu = w @ x
    sq = w @ w
    sd = math.sqrt(max(w @ (x - mu) ** 2 / (1.0 - sq), 0.0))
    order = np.argsort(x)
    cw = np.cumsum(w[order])
    q1, q3 = x[order][np.searchsorted(cw, 0.25)], x[order][np.searchsorted(cw, 0.75)]
    spread = min(sd, (q3 - q1) / 1.34) if q3 > q1 else sd
    h = 0.9 * spread * sq ** 0.2
    return kde_logpdf(x, w, t, bandwidth=h) if h > 0 else -math.inf


class Mixture:
    """The predictive mixture of one step: prior component density(ies) times the likelihood."""

    def __init__(self, model, lik, z, centres, weights, sigma, log_z_pred, prior_law=None):
        self.model, self.lik, self.z = model, lik, np.atleast_1d(z)
        self.c, self.w, self.prior_law = centres, weights, prior_law
        self.sigma = np.broadcast_to(np.asarray(sigma, dtype=float), np.shape(centres) if centres is not None else ())
        self.log_z_pred = log_z_pred
        # Dense quadrature of the unnormalised density for the exact normaliser.
        if prior_law is None:
            lo, hi = centres.min() - 9 * self.sigma.max(), centres.max() + 9 * self.sigma.max()
        else:
            lo, hi = prior_law.mu - 9 * prior_law.sigma, prior_law.mu + 9 * prior_law.sigma
        grid = np.linspace(lo, hi, 20001)
        u = np.exp(self.log_unnorm(grid))
        self.log_z_exact = math.log(np.trapezoid(u, grid))

    def log_unnorm(self, t):
        t = np.atleast_1d(np.asarray(t, dtype=float))
        if self.prior_law is None:
            a = (np.log(self.w) - np.log(self.sigma))[None, :] - 0.5 * ((t[:, None] - self.c[None, :]) / self.sigma[None, :]) ** 2
            top = a.max(axis=1)
            lp = top + np.log(np.exp(a - top[:, None]).sum(axis=1)) - 0.5 * math.log(2 * math.pi)
        else:
            lp = self.prior_law.logpdf(t)
        with np.errstate(all="ignore"):
            ll = self.lik.log_likelihood(t, self.z)[:, 0]
        return np.where(np.isnan(ll), -np.inf, lp + ll)

    def log_pdf(self, t, exact=False):
        return float(self.log_unnorm(t)[0]) - (self.log_z_exact if exact else self.log_z_pred)


def run(system: str, eta: int, traces, grids):
    model = systems.get(system)
    sigma = model.process_noise.sigma
    scores = {c: [] for c in CANDIDATES}
    cost = {c: 0.0 for c in CANDIDATES}
    evals = 0
    zratio = []
    gap_steps = []
    for tr, g in zip(traces, grids):
        f = BayesLaplaceFilter(model, eta, "refined", "kernel")
        for i in range(len(tr.z)):
            z = float(tr.z[i])
            prev = f.posterior
            if i == 0:
                atoms = (prev.x, prev.w)
            else:
                atoms = f.predict(int(tr.k[i]), float(tr.u[i]))
            ell = f.likelihood.log_likelihood(atoms[0], np.array([z]))[:, 0]
            ell = np.where(np.isnan(ell), -np.inf, ell)
            top = ell.max()
            log_z_pred = top + math.log(np.sum(atoms[1] * np.exp(ell - top)))
            f.update(atoms, z)
            post = f.posterior
            if i == 0:
                mix = Mixture(model, f.likelihood, z, None, None, sigma, log_z_pred, prior_law=model.prior)
                smix = mix
            else:
                kk, uu = int(tr.k[i]), float(tr.u[i])
                f0 = lambda x: model.transition(x, np.zeros_like(x), kk, uu)  # noqa: E731
                c = f0(prev.x)
                mix = Mixture(model, f.likelihood, z, c, prev.w, sigma, log_z_pred)
                h = kde_bandwidth(prev.x, prev.w)
                s_i = np.abs(f0(prev.x + h) - f0(prev.x - h)) / 2.0
                smix = Mixture(model, f.likelihood, z, c, prev.w, np.sqrt(sigma**2 + s_i**2), log_z_pred)
            zratio.append(mix.log_z_exact - log_z_pred)
            y = float(tr.x[i])
            x, w = post.x, post.w
            fns = {"bins": lambda: log_bins(x, w, y), "gtail": lambda: log_gtail(x, w, y),
                   "plcdf": lambda: log_plcdf(x, w, y), "kde": lambda: kde_logpdf(x, w, y),
                   "kde-silv": lambda: log_kde_silverman(x, w, y),
                   "mix": lambda: mix.log_pdf(y), "mix-exact": lambda: mix.log_pdf(y, exact=True),
                   "mix-scott": lambda: smix.log_pdf(y), "mix-scott-exact": lambda: smix.log_pdf(y, exact=True)}
            for name, fn in fns.items():
                t0 = time.perf_counter()
                scores[name].append(fn())
                cost[name] += time.perf_counter() - t0
            evals += 1
            p = float(g.pdf(i, y))
            gap_steps.append(math.log(p) if p > 0 else -math.inf)
    grid_nll = nll(gap_steps)
    rows = []
    for name in CANDIDATES:
        s = nll(scores[name])
        rows.append((name, s.mean, s.mean - grid_nll.mean, s.floor_hits, 1e6 * cost[name] / evals))
    zr = np.abs(np.array(zratio))
    return grid_nll, rows, float(np.median(zr)), float(zr.max())


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=10)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--etas", type=int, nargs="+", default=[4, 8, 16, 32])
    ap.add_argument("--systems", nargs="+", default=["sv", "gss", "cubic"])
    a = ap.parse_args(argv)
    print(f"# density study: {a.traces} traces × {a.steps} steps per system, seed {SEED}, refined + kernel\n")
    print("| system | η | construction | NLL | gap to grid | floor hits | µs/eval |")
    print("|---|---|---|---|---|---|---|")
    for system in a.systems:
        model = systems.get(system)
        traces = simulate_many(model, a.traces, a.steps, SEED)
        grids = [grid_filter(model, tr) for tr in traces]
        for eta in a.etas:
            g, rows, zmed, zmax = run(system, eta, traces, grids)
            print(f"| {system} | {eta} | grid (1501) | {g.mean:.3f} | — | {g.floor_hits} | — |")
            for name, m, gap, hits, us in rows:
                print(f"| {system} | {eta} | {name} | {m:.3f} | {gap:+.3f} | {hits} | {us:.0f} |")
            print(f"| {system} | {eta} | (|log Z_exact − log Z_η²|: median {zmed:.2e}, max {zmax:.2e}) | | | | |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
