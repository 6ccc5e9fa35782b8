"""Joint (vector-state) systems on the host: their specs, configuration, simulated traces and dump records.

A joint system's state has `dim` components and each observation `dim_obs` (the [joint.*] entries of the
system table; a device tells both in SYSTEM). Its trace CSV has the columns k, u, z0 … z{dim_obs−1}
and, when the truth is known, x0 … x{dim−1}; a missing observation is a row whose z fields are empty (a
step without observation: it only predicts); uxhost.traces.load_trace reads it, as every trace. Its dump is
JSONL (format "uxhost-joint-dump", read and written by uxhost.dump as every dump): a header (configuration,
device, trace), then one record per step with the posterior's mean, row-major covariance, status, log
evidence and atoms (rows of dim components, weights).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uxemu.joint_systems import JointSpec

from . import __version__
from .dump import DumpError, StatusCounts, step_columns
from .errors import InputError

FORMAT = "uxhost-joint-dump"
FORMAT_VERSION = 1


# --------------------------------------------------------------------------------------------------
# Specs and configuration


@dataclass(frozen=True)
class DeviceJointSpec(JointSpec):
    """A joint system as a device describes it (SYSTEM): the table's spec and dim_obs."""

    dim_obs: int = 1


def joint_specs() -> dict:
    """The system table's joint systems by name (uxemu.joint_systems.JointSpec)."""
    from uxemu import joint_systems

    return dict(joint_systems.SPECS)


def posterior_fits(dim: int, eta: int) -> bool:
    """Whether one POSTERIOR of a `dim`-component state at η fits a frame: 31 + 8·(dim + dim²) +
    8·η·(dim + 1) bytes ≤ MAX_PAYLOAD (docs/protocol.md); the firmware refuses a CONFIGURE whose answers
    would not (ERR_CONFIG, the η field)."""
    from .protocol_spec import MAX_PAYLOAD

    return 31 + 8 * (dim + dim * dim) + 8 * eta * (dim + 1) <= MAX_PAYLOAD


def is_joint(name: str | None) -> bool:
    return name is not None and name in joint_specs()


def dim_obs_of(spec) -> int:
    """A spec's observation components: the device's word (SYSTEM), else the reference twin's."""
    if getattr(spec, "dim_obs", None):
        return int(spec.dim_obs)
    from uxemu import joint_systems

    return joint_systems.get(spec.name).dim_obs


@dataclass(frozen=True)
class JointConfig:
    system: str
    params: tuple[float, ...]
    eta: int = 16
    mode: str = "refined"
    priors: tuple[tuple[str, float, float], ...] = ()  # (kind, a, b) per state component
    system_id: int = 0
    dim_obs: int = 1

    likelihood = "kernel"  # the joint filter's only one

    @property
    def dim(self) -> int:
        return len(self.priors)

    def model(self):
        """The reference's JointModel with this configuration's parameters and prior laws."""
        import dataclasses

        from uxemu import joint_systems
        from uxemu.systems import PRIOR_LAWS

        spec = joint_systems.spec(self.system)
        model = joint_systems.get(self.system, **dict(zip(spec.param_names, self.params)))
        return dataclasses.replace(model, prior=tuple(PRIOR_LAWS[kind](a, b) for kind, a, b in self.priors))

    def describe(self, spec=None) -> str:
        names = spec.param_names if spec is not None else tuple(f"p{i}" for i in range(len(self.params)))
        params = ", ".join(f"{n}={v:g}" for n, v in zip(names, self.params))
        priors = ", ".join(f"{kind}({a:g}, {b:g})" for kind, a, b in self.priors)
        return f"{self.system} ({params}), η={self.eta}, {self.mode}, prior {priors}"

    def to_json(self) -> dict:
        return {
            "system": self.system,
            "system_id": self.system_id,
            "params": list(self.params),
            "eta": self.eta,
            "mode": self.mode,
            "dim_obs": self.dim_obs,
            "priors": [{"kind": k, "a": a, "b": b} for k, a, b in self.priors],
        }

    @classmethod
    def from_json(cls, obj: dict) -> "JointConfig":
        return cls(
            str(obj["system"]),
            tuple(float(v) for v in obj["params"]),
            int(obj["eta"]),
            str(obj["mode"]),
            tuple((str(q["kind"]), float(q["a"]), float(q["b"])) for q in obj["priors"]),
            int(obj["system_id"]),
            int(obj["dim_obs"]),
        )


