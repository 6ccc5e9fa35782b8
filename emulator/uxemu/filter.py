"""The BayesLaplace filter: predict by lifting the transition, update with BayesLaplace."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from . import _ttr, facts, libm
from ._ttr import MAX_ETA
from ._ttr_linear import remove_interpolation_variance, ttr_linear
from ._density import bin_spreads
from ._mixture_nodes import mixture_on_nodes
from .bayes import (
    LINEAR_MIN,
    BayesResult,
    KernelLikelihood,
    Status,
    bayes_laplace,
    evidence_arrays,
    log_family,
    log_likelihood_sum,
    logsumexp_rows,
    points_mean,
    points_variance,
    reduce_prior,
)
from .laws import Laplace, Normal
from .lift import evaluate
from .model import StateSpaceModel
from .value import Value, normalise

# In the numbering of the C core's ux_mode; "cells" is the vector state's cell filter (uxemu.joint_cells).
MODES = tuple(m for m in facts.MODES if m != "cells")
DENSITY_FORMS = ("bins", "prior", "mixture")  # numbering of the C core's ux_density_form
# The density's normaliser (ux/filter.h): trapezoid intervals, and the base law's support in its scales.
DENSITY_INTERVALS = 128
DENSITY_REACH = {"gaussian": 10.0, "laplace": 40.0}
# The quadrature's region (ux/filter.h UX_REFOCUS_*, UX_REGION_NODES): prior atoms (or nodes) whose
# numerator is below this share of the largest lie outside it; the density's quadrature region is narrowed
# to its nodes' bracket, at most this many times, while fewer than REGION_NODES of them reach it.
REFOCUS_FLOOR = 2.0**-40
REFOCUS_ROUNDS = 4
REGION_NODES = 32
# ... where the nodes reaching the floor form clumps apart and all but the heaviest hold less than 1/η of Σ e
# each, at most LUMPS of them, the region narrows onto the heaviest and each other clump takes its own
# quadrature, a lump of the posterior (ux/filter.h UX_LUMPS; docs/semantics.md, "Filter density").
LUMPS = 2
# ... and where the nodes' largest value is a peak narrower than a quarter of their spacing (its neighbours'
# product below NARROW_PEAK = 2^-23, log e falling by 16 across them), each interior local maximum — up to 1 + LUMPS
# — is zoomed on as a lump: the heaviest is the region, the others lumps (ux/filter.h UX_NARROW_PEAK).
NARROW_PEAK = 2.0**-23
# A lump enters the posterior's TTR cells, but for mixture mode at η ≥ LUMP_ATOM_ETA, whose next predictive carries
# each atom's spread: there it is an atom of its own (`seat_lump`; ux/filter.h UX_LUMP_ATOM_ETA).
LUMP_ATOM_ETA = 16
# The trapezoid resolves the numerator (ux/filter.h UX_NODE_RESOLUTION, UX_COMPONENT_SPAN) only where the node
# spacing is at least NODE_RESOLUTION ε of the region's largest |t| and a mixture's widest component spans at
# least COMPONENT_SPAN of it; elsewhere log Z is the update's evidence.
NODE_RESOLUTION = 1024
COMPONENT_SPAN = 0.5
# Mixture mode's comb (ux/filter.h UX_COMB_SPAN, UX_COMB_GAP; docs/semantics.md, "Filter"): predictive components
# are widened to at least COMB_SPAN of the quadrature's node spacing and COMB_GAP of their distance to the nearer
# neighbouring centre (at most of the centres' mean spacing) where some are narrower.
COMB_SPAN = 1.0
COMB_GAP = 0.5
# ... the spacing term only for a mixture whose bimodality coefficient is at most Sarle's 5/9 (UX_COMB_BIMODALITY).
COMB_BIMODALITY = 5.0 / 9.0
EPS = float(np.finfo(np.float64).eps)
# The quadrature posterior's cells sum squares of their positions: nodes beyond √(largest double)/1024
# would overflow them, so such an update keeps its own posterior (ux/filter_density.c within_moment_reach).
MOMENT_REACH = math.sqrt(float(np.finfo(np.float64).max)) / 1024.0
# The innovation gate's default, in standard deviations of the predictive law of one observation
# (ux/filter.h UX_OUTLIER_GATE; docs/semantics.md, "Innovation gate").
OUTLIER_GATE = 5.0
# Smooth refined (ux/filter.h UX_REFOCUS_ESS; docs/semantics.md, "Filter"): an update whose weighed points'
# effective count is below REFOCUS_ESS·η (twice that at η ≥ REFOCUS_WIDE_ETA) builds its posterior from the
# density's quadrature.
REFOCUS_ESS = 2
REFOCUS_WIDE_ETA = 32
# ... or whose posterior density still rises at an outermost weighed point that alone holds EDGE_SHARE of the
# posterior's variance (ux/filter.h UX_EDGE_SHARE; docs/semantics.md, "Filter", the open edge).
EDGE_SHARE = 0.0625
# ... or, at η ≥ EDGE_PROBES_ETA, where the likelihood rises at an outermost weighed point, whose numerator at
# EDGE_PROBES points past it, spaced by the scale of that side's outermost predictive component, holds EDGE_SHARE
# of it (ux/filter.h UX_EDGE_PROBES, UX_EDGE_PROBES_ETA).
EDGE_PROBES = 2
EDGE_PROBES_ETA = 16
# The smooth filter's kernel (ux/filter.h UX_KERNEL_*; docs/semantics.md, "Filter", the kernel): at a predict,
# KERNEL_SHARE of the belief's variance moves from between its atoms into every component, at most KERNEL_CAP
# of the atoms' own; in full after an update that took nothing from the variance, none after one that took
# KERNEL_INFO of it or more, and none for a belief whose bimodality coefficient exceeds KERNEL_BIMODALITY.
KERNEL_SHARE = 0.3
KERNEL_CAP = 0.9
KERNEL_INFO = 0.5
KERNEL_BIMODALITY = 0.4
# A cell the transition bends (ux/filter.h UX_CELL_BEND; docs/semantics.md, "Filter density"): its image splits
# into its two points' when their half-distance τ exceeds the noise's σ and f at the cell's mean lies more than
# CELL_BEND·|τ| from their midpoint, or f at x ± 2r more than CELL_BEND·2|τ| from the line through their images.
CELL_BEND = 0.1
# Departure (ux/filter.h UX_DEPARTURE_SD; docs/semantics.md, "Departure"): a posterior whose estimated distance
# from the model's own, left by an outlier it could not follow, exceeds this many of its sd is not OK.
DEPARTURE_SD = 0.5
# Consistency (ux/filter.h UX_NIS_*; docs/semantics.md, "Consistency"): the running mean of the test ratio per
# observation component, each update's weighed NIS_WEIGHT and counted at most NIS_CAP; an update that would be
# OK is INCONSISTENT while the mean exceeds NIS_LIMIT.
NIS_WEIGHT = 0.0625
NIS_CAP = 25.0
NIS_LIMIT = 3.0
# The linear update (ux/filter.h UX_LINEAR_RESIDUAL, UX_LINEAR_ROUNDING of the double build; docs/semantics.md,
# "Linear update"): a kernel is linear in the state over the prior atoms when what a line in the state leaves
# of its loc's variance is at most LINEAR_RESIDUAL of the noise's variance plus LINEAR_ROUNDING of the loc's.
LINEAR_RESIDUAL = 1e-4
LINEAR_ROUNDING = 1e-9
# … and its prior points have one mode: a bimodality coefficient at most the uniform law's, 5/9.
LINEAR_BIMODALITY = 0.5555555555555556


def density_nodes(lo: float, hi: float):
    """The density's nodes lo + k·h, k = 0 … DENSITY_INTERVALS, and h (ux/filter_density.c node_position)."""
    h = (hi - lo) / float(DENSITY_INTERVALS)
    return lo + np.arange(DENSITY_INTERVALS + 1, dtype=np.float64) * h, h


def mixture_components(model: StateSpaceModel, belief, k: int, u: float, spreads=None):
    """(centres, weights, scales) of the predictive mixture from `belief` (docs/semantics.md, "Filter
    density"), or None when the model does not declare additive Gaussian process noise (`cell_components`,
    no cell split: mixture mode's)."""
    found = cell_components(model, belief, k, u, spreads)
    return None if found is None else found[:3]


