"""State-space models written as plain Python functions (no library internals needed).

A model is: a transition `f(x, w, k, u)`, its process-noise law, a prior law, and an observation
model given as a sampler `h(x, *noise)` with its noise laws — the same code generates traces and,
lifted per hypothesis, gives the likelihood. A model may also declare a kernel form (an outer noise
family with location and scale as functions of x and inner noises): exact marginalisation, the
default likelihood path when present. All functions must work elementwise on numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import libm

from .bayes import FAMILIES, KernelLikelihood, SamplerLikelihood, log_family, logsumexp_rows
from .laws import Law


@dataclass(frozen=True)
class Kernel:
    family: str  # 'gaussian', 'laplace' or 'uniform': the outer noise, standardised
    loc_scale: Callable  # (x, *inner) -> (loc, scale), elementwise
    inner: tuple[Law, ...] = ()

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"unknown kernel family {self.family!r}; use one of {FAMILIES}")


@dataclass(frozen=True)
class Sampler:
    h: Callable  # (x, *noise) -> y, elementwise
    noises: tuple[Law, ...]


@dataclass(frozen=True)
class StateSpaceModel:
    name: str
    transition: Callable  # (x, w, k, u) -> next x, elementwise
    process_noise: Law
    prior: Law
    sampler: Sampler
    kernel: Kernel | None = None
    # True when the process noise enters additively, f(x, w, k, u) = f(x, 0, k, u) + w for every x and w
    # (the C model's `additive_noise`; tests check it on random points). With additive Gaussian process
    # noise the filter's posterior density is the predictive mixture (docs/semantics.md, "Filter density").
    additive_noise: bool = False
    system_id: int = 0  # the id the C core and the link know it by (0: Python-only model)
    params: tuple = field(default=())

    def likelihood(self, eta: int, path: str = "kernel"):
        """The BayesLaplace likelihood object for this model at size eta."""
        if path == "kernel":
            if self.kernel is None:
                raise ValueError(f"model {self.name!r} declares no kernel form; use path='sampler'")
            inner = tuple(law.quantize(eta) for law in self.kernel.inner)
            return KernelLikelihood(self.kernel.family, self.kernel.loc_scale, inner)
        if path == "sampler":
            noises = tuple(law.quantize(eta) for law in self.sampler.noises)
            return SamplerLikelihood(self.sampler.h, noises, eta)
        raise ValueError(f"unknown likelihood path {path!r}; use 'kernel' or 'sampler'")

    def log_likelihood(self, z: float, x: np.ndarray, quadrature: int = 64) -> np.ndarray:
        """Near-exact log p(z | x) for the baselines (particle filters, grid filter).

        Needs the kernel form; inner noises are integrated with high-order quadrature (Gauss–Hermite for
        Gaussian inner noises), which is exact to far below the Monte Carlo error of any baseline.
        """
        if self.kernel is None:
            raise ValueError(f"model {self.name!r} declares no kernel form: no closed-form likelihood")
        x = np.asarray(x, dtype=np.float64)
        flat = x.ravel()
        if not self.kernel.inner:
            loc, scale = self.kernel.loc_scale(flat)
            with np.errstate(all="ignore"):
                out = log_family(self.kernel.family, (z - loc) / scale) - libm.log(scale)
            return np.broadcast_to(out, flat.shape).reshape(x.shape)
        nodes = [law.quadrature(quadrature) for law in self.kernel.inner]
        grids = np.meshgrid(*[n[0] for n in nodes], indexing="ij")
        wts = nodes[0][1]
        for n in nodes[1:]:
            wts = np.multiply.outer(wts, n[1])
        wts = np.asarray(wts).ravel()
        pts = [g.ravel()[None, :] for g in grids]
        with np.errstate(all="ignore"):
            loc, scale = self.kernel.loc_scale(flat[:, None], *pts)
            a = libm.log(wts)[None, :] + log_family(self.kernel.family, (z - loc) / scale) - libm.log(scale)
        return logsumexp_rows(np.broadcast_to(a, (flat.size, wts.size))).reshape(x.shape)

    def sample_transition(self, x: np.ndarray, k: int, u: float, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return self.transition(x, self.process_noise.sample(rng, x.shape), k, u)

    def sample_observation(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return self.sampler.h(x, *[law.sample(rng, x.shape) for law in self.sampler.noises])