def parse_priors(spec, text: str | None) -> tuple[tuple[str, float, float], ...]:
    """--prior for a joint system: one KIND:A,B per component, separated by ';' (None: the table's)."""
    from .config import parse_prior

    if not text:
        return tuple((kind, float(a), float(b)) for kind, a, b in spec.prior)
    items = [item for item in text.split(";") if item.strip()]
    if len(items) != spec.dim:
        raise InputError(
            f"--prior: system {spec.name} has {spec.dim} state components; give one KIND:A,B each, "
            f"separated by ';' (got {len(items)})"
        )
    return tuple(parse_prior(item) for item in items)


def resolve(spec, params_text=None, prior_text=None, eta: int = 16, mode: str | None = None) -> JointConfig:
    """The configuration of joint system `spec` for the texts a user typed; mode None: the default
    (uxemu.joint_filter.DEFAULT_VECTOR_MODE)."""
    from uxemu.joint_filter import DEFAULT_VECTOR_MODE

    from .config import parse_params

    mode = mode or DEFAULT_VECTOR_MODE
    return JointConfig(
        spec.name, parse_params(spec, params_text), eta, mode, parse_priors(spec, prior_text), spec.id, dim_obs_of(spec)
    )


# --------------------------------------------------------------------------------------------------
# Traces


def simulate(spec, params: tuple[float, ...], steps: int, seed: int):
    """A seeded trace (a uxemu.Trace of rows) of a joint system (uxemu.joint_systems.simulate) with its name
    and parameters. The CSV reader is the scalar systems' (uxhost.traces.load_trace)."""
    from uxemu import Trace, joint_systems

    model = joint_systems.get(spec.name, **dict(zip(spec.param_names, params)))
    x, z = joint_systems.simulate(model, steps, seed)
    meta = {"system": spec.name, "params": ",".join(repr(float(p)) for p in model.params)}
    return Trace(np.arange(steps), np.zeros(steps), z, x, meta)


# --------------------------------------------------------------------------------------------------
# Dumps


@dataclass
class JointHeader:
    config: JointConfig
    board: str | None = None
    firmware_version: str | None = None
    protocol: int | None = None
    real_bytes: int = 8
    cycle_source: str = "none"
    reset_cause: str | None = None
    trace: str | None = None
    trace_steps: int | None = None
    uxhost_version: str = __version__
    resumed_at: tuple[int, ...] = ()  # record indices at which a cut-short run was resumed (stream --resume)

    @property
    def cycle_unit(self) -> str:
        from .dump import CYCLE_UNITS

        return CYCLE_UNITS.get(self.cycle_source, self.cycle_source)

    def to_json(self) -> dict:
        out = {"record": "header", "format": FORMAT, "format_version": FORMAT_VERSION, **self.config.to_json()}
        out.update({k: v for k, v in self.__dict__.items() if k != "config"})
        return out

    @classmethod
    def from_json(cls, obj: dict, where: str) -> "JointHeader":
        if obj.get("format") != FORMAT or obj.get("format_version") != FORMAT_VERSION:
            raise DumpError(f"{where}: not a joint dump of format version {FORMAT_VERSION}")
        try:
            names = (
                "board",
                "firmware_version",
                "protocol",
                "real_bytes",
                "cycle_source",
                "reset_cause",
                "trace",
                "trace_steps",
                "uxhost_version",
            )
            header = cls(JointConfig.from_json(obj), **{n: obj[n] for n in names if n in obj})
            header.resumed_at = tuple(int(i) for i in obj.get("resumed_at", ()))
            return header
        except (KeyError, TypeError, ValueError, OverflowError) as exc:  # int(1e999): an infinite count
            raise DumpError(f"{where}: header lacks or garbles {exc}") from None