def cell_components(model: StateSpaceModel, belief, k: int, u: float, spreads=None, split: bool = False):
    """(centres, weights, scales, split) of the predictive mixture, as ux/filter.c mixture_components: centre
    f(x_i, 0) + μ, scale the process noise's σ; where the belief's atoms carry cell spreads v_i each cell goes
    through f as its two points x_i ± √v_i: centre (f₊ + f₋)/2 + μ, scale sqrt(σ² + τ_i²), τ_i = (f₊ − f₋)/2 —
    or, with `split` (smooth refined at η ≥ 4), for a cell f bends (`bends`), the two components f₋ + μ and
    f₊ + μ of scale σ and half its weight each, marked in the fourth array. None when the model does not
    declare additive Gaussian process noise or a centre or scale is not finite."""
    law = model.process_noise
    if not (model.additive_noise and isinstance(law, Normal)):
        return None
    x, w = belief.x, belief.w
    sigma = float(law.sigma)
    with np.errstate(all="ignore"):
        if spreads is None:
            centres = np.asarray(model.transition(x, np.zeros_like(x), k, u), dtype=np.float64) + law.mu
            found = centres, w.copy(), np.full(x.size, sigma), np.zeros(x.size, dtype=bool)
        else:
            found = _spread_components(model, x, w, np.sqrt(spreads), k, u, law, split)
    c, _, s, _ = found
    if not (np.isfinite(c).all() and np.isfinite(s).all()):
        return None
    return found


def _spread_components(model, x, w, r, k: int, u: float, law: Normal, may_split: bool):
    """cell_components for cells of spreads r², one or two components per cell in the cells' order."""
    zero = np.zeros_like(x)
    sigma = float(law.sigma)
    up = np.asarray(model.transition(x + r, zero, k, u), dtype=np.float64)
    down = np.asarray(model.transition(x - r, zero, k, u), dtype=np.float64)
    mid, tau = (up + down) * 0.5, (up - down) * 0.5
    split = bends(model, x, r, mid, tau, sigma, k, u) if may_split else np.zeros(x.size, dtype=bool)
    scales = np.sqrt(sigma * sigma + tau * tau)
    n = x.size + int(np.count_nonzero(split))
    first = np.arange(x.size) + np.concatenate(([0], np.cumsum(split)[:-1]))  # each cell's first component
    c, cw, s = np.empty(n), np.empty(n), np.full(n, sigma)
    c[first] = np.where(split, down + law.mu, mid + law.mu)
    cw[first] = np.where(split, w * 0.5, w)
    s[first] = np.where(split, sigma, scales)
    c[first[split] + 1] = up[split] + law.mu
    cw[first[split] + 1] = w[split] * 0.5
    halves = np.zeros(n, dtype=bool)
    halves[first[split]] = True
    halves[first[split] + 1] = True
    return c, cw, s, halves


def bends(model, x, r, mid, tau, sigma: float, k: int, u: float) -> np.ndarray:
    """Which cells (spreads r² about x) the transition bends: |τ| > σ, and f at the cell's mean more than
    CELL_BEND·|τ| from the midpoint of its two points' images, or f at x ± 2r more than CELL_BEND·2|τ| from the
    line through them (mid ± 2τ) — there one Gaussian would reach where f sends nothing (a fold's flanks, a
    saturation's far side), the two points' components do not (ux/filter.c cell_bends)."""
    reach = np.abs(tau)
    wide = reach > sigma
    if not wide.any():
        return wide
    zero = np.zeros_like(x)

    def strays(at, line, far):
        image = np.asarray(model.transition(at, zero, k, u), dtype=np.float64)
        return np.abs(image - line) > CELL_BEND * far

    two = 2.0 * reach
    return wide & (
        strays(x, mid, reach) | strays(x + 2.0 * r, mid + 2.0 * tau, two) | strays(x - 2.0 * r, mid - 2.0 * tau, two)
    )


def linear_node_values(s: np.ndarray, ell: np.ndarray):
    """The quadrature's relative numerator in the linear domain (ux/filter_density.c linear_node_values):
    e_k = v_k / max v, v_k = s_k·exp(ℓ_k − max ℓ) (0 where ℓ_k = −∞), and its scale max ℓ + log max v; None where
    max ℓ is not finite, s_k is below LINEAR_MIN or not finite at a node of finite ℓ, or max v is not positive
    and finite."""
    lmax = float(ell.max())
    if not math.isfinite(lmax):
        return None
    weighed = ell != -np.inf
    if not np.all((s[weighed] >= LINEAR_MIN) & np.isfinite(s[weighed])):
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        v = np.where(weighed, s * libm.exp(np.where(weighed, ell - lmax, 0.0)), 0.0)
    vmax = float(v.max())
    if not (vmax > 0 and math.isfinite(vmax)):
        return None
    return v / vmax, lmax + float(libm.log(vmax))


