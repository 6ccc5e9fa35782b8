"""Joint (vector-state) systems on the host: their specs, configuration, trace CSVs and dumps.

A joint system's state has `dim` components and each observation `dim_obs` (the [joint.*] entries of the
system table; a device tells both in SYSTEM). Its trace CSV has the columns k, u, z0 … z{dim_obs−1}
and, when the truth is known, x0 … x{dim−1}; a missing observation is a row whose z fields are empty (a
step without observation: it only predicts). Its dump is JSONL (format "uxhost-joint-dump"): a header
(configuration, device, trace), then one record per step with the posterior's mean, row-major covariance,
status, log evidence and atoms (rows of dim components, weights).
"""
from __future__ import annotations

import csv
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uxemu.joint_systems import JointSpec

from . import __version__
from .dump import DumpError
from .errors import UserError

FORMAT = "uxhost-joint-dump"
FORMAT_VERSION = 1
_U32 = 1 << 32


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
        return {"system": self.system, "system_id": self.system_id, "params": list(self.params), "eta": self.eta,
                "mode": self.mode, "dim_obs": self.dim_obs,
                "priors": [{"kind": k, "a": a, "b": b} for k, a, b in self.priors]}

    @classmethod
    def from_json(cls, obj: dict) -> "JointConfig":
        return cls(str(obj["system"]), tuple(float(v) for v in obj["params"]), int(obj["eta"]), str(obj["mode"]),
                   tuple((str(q["kind"]), float(q["a"]), float(q["b"])) for q in obj["priors"]),
                   int(obj["system_id"]), int(obj["dim_obs"]))


def parse_priors(spec, text: str | None) -> tuple[tuple[str, float, float], ...]:
    """--prior for a joint system: one KIND:A,B per component, separated by ';' (None: the table's)."""
    from .config import parse_prior

    if not text:
        return tuple((kind, float(a), float(b)) for kind, a, b in spec.prior)
    items = [item for item in text.split(";") if item.strip()]
    if len(items) != spec.dim:
        raise UserError(f"--prior: system {spec.name} has {spec.dim} state components; give one KIND:A,B each, "
                        f"separated by ';' (got {len(items)})")
    return tuple(parse_prior(item) for item in items)


def resolve(spec, params_text=None, prior_text=None, eta: int = 16, mode: str = "refined") -> JointConfig:
    from .config import parse_params

    return JointConfig(spec.name, parse_params(spec, params_text), eta, mode, parse_priors(spec, prior_text),
                       spec.id, dim_obs_of(spec))


# --------------------------------------------------------------------------------------------------
# Traces


@dataclass
class JointTrace:
    k: np.ndarray  # (T,)
    u: np.ndarray  # (T,)
    z: np.ndarray  # (T, dim_obs); a row of NaN: no observation
    x: np.ndarray | None = None  # (T, dim), the true state when known
    meta: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.k)

    def observation(self, i: int):
        """Row i's observation, or None for a step without one."""
        return None if np.isnan(self.z[i]).any() else self.z[i]

    def to_csv(self, path) -> None:
        path = Path(path)
        with path.open("w", newline="", encoding="utf-8") as fh:
            for key, value in self.meta.items():
                fh.write(f"# {key}: {value}\n")
            w = csv.writer(fh, lineterminator="\n")
            xs = [] if self.x is None else [f"x{c}" for c in range(self.x.shape[1])]
            w.writerow(["k", "u", *[f"z{c}" for c in range(self.z.shape[1])], *xs])
            for i in range(len(self)):
                z = ["" if math.isnan(v) else repr(float(v)) for v in self.z[i]]
                x = [] if self.x is None else [repr(float(v)) for v in self.x[i]]
                w.writerow([int(self.k[i]), repr(float(self.u[i])), *z, *x])