@dataclass
class JointStep:
    k: int
    u: float
    z: tuple[float, ...] | None  # None: no observation at this step
    x: tuple[float, ...] | None  # the true state, when known
    status: int
    mean: tuple[float, ...]
    cov: tuple[float, ...]  # row-major dim × dim
    log_evidence: float
    atoms_w: tuple[float, ...]
    atoms_x: tuple[float, ...]  # atom i's components at i·dim
    cycles_predict: int = 0
    cycles_update: int = 0

    @property
    def dim(self) -> int:
        return len(self.mean)

    def rows(self) -> np.ndarray:
        return np.array(self.atoms_x).reshape(len(self.atoms_w), self.dim)

    def posterior(self) -> tuple:
        """What the filter answered, as bits (cycle counts excluded)."""

        def bits(vs):
            return tuple(struct.pack("<d", v) for v in vs)

        return (
            self.status,
            bits(self.mean),
            bits(self.cov),
            bits([self.log_evidence]),
            bits(self.atoms_w),
            bits(self.atoms_x),
        )

    def to_json(self) -> dict:
        out = {"record": "step", **{k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}}
        if not math.isfinite(self.log_evidence):
            out["log_evidence"] = repr(self.log_evidence)  # "-inf" on a fallback
        return out

    @classmethod
    def from_json(cls, obj: dict, where: str) -> "JointStep":
        try:

            def vec(v):
                return None if v is None else tuple(float(a) for a in v)

            return cls(
                int(obj["k"]),
                float(obj["u"]),
                vec(obj["z"]),
                vec(obj["x"]),
                int(obj["status"]),
                vec(obj["mean"]),
                vec(obj["cov"]),
                float(obj["log_evidence"]),
                vec(obj["atoms_w"]),
                vec(obj["atoms_x"]),
                int(obj["cycles_predict"]),
                int(obj["cycles_update"]),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DumpError(f"{where}: step record lacks or garbles {exc}") from None


@dataclass
class JointDump(StatusCounts):
    header: JointHeader
    steps: list[JointStep] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def truth(self) -> np.ndarray | None:
        if not self.steps or any(s.x is None for s in self.steps):
            return None
        return np.array([s.x for s in self.steps])

    @property
    def missing(self) -> int:
        return sum(s.z is None for s in self.steps)


def joint_arrays(steps: list[JointStep]) -> dict:
    """A vector state's steps as the arrays of an .npz dump (uxhost.dump.save_npz): z (T × dim_obs, NaN rows
    for steps without observation), x (T × dim, NaN where unknown), mean (T × dim), cov (T × dim², row-major),
    atoms_x (T × width × dim, NaN-padded) and atoms_w (T × width, 0-padded), count of atoms per step."""
    T = len(steps)
    dim = steps[0].dim if steps else 0
    dim_obs = max((len(s.z) for s in steps if s.z is not None), default=0)
    width = max((len(s.atoms_w) for s in steps), default=0)
    z, x = np.full((T, dim_obs), np.nan), np.full((T, dim), np.nan)
    atoms_x, atoms_w = np.full((T, width, dim), np.nan), np.zeros((T, width))
    for i, s in enumerate(steps):
        if s.z is not None:
            z[i] = s.z
        if s.x is not None:
            x[i] = s.x
        atoms_x[i, : len(s.atoms_w)] = s.rows()
        atoms_w[i, : len(s.atoms_w)] = s.atoms_w
    return {
        **step_columns(steps),
        "z": z,
        "x": x,
        "mean": np.array([s.mean for s in steps], dtype=np.float64).reshape(T, dim),
        "cov": np.array([s.cov for s in steps], dtype=np.float64).reshape(T, dim * dim),
        "atoms_x": atoms_x,
        "atoms_w": atoms_w,
    }


def joint_steps_from_arrays(arrays: dict, dim: int, path) -> list[JointStep]:
    """The step records of an .npz dump's arrays (joint_arrays), each checked as a JSONL record is."""

    def row(a, i) -> tuple | None:
        v = np.asarray(a[i], dtype=np.float64).ravel()
        return None if v.size == 0 or np.isnan(v).all() else tuple(float(e) for e in v)

    steps = []
    for i in range(arrays["count"].size):
        n = int(arrays["count"][i])
        rows = np.asarray(arrays["atoms_x"][i, :n], dtype=np.float64).reshape(n, dim)
        step = JointStep(
            int(arrays["k"][i]),
            float(arrays["u"][i]),
            row(arrays["z"], i),
            row(arrays["x"], i),
            int(arrays["status"][i]),
            tuple(float(v) for v in np.asarray(arrays["mean"][i], dtype=np.float64).ravel()),
            tuple(float(v) for v in np.asarray(arrays["cov"][i], dtype=np.float64).ravel()),
            float(arrays["log_evidence"][i]),
            tuple(float(v) for v in arrays["atoms_w"][i, :n]),
            tuple(float(v) for v in rows.ravel()),
            int(arrays["cycles_predict"][i]),
            int(arrays["cycles_update"][i]),
        )
        if len(step.mean) != dim or len(step.cov) != dim * dim or not step.atoms_w:
            raise DumpError(f"{path}: step {i} is not a {dim}-component posterior with atoms")
        steps.append(step)
    return steps


def trace_meta(path) -> dict[str, str]:
    """The `# key: value` lines a trace CSV starts with (empty for a file that is missing or not text:
    the trace loader says what is wrong with it)."""
    meta = {}
    try:
        with Path(path).open(encoding="utf-8") as fh:
            for line in fh:
                if not line.startswith("#"):
                    break
                key, sep, value = line[1:].partition(":")
                if sep:
                    meta[key.strip()] = value.strip()
    except (OSError, UnicodeDecodeError):
        pass
    return meta