@dataclass(frozen=True)
class FilterDensity:
    """The density of one filter posterior (docs/semantics.md, "Filter density").

    form 'mixture': L(t) Σ_i w_i N(t; c_i, s_i²) / Z; 'prior': L(t) p_prior(t) / Z (the first update);
    'bins': the posterior value's TTR-binned density. L(t) = exp ℓ(t), ℓ the update's log-likelihood of
    its evidence, Z the trapezoid integral of the numerator over the quadrature's region, the base law's
    support narrowed onto the numerator (`narrowed`; Z = 1 and no likelihood factor when the update
    fell back)."""

    form: str
    posterior: Value
    components: tuple | None = None  # (centres, weights, scales)
    prior: object = None  # Normal or Laplace law
    likelihood: object = None  # None: no likelihood factor (FALLBACK)
    z: np.ndarray | None = None
    omega: np.ndarray | None = None
    m: int = 1
    log_evidence: float = 0.0
    region: tuple | None = None  # the first update's or a mixture-mode update's region (lo, hi), its support
    log_z: float | None = None  # log Z where the update computed it (mixture_posterior), as C keeps it

    def log_numerator(self, t) -> np.ndarray:
        """log of the density's numerator at the points t (1-D): base law plus ℓ; −∞ where it is 0."""
        tt = np.asarray(t, dtype=np.float64)
        return self._plus_likelihood(self._log_base(tt), tt)

    def node_log_numerator(self, lo: float, hi: float):
        """The nodes t_k = lo + k·h of a quadrature region, h, and the log numerator there, as ux/filter_density.c
        weighs them: a mixture's density by `mixture_on_nodes` where it is at least LINEAR_MIN and finite,
        its logsumexp elsewhere (docs/semantics.md, "Filter density")."""
        t, h = density_nodes(lo, hi)
        if self.form != "mixture":
            return t, h, self.log_numerator(t)
        s = mixture_on_nodes(self.components, lo, h, DENSITY_INTERVALS)
        return t, h, self._mixture_log_numerator(t, s, self._node_ell(t))

    def log_base(self, tt: np.ndarray) -> np.ndarray:
        """The base law's log density at the points tt (1-D): the predictive mixture's or the prior law's."""
        return self._log_base(np.asarray(tt, dtype=np.float64))

    def node_values(self, lo: float, hi: float):
        """The nodes t_k = lo + k·h of a quadrature region, h, their relative numerator e_k and its scale `top`
        (e_k·e^top is the numerator), as ux/filter_density.c weigh_nodes: for a mixture whose density
        `mixture_on_nodes` gives at least LINEAR_MIN and finite at every node of finite ℓ, in the linear domain
        (`linear_node_values`); else e_k = exp(u_k − max u), top = max u, u as `node_log_numerator` gives it. top
        is not finite when the numerator vanishes or overflows at every node. ℓ and the mixture's density are
        taken once, as in C."""
        t, h = density_nodes(lo, hi)
        if self.form != "mixture":
            u = self.log_numerator(t)
        else:
            s = mixture_on_nodes(self.components, lo, h, DENSITY_INTERVALS)
            ell = self._node_ell(t)
            linear = None if ell is None else linear_node_values(s, ell)
            if linear is not None:
                return (t, h) + linear
            u = self._mixture_log_numerator(t, s, ell)
        top = float(u.max())
        return t, h, (libm.exp(u - top) if math.isfinite(top) else u), top

    def _node_ell(self, t: np.ndarray):
        """ℓ at the nodes, NaN read as −∞; None without a likelihood factor."""
        if self.likelihood is None:
            return None
        ell = log_likelihood_sum(self.likelihood, t, self.z, self.omega, self.m)
        return np.where(np.isnan(ell), -np.inf, ell)

    def _mixture_log_numerator(self, t: np.ndarray, s: np.ndarray, ell) -> np.ndarray:
        """log s_k where `mixture_on_nodes` gave s_k at least LINEAR_MIN and finite, the logsumexp elsewhere, plus
        ℓ (unless None), −∞ where NaN."""
        linear = (s >= LINEAR_MIN) & np.isfinite(s)
        base = np.empty_like(s)
        base[linear] = libm.log(s[linear])
        base[~linear] = self._log_base(t[~linear])
        return self._plus_likelihood(base, t, ell)

    def numerator_rises(self, outer: float, inner: float, ell_e: float, ell_i: float) -> bool:
        """Whether the numerator is larger at `outer` than at `inner`, whose log-likelihoods are ell_e > ell_i
        (ux/filter_density.c numerator_rises): a mixture's S(outer)·e^(ℓ_e − ℓ_i) > S(inner), S its density over
        1/√(2π) (`_mixture_linear`), where S is at least LINEAR_MIN and finite at both; else from the log
        numerators."""
        if self.form == "mixture":
            so, si = self._mixture_linear(outer), self._mixture_linear(inner)
            if so >= LINEAR_MIN and math.isfinite(so) and si >= LINEAR_MIN and math.isfinite(si):
                return so * float(libm.exp(ell_e - ell_i)) > si
        base = self.log_base(np.array([outer, inner]))
        return bool(numerator_from(base[0], ell_e) > numerator_from(base[1], ell_i))

    def _mixture_linear(self, t: float) -> float:
        """Σ_i (w_i/σ_i)·e^(−v·v/2), v = (t − c_i)/σ_i, summed in i order (ux/filter_density.c mixture_linear)."""
        c, w, sc = self.components
        inv = 1.0 / sc
        v = (t - c) * inv
        with np.errstate(over="ignore", under="ignore"):
            terms = (w * inv) * libm.exp(-0.5 * v * v)
        return float(np.cumsum(terms)[-1])

    def _log_base(self, tt: np.ndarray) -> np.ndarray:
        if self.form == "mixture":
            c, w, sc = self.components
            with np.errstate(divide="ignore", invalid="ignore"):
                lw = libm.log(w) - libm.log(sc)  # log w_i − log σ_i, as ux/filter.c keeps it
                a = lw[None, :] + log_family("gaussian", (tt[:, None] - c[None, :]) / sc[None, :])
            return logsumexp_rows(a)
        loc, scale = self.prior.location_scale()
        return log_family(self._prior_family, (tt - loc) / scale) - libm.log(scale)

    def _plus_likelihood(self, base: np.ndarray, tt: np.ndarray, ell=None) -> np.ndarray:
        """base + ℓ at tt (ℓ: taken there unless given), −∞ where NaN; base without a likelihood factor."""
        if self.likelihood is None:
            return base
        ell = self._node_ell(tt) if ell is None else ell
        with np.errstate(invalid="ignore"):
            out = base + ell
        return np.where(np.isnan(out), -np.inf, out)

    @property
    def _prior_family(self) -> str:
        return "gaussian" if isinstance(self.prior, Normal) else "laplace"

    def support(self) -> tuple[float, float]:
        """The interval the base law holds all but a negligible part of its mass in (ux/filter.c); a
        refocused first update's region instead."""
        if self.region is not None:
            return self.region
        if self.form == "mixture":
            c, _, sc = self.components
            reach = DENSITY_REACH["gaussian"]
            return float((c - reach * sc).min()), float((c + reach * sc).max())
        loc, scale = self.prior.location_scale()
        reach = DENSITY_REACH[self._prior_family] * scale
        return loc - reach, loc + reach

    def quadrature(self, region: tuple | None = None, lumps: tuple = ()):
        """The numerator on DENSITY_INTERVALS + 1 equally spaced nodes of the quadrature's region and its
        trapezoid integral with the lumps' masses, as the C core computes them (default: the region and lumps
        `narrowed` finds; a region given takes the lumps given, each weighed again on its own region): a
        `Quadrature` (nodes t_k = t_0 + k·h, values exp(u_k − max u), log Z, h, lumps, max u, region), the trapezoid
        terms (½ at the ends) summed in node order, then each lump's mass added; None when the numerator vanishes
        or overflows at every node, log Z is not finite or the nodes do not resolve the numerator (`resolves`)."""
        if region is None:
            found = narrowed(self)
            if found is None:
                return None
            region, lumps = found
        else:
            lumps = tuple(lump_on(self, lump.region) for lump in lumps)
            if any(lump is None for lump in lumps):
                return None
        if not self.resolves(*region):
            return None
        t, h, e, top = self.node_values(*region)
        if not math.isfinite(top):
            return None
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            z = np.cumsum(trapezoid_terms(e))[-1] * h
            for lump in lumps:
                z = z + float(libm.exp(lump.log_mass - top))
            out = top + float(libm.log(z))
        return Quadrature(t, e, out, h, lumps, top, region) if math.isfinite(out) else None

    def resolves(self, lo: float, hi: float) -> bool:
        """Whether the trapezoid on the region's nodes resolves the numerator (ux/filter_density.c resolves): nodes
        apart far beyond rounding, and a mixture's widest component at least COMPONENT_SPAN of their spacing."""
        h = density_nodes(lo, hi)[1]
        if not h >= NODE_RESOLUTION * EPS * max(abs(lo), abs(hi)):
            return False
        return self.form != "mixture" or float(self.components[2].max()) >= COMPONENT_SPAN * h

    @cached_property
    def log_norm(self) -> float:
        """log Z by `quadrature` (or as the update computed it); the update's evidence where it has none; 0
        without a likelihood factor."""
        if self.likelihood is None:
            return 0.0
        if self.log_z is not None:
            return self.log_z
        q = self.quadrature()
        return self.log_evidence if q is None else q[2]

    def logpdf(self, t):
        tt = np.atleast_1d(np.asarray(t, dtype=np.float64)).ravel()
        if self.form == "bins":
            with np.errstate(divide="ignore"):
                out = libm.log(self.posterior.pdf(tt))
        else:
            out = self.log_numerator(tt) - self.log_norm
        return out.reshape(np.shape(t)) if np.ndim(t) else float(out[0])

    def pdf(self, t):
        return libm.exp(self.logpdf(t))


def gate_limit(gate: float) -> float:
    """A filter's innovation gate in standard deviations, checked as ux_filter_set_gate checks it (> 0; inf: off)."""
    if not gate > 0:
        raise ValueError(f"the innovation gate must be > 0 standard deviations (inf: off), got {gate}")
    return float(gate)


def consistency_limit(limit: float) -> float:
    """A filter's consistency limit, checked as ux/gate_sums.c ux_tests_set_consistency checks it (> 0; inf: off)."""
    if not limit > 0:
        raise ValueError(f"the consistency limit must be > 0 (inf: off), got {limit}")
    return float(limit)


def nis_track(nis: float, ratio: float, components: int = 1) -> float:
    """The consistency mean after an update of test ratio `ratio` over `components` observation components
    (ux/gate_sums.c ux_tests_track): NaN (no test) leaves it."""
    if ratio == ratio:
        r = ratio / components
        r = r if r < NIS_CAP else NIS_CAP
        nis = nis + NIS_WEIGHT * (r - nis)
    return nis


@dataclass
class FilterRun:
    mean: np.ndarray
    var: np.ndarray
    status: np.ndarray  # Status per step
    posteriors: list[Value] = field(repr=False)
    log_evidence: np.ndarray = None  # log p(z_k | z_0..k−1) per step (0 without observation)
    densities: list[FilterDensity] = field(default_factory=list, repr=False)
    test_ratio: np.ndarray = None  # the innovation gate's ν²/S per step (NaN: not taken)
    nis: np.ndarray = None  # the running mean of the test ratios after each step ("Consistency")

    @property
    def log_likelihood(self) -> float:
        """log p(z_0..T−1): the steps' log evidence summed in order (as the C filter accumulates it)."""
        return sum_in_order(self.log_evidence)

    @property
    def density_log_evidence(self) -> np.ndarray:
        """log p(z_k | z_0..k−1) per step by the filter density's quadrature (docs/semantics.md, "Filter
        density"): the exact evidence of the filter's predictive law; the update's evidence where the
        density is the bins or has no likelihood factor (ux_filter_density_log_evidence)."""
        return np.array(
            [
                d.log_norm if d.form != "bins" and d.likelihood is not None else float(e)
                for d, e in zip(self.densities, self.log_evidence)
            ]
        )

    @property
    def fallbacks(self) -> int:
        return int((self.status == Status.FALLBACK).sum())

    def logpdf(self, i: int, t):
        """log density of step i's posterior at t (the filter density, docs/semantics.md)."""
        return self.densities[i].logpdf(t)


