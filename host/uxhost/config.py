"""The filter configuration that a device and the reference both run — system, parameter vector, η, mode,
likelihood and prior — and how it is built from what a user types.

Systems are described by `uxemu.systems.SystemSpec`s: those of the system table when no device is
attached, or those a device reports about itself (`Device.systems()`), so a system that exists only in a
device's firmware is configured the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

from .errors import InputError
from .protocol import Likelihood, Mode, PriorKind

MODES = tuple(m.name.lower() for m in Mode)
LIKELIHOODS = tuple(lik.name.lower() for lik in Likelihood)
PRIOR_KINDS = tuple(k.name.lower() for k in PriorKind)


def etas() -> tuple[int, ...]:
    from uxemu._ttr import MAX_ETA

    return tuple(1 << i for i in range(MAX_ETA.bit_length()))


@dataclass(frozen=True)
class ModelConfig:
    system: str  # the system's name
    params: tuple[float, ...]  # its parameter vector, in the system table's order
    eta: int = 16
    mode: str = "refined"
    likelihood: str = "kernel"
    prior_kind: str = "gaussian"  # 'gaussian' (a = mean, b = std) or 'laplace' (a = μ, b = scale)
    prior_a: float = 0.0
    prior_b: float = 1.0
    system_id: int | None = field(default=None)  # None: the system table's id for `system`

    def __post_init__(self):
        if self.system_id is None:
            from uxemu import systems

            try:
                object.__setattr__(self, "system_id", systems.spec(self.system).id)
            except ValueError as exc:
                raise InputError(str(exc)) from None

    # A scalar system's shape as the link carries every system's (JointConfig has the same names).
    dim = 1
    dim_obs = 1

    @property
    def priors(self) -> tuple[tuple[str, float, float], ...]:
        return ((self.prior_kind, self.prior_a, self.prior_b),)

    def has_twin(self) -> bool:
        """Whether the Python reference has this system (else only its C code can run it)."""
        from uxemu import systems

        return self.system in systems.TWINS and systems.SPECS[self.system].id == self.system_id

    def model(self):
        """The reference's model (needs a Python twin: see `has_twin`)."""
        from uxemu import systems

        return systems.from_param_vector(self.system_id, self.params)

    def prior_law(self):
        from uxemu.laws import Laplace, Normal

        return (Normal if self.prior_kind == "gaussian" else Laplace)(self.prior_a, self.prior_b)

    def describe(self, spec=None) -> str:
        """One line a person reads: which model runs, with which values."""
        names = spec.param_names if spec is not None else tuple(f"p{i}" for i in range(len(self.params)))
        params = ", ".join(f"{n}={v:g}" for n, v in zip(names, self.params))
        return (
            f"{self.system} ({params}), η={self.eta}, {self.mode}, {self.likelihood} likelihood, "
            f"prior {self.prior_kind}({self.prior_a:g}, {self.prior_b:g})"
        )


def table_specs() -> dict:
    """The system table's specs by name (what the host knows without a device)."""
    from uxemu import systems

    return dict(systems.SPECS)


def find_spec(specs: Mapping, system: str, where: str = "the system table"):
    if system not in specs:
        known = ", ".join(specs) or "none"
        raise InputError(f"no system {system!r} in {where} (it has: {known})")
    return specs[system]


def parse_params(spec, text: str | None) -> tuple[float, ...]:
    """The parameter vector for --params text: the whole vector in table order, or name=value overrides
    of the defaults (None or empty: the defaults). Values are checked against their domains."""
    items = [item.strip() for item in (text or "").split(",") if item.strip()]
    try:
        if all("=" in item for item in items):
            overrides = {}
            for item in items:
                name, _, value = item.partition("=")
                overrides[name.strip()] = float(value)
            return spec.param_vector(**overrides)
        if any("=" in item for item in items):
            raise InputError("--params: give either the whole vector or name=value pairs, not a mix")
        values = [float(item) for item in items]
        if len(values) != len(spec.params):
            raise InputError(
                f"--params: system {spec.name} takes {len(spec.params)} parameters "
                f"{spec.param_names}, got {len(values)}"
            )
        return spec.param_vector(**dict(zip(spec.param_names, values)))
    except ValueError as exc:
        raise InputError(f"--params: {exc}") from None


def parse_prior(text: str) -> tuple[str, float, float]:
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    parts = rest.split(",")
    if not sep or kind not in PRIOR_KINDS or len(parts) != 2:
        raise InputError(f"--prior {text!r}: expected gaussian:MEAN,STD or laplace:MU,SCALE")
    try:
        a, b = float(parts[0]), float(parts[1])
    except ValueError:
        raise InputError(f"--prior {text!r}: not numbers") from None
    if not (math.isfinite(a) and math.isfinite(b) and b > 0):
        raise InputError(f"--prior {text!r}: the location must be finite and the scale positive")
    return kind, a, b


def resolve(
    spec,
    params_text: str | None = None,
    prior_text: str | None = None,
    eta: int = 16,
    mode: str = "refined",
    likelihood: str = "kernel",
) -> ModelConfig:
    """The configuration of system `spec` for the texts a user typed (None: the system's defaults)."""
    params = parse_params(spec, params_text)
    kind, a, b = parse_prior(prior_text) if prior_text else spec.prior
    return ModelConfig(spec.name, params, eta, mode, likelihood, kind, float(a), float(b), system_id=spec.id)
