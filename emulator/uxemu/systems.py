"""The systems of the one system table (firmware/src/models/systems.toml) and their Python twins.

A system's identity — id, name, parameter names, defaults, domains, default prior — is the table's
(`system_table.TABLE`, generated). This module adds the reference's twin of each C model: the same
expressions in the same operation order, as elementwise numpy functions. A system that exists only in C
has a spec here but no twin; it is validated against the host build of its C code instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import libm

from .laws import Laplace, Normal
from .model import Kernel, Sampler, StateSpaceModel
from .system_table import TABLE

PRIOR_LAWS = {"gaussian": Normal, "laplace": Laplace}


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    domain: str  # 'real', 'positive' or 'nonnegative'

    def admits(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        return {"real": True, "positive": value > 0, "nonnegative": value >= 0}[self.domain]


@dataclass(frozen=True)
class SystemSpec:
    """A system's identity, as the table gives it."""

    id: int
    name: str
    title: str
    params: tuple[Param, ...]
    prior: tuple[str, float, float]  # (law, loc, scale)

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    @property
    def defaults(self) -> tuple[float, ...]:
        return tuple(p.default for p in self.params)

    def param_vector(self, **overrides) -> tuple[float, ...]:
        """The full parameter vector: defaults with `overrides` by name, each checked against its domain."""
        unknown = set(overrides) - set(self.param_names)
        if unknown:
            raise ValueError(f"system {self.name!r} has no parameter {sorted(unknown)}; it has {self.param_names}")
        vector = tuple(float(overrides.get(p.name, p.default)) for p in self.params)
        for p, value in zip(self.params, vector):
            if not p.admits(value):
                raise ValueError(f"system {self.name!r}: parameter {p.name} = {value} is not {p.domain}")
        return vector


SPECS: dict[str, SystemSpec] = {
    row["name"]: SystemSpec(
        row["id"], row["name"], row["title"], tuple(Param(*p) for p in row["params"]), tuple(row["prior"])
    )
    for row in TABLE
}
BY_ID: dict[int, SystemSpec] = {spec.id: spec for spec in SPECS.values()}


def spec(name_or_id) -> SystemSpec:
    """A system's spec by name ('gss') or id (2)."""
    found = BY_ID.get(name_or_id) if isinstance(name_or_id, int) else SPECS.get(name_or_id)
    if found is None:
        raise ValueError(
            f"unknown system {name_or_id!r}; known: {', '.join(f'{s.name} ({s.id})' for s in SPECS.values())}"
        )
    return found


# ------------------------------------------------------------------------------------------------
# Python twins of the C models (firmware/src/models/<name>.c). Each takes the parameters by the table's
# names, in the table's order; the identity (name, id, defaults, prior) is filled in by `get`.


def _sv(phi, c, sigma_eta, sigma_eps):
    """x' = φx + c(1 − φ) + w, w ~ N(0, σ_η²);  y = ε·exp(x/2), ε ~ N(0, σ_ε²)."""
    drift = c * (1.0 - phi)
    return dict(
        transition=lambda x, w, k, u: phi * x + drift + w,
        process_noise=Normal(0.0, sigma_eta),
        sampler=Sampler(lambda x, e: e * libm.exp(x / 2.0), (Normal(0.0, sigma_eps),)),
        kernel=Kernel("gaussian", lambda x: (0.0 * x, sigma_eps * libm.exp(x / 2.0))),
        additive_noise=True,
    )


def _gss(sigma_v, sigma_n):
    """x' = x/2 + 25x/(1 + x²) + 8cos(1.2k) + w;  z = x²/20 + v."""
    return dict(
        transition=lambda x, w, k, u: x / 2.0 + 25.0 * x / (1.0 + x * x) + 8.0 * libm.cos(1.2 * k) + w,
        process_noise=Normal(0.0, sigma_v),
        sampler=Sampler(lambda x, v: x * x / 20.0 + v, (Normal(0.0, sigma_n),)),
        kernel=Kernel("gaussian", lambda x: (x * x / 20.0, sigma_n + 0.0 * x)),
        additive_noise=True,
    )


def _cubic(alpha, beta, c, sigma_v, sigma_m, sigma_base):
    """d = c − x; x' = x + αd − αβd³ + w;  y = g + √(σ_b² + max(g, 0))·l, g = e^{−x}(1 + m), l ~ Laplace(0, 1)."""
    sb2 = sigma_base * sigma_base

    def transition(x, w, k, u):
        d = c - x
        return x + alpha * d - alpha * beta * d * d * d + w

    def loc_scale(x, m):
        g = libm.exp(-x) * (1.0 + m)
        return g, np.sqrt(sb2 + np.maximum(g, 0.0))

    def h(x, m, l):
        g, s = loc_scale(x, m)
        return g + s * l

    return dict(
        transition=transition,
        process_noise=Normal(0.0, sigma_v),
        sampler=Sampler(h, (Normal(0.0, sigma_m), Laplace(0.0, 1.0))),
        kernel=Kernel("laplace", loc_scale, (Normal(0.0, sigma_m),)),
        additive_noise=True,
    )


def _lg(a, q, r):
    """x' = a·x + w, w ~ N(0, q²);  z = x + v, v ~ N(0, r²) (the Kalman filter is its exact posterior)."""
    return dict(
        transition=lambda x, w, k, u: a * x + w,
        process_noise=Normal(0.0, q),
        sampler=Sampler(lambda x, v: x + v, (Normal(0.0, r),)),
        kernel=Kernel("gaussian", lambda x: (x, r + 0.0 * x)),
        additive_noise=True,
    )


TWINS = {"sv": _sv, "gss": _gss, "cubic": _cubic, "lg": _lg}


def names() -> list[str]:
    """Every system of the table, in table order."""
    return list(SPECS)


def with_twin() -> list[str]:
    """The systems the reference can run (those with a Python twin), in table order."""
    return [name for name in SPECS if name in TWINS]


def get(name_or_id, prior: tuple[float, float] | None = None, **params) -> StateSpaceModel:
    """The reference model of a system by name ('gss') or id (2): table defaults, `params` overrides by
    name, and `prior` = (loc, scale) of the table's prior law instead of its default."""
    s = spec(name_or_id)
    twin = TWINS.get(s.name)
    if twin is None:
        raise ValueError(
            f"system {s.name!r} exists only in C: it has no Python twin in uxemu.systems "
            "(validate it against the host build of its C code)"
        )
    vector = s.param_vector(**params)
    law, loc, scale = s.prior
    if prior is not None:
        loc, scale = (float(v) for v in prior)
    return StateSpaceModel(
        name=s.name, prior=PRIOR_LAWS[law](loc, scale), system_id=s.id, params=vector, **twin(*vector)
    )


def from_param_vector(system_id: int, params) -> StateSpaceModel:
    """The model for a parameter vector in the table's order (as sent over the link)."""
    s = spec(int(system_id))
    if len(params) != len(s.params):
        raise ValueError(f"system {s.name} takes {len(s.params)} parameters {s.param_names}, got {len(params)}")
    return get(s.id, **dict(zip(s.param_names, map(float, params))))