class BayesLaplaceFilter:
    """One filter instance: call `step(k, z, u)` per observation, or `run(trace)`."""

    def __init__(
        self,
        model: StateSpaceModel,
        eta: int = 16,
        mode: str = "refined",
        likelihood: str = "kernel",
        prior=None,
        gate: float = OUTLIER_GATE,
        gate_outliers: bool = False,
        nis_limit: float = NIS_LIMIT,
    ):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
        self.gate = gate_limit(gate)
        self.gate_outliers = bool(gate_outliers)
        self.test_ratio = math.nan  # of the last update
        self.nis = 1.0  # the running mean of the test ratios ("Consistency"): a calibrated predictive's
        self.nis_limit = consistency_limit(nis_limit)  # ux_filter_set_consistency
        self.model = model
        self.eta = eta
        self.n = _ttr.log2_eta(eta)
        self.mode = mode
        self.likelihood = model.likelihood(eta, likelihood)
        # Smooth refined (docs/semantics.md, "Filter"): each atom's bin spread goes through the transition with
        # it, and the predictive points are that mixture's components at standardised noise atoms.
        self.smooth = mode == "refined" and model.additive_noise and isinstance(model.process_noise, Normal)
        self.process_noise = standard_noise(eta) if self.smooth else model.process_noise.quantize(eta)
        self.half_noise = half_noise(self.process_noise) if self.smooth and eta >= 4 else None
        prior_law = model.prior if prior is None else prior
        self.prior_law = prior_law
        self.posterior = prior_law.quantize(eta)
        self.log_evidence = 0.0  # of the last update
        self.log_likelihood = 0.0  # summed over every update
        self._fresh = True  # no update yet: the prior of the next one is the quantized prior law
        self._pending = None  # mixture components of the staged prediction
        self._spreads = None  # the posterior atoms' cell spreads (mixture mode, from the nodes' TTR)
        self._staged = False
        self._var = None  # smooth: the posterior's variance (None: its binned density's, before any update)
        self._info = 1.0  # smooth, mixture: the share of the variance the last update took (1: no kernel)
        self._departure = 0.0  # smooth, mixture: how far the model's own posterior mean may be from this one's
        self.departs = self.smooth or mode == "mixture"  # keeps a departure ("Departure"; ux/filter.c tracks_departure)
        self.density = FilterDensity(
            "prior" if isinstance(prior_law, (Normal, Laplace)) else "bins", self.posterior, prior=prior_law
        )

    def predict(self, k: int, u: float = 0.0):
        """The predictive atoms: all η² in evaluation order (refined) or reduced to η (paper)."""
        if self.smooth:
            return self._smooth_points(k, u)
        post = self.posterior.independent_copy()
        noise = self.process_noise.independent_copy()
        y, w, _ = evaluate(lambda x, e: self.model.transition(x, e, k, u), [post, noise])
        if not np.isfinite(y).all():
            raise ValueError(f"the transition returned a non-finite state at step {k}")
        xs, ws = _ttr.compact(y, w)
        self._pending = mixture_components(self.model, post, k, u, self._spreads)
        self._staged = True
        if self.mode == "paper":
            px, pw = _ttr.ttr(xs, ws, self.n)
            return px, normalise(pw)
        return xs, ws

    def _smooth_points(self, k: int, u: float):
        """The belief's atoms with their bin spreads as the mixture's components (centre c_i, scale s_i, weight
        w_i), at the noise atoms: c_i + s_i·ε_j, weight w_i·ν_j, i outer, zero weights dropped — a split cell's
        two components at the η/2 atoms of `half_noise` (ux/filter.c smooth_points).
        The previous posterior's density reads as its bins from here on (C reuses its areas)."""
        if self.density.form == "mixture":
            self.density = FilterDensity("bins", self.posterior)
        belief, spreads = self._kernel_belief()
        # below η = 4 half the noise atoms would be one: no cell splits
        found = cell_components(self.model, belief, k, u, spreads, split=self.eta >= 4)
        if found is None:
            raise ValueError(f"the transition returned a non-finite state at step {k}")
        c, w, s, split = found
        full, half = self.process_noise, self.half_noise
        with np.errstate(all="ignore"):
            rows = [
                (c[i] + s[i] * (half if split[i] else full).x, w[i] * (half if split[i] else full).w)
                for i in range(c.size)
            ]
        y = np.concatenate([r[0] for r in rows])
        if not np.isfinite(y).all():
            raise ValueError(f"the transition returned a non-finite state at step {k}")
        self._pending, self._staged = found[:3], True
        return _ttr.compact(y, np.concatenate([r[1] for r in rows]))

    def _kernel_belief(self):
        """The belief the smooth predict carries through the transition (ux/filter.c kernel_belief): the
        posterior's atoms, each with its bin spread scaled so that they add up to the posterior's variance,
        then the kernel (KERNEL_SHARE) moved from between the atoms into every spread: the atoms (shrunk about
        their mean) and their spreads."""
        x, w = self.posterior.x, self.posterior.w
        v = bin_spreads(x, w)
        m = _ttr.sequential_sum(w * x)
        d = x - m
        between = _ttr.sequential_sum(w * (d * d))
        if self._var is not None:
            within = max(self._var - between, 0.0)
            total = _ttr.sequential_sum(w * v)
            v = v * (within / total) if total > 0 else np.full(x.size, within)
        alpha = KERNEL_SHARE * min(1.0, max(0.0, 1.0 - self._info / KERNEL_INFO))
        if alpha > 0 and between > 0 and bimodality(d, w, v) <= KERNEL_BIMODALITY:
            h2 = min(alpha * (between + _ttr.sequential_sum(w * v)), KERNEL_CAP * between)
            a = math.sqrt(1.0 - h2 / between)
            x, v = m + a * d, v + h2
        return _Atoms(x, w), v

    def set_posterior(self, posterior: Value, variance: float | None = None):
        """Continue from another filter's posterior (a device's, one step at a time): its atoms and, smooth, the
        variance it reported — the state the next predict reads besides the atoms (the share the last update
        took stays this filter's own)."""
        self.posterior = posterior
        if self.smooth and variance is not None:
            self._var = float(variance)

    def variance(self) -> float:
        """The posterior's variance (ux_filter_var): the atoms'; smooth, the weighed points' of the update that
        made it (the quadrature density's after a refocus), or before any update its binned density's — the
        atoms' plus each atom's bin spread, Σ w_i·v_i in order."""
        if self.smooth and self._var is not None:
            return self._var
        v = self.posterior.var()
        if self.smooth:
            v = v + _ttr.sequential_sum(self.posterior.w * bin_spreads(self.posterior.x, self.posterior.w))
        return v

    def update(self, prior_atoms, evidence, m: int = 1):
        """BayesLaplace on the prior atoms (those `predict` returned, or the posterior's own atoms);
        `evidence` None is a step without observation (status NO_EVIDENCE): the posterior is the prior
        atoms reduced to η, as on a fallback, and its density has no likelihood factor. A first update
        whose likelihood is too narrow for the prior's atoms is refocused (status REFOCUSED)."""
        if evidence is None:
            self.test_ratio = math.nan
            return self._without_evidence(prior_atoms)
        outlier = self._gate(prior_atoms, evidence)
        if outlier and self.gate_outliers:  # treated as missing: the prior as a step without observation
            atoms = prior_atoms if self._staged else (self.posterior.x, self.posterior.w)
            self._without_evidence(atoms)
            self.nis = nis_track(self.nis, self.test_ratio)
            return Status.OUTLIER
        prior_var = points_variance(*prior_atoms) if self.departs else math.nan
        prior_mean = points_mean(*prior_atoms) if self.departs else math.nan
        lin = self._linear(prior_atoms, evidence, m, prior_mean, prior_var)
        if lin is not None:
            res = self._linear_posterior(prior_atoms, lin, prior_mean, prior_var)
            self.test_ratio, outlier = lin.ratio, lin.ratio > self.gate * self.gate
        else:
            res = bayes_laplace(prior_atoms, self.likelihood, evidence, m, eta=self.eta)
        edges = point_edges(*prior_atoms) if self.smooth and lin is None else None
        self._spreads = None  # the update's own posterior has none; mixture mode's nodes give them
        self.posterior = res.posterior
        self.log_evidence = res.log_evidence
        weighed = res.status == Status.OK
        if self.smooth:
            self._var = res.points_var if weighed else prior_var  # a fallback keeps the prior
        status = self._quadrature_posterior(res, prior_atoms, evidence, m, edges)
        weighed = status != Status.FALLBACK  # a fallback the density's nodes weighed is weighed
        # an outlier the linear update did not take: how far a Gaussian predictive would have let it move the mean
        d = self.density
        tail = (
            gaussian_reach(d, prior_mean, prior_var)
            if outlier and lin is None and self.departs and d.likelihood is not None and d.form != "bins"
            else math.nan
        )
        if self.departs:  # the share of the variance this update took (after a refocus: the quadrature's)
            self._info = 1.0 - self._updated_var() / prior_var if prior_var > 0 and weighed else 0.0
        self.log_likelihood += self.log_evidence
        self._fresh, self._staged, self._pending = False, False, None
        status = Status.OUTLIER if outlier and status != Status.FALLBACK else status  # a fallback weighed nothing
        if self.departs:
            reach = math.nan
            if outlier:
                z, _ = evidence_arrays(evidence)
                reach = (
                    abs(lin.shift)
                    if lin is not None
                    else outlier_reach(
                        self.likelihood.innovation_shift(prior_atoms[0], prior_atoms[1], z, prior_var), tail
                    )
                )
            self._track_departure(outlier, reach, prior_mean)
            if status == Status.OK and self._departure > DEPARTURE_SD * math.sqrt(self._updated_var()):
                status = Status.DEPARTED
        self.nis = nis_track(self.nis, self.test_ratio)
        return Status.INCONSISTENT if status == Status.OK and self.nis > self.nis_limit else status

    def _quadrature_posterior(self, res, prior_atoms, evidence, m: int, edges=None) -> Status:
        """The update's density, and in mixture mode — or when it must refocus (smooth: fewer than REFOCUS_ESS·η
        effective points, or an open edge of the weighed points `edges`; else the first update's concentration; a
        kernel likelihood's fallback) — its posterior from that density's quadrature (ux/filter.c
        quadrature_posterior). Returns REFOCUSED for a first update so refocused, OK for a fallback so weighed,
        else BayesLaplace's status."""
        z, om = evidence_arrays(evidence)
        # a sampler likelihood's zeros are its bins', not the model's: its fallback stays
        fell_back = (
            res.status == Status.FALLBACK and self.mode != "paper" and isinstance(self.likelihood, KernelLikelihood)
        )
        lik = (
            dict(likelihood=self.likelihood, z=z, omega=om, m=int(m), log_evidence=res.log_evidence)
            if res.status == Status.OK or fell_back
            else {}
        )
        self.density = FilterDensity("bins", res.posterior) if z.size > self.eta else self._density(res.posterior, lik)
        first = self._fresh and not self._staged
        region, concentrated = self._first_region(prior_atoms[0]) if first and not fell_back else (None, False)
        if region is not None:
            self.density = replace(self.density, region=region)
        # a fallback (no point where the likelihood is) is weighed on the density's nodes instead, if they find it
        refocus = fell_back or (self._smooth_refocus(res, edges) if self.smooth else concentrated)
        if (self.mode == "mixture" or refocus) and self.density.form != "bins" and self.density.likelihood is not None:
            if self._mixture_posterior():
                return Status.REFOCUSED if refocus and first else (Status.OK if fell_back else res.status)
        if fell_back:  # the nodes found nothing either: the prior, as the update left it
            self.density = replace(self.density, likelihood=None, z=None, omega=None, m=1, log_evidence=0.0)
        return res.status

    def _smooth_refocus(self, res, edges) -> bool:
        """ux/filter.c smooth_refocus: too few effective points, or an open edge (`_edge_open`)."""
        if res.ess < REFOCUS_ESS * self.eta * (2 if self.eta >= REFOCUS_WIDE_ETA else 1):
            return True
        return (
            edges is not None
            and self.density.likelihood is not None
            and edges.has_inner
            and self._edge_open(edges, res.log_likelihood, res.log_evidence)
        )

    def _edge_open(self, edges: "PointEdges", ell: np.ndarray, log_evidence: float) -> bool:
        """The open-edge test (ux/filter_density.c filter_edge_open): on either side the posterior's density still
        rises at the outermost point (`_edge_rises`) or holds mass beyond it (`_mass_beyond`), either at least
        EDGE_SHARE of the posterior's variance; ℓ: BayesLaplace's own, per prior atom."""
        if not self._var > 0:
            return False
        mean, bar = self.posterior.mean(), EDGE_SHARE * self._var
        return any(
            self._edge_rises(edges, ell, log_evidence, side, mean, bar)
            or self._mass_beyond(edges, ell, log_evidence, side, mean, bar)
            for side in (0, 1)
        )

    def _edge_rises(self, edges, ell, log_evidence: float, side: int, mean: float, bar: float) -> bool:
        """ux/filter_density.c edge_rises: the outermost point's share of the posterior, w_e/Σw·e^(ℓ_e − log
        evidence), times its squared distance from the mean at least `bar`, and both the likelihood and the
        density's numerator there above their values at the next point inward."""
        e, i = edges.edge[side], edges.inner[side]
        le, li = float(ell[edges.at[2 * side]]), float(ell[edges.at[2 * side + 1]])
        dist = e - mean
        share = (edges.weight[side] / edges.total) * float(libm.exp(le - log_evidence))
        return share * (dist * dist) >= bar and le > li and self.density.numerator_rises(e, i, le, li)

    def _mass_beyond(self, edges, ell, log_evidence: float, side: int, mean: float, bar: float) -> bool:
        """ux/filter_density.c mass_beyond: at EDGE_PROBES points t_j = e ± j·s past the outermost point e (s the
        scale of the component whose centre is outermost on that side), e^(b(t_j) + ℓ_j − log evidence)·(t_j −
        mean)², summed in j order and times s, at least `bar`; only at η ≥ EDGE_PROBES_ETA, a mixture density,
        a likelihood larger at e than at the next point inward, and only where some ℓ_j exceeds ℓ_e."""
        density = self.density
        edge_ell = float(ell[edges.at[2 * side]])
        if self.eta < EDGE_PROBES_ETA or density.form != "mixture" or not edge_ell > float(ell[edges.at[2 * side + 1]]):
            return False
        c, _, sc = density.components
        step = float(sc[int(np.argmax(c) if side else np.argmin(c))])
        t = edges.edge[side] + np.arange(1, EDGE_PROBES + 1, dtype=np.float64) * (step if side else -step)
        at = density._node_ell(t)
        if not (at > edge_ell).any():
            return False
        with np.errstate(over="ignore", invalid="ignore"):
            n = libm.exp(density._plus_likelihood(density.log_base(t), t, at) - log_evidence)
            d = t - mean
        return step * _ttr.sequential_sum(n * (d * d)) >= bar

    def _updated_var(self) -> float:
        """The posterior's variance as `var` reports it after an update (ux/filter.c updated_var): smooth, the
        state beside its atoms; else its atoms'."""
        return self._var if self.smooth else self.posterior.var()

    def _track_departure(self, outlier: bool, reach: float, prior_mean: float):
        """docs/semantics.md, "Departure" (ux/filter.c track_departure): an outlier leaves the distance between
        how far a linear update would have moved the mean (`reach`) and how far this one did; every other update
        keeps the share of it the update left of the variance."""
        if outlier:
            d = reach - abs(self.posterior.mean() - prior_mean)
            self._departure = d if d > self._departure else self._departure
        else:
            keep = 1.0 - self._info
            keep = keep if keep > 0 else 0.0
            self._departure *= keep if keep < 1 else 1.0

    def _linear(self, prior_atoms, evidence, m: int, mean: float, var: float):
        """The linear update (docs/semantics.md, "Linear update"; ux/filter.c linear_applies) when it serves this
        update — one evidence point seen once, a Gaussian kernel without inner noise, of one scale and linear
        in the state over the prior atoms (what a line leaves of Var loc within LINEAR_RESIDUAL of the noise's
        variance and LINEAR_ROUNDING of Var loc), unimodal prior atoms (bimodality coefficient at most
        LINEAR_BIMODALITY) — else None."""
        lik = self.likelihood
        if (
            not self.smooth
            or not isinstance(lik, KernelLikelihood)
            or lik.family != "gaussian"
            or m != 1
            or not var > 0
        ):
            return None
        z, om = evidence_arrays(evidence)
        if z.size != 1 or om[0] != 1.0:
            return None
        lin = lik.linear_update(prior_atoms[0], prior_atoms[1], float(z[0]), mean, var)
        if lin is None or not (
            lin.same_scale
            and lin.residual <= LINEAR_RESIDUAL * lin.noise + LINEAR_ROUNDING * lin.loc_var
            and lin.bimodality <= LINEAR_BIMODALITY
            and lin.var > 0
            and math.isfinite(lin.shift)
            and math.isfinite(lin.log_evidence)
        ):
            return None
        return lin

    def _linear_posterior(self, prior_atoms, lin, mean: float, var: float) -> BayesResult:
        """The linear update's posterior (ux/filter.c linear_posterior): the prior atoms moved by its shift and
        scaled about their mean to its variance, reduced to η and normalised."""
        x, w = (np.asarray(a, dtype=np.float64) for a in prior_atoms)
        a = math.sqrt(lin.var / var)
        with np.errstate(all="ignore"):
            y = (mean + lin.shift) + a * (x - mean)
        if not np.isfinite(y).all():
            raise ValueError("the linear update moved an atom beyond the largest real")
        return BayesResult(reduce_prior(y, w, self.eta), Status.OK, np.zeros(0), lin.log_evidence, points_var=lin.var)

    def _without_evidence(self, prior_atoms):
        """The prior atoms reduced to η, as a fallback leaves them; the density without a likelihood factor."""
        self._spreads = None
        if self.smooth and self._staged:  # the prediction's points: their variance, and no information taken
            self._var, self._info = points_variance(*prior_atoms), 0.0
        self.posterior = reduce_prior(*prior_atoms, self.eta)
        self.log_evidence = 0.0  # nothing observed: p(∅) = 1
        self.density = self._density(self.posterior)
        self._fresh, self._staged, self._pending = False, False, None
        return Status.NO_EVIDENCE

    def _gate(self, prior_atoms, evidence) -> bool:
        """The innovation gate (docs/semantics.md, "Innovation gate"): sets test_ratio, ν²/S of the evidence
        under the prior atoms' predictive law of one observation (kernel form; NaN with the sampler form),
        and says whether it exceeds gate²."""
        self.test_ratio = math.nan
        if isinstance(self.likelihood, KernelLikelihood):
            z, _ = evidence_arrays(evidence)
            self.test_ratio = self.likelihood.innovation_ratio(prior_atoms[0], prior_atoms[1], z)
        return self.test_ratio > self.gate * self.gate

    def _first_region(self, x):
        """The first update's region (docs/semantics.md, "Filter", the first update's region): in refined
        and mixture modes, with the prior law's density and a likelihood factor, the bracket of the weighed
        prior atoms (increasing) where the likelihood lives, and whether they were concentrated (the
        posterior is then refocused). (None, False) otherwise."""
        d = self.density
        if self.mode == "paper" or d.form != "prior" or d.likelihood is None:
            return None, False
        x = np.asarray(x, dtype=np.float64)
        found = _bracket(x, d.log_numerator(x), *d.support())
        return (None, False) if found is None else (found.region, found.concentrated)

    def _mixture_posterior(self):
        """Mixture mode (docs/semantics.md, "Filter"): TTR of the piecewise-linear density through the
        quadrature's nodes (ux_ttr_linear) and its lumps — in mixture mode at η ≥ LUMP_ATOM_ETA each seated as an
        atom of its own (`seat_lump`), else in the TTR's cells — normalised, less the interpolation's variance, is
        the posterior, and log Z the step's evidence (True); without a quadrature (the numerator vanishes
        everywhere) the update's own stay (False)."""
        q = self.density.quadrature()
        if q is not None and self._widen_comb(q.h):  # the same nodes: log Z moves with the widening
            q = self.density.quadrature(q.region, q.lumps)
        if q is None:
            return False
        t, e, log_z, h, lumps, top, region = q
        if not max([abs(t[0]), abs(t[-1])] + [abs(lump.at) for lump in lumps]) < MOMENT_REACH:
            return False
        masses = [(lump.at, float(libm.exp(lump.log_mass - top)), lump.spread) for lump in lumps]
        if self.mode == "mixture" and self.eta >= LUMP_ATOM_ETA:  # each lump an atom of its own
            px, pw, pv = ttr_linear(e, t[0], h, self.n, spreads=True)
            for lump in masses:
                px, pw, pv = seat_lump(px, pw, pv, self.eta, lump)
        else:
            px, pw, pv = ttr_linear(e, t[0], h, self.n, spreads=True, lumps=masses)
        pw = normalise(pw)
        px, pw, pv = merge_equal(remove_interpolation_variance(px, pw, h), pw, pv)
        self._spreads = pv if self.mode == "mixture" else None
        self.posterior = Value(px, pw, self.eta)
        if self.smooth:  # the quadrature law's variance: its atoms' and its cells' spreads
            self._var = self.posterior.var() + _ttr.sequential_sum(pw * pv)
        region = self.density.region if lumps else region  # where the quadrature takes its lumps again
        self.density = replace(self.density, posterior=self.posterior, log_evidence=log_z, region=region, log_z=log_z)
        self.log_evidence = log_z
        return True

    def _widen_comb(self, h: float) -> bool:
        """Mixture mode: the predictive components widened (`widened_components`) where some are narrower than
        their comb width at the quadrature's node spacing h; True when they were, and the numerator must be taken
        again on the same nodes."""
        if self.mode != "mixture" or self.density.form != "mixture":
            return False
        wider = widened_components(self.density.components, h)
        if wider is None:
            return False
        self.density = replace(self.density, components=wider)
        return True

    def _density(self, posterior: Value, lik: dict | None = None) -> FilterDensity:
        """The density of the posterior an update (or a step without observation) just made: the
        predictive mixture after a predict, the prior law's at the first update, else the bins."""
        lik = lik or {}
        if self._staged and self._pending is not None:
            return FilterDensity("mixture", posterior, components=self._pending, **lik)
        if not self._staged and self._fresh and isinstance(self.prior_law, (Normal, Laplace)):
            return FilterDensity("prior", posterior, prior=self.prior_law, **lik)
        return FilterDensity("bins", posterior)

    def logpdf(self, t):
        """log density of the current posterior at t (docs/semantics.md, "Filter density")."""
        return self.density.logpdf(t)

    def pdf(self, t):
        return self.density.pdf(t)

    def first_prior_atoms(self):
        """The prior the first update weighs in refined and mixture modes (docs/semantics.md, "Filter"): the prior law at
        min(η², MAX_ETA) atoms, as later updates weigh the η² points of a prediction (a law without a
        location–scale form: the η-atom quantization)."""
        if self.prior_law.location_scale() is None:
            return self.posterior.x, self.posterior.w
        v = self.prior_law.quantize(min(self.eta * self.eta, MAX_ETA))
        return v.x, v.w

    def step(self, k: int, evidence, u: float = 0.0, predict: bool | None = None, m: int = 1) -> Status:
        """Predict (all steps but the first, unless told) and update; evidence None: no observation."""
        predict = k > 0 if predict is None else predict
        if predict:
            atoms = self.predict(k, u)
        elif self._fresh and self.mode != "paper" and evidence is not None:
            atoms = self.first_prior_atoms()
        else:
            atoms = (self.posterior.x, self.posterior.w)
        return self.update(atoms, evidence, m)

    def run(self, trace) -> FilterRun:
        """Every row of the trace (anything with arrays k, u, z, or a plain sequence of observations z read
        as k = 0, 1, …, u = 0); a NaN z is a missing observation (a predict-only step)."""
        trace = as_trace(trace)
        T = len(trace.z)
        means, vars_, status, posts, dens = np.empty(T), np.empty(T), np.empty(T, dtype=np.int8), [], []
        evidence, ratio, nis = np.empty(T), np.empty(T), np.empty(T)
        for i in range(T):
            status[i] = self.step(int(trace.k[i]), observation(trace.z[i]), float(trace.u[i]), predict=i > 0)
            means[i], vars_[i], evidence[i] = self.posterior.mean(), self.variance(), self.log_evidence
            ratio[i], nis[i] = self.test_ratio, self.nis
            posts.append(self.posterior)
            dens.append(self.density)
        return FilterRun(means, vars_, status, posts, evidence, dens, ratio, nis)


