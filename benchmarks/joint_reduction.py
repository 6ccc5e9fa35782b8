"""Which axis a joint reduction splits a cell along: the candidate rules scored against the law they reduce.

Every candidate splits a cell at its weighted mean and ends with the cells' conditional means (so all keep
the mean exactly); they differ only in the direction of each split (uxemu.joint.reduce, `rule=`):

  scaled     the axis whose weighted variance in the cell is largest relative to the whole set's variance
             along it (invariant under a rescaling of any component)
  variance   the axis whose weighted variance in the cell is largest, in the components' own units
  cycle      axis ℓ mod d at level ℓ (the next one whose coordinates differ when that one is constant)
  principal  the cell's leading principal direction (not axis-aligned; needs an eigenvector per cell)

Each law is a weighted atom set of 8,192–16,384 points (a seeded sample, or an exact product of quantized
scalar values pushed through a transition), reduced to η = 4 … 64 atoms by each rule. Scores, all in the
source's standardised coordinates (each component divided by its standard deviation, so no unit
dominates): the energy distance D² = 2E|X − Y| − E|X − X'| − E|Y − Y'| between the atoms and the source
(exact over all pairs); the sliced Wasserstein-1 distance over 128 fixed random directions; the largest
covariance error |ΔΣ_jk| / √(Σ_jj Σ_kk) (in correlation units). The mean error is reported as a check.
"stable" says whether reducing the η atoms again (same η) returns them unchanged, as TTR(n) does for a
value it made (the property a filter relies on when a value passes through a reduction unchanged).

Run: .venv/bin/python benchmarks/joint_reduction.py [--etas 4 8 16 32 64] [--out benchmarks/results/joint_reduction.md]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import uxemu as ux
from uxemu import joint

SEED = 2026
N_SAMPLE = 16384
DIRECTIONS = 128


# -- the laws ------------------------------------------------------------------------------------------
def gauss2(rng):
    cov = np.array([[1.0, 8.0], [8.0, 100.0]])  # σ = (1, 10), ρ = 0.8: components in different units
    return rng.multivariate_normal([0.0, 0.0], cov, N_SAMPLE), None


def banana2(rng):
    a = rng.normal(size=N_SAMPLE)
    return np.stack([a, a * a + 0.5 * rng.normal(size=N_SAMPLE)], axis=1), None


def bimodal2(rng):
    pick = rng.uniform(size=N_SAMPLE) < 0.4
    a = rng.multivariate_normal([-2.0, -1.0], [[0.5, 0.3], [0.3, 0.5]], N_SAMPLE)
    b = rng.multivariate_normal([2.0, 1.5], [[1.0, -0.2], [-0.2, 0.25]], N_SAMPLE)
    return np.where(pick[:, None], a, b), None


def transition(state_parts, noise_parts, f):
    """The exact product of independent quantized scalars (state components, then noise components)
    pushed through f: the atoms a lift of a vector transition would reduce."""
    grids = np.meshgrid(*[v.x for v in state_parts + noise_parts], indexing="ij")
    wgrids = np.meshgrid(*[v.w for v in state_parts + noise_parts], indexing="ij")
    w = np.prod(np.stack([g.ravel() for g in wgrids]), axis=0)
    x = f(*[g.ravel() for g in grids])
    return np.stack(x, axis=1), w


def cv2(rng):
    """Constant-velocity target (dt = 1): position and velocity, noise on both: 16·16 × 8·8 points."""
    p, v = ux.gaussian(0, 1, 16), ux.gaussian(1, 0.5, 16)
    wp, wv = ux.gaussian(0, 0.3, 8), ux.gaussian(0, 0.2, 8)
    return transition([p, v], [wp, wv], lambda p, v, a, b: (p + v + a, v + b))


def gauss3(rng):
    s = np.array([1.0, 3.0, 0.3])
    r = np.array([[1.0, 0.6, -0.3], [0.6, 1.0, 0.5], [-0.3, 0.5, 1.0]])
    return rng.multivariate_normal(np.zeros(3), r * np.outer(s, s), N_SAMPLE), None


def banana3(rng):
    a, b, c = rng.normal(size=(3, N_SAMPLE))
    y = a * a + 0.5 * b
    return np.stack([a, y, 0.5 * y + np.sin(2 * a) + 0.3 * c], axis=1), None


def bimodal3(rng):
    pick = rng.uniform(size=N_SAMPLE) < 0.5
    a = rng.multivariate_normal([-2, 0, 1], np.diag([0.5, 2.0, 0.1]), N_SAMPLE)
    b = rng.multivariate_normal([2, 1, -1], [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 0.1]], N_SAMPLE)
    return np.where(pick[:, None], a, b), None


def ca3(rng):
    """Constant-acceleration target (dt = 1): position, velocity, acceleration, noise on the
    acceleration: 8·8·8 × 16 points."""
    p, v, a = ux.gaussian(0, 1, 8), ux.gaussian(1, 0.5, 8), ux.gaussian(0, 0.2, 8)
    wa = ux.gaussian(0, 0.3, 16)
    return transition([p, v, a], [wa], lambda p, v, a, n: (p + v + 0.5 * a, v + a, a + n))


LAWS = {"gauss2": gauss2, "banana2": banana2, "bimodal2": bimodal2, "cv2": cv2,
        "gauss3": gauss3, "banana3": banana3, "bimodal3": bimodal3, "ca3": ca3}
DESCRIPTIONS = {
    "gauss2": "correlated Gaussian, σ = (1, 10), ρ = 0.8; 16,384 samples",
    "banana2": "banana (a, a² + ½ε); 16,384 samples",
    "bimodal2": "two correlated Gaussians, weights 0.4 / 0.6; 16,384 samples",
    "cv2": "constant-velocity transition of N(0,1)×N(1,0.5²) (η = 16 each) with noise N(0,0.3²)×N(0,0.2²) "
           "(η = 8 each): 16,384 weighted points",
    "gauss3": "correlated Gaussian, σ = (1, 3, 0.3); 16,384 samples",
    "banana3": "(a, y = a² + ½b, ½y + sin 2a + 0.3c); 16,384 samples",
    "bimodal3": "two Gaussians, one correlated; 16,384 samples",
    "ca3": "constant-acceleration transition of three η = 8 Gaussians with acceleration noise (η = 16): "
           "8,192 weighted points",
}


# -- scores ---------------------------------------------------------------------------------------------
def mean_abs_distance(a, wa, b, wb, chunk=2048):
    """Σ_ij wa_i wb_j |a_i − b_j| (Euclidean), in chunks of rows of a."""
    total = 0.0
    for s in range(0, a.shape[0], chunk):
        d = np.sqrt(((a[s:s + chunk, None, :] - b[None, :, :]) ** 2).sum(axis=2))
        total += float(wa[s:s + chunk] @ d @ wb)
    return total


def sliced_w1(a, wa, b, wb, dirs):
    """Mean over directions of W1 between the projections: ∫ |F − G| over the merged support."""
    out = 0.0
    for u in dirs:
        pa, pb = a @ u, b @ u
        t = np.concatenate([pa, pb])
        m = np.concatenate([wa, -wb])
        o = np.argsort(t, kind="stable")
        diff = np.cumsum(m[o])[:-1]
        out += float(np.abs(diff) @ np.diff(t[o]))
    return out / len(dirs)


def scores(src, wsrc, self_term, dirs, atoms, watoms):
    cross = mean_abs_distance(src, wsrc, atoms, watoms)
    inner = mean_abs_distance(atoms, watoms, atoms, watoms)
    energy = 2 * cross - self_term - inner
    sw = sliced_w1(src, wsrc, atoms, watoms, dirs)
    cs = np.cov(src.T, aweights=wsrc, bias=True)
    ca = np.cov(atoms.T, aweights=watoms, bias=True)
    cov_err = float(np.max(np.abs(ca - cs)))  # src is standardised: Σ_jj = 1
    mean_err = float(np.max(np.abs(watoms @ atoms - wsrc @ src)))
    return energy, sw, cov_err, mean_err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--etas", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    ap.add_argument("--laws", nargs="+", default=list(LAWS))
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "joint_reduction.md")
    args = ap.parse_args(argv)

    rows, summary = [], {}
    for name in args.laws:
        rng = np.random.default_rng(SEED)
        x, w = LAWS[name](rng)
        w = np.full(x.shape[0], 1.0 / x.shape[0]) if w is None else w / w.sum()
        mu = w @ x
        sd = np.sqrt(w @ ((x - mu) ** 2))
        z = (x - mu) / sd  # the scores' coordinates; the reduction runs on x itself
        self_term = mean_abs_distance(z, w, z, w)
        d = x.shape[1]
        dirs = np.random.default_rng(SEED + d).normal(size=(DIRECTIONS, d))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        for eta in args.etas:
            for rule in joint.RULES:
                t0 = time.perf_counter()
                v = joint.from_atoms(x, w, eta=eta, rule=rule)
                secs = time.perf_counter() - t0
                e, sw, ce, me = scores(z, w, self_term, dirs, (v.x - mu) / sd, v.w)
                again = joint.from_atoms(v.x, v.w, eta=eta, rule=rule)
                stable = len(again) == len(v) and np.allclose(again.x, v.x, rtol=1e-12, atol=1e-12 * np.abs(v.x).max())
                rows.append((name, eta, rule, len(v), e, sw, ce, me, secs, stable))
                summary.setdefault(rule, []).append((name, eta, e, sw, ce))
            print(f"{name} η={eta} done", file=sys.stderr)

    lines = [f"# joint reduction: split rule by measurement (seed {SEED})", "",
             "Generated by `benchmarks/joint_reduction.py`; how the laws are built and scored is in its "
             "docstring. Scores in the source's standardised coordinates; lower is better. "
             "`ratio` columns: the rule's score over the best rule's score on the same law and η, as a "
             "geometric mean over every law and η (1.00 = always the best); a tie is a win for each rule tied.", ""]
    lines += ["## Laws", ""] + [f"- `{k}`: {DESCRIPTIONS[k]}" for k in args.laws] + [""]
    lines += ["## Summary", "", "| rule | energy ratio | sliced-W1 ratio | cov-error ratio | wins (energy) | wins (sliced W1) | stable |",
              "|---|---|---|---|---|---|---|"]
    keys = [(r[0], r[1]) for r in rows if r[2] == joint.RULES[0]]
    best = {}
    for k in keys:
        sel = [r for r in rows if (r[0], r[1]) == k]
        best[k] = tuple(min(r[i] for r in sel) for i in (4, 5, 6))
    for rule in joint.RULES:
        sel = [r for r in rows if r[2] == rule]
        ratios = np.array([[r[4] / best[(r[0], r[1])][0], r[5] / best[(r[0], r[1])][1],
                            (r[6] + 1e-12) / (best[(r[0], r[1])][2] + 1e-12)] for r in sel])
        gm = np.exp(np.log(ratios).mean(axis=0))
        wins_e = sum(r[4] == best[(r[0], r[1])][0] for r in sel)
        wins_s = sum(r[5] == best[(r[0], r[1])][1] for r in sel)
        stable = sum(r[9] for r in sel)
        lines.append(f"| {rule} | {gm[0]:.3f} | {gm[1]:.3f} | {gm[2]:.3f} | {wins_e} of {len(sel)} | "
                     f"{wins_s} of {len(sel)} | {stable} of {len(sel)} |")
    lines += ["", "## Every law, η and rule", "",
              "| law | η | rule | atoms | energy D² | sliced W1 | cov error | mean error | reduce s | stable |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.3e} | {r[5]:.4f} | {r[6]:.4f} | {r[7]:.1e} | "
                     f"{r[8]:.3f} | {'yes' if r[9] else 'no'} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[: 12 + len(args.laws) + len(joint.RULES)]))


if __name__ == "__main__":
    main()