def load_joint_trace(path, dim_obs: int | None = None, dim: int | None = None) -> JointTrace:
    """A joint trace CSV; every error names the file and line. dim_obs / dim (when given) must be the
    number of z / x columns."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()  # a spreadsheet's byte-order mark is no name
    except FileNotFoundError:
        raise UserError(f"trace file {path} does not exist") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text CSV file") from None
    meta, first = {}, 0
    while first < len(lines) and lines[first].startswith("#"):
        key, sep, value = lines[first][1:].partition(":")
        if sep:
            meta[key.strip()] = value.strip()
        first += 1
    rows = list(csv.reader(lines[first:]))
    if not rows:
        raise UserError(f"{path}: no column header")
    header = [h.strip() for h in rows[0]]
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:  # which copy is meant cannot be told
        raise UserError(f"{path}:{first + 1}: the header names column {', '.join(map(repr, twice))} more than once")
    zc = [h for h in header if h.startswith("z") and h[1:].isdigit()]
    xc = [h for h in header if h.startswith("x") and h[1:].isdigit()]
    if "k" not in header or "u" not in header or not zc:
        raise UserError(f"{path}:{first + 1}: a joint trace has the columns k, u, z0 … and optionally x0 …")
    if zc != [f"z{c}" for c in range(len(zc))] or xc != [f"x{c}" for c in range(len(xc))]:
        raise UserError(f"{path}:{first + 1}: columns z0, z1, … (and x0, x1, …) in order, none skipped")
    if dim_obs is not None and len(zc) != dim_obs:
        raise UserError(f"{path}: {len(zc)} observation column(s) z0 …; the system observes {dim_obs} per step")
    if dim is not None and xc and len(xc) != dim:
        raise UserError(f"{path}: {len(xc)} state column(s) x0 …; the system's state has {dim} components")
    at = {h: i for i, h in enumerate(header)}
    k, u, z, x = [], [], [], []
    for n, row in enumerate(rows[1:], start=first + 2):
        if not row:
            continue
        if len(row) != len(header):
            raise UserError(f"{path}:{n}: {len(row)} fields, the header has {len(header)}")

        def num(col, missing_ok=False):
            text = row[at[col]].strip()
            if missing_ok and text == "":
                return math.nan
            try:
                v = float(text)
            except ValueError:
                raise UserError(f"{path}:{n}: column {col!r} is not a number ({text!r})") from None
            if not (math.isfinite(v) or (missing_ok and math.isnan(v))):
                raise UserError(f"{path}:{n}: column {col!r} is not finite ({text!r})")
            return v

        kv = num("k")
        if kv != int(kv) or not 0 <= kv < _U32:
            raise UserError(f"{path}:{n}: step index k={row[at['k']]} is not an integer in 0 .. 2^32-1")
        zs = [num(c, missing_ok=True) for c in zc]
        if any(math.isnan(v) for v in zs) and not all(math.isnan(v) for v in zs):
            raise UserError(f"{path}:{n}: some observation components are empty: a missing observation "
                            "leaves every z field empty")
        k.append(int(kv))
        u.append(num("u"))
        z.append(zs)
        x.append([num(c) for c in xc])
    if not k:
        raise UserError(f"{path}: the trace has no rows")
    return JointTrace(np.array(k, dtype=np.int64), np.array(u), np.array(z),
                      np.array(x) if xc else None, meta)


def simulate(spec, params: tuple[float, ...], steps: int, seed: int) -> JointTrace:
    """A seeded trace of a joint system (uxemu.joint_systems.simulate) with its name and parameters."""
    from uxemu import joint_systems

    model = joint_systems.get(spec.name, **dict(zip(spec.param_names, params)))
    x, z = joint_systems.simulate(model, steps, seed)
    meta = {"system": spec.name, "params": ",".join(repr(float(p)) for p in model.params)}
    return JointTrace(np.arange(steps), np.zeros(steps), z, x, meta)


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

    def to_json(self) -> dict:
        out = {"record": "header", "format": FORMAT, "format_version": FORMAT_VERSION, **self.config.to_json()}
        out.update({k: v for k, v in self.__dict__.items() if k != "config"})
        return out

    @classmethod
    def from_json(cls, obj: dict, where: str) -> "JointHeader":
        if obj.get("format") != FORMAT or obj.get("format_version") != FORMAT_VERSION:
            raise DumpError(f"{where}: not a joint dump of format version {FORMAT_VERSION}")
        try:
            names = ("board", "firmware_version", "protocol", "real_bytes", "cycle_source", "reset_cause", "trace",
                     "trace_steps", "uxhost_version")
            return cls(JointConfig.from_json(obj), **{n: obj[n] for n in names if n in obj})
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
        return (self.status, bits(self.mean), bits(self.cov), bits([self.log_evidence]), bits(self.atoms_w),
                bits(self.atoms_x))

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
            return cls(int(obj["k"]), float(obj["u"]), vec(obj["z"]), vec(obj["x"]), int(obj["status"]),
                       vec(obj["mean"]), vec(obj["cov"]), float(obj["log_evidence"]), vec(obj["atoms_w"]),
                       vec(obj["atoms_x"]), int(obj["cycles_predict"]), int(obj["cycles_update"]))
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise DumpError(f"{where}: step record lacks or garbles {exc}") from None


@dataclass
class JointDump:
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