class PointEdges(NamedTuple):
    """The outermost prior points an update weighs (ux/filter_internal.h ux_point_edges): per side (0: lowest,
    1: highest) the outermost position, the next one inward (±∞ when none) and the prior weight there, summed
    in order; `total` all the prior weight, summed in order; `at` the indices of their first occurrences (edge 0,
    inner 0, edge 1, inner 1; 0 for an inner point that is not there)."""

    edge: tuple
    inner: tuple
    weight: tuple
    total: float
    at: tuple

    @property
    def has_inner(self) -> bool:
        return self.inner[0] < math.inf


def gaussian_reach(density: "FilterDensity", mean: float, var: float) -> float:
    """An outlier's reach under a Gaussian predictive (ux/filter_density.c filter_gaussian_reach): the density's
    quadrature with N(mean, var) for its base law (its own region), and |Σ g·t / Σ g − mean| over the trapezoid
    terms g of its last region's e, summed in node order, then its lumps' masses over h at their means; NaN when
    that quadrature has no finite log Z or var is not positive."""
    if not var > 0:
        return math.nan
    gaussian = replace(density, form="prior", prior=Normal(mean, math.sqrt(var)), components=None, region=None)
    q = gaussian.quadrature()
    if q is None:
        return math.nan
    lumps = [float(libm.exp(lump.log_mass - q.top)) / q.h for lump in q.lumps]  # in trapezoid terms' units
    g = np.concatenate([trapezoid_terms(q.e), lumps])
    t = np.concatenate([q.t, [lump.at for lump in q.lumps]])
    return abs(_ttr.sequential_sum(g * t) / _ttr.sequential_sum(g) - mean)


