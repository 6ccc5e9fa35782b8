"""The paper's three benchmark systems, with the parameters of its benchmark sections.

Parameter vectors and ids are shared with the C core and the link (docs/semantics.md).
"""
from __future__ import annotations

import numpy as np

from .laws import Laplace, Normal
from .model import Kernel, Sampler, StateSpaceModel

SV, GSS, CUBIC = 1, 2, 3


def stochastic_volatility(phi=0.98, c=0.0, sigma_eta=0.2, sigma_eps=1.0, prior=(0.0, 2.25)) -> StateSpaceModel:
    """x' = φx + c(1 − φ) + w, w ~ N(0, σ_η²);  y = ε·exp(x/2), ε ~ N(0, σ_ε²)."""
    drift = c * (1.0 - phi)
    return StateSpaceModel(
        name="sv",
        transition=lambda x, w, k, u: phi * x + drift + w,
        process_noise=Normal(0.0, sigma_eta),
        prior=Normal(*prior),
        sampler=Sampler(lambda x, e: e * np.exp(x / 2.0), (Normal(0.0, sigma_eps),)),
        kernel=Kernel("gaussian", lambda x: (0.0 * x, sigma_eps * np.exp(x / 2.0))),
        system_id=SV,
        params=(phi, c, sigma_eta, sigma_eps),
    )


def gordon_salmond_smith(sigma_v=3.0, sigma_n=1.0, prior=(0.0, 5.0)) -> StateSpaceModel:
    """x' = x/2 + 25x/(1 + x²) + 8cos(1.2k) + w;  z = x²/20 + v."""
    return StateSpaceModel(
        name="gss",
        transition=lambda x, w, k, u: x / 2.0 + 25.0 * x / (1.0 + x * x) + 8.0 * np.cos(1.2 * k) + w,
        process_noise=Normal(0.0, sigma_v),
        prior=Normal(*prior),
        sampler=Sampler(lambda x, v: x * x / 20.0 + v, (Normal(0.0, sigma_n),)),
        kernel=Kernel("gaussian", lambda x: (x * x / 20.0, sigma_n + 0.0 * x)),
        system_id=GSS,
        params=(sigma_v, sigma_n),
    )


def cubic_beer_lambert(alpha=0.1, beta=0.05, c=0.95, sigma_v=0.05, sigma_m=0.05, sigma_base=0.01,
                       prior=(0.0, 0.1)) -> StateSpaceModel:
    """d = c − x; x' = x + αd − αβd³ + w;  y = g + √(σ_b² + max(g, 0))·l, g = e^{−x}(1 + m), l ~ Laplace(0, 1)."""
    sb2 = sigma_base * sigma_base

    def transition(x, w, k, u):
        d = c - x
        return x + alpha * d - alpha * beta * d * d * d + w

    def loc_scale(x, m):
        g = np.exp(-x) * (1.0 + m)
        return g, np.sqrt(sb2 + np.maximum(g, 0.0))

    def h(x, m, l):
        g, s = loc_scale(x, m)
        return g + s * l

    return StateSpaceModel(
        name="cubic",
        transition=transition,
        process_noise=Normal(0.0, sigma_v),
        prior=Normal(*prior),
        sampler=Sampler(h, (Normal(0.0, sigma_m), Laplace(0.0, 1.0))),
        kernel=Kernel("laplace", loc_scale, (Normal(0.0, sigma_m),)),
        system_id=CUBIC,
        params=(alpha, beta, c, sigma_v, sigma_m, sigma_base),
    )


SYSTEMS = {"sv": stochastic_volatility, "gss": gordon_salmond_smith, "cubic": cubic_beer_lambert}
BY_ID = {SV: stochastic_volatility, GSS: gordon_salmond_smith, CUBIC: cubic_beer_lambert}


def get(name_or_id, **params) -> StateSpaceModel:
    """A system by name ('sv', 'gss', 'cubic') or id (1, 2, 3), with optional parameter overrides."""
    table = BY_ID if isinstance(name_or_id, int) else SYSTEMS
    try:
        factory = table[name_or_id]
    except KeyError:
        raise ValueError(f"unknown system {name_or_id!r}; known: {sorted(SYSTEMS)} / ids {sorted(BY_ID)}") from None
    return factory(**params)


def from_param_vector(system_id: int, params) -> StateSpaceModel:
    """The model for a parameter vector in the order of docs/semantics.md (as sent over the link)."""
    names = {SV: ("phi", "c", "sigma_eta", "sigma_eps"), GSS: ("sigma_v", "sigma_n"),
             CUBIC: ("alpha", "beta", "c", "sigma_v", "sigma_m", "sigma_base")}[system_id]
    if len(params) != len(names):
        raise ValueError(f"system {system_id} takes {len(names)} parameters {names}, got {len(params)}")
    return get(system_id, **dict(zip(names, map(float, params))))
