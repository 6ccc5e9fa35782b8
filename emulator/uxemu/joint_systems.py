"""The joint systems of the system table ([joint.NAME] in firmware/src/models/systems.toml) and their Python
twins: the C models' expressions (firmware/src/models/<name>.c) in the same operation order, as row-wise
numpy functions. sin is the core's own (uxemu.libm), as the C model's is, so the twin and every build of
the C model agree bit for bit.

    >>> from uxemu import joint_systems
    >>> m = joint_systems.get("pendulum", q=0.2)
    >>> m.dim, m.dim_obs, m.params
    (2, 1, (0.05, 9.81, 0.2, 0.3))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import libm

from .bayes import FAMILIES, log_family
from .laws import Law, Normal
from .system_table import JOINT_TABLE
from .systems import PRIOR_LAWS, Param, SystemSpec


def libm_sin(x: np.ndarray) -> np.ndarray:
    """sin of each element as the C model computes it (the core's own, uxemu.libm)."""
    return libm.sin(np.asarray(x, dtype=np.float64))


@dataclass(frozen=True)
class JointSpec(SystemSpec):
    """A joint system's identity, as the table gives it: prior holds one (law, loc, scale) per component."""

    dim: int = 2


SPECS: dict[str, JointSpec] = {
    row["name"]: JointSpec(
        row["id"], row["name"], row["title"], tuple(Param(*p) for p in row["params"]), tuple(row["prior"]), row["dim"]
    )
    for row in JOINT_TABLE
}


@dataclass(frozen=True)
class JointModel:
    """A state-space model with a vector state. `transition(x, w, k, u)` maps rows of states (P, dim) and
    process-noise points (P, dim_noise) to (P, dim), each row from its own row; `loc_scale(x)` gives the
    kernel's (P, dim_obs) locations and scales; the observation components are independent given x."""

    name: str
    system_id: int
    params: tuple
    dim: int
    transition: Callable
    process_noise: tuple[Law, ...]
    prior: tuple[Law, ...]
    family: str
    loc_scale: Callable
    dim_obs: int = 1
    additive_noise: bool = False

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"unknown kernel family {self.family!r}; use one of {FAMILIES}")

    @property
    def dim_noise(self) -> int:
        return len(self.process_noise)

    def log_likelihood(self, z, x) -> np.ndarray:
        """log p(z | x) for rows x (P, dim) and one observation z (dim_obs): Σ_c g((z_c − loc_c)/scale_c) −
        log scale_c, summed over the components in order (the C core's sum)."""
        loc, scale = self.loc_scale(np.atleast_2d(np.asarray(x, dtype=np.float64)))
        z = np.atleast_1d(np.asarray(z, dtype=np.float64))
        out = np.zeros(loc.shape[0])
        with np.errstate(all="ignore"):
            for c in range(self.dim_obs):
                out = out + (log_family(self.family, (z[c] - loc[:, c]) / scale[:, c]) - libm.log(scale[:, c]))
        return np.where(np.isnan(out), -np.inf, out)

    def process_matrix(self, k: int = 0, u: float = 0.0) -> np.ndarray:
        """A with f(x, w) = f(x, 0) + A·w (additive noise only): the columns f(0, e_j) − f(0, 0)."""
        if not self.additive_noise:
            raise ValueError(f"model {self.name!r} does not declare additive noise")
        x0 = np.zeros((self.dim_noise + 1, self.dim))
        w = np.vstack([np.zeros(self.dim_noise), np.eye(self.dim_noise)])
        y = self.transition(x0, w, k, u)
        return (y[1:] - y[0]).T

    def process_cov(self, k: int = 0, u: float = 0.0) -> np.ndarray:
        """Cov of A·w for independent noise components: A diag(var_j) Aᵀ."""
        A = self.process_matrix(k, u)
        v = np.array([law.var() for law in self.process_noise])
        return (A * v) @ A.T

    def sample_prior(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.stack([law.sample(rng, size) for law in self.prior], axis=1)

    def sample_transition(self, x, k: int, u: float, rng: np.random.Generator) -> np.ndarray:
        x = np.atleast_2d(np.asarray(x, dtype=np.float64))
        w = np.stack([law.sample(rng, x.shape[0]) for law in self.process_noise], axis=1)
        return self.transition(x, w, k, u)

    def sample_observation(self, x, rng: np.random.Generator) -> np.ndarray:
        """One observation per row: loc + scale·e, e from the standard outer family."""
        loc, scale = self.loc_scale(np.atleast_2d(np.asarray(x, dtype=np.float64)))
        if self.family == "gaussian":
            e = rng.standard_normal(loc.shape)
        elif self.family == "laplace":
            e = rng.laplace(0.0, 1.0, loc.shape)
        else:
            e = rng.uniform(-0.5, 0.5, loc.shape)
        return loc + scale * e


def _wna_cholesky(dt: float, q: float) -> tuple[float, float, float]:
    """L of Q = q·[[dt³/3, dt²/2], [dt²/2, dt]] (firmware/src/models/wna.h), same operation order."""
    l00 = math.sqrt(q * dt * dt * dt / 3.0)
    l10 = q * dt * dt / 2.0 / l00
    return l00, l10, math.sqrt(q * dt - l10 * l10)


_WNA_NOISE = (Normal(0.0, 1.0), Normal(0.0, 1.0))


def _pendulum(dt, g, q, r):
    """θ' = θ + ω·dt + L00·w0, ω' = ω − g·sin(θ)·dt + (L10·w0 + L11·w1);  z = sin(θ) + N(0, r²)."""
    l00, l10, l11 = _wna_cholesky(dt, q)

    def transition(x, w, k, u):
        return np.stack(
            [
                x[:, 0] + x[:, 1] * dt + l00 * w[:, 0],
                x[:, 1] - g * libm_sin(x[:, 0]) * dt + (l10 * w[:, 0] + l11 * w[:, 1]),
            ],
            axis=1,
        )

    def loc_scale(x):
        return libm_sin(x[:, 0])[:, None], np.full((x.shape[0], 1), float(r))

    return dict(
        transition=transition, process_noise=_WNA_NOISE, family="gaussian", loc_scale=loc_scale, additive_noise=True
    )


def _cvrange(dt, q, h, r):
    """p' = p + v·dt + L00·w0, v' = v + (L10·w0 + L11·w1);  z = sqrt(p² + h²) + N(0, r²)."""
    l00, l10, l11 = _wna_cholesky(dt, q)

    def transition(x, w, k, u):
        return np.stack([x[:, 0] + x[:, 1] * dt + l00 * w[:, 0], x[:, 1] + (l10 * w[:, 0] + l11 * w[:, 1])], axis=1)

    def loc_scale(x):
        return np.sqrt(x[:, 0] * x[:, 0] + h * h)[:, None], np.full((x.shape[0], 1), float(r))

    return dict(
        transition=transition, process_noise=_WNA_NOISE, family="gaussian", loc_scale=loc_scale, additive_noise=True
    )


def _bearings(dt, q, speed, leg, r):
    """(x, y) relative to a zig-zag observer, (vx, vy) the target's: x' = x + vx·dt, y' = y + (vy − vo(k))·dt,
    v' = v + s·w, s = sqrt(q·dt), vo(k) = ±speed as floor(k/leg) is even or odd;  z = y/x + N(0, r²)."""
    s = math.sqrt(q * dt)

    def transition(x, w, k, u):
        q = float(k) / leg  # the leg's parity as the C model takes it: floor(q) mod 2, even when q is not finite
        vo = -speed if math.isfinite(q) and math.fmod(float(math.floor(q)), 2.0) != 0.0 else speed
        return np.stack(
            [x[:, 0] + x[:, 2] * dt, x[:, 1] + (x[:, 3] - vo) * dt, x[:, 2] + s * w[:, 0], x[:, 3] + s * w[:, 1]],
            axis=1,
        )

    def loc_scale(x):
        return (x[:, 1] / x[:, 0])[:, None], np.full((x.shape[0], 1), float(r))

    return dict(
        transition=transition,
        process_noise=_WNA_NOISE,  # the same two standard normals, taken as a velocity random walk
        family="gaussian",
        loc_scale=loc_scale,
        additive_noise=True,
    )


def _reentry(dt, hs, m, a, q, qb, r):
    """h' = h − v·dt + s_h·w0, v' = v·exp(−dt·v·exp(b − h/hs)) + s_v·w1, b' = b + s_b·w2;
    z = sqrt(m² + (h − a)²) + N(0, r²); s_h = sqrt(q·dt³/3), s_v = sqrt(q·dt), s_b = sqrt(qb·dt)."""
    s_h, s_v, s_b = math.sqrt(q * dt * dt * dt / 3.0), math.sqrt(q * dt), math.sqrt(qb * dt)

    def transition(x, w, k, u):
        drag = libm.exp(x[:, 2] - x[:, 0] / hs)
        return np.stack(
            [
                (x[:, 0] - x[:, 1] * dt) + s_h * w[:, 0],
                x[:, 1] * libm.exp(-(dt * x[:, 1] * drag)) + s_v * w[:, 1],
                x[:, 2] + s_b * w[:, 2],
            ],
            axis=1,
        )

    def loc_scale(x):
        d = x[:, 0] - a
        return np.sqrt(m * m + d * d)[:, None], np.full((x.shape[0], 1), float(r))

    return dict(
        transition=transition,
        process_noise=(Normal(0.0, 1.0),) * 3,
        family="gaussian",
        loc_scale=loc_scale,
        additive_noise=True,
    )


TWINS = {"pendulum": _pendulum, "cvrange": _cvrange, "bearings": _bearings, "reentry": _reentry}


def names() -> list[str]:
    return list(SPECS)


def find(name_or_id) -> JointSpec | None:
    """A joint system's spec by name or id, or None where the table has no such joint system."""
    return (
        next((s for s in SPECS.values() if s.id == name_or_id), None)
        if isinstance(name_or_id, int)
        else SPECS.get(name_or_id)
    )


def spec(name_or_id) -> JointSpec:
    found = find(name_or_id)
    if found is None:
        raise ValueError(
            f"unknown joint system {name_or_id!r}; known: " f"{', '.join(f'{s.name} ({s.id})' for s in SPECS.values())}"
        )
    return found


def get(name_or_id, prior=None, **params) -> JointModel:
    """The reference model of a joint system: table defaults, `params` overrides by name; `prior` a sequence
    of (loc, scale) per component replacing the table's (same laws)."""
    s = spec(name_or_id)
    vector = s.param_vector(**params)
    pairs = [(loc, scale) for _, loc, scale in s.prior] if prior is None else [tuple(map(float, p)) for p in prior]
    if len(pairs) != s.dim:
        raise ValueError(f"system {s.name} has {s.dim} components; the prior gives {len(pairs)}")
    laws = tuple(PRIOR_LAWS[law](loc, scale) for (law, _, _), (loc, scale) in zip(s.prior, pairs))
    return JointModel(name=s.name, system_id=s.id, params=vector, dim=s.dim, prior=laws, **TWINS[s.name](*vector))


def simulate(model: JointModel, steps: int, seed: int):
    """A seeded trace: states x (steps, dim) and observations z (steps, dim_obs); k = 0 … steps−1, u = 0."""
    rng = np.random.default_rng(seed)
    x = np.empty((steps, model.dim))
    z = np.empty((steps, model.dim_obs))
    x[0] = model.sample_prior(rng, 1)[0]
    for k in range(steps):
        if k > 0:
            x[k] = model.sample_transition(x[k - 1], k, 0.0, rng)[0]
        z[k] = model.sample_observation(x[k], rng)[0]
    return x, z