def trapezoid_terms(e: np.ndarray) -> np.ndarray:
    """The trapezoid rule's terms of node values e: e, halved at both ends (ux/filter_density.c trapezoid_term)."""
    terms = e.copy()
    terms[0], terms[-1] = 0.5 * e[0], 0.5 * e[-1]
    return terms


def outlier_reach(shift: float, tail: float) -> float:
    """ux/filter.c outlier_reach: the gate's linear shift, or the Gaussian predictive's reach where that is larger
    or the shift is NaN (NaN tail: not taken)."""
    return tail if tail == tail and not shift >= tail else shift


def point_edges(x, w) -> PointEdges:
    """ux/filter.c point_edges."""
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    xs = np.unique(x)
    lo2, hi2 = (float(xs[1]), float(xs[-2])) if xs.size > 1 else (math.inf, -math.inf)
    weight = (_ttr.sequential_sum(w[x == xs[0]]), _ttr.sequential_sum(w[x == xs[-1]]))
    at = tuple(int(np.flatnonzero(x == v)[0]) if np.isfinite(v) else 0 for v in (xs[0], lo2, xs[-1], hi2))
    return PointEdges((float(xs[0]), float(xs[-1])), (lo2, hi2), weight, _ttr.sequential_sum(w), at)


def numerator_from(base: float, ell: float) -> float:
    """base + ℓ, −∞ where that is NaN (ux/filter_density.c numerator_from)."""
    u = base + ell
    return -math.inf if math.isnan(u) else u


def merge_equal(x, w, v):
    """Consecutive equal positions (atoms shrunk within rounding of one another) as one atom: masses added left
    to right, spreads mass-weighted (ux/filter_density.c merge_equal)."""
    xs, ws, vs = [float(x[0])], [float(w[0])], [float(v[0])]
    for xi, wi, vi in zip(x[1:], w[1:], v[1:]):
        if xi == xs[-1]:
            total = ws[-1] + wi
            vs[-1] = (ws[-1] * vs[-1] + wi * vi) / total
            ws[-1] = total
        else:
            xs.append(float(xi))
            ws.append(float(wi))
            vs.append(float(vi))
    return np.array(xs), np.array(ws), np.array(vs)


class _Atoms(NamedTuple):
    """Positions and weights, as a Value's, without its checks (the kernel's shrunk atoms)."""

    x: np.ndarray
    w: np.ndarray


def bimodality(d, w, v) -> float:
    """Sarle's bimodality coefficient (γ² + 1)/κ of the mixture of N(x_i, v_i), d = x − mean, normalised
    weights w (ux/filter.c bimodality; sums in order): 1/3 for a Gaussian, above 5/9 for a bimodal law."""
    dd = d * d
    v2 = _ttr.sequential_sum(w * (dd + v))
    m3 = _ttr.sequential_sum(w * (dd * d + 3.0 * d * v))
    m4 = _ttr.sequential_sum(w * (dd * dd + 6.0 * dd * v + 3.0 * v * v))
    if not m4 > 0:
        return math.inf
    return (m3 * m3 / (v2 * v2 * v2) + 1.0) * (v2 * v2) / m4


def standard_noise(eta: int) -> Value:
    """The smooth filter's noise atoms ε_j: N(0, 1) quantized at η, centred and scaled to mean 0 and variance 1
    (sums in atom order; ux/filter.c standardise), so each predictive component keeps its variance."""
    v = Normal(0.0, 1.0).quantize(eta)
    return _standardised(v.x, v.w, eta)


def half_noise(noise: Value) -> Value:
    """A split cell's noise atoms (ux/filter.c half_noise): the η atoms' sibling pairs merged (their weights
    summed, their weighed mean), standardised as `standard_noise`."""
    x, w = noise.x, noise.w
    pair = w[0::2] + w[1::2]
    return _standardised((w[0::2] * x[0::2] + w[1::2] * x[1::2]) / pair, pair, noise.eta // 2)


def _standardised(x, w, eta: int) -> Value:
    d = x - _ttr.sequential_sum(w * x)
    var = _ttr.sequential_sum(w * (d * d))
    return Value(d / (math.sqrt(var) if var > 0 else 1.0), w, eta)


def sum_in_order(values) -> float:
    """Σ in step order, in doubles: how the C filter accumulates its log-likelihood."""
    total = 0.0
    for v in values:
        total += float(v)
    return total


def observation(z: float) -> float | None:
    """A trace's z as evidence: NaN marks a missing observation (None), anything else is observed."""
    z = float(z)
    return None if np.isnan(z) else z


class _Observations(NamedTuple):
    k: np.ndarray
    u: np.ndarray
    z: np.ndarray


def as_trace(trace):
    """A trace as given (anything with arrays k, u, z), or a plain 1-D sequence of observations read as
    k = 0, 1, … and u = 0 (NaN: missing)."""
    if all(hasattr(trace, name) for name in ("k", "u", "z")):
        return trace
    z = np.asarray(trace, dtype=np.float64)
    if z.ndim != 1:
        raise ValueError(f"observations must be a 1-D array (one scalar per step), got shape {z.shape}")
    return _Observations(np.arange(z.size), np.zeros(z.size), z)


def run_filter(
    model: StateSpaceModel,
    trace,
    eta: int = 16,
    mode: str = "refined",
    likelihood: str = "kernel",
    prior=None,
    gate: float = OUTLIER_GATE,
    gate_outliers: bool = False,
    nis_limit: float = NIS_LIMIT,
) -> FilterRun:
    """Filter a whole trace (anything with arrays k, u, z, or a plain array of observations z with
    k = 0, 1, … and u = 0) and return means, variances, statuses."""
    return BayesLaplaceFilter(model, eta, mode, likelihood, prior, gate, gate_outliers, nis_limit).run(trace)


def comb_widths(c: np.ndarray, h: float, mean_gap: float) -> np.ndarray:
    """The scale each predictive component must reach (ux/filter_density.c comb_width): COMB_SPAN·h, or COMB_GAP of
    the distance to the nearer neighbouring centre in component order, at most of `mean_gap` (0: COMB_SPAN·h
    alone), whichever is larger."""
    n = c.size
    gap = np.zeros(n)
    if n > 1:
        d = np.abs(c[1:] - c[:-1])
        gap[0], gap[-1] = d[0], d[-1]
        gap[1:-1] = np.minimum(d[:-1], d[1:])
    return np.maximum(COMB_SPAN * h, COMB_GAP * np.minimum(gap, mean_gap))


def comb_mean_gap(c, w, s, total: float, mean: float) -> float:
    """The centres' mean spacing (max − min)/(n − 1) that `comb_widths` caps the spacing term at (ux/filter_density.c
    comb_mean_gap); 0 for one component or a mixture whose bimodality coefficient exceeds COMB_BIMODALITY."""
    if c.size < 2 or bimodality(c - mean, w / total, s * s) > COMB_BIMODALITY:
        return 0.0
    return (float(c.max()) - float(c.min())) / float(c.size - 1)


def widened_components(components, h: float):
    """Mixture mode's predictive components against a comb (docs/semantics.md, "Filter", mixture mode's comb;
    ux/filter_density.c widen_comb): each scale raised to at least its `comb_widths` (the quadrature's node
    spacing h; half the spacing of the centres, for a mixture that is not bimodal), and the centres shrunk about
    their mean by the variance that adds, so that the mixture keeps its mean and variance (at most KERNEL_CAP of
    the centres' variance moves: the additions scale down to it). None where every component already spans
    that, or the centres have no variance to give or the narrow ones no weight. Sums in order."""
    c, w, s = components
    total = _ttr.sequential_sum(w)
    mean = _ttr.sequential_sum(w * c) / total
    wide = np.maximum(s, comb_widths(c, h, comb_mean_gap(c, w, s, total, mean)))
    d = c - mean
    grow = wide * wide - s * s
    between = _ttr.sequential_sum(w * (d * d)) / total
    added = _ttr.sequential_sum(w * grow) / total
    if not (between > 0 and added > 0):  # added is exactly 0 where no component of weight is narrower
        return None
    moved = min(added, KERNEL_CAP * between)
    shrink = math.sqrt(1.0 - moved / between)
    return mean + shrink * d, w, np.sqrt(s * s + grow * (moved / added))


class Lump(NamedTuple):
    """A clump of the numerator apart from the quadrature's region (ux/filter_density.c density_lump): its own
    quadrature's region, and the interpolant there as one mass: its mean, the log of its mass (the numerator's
    units) and its variance less the interpolation's h²/6."""

    region: tuple
    at: float
    log_mass: float
    spread: float


class Quadrature(NamedTuple):
    """The density's quadrature (`FilterDensity.quadrature`): its nodes t, their values e = exp(u − top), log Z,
    the node spacing h, the lumps beside the nodes, top = max u, and the nodes' region."""

    t: np.ndarray
    e: np.ndarray
    log_z: float
    h: float
    lumps: tuple
    top: float
    region: tuple


def narrowed(density, region: tuple | None = None, split: bool = True):
    """The region of the density's quadrature and its lumps (docs/semantics.md, "Filter density"; a mixture-mode or
    refocused update's region, "Filter"): from the density's support (or `region`), narrowed to the bracket of its
    own nodes while fewer than REGION_NODES of them reach the floor and the bracket differs from it, at most
    REFOCUS_ROUNDS times (ux/filter_density.c quadrature, narrow); with `split`, where the first round's nodes hide
    narrow peaks or split into light clumps, from the heaviest's region on, each other one a `Lump`
    (`first_split`). (region, lumps); None when the nodes of some round's region do not resolve the numerator
    (`FilterDensity.resolves`; the last region's is checked by `FilterDensity.quadrature`)."""
    lo, hi = density.support() if region is None else region
    lumps = ()
    for r in range(REFOCUS_ROUNDS):
        if not density.resolves(lo, hi):
            return None
        t, _, e, top = density.node_values(lo, hi)
        if not math.isfinite(top):
            break
        found = _bracket_relative(t, e, lo, hi)
        if split and r == 0:
            parts = first_split(density, t, e, lo, hi, found.kept)
            if parts is not None:
                (lo, hi), lumps = parts
                continue
        if found.kept >= REGION_NODES or found.region == (lo, hi):
            break
        lo, hi = found.region
    return (lo, hi), lumps


def first_split(density, t, e, lo: float, hi: float, kept: int):
    """How the first round's nodes t, e of [lo, hi] (`kept` of them at the floor) split (ux/filter_density.c
    first_split): where they hide narrow peaks (`hidden_peaks`, where `seeks_peaks`), the heaviest's region and the
    others' lumps (`peak_lumps`); else, with fewer than REGION_NODES at the floor, where they form light clumps
    (`light_clumps`), the heaviest's bracket and each other one's `Lump` (`lump_of`). Should no split be taken for
    want of a quadrature, ((lo, hi), ()): the next round weighs the support again. None where the nodes do not
    split."""
    peaks = hidden_peaks(t, e) if seeks_peaks(density.likelihood) else None
    if peaks is not None:
        return peak_lumps(density, peaks) or ((lo, hi), ())
    parts = light_clumps(t, e, lo, hi, density.posterior.eta) if kept < REGION_NODES else None
    if parts is None:
        return None
    taken = tuple(lump_of(density, part) for part in parts[1])
    return (parts[0], taken) if all(lump is not None for lump in taken) else ((lo, hi), ())


def light_clumps(t, e, lo: float, hi: float, eta: int):
    """Where the nodes t whose relative numerator e reaches REFOCUS_FLOOR form 2 … 1 + LUMPS runs apart, all but
    the heaviest (the largest Σ e, the first of equals) holding less than 1/η of all the nodes' Σ e (sums in node
    order; ux/filter_density.c light_clumps): the heaviest's bracket and the others', each from the node before
    its run to the node after it (lo, hi at the ends). None elsewhere."""
    kept = np.flatnonzero(e >= REFOCUS_FLOOR)
    runs = np.split(kept, np.flatnonzero(np.diff(kept) > 1) + 1)
    if not 2 <= len(runs) <= 1 + LUMPS:
        return None
    total = _ttr.sequential_sum(e)
    mass = [_ttr.sequential_sum(e[run[0] : run[-1] + 1]) for run in runs]
    heavy = int(np.argmax(mass))
    if any(m * float(eta) >= total for i, m in enumerate(mass) if i != heavy):
        return None
    spans = [(float(t[r[0] - 1]) if r[0] > 0 else lo, float(t[r[-1] + 1]) if r[-1] + 1 < t.size else hi) for r in runs]
    return spans[heavy], tuple(span for i, span in enumerate(spans) if i != heavy)


def seeks_peaks(likelihood) -> bool:
    """Whether the first round seeks peaks hidden between its nodes (ux/filter_density.c seeks_peaks): for a kernel
    likelihood whose family is positive everywhere. A sampler's binned density is a step function, and a uniform
    kernel's window has edges: their zeros and steps are no peaks."""
    return isinstance(likelihood, KernelLikelihood) and likelihood.family != "uniform"


def hidden_peaks(t, e):
    """Where the nodes' largest e (the first of equals) is a peak narrower than they resolve — its neighbours'
    product below NARROW_PEAK, so log e falls by 16 across them, a Gaussian's sd below a quarter of the node
    spacing — other peaks as narrow may lie between nodes, far below the floor at the nodes nearest them: the
    brackets (the node before to the node after) of the 1 + LUMPS largest interior local maxima of e (e_k > 0,
    e_k ≥ e_(k−1), e_k > e_(k+1); the first of equals), in node order, when there are at least two
    (ux/filter_density.c hidden_peaks). None elsewhere."""
    top = int(np.argmax(e))
    if top == 0 or top + 1 == e.size or not e[top - 1] * e[top + 1] < NARROW_PEAK:
        return None
    inner = np.arange(1, e.size - 1)
    peak = inner[(e[inner] > 0) & (e[inner] >= e[inner - 1]) & (e[inner] > e[inner + 1])]
    if peak.size < 2:
        return None
    peak = np.sort(peak[np.argsort(-e[peak], kind="stable")][: 1 + LUMPS])
    return tuple((float(t[k - 1]), float(t[k + 1])) for k in peak)


def peak_lumps(density, spans):
    """The hidden peaks' brackets each narrowed and weighed as a lump (`lump_of`): the heaviest's region (the
    largest log mass, the first of equals) and the others' lumps whose mass is at least REFOCUS_FLOOR of the
    heaviest's, in node order; None should fewer than two have a quadrature (ux/filter_density.c peak_lumps)."""
    taken = [lump for lump in (lump_of(density, span) for span in spans) if lump is not None]
    if len(taken) < 2:
        return None
    heavy = int(np.argmax([lump.log_mass for lump in taken]))
    top = taken[heavy].log_mass
    kept = (lump for i, lump in enumerate(taken) if i != heavy)
    return taken[heavy].region, tuple(lump for lump in kept if libm.exp(lump.log_mass - top) >= REFOCUS_FLOOR)


def lump_of(density, region: tuple):
    """A clump's `Lump`: its region narrowed as the quadrature's (without lumps of its own), weighed (`lump_on`);
    None where it has no quadrature."""
    found = narrowed(density, region, split=False)
    return None if found is None else lump_on(density, found[0])


def lump_on(density, region: tuple):
    """The `Lump` of the nodes of `region` (ux/filter_density.c lump_on): TTR(0) of their interpolant — its mean,
    mass and variance, less h²/6 (to 0) — with log mass = max u + log mass; None where the nodes do not resolve
    the numerator or it vanishes or overflows at every node."""
    if not density.resolves(*region):
        return None
    t, h, e, top = density.node_values(*region)
    if not math.isfinite(top):
        return None
    x, w, v = ttr_linear(e, t[0], h, 0, spreads=True)
    spread = float(v[0]) - h * h / 6.0
    return Lump(region, float(x[0]), top + float(libm.log(float(w[0]))), spread if spread > 0 else 0.0)


def seat_lump(x, w, v, room: int, lump: tuple):
    """A lump (at, mass, spread) as an atom of its own among atoms x, w, spreads v in increasing position, after
    every atom at or below its mean; with `room` atoms already, the lightest adjacent pair (the smallest
    w_i + w_{i+1}, the first of equals) first becomes one atom with their mass, mean and variance
    (ux/filter_density.c seat_lump, merge_lightest_pair)."""
    x, w, v = (np.array(a, dtype=np.float64) for a in (x, w, v))
    if x.size == room and x.size >= 2:
        i = int(np.argmin(w[:-1] + w[1:]))
        total = w[i] + w[i + 1]
        mean = (w[i] * x[i] + w[i + 1] * x[i + 1]) / total
        d0, d1 = x[i] - mean, x[i + 1] - mean
        v[i] = (w[i] * (v[i] + d0 * d0) + w[i + 1] * (v[i + 1] + d1 * d1)) / total
        x[i], w[i] = mean, total
        x, w, v = np.delete(x, i + 1), np.delete(w, i + 1), np.delete(v, i + 1)
    if x.size == room:
        return x, w, v
    at, p, spread = lump
    i = int(np.searchsorted(x, at, side="right"))
    return np.insert(x, i, at), np.insert(w, i, p), np.insert(v, i, spread)


class Bracket(NamedTuple):
    region: tuple[float, float]
    concentrated: bool  # the largest e (1) holds at least half of Σ e
    kept: int  # points whose e reaches the floor


def _bracket(x, u, lo: float, hi: float) -> Bracket | None:
    """The bracket of increasing points x with log numerator u: lo' the point before the first whose
    e = exp(u − max u) is at least REFOCUS_FLOOR (lo when there is none), hi' the point after the last
    (hi); concentrated when the largest e (1) holds at least half of Σ e (sequential). None when the
    numerator vanishes or is not finite at every point."""
    top = float(u.max())
    if not math.isfinite(top):
        return None
    return _bracket_relative(x, libm.exp(u - top), lo, hi)


def _bracket_relative(x, e, lo: float, hi: float) -> Bracket:
    """`_bracket` from the relative numerator e (its largest 1)."""
    kept = np.flatnonzero(e >= REFOCUS_FLOOR)
    a, b = int(kept[0]), int(kept[-1])
    region = (float(x[a - 1]) if a > 0 else lo, float(x[b + 1]) if b + 1 < x.size else hi)
    return Bracket(region, bool(_ttr.sequential_sum(e) <= 2.0), int(kept.size))
