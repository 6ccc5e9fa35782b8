"""The native engine: the C core (firmware/src/ux) loaded from its host shared library through ctypes.

Why ctypes: it is in the standard library, so using the native engine needs nothing beyond the `.so`
that `make native` builds — no compiler at import time, no build-time Python dependency (cffi would need
its own package and, in API mode, a compiler step). The C API is small and uses plain structs, which
ctypes describes directly.

The library (libux.so, or libux_float.so for the float build) is found through the environment variable
UX_NATIVE_LIB (UX_NATIVE_LIB_FLOAT; a path to the `.so`), else in the package's own _native/ folder, where
an installed package carries the core compiled by `pip install` (setup.py), else at build/native/ under
the repository root, where `make native` builds it for a checkout (an editable install has no _native/).

Everything here mirrors the reference (`uxemu`) so tests and benchmarks can run both on the same input:

    >>> from uxemu import native
    >>> nat = native.load()
    >>> v = nat.gaussian(0.0, 1.0, eta=16)
    >>> round(v.x[-1], 4)
    2.2194
"""

from __future__ import annotations

import ctypes as C
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import layouts
from .facts import ERR_ARG, ERR_WORKSPACE, MAX_ARGS  # noqa: F401 - the binding's API names them too
from .facts import ERR_DEPENDENT, ERR_DOMAIN, LAW_KINDS, MAX_DIM, MAX_ETA
from .facts import ERRORS as _ERROR_NAMES
from .facts import LIKELIHOODS, MODES, Status
from ._library import PACKAGED_DIR, library_path  # noqa: F401 - PACKAGED_DIR is part of this API

OK, FALLBACK = Status.OK, Status.FALLBACK


class NativeError(RuntimeError):
    """A status code < 0 from the C core."""

    def __init__(self, status: int, what: str):
        self.status, self.what = status, what
        super().__init__(f"{what}: {_ERROR_NAMES.get(status, status)}")

    def __reduce__(self):  # raised in a worker process, it crosses to the parent whole
        return type(self), (self.status, self.what)


class NativeDependencyError(NativeError, ValueError):
    """UX_ERR_DEPENDENT: two different inputs share a source (lift one function over the sources)."""


class NativeDomainError(NativeError, ValueError):
    """UX_ERR_DOMAIN: a parameter, evidence or computed point outside its domain."""


class NativeLayoutError(RuntimeError):
    """The library's structs are not laid out as this binding mirrors them (a stale build, or a struct
    changed on one side only)."""

    def __init__(self, path, problems: list[str]):
        self.problems = problems
        super().__init__(
            f"{path} does not match uxemu.native's mirrors — rebuild it (`make native`) or update "
            "the mirrors:\n  " + "\n  ".join(problems)
        )


def layout_mismatches(lib, mirrors: dict[str, type]) -> list[str]:
    """Every way the ctypes `mirrors` ({C name: Structure}) differ from the layout `lib` reports."""
    problems = []
    for name, cls in mirrors.items():
        cname = name.encode()
        c_size = lib.ux_abi_sizeof(cname)
        if c_size != C.sizeof(cls):
            problems.append(f"sizeof({name}) is {c_size} in C, {C.sizeof(cls)} here")
        c_count = lib.ux_abi_field_count(cname)
        if c_count != len(cls._fields_):
            problems.append(f"{name} has {c_count} fields in C, {len(cls._fields_)} here")
        for field, _ in cls._fields_:
            offset, size = C.c_size_t(), C.c_size_t()
            if lib.ux_abi_field(cname, field.encode(), C.byref(offset), C.byref(size)) != 0:
                problems.append(f"{name}.{field} does not exist in C")
                continue
            mine = getattr(cls, field)
            if (offset.value, size.value) != (mine.offset, mine.size):
                problems.append(
                    f"{name}.{field} is at {offset.value} ({size.value} bytes) in C, "
                    f"at {mine.offset} ({mine.size} bytes) here"
                )
    return problems


def available(float_build: bool = False) -> bool:
    return library_path(float_build).exists()


@dataclass
class NValue:
    """A value returned by the C core: atoms, the size it was built for, and its source mask."""

    x: np.ndarray
    w: np.ndarray
    eta: int
    sources: int

    def __len__(self) -> int:
        return self.x.size


@dataclass
class NJoint:
    """A joint value returned by the C core: atoms (rows), weights, the size it was built for, sources."""

    x: np.ndarray
    w: np.ndarray
    eta: int
    sources: int

    @property
    def dim(self) -> int:
        return self.x.shape[1]

    def __len__(self) -> int:
        return self.x.shape[0]


@dataclass
class NativeRun:
    mean: np.ndarray
    var: np.ndarray
    status: np.ndarray
    posteriors: list  # (x, w) per step
    log_evidence: np.ndarray = None  # log p(z_k | z_0..k−1) per step
    log_likelihood: float = 0.0  # the filter's own running sum at the end
    density_log_evidence: np.ndarray = None  # per step by the density's quadrature (when asked for)
    test_ratio: np.ndarray = None  # the innovation gate's ν²/S per step (NaN: not taken)
    nis: np.ndarray = None  # the running mean of the test ratios after each step (ux_filter_nis)


class Native:
    """One loaded build of the C core (double or float)."""

    def __init__(self, path: Path | str | None = None, float_build: bool = False):
        path = Path(path) if path is not None else library_path(float_build)
        if not path.exists():
            raise FileNotFoundError(
                f"the native ux library {path} is missing: run `make native` in the repository root "
                "(or point UX_NATIVE_LIB at a built libux.so)"
            )
        self.path = path
        self.float_build = float_build
        self.real = C.c_float if float_build else C.c_double
        self.dtype = np.float32 if float_build else np.float64
        self.lib = C.CDLL(str(path))
        self._declare()
        problems = layout_mismatches(self.lib, self.mirrors())
        if problems:
            raise NativeLayoutError(path, problems)
        self._sources = self.Sources()
        self.lib.ux_sources_init(C.byref(self._sources))
        self._ws_bytes = 0
        self._ws = None

    # -- ctypes declarations -------------------------------------------------------------------
    def _declare(self):
        R = self.real
        s = layouts.declare(R)  # the structs, read from the C headers by scripts/codegen
        self.structs = s
        Value, Law, Model, ModelCtx, Noises = (
            s["ux_value"],
            s["ux_law"],
            s["ux_model"],
            s["ux_model_ctx"],
            s["ux_model_noises"],
        )
        Observation, Evidence, Workspace, Rng = s["ux_observation"], s["ux_evidence"], s["ux_workspace"], s["ux_rng"]
        FilterConfig, Joint, JointFilterConfig = s["ux_filter_config"], s["ux_joint"], s["ux_joint_filter_config"]
        fn = C.CFUNCTYPE(R, C.POINTER(R), C.c_void_p)
        kernel_fn = C.CFUNCTYPE(None, C.POINTER(R), C.c_void_p, C.POINTER(R), C.POINTER(R))

        self.Value, self.Law, self.Model, self.ModelCode, self.ModelCtx = (
            Value,
            Law,
            Model,
            s["ux_model_code"],
            ModelCtx,
        )
        self.Joint, self.JointFilterConfig = Joint, JointFilterConfig
        self.Rng = Rng
        self.Noises, self.Observation, self.Evidence, self.Workspace = Noises, Observation, Evidence, Workspace
        self.FilterConfig, self.fn_type, self.kernel_fn_type = FilterConfig, fn, kernel_fn
        self.noises_fn_type = C.CFUNCTYPE(None, C.POINTER(R), C.POINTER(Noises))
        self.Sources = s["ux_sources"]

        L = self.lib
        PV, PR, PW = C.POINTER(Value), C.POINTER(R), C.POINTER(Workspace)
        PS = C.POINTER(self.Sources)
        PJ = C.POINTER(Joint)
        joint_fn = C.CFUNCTYPE(None, PR, PR, PR, C.c_void_p)
        self.joint_fn_type = joint_fn
        sig = {
            "ux_sources_init": (None, [PS]),
            "ux_point": (C.c_int, [PV, R, C.c_uint, PS]),
            "ux_independent_copy": (C.c_int, [PV, PV, PS]),
            "ux_value_check": (C.c_int, [PV]),
            "ux_from_samples": (C.c_int, [PV, PR, PR, C.c_size_t, C.c_uint, PS, PW]),
            "ux_mixture": (C.c_int, [PV, PV, PV, R, C.c_uint, PS]),
            "ux_quantize": (C.c_int, [C.POINTER(Law), C.c_uint, PV, PS]),
            "ux_compact": (C.c_int, [PR, PR, C.POINTER(C.c_size_t)]),
            "ux_ttr": (C.c_size_t, [PR, PR, C.c_size_t, C.c_uint, C.c_void_p]),
            "ux_ttr_linear": (C.c_size_t, [PR, C.c_size_t, R, R, C.c_uint, PR, PR, PR, PR]),
            "ux_ttr_linear_lumps": (C.c_size_t, [PR, C.c_size_t, R, R, PR, C.c_size_t, C.c_uint, PR, PR, PR, PR]),
            "ux_lift": (C.c_int, [PV, fn, C.c_void_p, C.POINTER(PV), C.c_uint, C.c_uint, PW]),
            "ux_mean": (R, [PV]),
            "ux_var": (R, [PV]),
            "ux_moment": (R, [PV, C.c_uint]),
            "ux_central_moment": (R, [PV, C.c_uint]),
            "ux_cdf": (R, [PV, R]),
            "ux_sf": (R, [PV, R]),
            "ux_quantile": (R, [PV, R]),
            "ux_support": (None, [PV, PR, PR]),
            "ux_rng_seed": (None, [C.POINTER(Rng), C.c_uint64]),
            "ux_sample_n": (None, [PV, C.POINTER(Rng), PR, C.c_size_t]),
            "ux_split_points": (C.c_int, [PR, PR, C.c_size_t, PR]),
            "ux_pdf": (R, [PV, R]),
            "ux_model_find": (C.POINTER(Model), [C.c_uint]),
            "ux_model_count": (C.c_uint, []),
            "ux_model_context": (None, [C.POINTER(Model), PR, C.c_uint32, R, C.POINTER(ModelCtx)]),
            "ux_bayes_laplace": (
                C.c_int,
                [PV, C.POINTER(Observation), PR, PR, C.c_size_t, C.POINTER(Evidence), C.c_uint, PS, PW, PR],
            ),
            "ux_filter_workspace_bytes": (C.c_size_t, [C.POINTER(Model), C.c_uint, C.c_int, C.c_int]),
            "ux_filter_init": (C.c_int, [C.c_void_p, C.POINTER(FilterConfig), Workspace]),
            "ux_filter_predict": (C.c_int, [C.c_void_p, C.c_uint32, C.c_double]),
            "ux_filter_update": (
                C.c_int,
                [C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double), C.c_uint, C.c_uint],
            ),
            "ux_filter_posterior": (PV, [C.c_void_p]),
            "ux_filter_sizeof": (C.c_size_t, []),
            "ux_filter_mean": (C.c_double, [C.c_void_p]),
            "ux_filter_var": (C.c_double, [C.c_void_p]),
            "ux_filter_log_evidence": (C.c_double, [C.c_void_p]),
            "ux_filter_log_likelihood": (C.c_double, [C.c_void_p]),
            "ux_filter_set_gate": (C.c_int, [C.c_void_p, C.c_double, C.c_int]),
            "ux_filter_test_ratio": (C.c_double, [C.c_void_p]),
            "ux_filter_nis": (C.c_double, [C.c_void_p]),
            "ux_filter_set_consistency": (C.c_int, [C.c_void_p, C.c_double]),
            "ux_filter_density_log_evidence": (C.c_double, [C.c_void_p]),
            "ux_filter_logpdf": (C.c_double, [C.c_void_p, C.c_double]),
            "ux_filter_pdf": (C.c_double, [C.c_void_p, C.c_double]),
            "ux_filter_density_form": (C.c_int, [C.c_void_p]),
            "ux_filter_workspace_in_use": (C.c_size_t, [C.c_void_p]),
            "ux_filter_check_params": (C.c_int, [C.POINTER(Model), C.POINTER(C.c_double)]),
            "ux_model_at": (C.POINTER(Model), [C.c_uint]),
            "ux_model_named": (C.POINTER(Model), [C.c_char_p]),
            "ux_abi_sizeof": (C.c_size_t, [C.c_char_p]),
            "ux_abi_field": (C.c_int, [C.c_char_p, C.c_char_p, C.POINTER(C.c_size_t), C.POINTER(C.c_size_t)]),
            "ux_abi_field_count": (C.c_uint, [C.c_char_p]),
            "ux_abi_ttr_workspace_bytes": (C.c_size_t, [C.c_size_t]),
            "ux_abi_lift_workspace_bytes": (C.c_size_t, [C.c_size_t]),
            "ux_abi_from_samples_workspace_bytes": (C.c_size_t, [C.c_size_t]),
            "ux_abi_bayes_workspace_bytes": (C.c_size_t, [C.c_int, C.c_size_t, C.c_size_t]),
            "ux_abi_joint_ttr_workspace_bytes": (C.c_size_t, [C.c_size_t, C.c_uint, C.c_uint]),
            "ux_abi_joint_from_atoms_workspace_bytes": (C.c_size_t, [C.c_size_t, C.c_uint, C.c_uint]),
            "ux_joint_ttr": (C.c_int, [PR, PR, C.c_size_t, C.c_uint, C.c_uint, C.POINTER(C.c_size_t), PW]),
            "ux_joint_compact": (C.c_int, [PR, PR, C.POINTER(C.c_size_t), C.c_uint]),
            "ux_joint_from_atoms": (C.c_int, [PJ, PR, PR, C.c_size_t, C.c_uint, C.c_uint, PS, PW]),
            "ux_joint_product": (C.c_int, [PJ, C.POINTER(PV), C.c_uint, C.c_uint, PW]),
            "ux_joint_check": (C.c_int, [PJ]),
            "ux_joint_mean": (C.c_int, [PJ, PR]),
            "ux_joint_cov": (C.c_int, [PJ, PR]),
            "ux_joint_marginal": (C.c_int, [PV, PJ, C.c_uint]),
            "ux_joint_quantile": (C.c_int, [PJ, C.c_uint, R, PR]),
            "ux_joint_cdf": (C.c_int, [PJ, C.c_uint, R, PR]),
            "ux_joint_sf": (C.c_int, [PJ, C.c_uint, R, PR]),
            "ux_joint_lift": (C.c_int, [PJ, joint_fn, C.c_void_p, C.c_uint, PJ, C.POINTER(PV), C.c_uint, C.c_uint, PW]),
            "ux_joint_model_find": (C.c_void_p, [C.c_uint]),
            "ux_joint_model_params": (C.c_int, [C.c_void_p, C.POINTER(C.c_double), PR]),
            "ux_joint_filter_workspace_bytes": (C.c_size_t, [C.c_void_p, C.c_uint]),
            "ux_joint_filter_init": (C.c_int, [C.c_void_p, C.POINTER(JointFilterConfig), Workspace]),
            "ux_joint_filter_predict": (C.c_int, [C.c_void_p, C.c_uint32, C.c_double]),
            "ux_joint_filter_update": (
                C.c_int,
                [C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double), C.c_uint, C.c_uint],
            ),
            "ux_joint_filter_sizeof": (C.c_size_t, []),
            "ux_joint_cells_workspace_bytes": (C.c_size_t, [C.c_void_p, C.c_uint]),
            "ux_joint_cells_init": (C.c_int, [C.c_void_p, C.POINTER(JointFilterConfig), Workspace]),
            "ux_joint_cells_predict": (C.c_int, [C.c_void_p, C.c_uint32, C.c_double]),
            "ux_joint_cells_update": (
                C.c_int,
                [C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double), C.c_uint, C.c_uint],
            ),
            "ux_joint_cells_sizeof": (C.c_size_t, []),
            "ux_joint_cells_set_exchange": (C.c_int, [C.c_void_p, C.c_int]),
            "ux_joint_cells_set_gate": (C.c_int, [C.c_void_p, C.c_double, C.c_int]),
            "ux_joint_filter_set_gate": (C.c_int, [C.c_void_p, C.c_double, C.c_int]),
            "ux_joint_filter_test_ratio": (C.c_double, [C.c_void_p]),
            "ux_joint_cells_test_ratio": (C.c_double, [C.c_void_p]),
            "ux_joint_filter_nis": (C.c_double, [C.c_void_p]),
            "ux_joint_cells_nis": (C.c_double, [C.c_void_p]),
            "ux_joint_filter_set_consistency": (C.c_int, [C.c_void_p, C.c_double]),
            "ux_joint_cells_set_consistency": (C.c_int, [C.c_void_p, C.c_double]),
            "ux_joint_cells_departure": (C.c_int, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_cells_count": (C.c_uint, [C.c_void_p]),
            "ux_joint_cells_cell": (
                C.c_int,
                [C.c_void_p, C.c_uint, C.POINTER(C.c_double), C.POINTER(C.c_double), C.POINTER(C.c_double)],
            ),
            "ux_joint_cells_mean": (C.c_int, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_cells_cov": (C.c_int, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_cells_logpdf": (C.c_double, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_cells_log_evidence": (C.c_double, [C.c_void_p]),
            "ux_joint_cells_log_likelihood": (C.c_double, [C.c_void_p]),
            "ux_joint_filter_posterior": (PJ, [C.c_void_p]),
            "ux_joint_filter_mean": (C.c_int, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_filter_cov": (C.c_int, [C.c_void_p, C.POINTER(C.c_double)]),
            "ux_joint_filter_last_status": (C.c_int, [C.c_void_p]),
            "ux_joint_filter_log_evidence": (C.c_double, [C.c_void_p]),
            "ux_joint_filter_log_likelihood": (C.c_double, [C.c_void_p]),
        }
        for name, (res, args) in sig.items():
            f = getattr(L, name)
            f.restype, f.argtypes = res, args
        for op in ("add", "sub", "mul", "div", "pow"):
            f = getattr(L, f"ux_{op}")
            f.restype, f.argtypes = C.c_int, [PV, PV, PV, PW]
        for op in ("exp", "log", "sin", "cos", "sqrt"):
            f = getattr(L, f"ux_{op}")
            f.restype, f.argtypes = C.c_int, [PV, PV, PW]

    def mirrors(self) -> dict[str, type]:
        """The ctypes mirror of each C struct, by its C name (checked against the library at load)."""
        return dict(self.structs)

    # -- helpers ---------------------------------------------------------------------------------
    def _check(self, status: int, what: str) -> int:
        if status < 0:
            cls = {ERR_DEPENDENT: NativeDependencyError, ERR_DOMAIN: NativeDomainError}.get(status, NativeError)
            raise cls(status, what)
        return status

    def workspace(self, nbytes: int):
        """A workspace of at least nbytes (8-byte aligned), reused between calls."""
        if nbytes > self._ws_bytes:
            self._ws = (C.c_uint64 * ((nbytes + 7) // 8))()
            self._ws_bytes = nbytes
        return self.Workspace(C.cast(self._ws, C.c_void_p), self._ws_bytes)

    def _reals(self, values):
        a = np.ascontiguousarray(values, dtype=self.dtype)
        return a, a.ctypes.data_as(C.POINTER(self.real))

    def to_c(self, v: NValue):
        c = self.Value()
        n = len(v.x)
        if not 1 <= n <= MAX_ETA:
            raise ValueError(f"a native value holds 1..{MAX_ETA} atoms, got {n}")
        c.count, c.eta, c.sources = n, int(v.eta), int(v.sources)
        c.x[:n] = [float(t) for t in v.x]
        c.w[:n] = [float(t) for t in v.w]
        return c

    def from_c(self, c) -> NValue:
        n = c.count
        x = np.array(c.x[:n], dtype=np.float64)
        w = np.array(c.w[:n], dtype=np.float64)
        return NValue(x, w, int(c.eta), int(c.sources))

    def from_reference(self, v) -> NValue:
        """A native copy of a reference `uxemu.Value` (a fresh native source)."""
        return NValue(np.asarray(v.x, dtype=np.float64), np.asarray(v.w, dtype=np.float64), v.eta, self.fresh_source())

    def fresh_source(self) -> int:
        out = self.Value()
        self._check(self.lib.ux_point(C.byref(out), 0.0, 0, C.byref(self._sources)), "ux_point")
        return int(out.sources)

    # -- constructors ----------------------------------------------------------------------------
    def quantize(self, kind: str, a=0.0, b=0.0, c=0.0, eta: int = 16) -> NValue:
        law = self.Law(LAW_KINDS[kind], a, b, c)
        out = self.Value()
        self._check(self.lib.ux_quantize(C.byref(law), eta, C.byref(out), C.byref(self._sources)), f"quantize {kind}")
        return self.from_c(out)

    # Same parameters as the reference constructors (uxemu.constructors); the ux_law fields they fill are
    # those of firmware/include/ux/law.h.
    def gaussian(self, mu=0.0, sigma=1.0, eta=16):
        return self.quantize("gaussian", mu, sigma, 0.0, eta)

    def laplace(self, loc=0.0, scale=1.0, eta=16):
        return self.quantize("laplace", loc, scale, 0.0, eta)

    def uniform(self, low=0.0, high=1.0, eta=16):
        return self.quantize("uniform", low, high, 0.0, eta)

    def exponential(self, scale=1.0, eta=16):
        return self.quantize("exponential", scale, 0.0, 0.0, eta)

    def student_t(self, df, loc=0.0, scale=1.0, eta=16):
        return self.quantize("student_t", df, loc, scale, eta)

    def lognormal(self, mu=0.0, sigma=1.0, eta=16):
        return self.quantize("lognormal", mu, sigma, 0.0, eta)

    def point(self, c, eta=16):
        out = self.Value()
        self._check(self.lib.ux_point(C.byref(out), c, eta, C.byref(self._sources)), "ux_point")
        return self.from_c(out)

    def from_weighted_samples(self, samples, weights=None, eta=16) -> NValue:
        xs, px = self._reals(np.ravel(samples))
        if weights is None:
            pw = None
        else:
            ws, pw = self._reals(np.ravel(weights))
            if ws.size != xs.size:
                raise ValueError("as many weights as samples are needed")
        out = self.Value()
        ws_ = self.workspace(self.lib.ux_abi_from_samples_workspace_bytes(xs.size))
        self._check(
            self.lib.ux_from_samples(C.byref(out), px, pw, xs.size, eta, C.byref(self._sources), C.byref(ws_)),
            "ux_from_samples",
        )
        return self.from_c(out)

    def from_samples(self, samples, eta=16) -> NValue:
        return self.from_weighted_samples(samples, None, eta)

    def mixture(self, a: NValue, b: NValue, p: float, eta: int | None = None) -> NValue:
        out = self.Value()
        ca, cb = self.to_c(a), self.to_c(b)
        self._check(
            self.lib.ux_mixture(C.byref(out), C.byref(ca), C.byref(cb), p, eta or 0, C.byref(self._sources)),
            "ux_mixture",
        )
        return self.from_c(out)

    def independent_copy(self, v: NValue) -> NValue:
        c = self.to_c(v)
        self._check(self.lib.ux_independent_copy(C.byref(c), C.byref(c), C.byref(self._sources)), "copy")
        return self.from_c(c)

    # -- TTR ---------------------------------------------------------------------------------------
    def compact(self, x, w):
        """Zero weights dropped, order kept (the reference's _ttr.compact)."""
        xs, px = self._reals(np.array(x, dtype=np.float64).ravel())
        ws, pw = self._reals(np.array(w, dtype=np.float64).ravel())
        n = C.c_size_t(xs.size)
        self._check(self.lib.ux_compact(px, pw, C.byref(n)), "ux_compact")
        return xs[: n.value].astype(np.float64), ws[: n.value].astype(np.float64)

    def ttr(self, x, w, n: int):
        """Zero weights dropped, then TTR(n), masses not renormalised (the reference's compact + ttr)."""
        xs, ws = self.compact(x, w)
        xs, px = self._reals(xs)
        ws, pw = self._reals(ws)
        cell = self.workspace(self.lib.ux_abi_ttr_workspace_bytes(xs.size))
        r = self.lib.ux_ttr(px, pw, xs.size, n, cell.mem)
        return xs[:r].astype(np.float64), ws[:r].astype(np.float64)

    def ttr_linear(self, e, lo: float, h: float, n: int, spreads: bool = False, lumps=()):
        """TTR(n) of the piecewise-linear density through (lo + k·h, e[k]) and the lumps (at, mass, spread) beside
        it (the reference's ttr_linear; ux_ttr_linear, or ux_ttr_linear_lumps where there are lumps): positions
        and masses, and with spreads=True each cell's variance about its mean too."""
        es, pe = self._reals(np.array(e, dtype=np.float64).ravel())
        edges, pedges = self._reals(np.zeros((1 << n) + 1))
        xs, px = self._reals(np.zeros(1 << n))
        ws, pw = self._reals(np.zeros(1 << n))
        vs, pv = self._reals(np.zeros(1 << n))
        pv = pv if spreads else None
        if len(lumps) > 0:
            ls, pl = self._reals(np.array(lumps, dtype=np.float64).reshape(-1, 3).ravel())  # ux_lump: 3 reals
            r = self.lib.ux_ttr_linear_lumps(pe, es.size, lo, h, pl, ls.size // 3, n, pedges, px, pw, pv)
        else:
            r = self.lib.ux_ttr_linear(pe, es.size, lo, h, n, pedges, px, pw, pv)
        if r == 0:
            raise ValueError("ux_ttr_linear refused its arguments")
        out = xs[:r].astype(np.float64), ws[:r].astype(np.float64)
        return (*out, vs[:r].astype(np.float64)) if spreads else out

    # -- lift of the built-in operations -----------------------------------------------------------
    def _apply(self, op: str, *values: NValue) -> NValue:
        """Per-operation arithmetic; the same Python object twice is the same input (same pointer)."""
        cache, ptrs = {}, []
        for v in values:
            if id(v) not in cache:
                cache[id(v)] = self.to_c(v)
            ptrs.append(C.byref(cache[id(v)]))
        out = self.Value()
        points = int(np.prod([len(v) for v in {id(v): v for v in values}.values()]))
        wsp = self.workspace(self.lib.ux_abi_lift_workspace_bytes(points))
        self._check(getattr(self.lib, f"ux_{op}")(C.byref(out), *ptrs, C.byref(wsp)), f"ux_{op}")
        return self.from_c(out)

    def add(self, a, b):
        return self._apply("add", a, b)

    def sub(self, a, b):
        return self._apply("sub", a, b)

    def mul(self, a, b):
        return self._apply("mul", a, b)

    def div(self, a, b):
        return self._apply("div", a, b)

    def pow(self, a, b):
        return self._apply("pow", a, b)

    def exp(self, a):
        return self._apply("exp", a)

    def log(self, a):
        return self._apply("log", a)

    def sin(self, a):
        return self._apply("sin", a)

    def cos(self, a):
        return self._apply("cos", a)

    def sqrt(self, a):
        return self._apply("sqrt", a)

    def lift(self, f, *values: NValue, eta: int = 0) -> NValue:
        """Lift a Python function of floats (called once per outer-product point, through a C callback)."""
        k = len(values)

        def trampoline(args, _ctx):
            return float(f(*[args[i] for i in range(k)]))

        cb = self.fn_type(trampoline)
        cache, arr = {}, (C.POINTER(self.Value) * k)()
        for i, v in enumerate(values):
            if id(v) not in cache:
                cache[id(v)] = self.to_c(v)
            arr[i] = C.pointer(cache[id(v)])
        out = self.Value()
        points = int(np.prod([len(v) for v in {id(v): v for v in values}.values()]))
        wsp = self.workspace(self.lib.ux_abi_lift_workspace_bytes(points))
        self._check(self.lib.ux_lift(C.byref(out), cb, None, arr, k, eta, C.byref(wsp)), "ux_lift")
        return self.from_c(out)

    # -- statistics ----------------------------------------------------------------------------------
    def mean(self, v):
        return float(self.lib.ux_mean(C.byref(self.to_c(v))))

    def var(self, v):
        return float(self.lib.ux_var(C.byref(self.to_c(v))))

    def moment(self, v, k: int, central: bool = False):
        f = self.lib.ux_central_moment if central else self.lib.ux_moment
        return float(f(C.byref(self.to_c(v)), k))

    def cdf(self, v, t):
        return float(self.lib.ux_cdf(C.byref(self.to_c(v)), t))

    def sf(self, v, t):
        return float(self.lib.ux_sf(C.byref(self.to_c(v)), t))

    def quantile(self, v, q):
        return float(self.lib.ux_quantile(C.byref(self.to_c(v)), q))

    def support(self, v):
        lo, hi = self.real(), self.real()
        self.lib.ux_support(C.byref(self.to_c(v)), C.byref(lo), C.byref(hi))
        return float(lo.value), float(hi.value)

    def sample(self, v, size: int, seed: int) -> np.ndarray:
        rng = self.Rng()
        self.lib.ux_rng_seed(C.byref(rng), seed)
        out, po = self._reals(np.zeros(size))
        self.lib.ux_sample_n(C.byref(self.to_c(v)), C.byref(rng), po, size)
        return out.astype(np.float64)

    def split_points(self, v) -> np.ndarray:
        c = self.to_c(v)
        split = (self.real * MAX_ETA)()
        self._check(self.lib.ux_split_points(c.x, c.w, c.count, split), "ux_split_points")
        return np.array(split[: max(c.count - 1, 0)], dtype=np.float64)

    def pdf(self, v, t):
        c = self.to_c(v)
        ts = np.atleast_1d(np.asarray(t, dtype=np.float64))
        out = np.array([self.lib.ux_pdf(C.byref(c), float(tt)) for tt in ts.ravel()]).reshape(ts.shape)
        return out if np.ndim(t) else float(out[0])

    # -- joint values (uxemu.joint) -------------------------------------------------------------------
    def joint_to_c(self, v: NJoint):
        c = self.Joint()
        n, d = np.shape(v.x)
        if not (1 <= n <= MAX_ETA and 1 <= d <= MAX_DIM):
            raise ValueError(f"a native joint value holds 1..{MAX_ETA} atoms of 1..{MAX_DIM} components, got {n}×{d}")
        c.count, c.eta, c.dim, c.sources = n, int(v.eta), d, int(v.sources)
        c.x[: n * d] = [float(t) for t in np.ravel(v.x)]
        c.w[:n] = [float(t) for t in v.w]
        return c

    def joint_from_c(self, c) -> NJoint:
        n, d = c.count, c.dim
        x = np.array(c.x[: n * d], dtype=np.float64).reshape(n, d)
        return NJoint(x, np.array(c.w[:n], dtype=np.float64), int(c.eta), int(c.sources))

    def joint_from_reference(self, v) -> NJoint:
        """A native copy of a reference `uxemu.joint.JointValue` (a fresh native source)."""
        return NJoint(np.asarray(v.x, dtype=np.float64), np.asarray(v.w, dtype=np.float64), v.eta, self.fresh_source())

    def joint_ttr(self, x, w, n: int):
        """Zero weights dropped (ux_joint_compact), then the joint TTR(n): rows and masses, not renormalised
        (the reference's uxemu.joint.reduce of the kept rows)."""
        x2 = np.atleast_2d(np.asarray(x, dtype=np.float64).T).T
        count, dim = x2.shape
        xs, px = self._reals(x2.ravel())
        ws, pw = self._reals(np.array(w, dtype=np.float64).ravel())
        kept, r = C.c_size_t(count), C.c_size_t(0)
        self._check(self.lib.ux_joint_compact(px, pw, C.byref(kept), dim), "ux_joint_compact")
        wsp = self.workspace(self.lib.ux_abi_joint_ttr_workspace_bytes(kept.value, dim, 1 << n))
        self._check(self.lib.ux_joint_ttr(px, pw, kept.value, dim, n, C.byref(r), C.byref(wsp)), "ux_joint_ttr")
        return (xs[: r.value * dim].astype(np.float64).reshape(r.value, dim), ws[: r.value].astype(np.float64))

    def joint_from_atoms(self, x, w=None, eta: int = 16) -> NJoint:
        x2 = np.atleast_2d(np.asarray(x, dtype=np.float64).T).T
        count, dim = x2.shape
        xs, px = self._reals(x2.ravel())
        if w is None:
            pw = None
        else:
            ws, pw = self._reals(np.ravel(w))
            if ws.size != count:
                raise ValueError(f"{count} atoms but {ws.size} weights")
        out = self.Joint()
        wsp = self.workspace(self.lib.ux_abi_joint_from_atoms_workspace_bytes(count, dim, eta or 16))
        self._check(
            self.lib.ux_joint_from_atoms(C.byref(out), px, pw, count, dim, eta, C.byref(self._sources), C.byref(wsp)),
            "ux_joint_from_atoms",
        )
        return self.joint_from_c(out)

    def joint_product(self, *values: NValue, eta: int = 0) -> NJoint:
        """The same Python object twice is the same input (same pointer), as for a lift."""
        cache, arr = {}, (C.POINTER(self.Value) * len(values))()
        for i, v in enumerate(values):
            if id(v) not in cache:
                cache[id(v)] = self.to_c(v)
            arr[i] = C.pointer(cache[id(v)])
        distinct = {id(v): v for v in values}.values()
        points = int(np.prod([len(v) for v in distinct]))
        size = eta or max(v.eta for v in distinct)
        out = self.Joint()
        wsp = self.workspace(self.lib.ux_abi_joint_from_atoms_workspace_bytes(points, len(values), size))
        self._check(self.lib.ux_joint_product(C.byref(out), arr, len(values), eta, C.byref(wsp)), "ux_joint_product")
        return self.joint_from_c(out)

    def joint_check(self, v: NJoint) -> int:
        return int(self.lib.ux_joint_check(C.byref(self.joint_to_c(v))))

    def joint_mean(self, v: NJoint) -> np.ndarray:
        out = (self.real * MAX_DIM)()
        self._check(self.lib.ux_joint_mean(C.byref(self.joint_to_c(v)), out), "ux_joint_mean")
        return np.array(out[: v.dim], dtype=np.float64)

    def joint_cov(self, v: NJoint) -> np.ndarray:
        out = (self.real * (MAX_DIM * MAX_DIM))()
        self._check(self.lib.ux_joint_cov(C.byref(self.joint_to_c(v)), out), "ux_joint_cov")
        return np.array(out[: v.dim * v.dim], dtype=np.float64).reshape(v.dim, v.dim)

    def joint_marginal(self, v: NJoint, k: int) -> NValue:
        out = self.Value()
        self._check(self.lib.ux_joint_marginal(C.byref(out), C.byref(self.joint_to_c(v)), k), "ux_joint_marginal")
        return self.from_c(out)

    def _joint_stat(self, name: str, v: NJoint, k: int, t: float) -> float:
        out = self.real()
        self._check(getattr(self.lib, name)(C.byref(self.joint_to_c(v)), k, t, C.byref(out)), name)
        return float(out.value)

    def joint_quantile(self, v: NJoint, k: int, q: float) -> float:
        return self._joint_stat("ux_joint_quantile", v, k, q)

    def joint_cdf(self, v: NJoint, k: int, t: float) -> float:
        return self._joint_stat("ux_joint_cdf", v, k, t)

    def joint_sf(self, v: NJoint, k: int, t: float) -> float:
        return self._joint_stat("ux_joint_sf", v, k, t)

    def joint_lift(self, f, state: NJoint, *noises: NValue, dim_out: int | None = None, eta: int = 0) -> NJoint:
        """uxemu.joint.lift through the C core: `f(x, w)` is called once per point with (1, d) and (1, k)
        arrays and returns a (1, d') array — the same function the reference calls on all rows at once."""
        d, k = state.dim, len(noises)
        if dim_out is None:
            dim_out = np.asarray(f(state.x[:1], np.zeros((1, k)))).shape[1]

        def trampoline(out, x, w, _ctx):
            xs = np.array([[x[i] for i in range(d)]])
            ws = np.array([[w[i] for i in range(k)]])
            y = np.asarray(f(xs, ws), dtype=np.float64).ravel()
            for i in range(dim_out):
                out[i] = float(y[i])

        cb = self.joint_fn_type(trampoline)
        cache, arr = {}, (C.POINTER(self.Value) * max(k, 1))()
        for i, v in enumerate(noises):
            if id(v) not in cache:
                cache[id(v)] = self.to_c(v)
            arr[i] = C.pointer(cache[id(v)])
        distinct = {id(v): v for v in noises}.values()
        points = len(state) * int(np.prod([len(v) for v in distinct]))
        size = eta or max([state.eta] + [v.eta for v in distinct])
        cstate, out = self.joint_to_c(state), self.Joint()
        wsp = self.workspace(self.lib.ux_abi_joint_from_atoms_workspace_bytes(points, dim_out, size))
        self._check(
            self.lib.ux_joint_lift(C.byref(out), cb, None, dim_out, C.byref(cstate), arr, k, eta, C.byref(wsp)),
            "ux_joint_lift",
        )
        return self.joint_from_c(out)

    # -- models, BayesLaplace and the filter -----------------------------------------------------------
    def model(self, system_id: int):
        m = self.lib.ux_model_find(system_id)
        if not m:
            raise ValueError(f"the native core has no system {system_id}")
        return m

    def _params(self, model, params):
        n = model.contents.n_params
        if params is None:
            params = [model.contents.defaults[i] for i in range(n)]
        if len(params) != n:
            raise ValueError(f"system {model.contents.id} takes {n} parameters, got {len(params)}")
        return list(map(float, params))

    def bayes_laplace(
        self,
        system_id: int,
        prior_x,
        prior_w,
        z,
        omega=None,
        m: int = 1,
        eta: int = 16,
        likelihood: str = "kernel",
        params=None,
        with_evidence: bool = False,
    ):
        """BayesLaplace of prior atoms (any order) under a built-in system's observation model,
        with its noises quantized at eta. Returns (NValue, status), and the log evidence third when
        `with_evidence`."""
        model = self.model(system_id)
        p = self._params(model, params)
        preal = (self.real * len(p))(*p)
        ctx = self.ModelCtx()
        self.lib.ux_model_context(model, C.cast(preal, C.POINTER(self.real)), 0, 0.0, C.byref(ctx))
        noises = self.Noises()
        code = model.contents.code.contents
        self.noises_fn_type(code.noises)(preal, C.byref(noises))
        keep = [preal, ctx]
        obs = self.Observation()
        obs.form = LIKELIHOODS[likelihood]
        obs.ctx = C.cast(C.pointer(ctx), C.c_void_p)
        obs.family = code.family
        obs.kernel = code.kernel
        obs.sampler = code.sampler
        obs.eta = eta
        if likelihood == "kernel" and noises.n_inner:
            inner = self.Value()
            self._check(
                self.lib.ux_quantize(C.byref(noises.inner), eta, C.byref(inner), C.byref(self._sources)), "inner noise"
            )
            obs.inner = C.pointer(inner)
            keep.append(inner)
        if likelihood == "sampler":
            arr = (C.POINTER(self.Value) * noises.n_noise)()
            for i in range(noises.n_noise):
                v = self.Value()
                self._check(
                    self.lib.ux_quantize(C.byref(noises.noise[i]), eta, C.byref(v), C.byref(self._sources)), "noise"
                )
                keep.append(v)
                arr[i] = C.pointer(v)
            obs.noise = arr
            obs.n_noise = noises.n_noise
            keep.append(arr)
        xs, px = self._reals(np.array(prior_x, dtype=np.float64))
        ws, pw = self._reals(np.array(prior_w, dtype=np.float64))
        zs, pz = self._reals(np.atleast_1d(z))
        if omega is None:
            po = None
        else:
            oms, po = self._reals(np.atleast_1d(omega))
        ev = self.Evidence(pz, po, zs.size, m)
        out = self.Value()
        P = xs.size
        if likelihood == "sampler":
            noise_pts = int(np.prod([arr[i].contents.count for i in range(noises.n_noise)]))
        else:
            noise_pts = obs.inner.contents.count if obs.inner else 1
        wsp = self.workspace(self.lib.ux_abi_bayes_workspace_bytes(obs.form, P, noise_pts))
        log_evidence = self.real()
        st = self.lib.ux_bayes_laplace(
            C.byref(out),
            C.byref(obs),
            px,
            pw,
            P,
            C.byref(ev),
            eta,
            C.byref(self._sources),
            C.byref(wsp),
            C.byref(log_evidence),
        )
        self._check(st, "ux_bayes_laplace")
        return (self.from_c(out), st, float(log_evidence.value)) if with_evidence else (self.from_c(out), st)

    def joint_model(self, system_id: int):
        m = self.lib.ux_joint_model_find(system_id)
        if not m:
            raise ValueError(f"the native core has no joint system {system_id}")
        return m

    def joint_filter(
        self,
        system_id: int,
        eta: int = 16,
        mode: str = "refined",
        params=None,
        prior=None,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ) -> "NativeJointFilter":
        """A ux_joint_filter; prior: None, or one (kind, a, b) per component; gate / gate_outliers: its innovation
        gate (ux_joint_filter_set_gate; None: UX_OUTLIER_GATE); nis_limit: ux_joint_filter_set_consistency (None:
        UX_NIS_LIMIT)."""
        return _gated(NativeJointFilter(self, system_id, eta, mode, params, prior), gate, gate_outliers, nis_limit)

    def run_joint_filter(
        self,
        system_id: int,
        z,
        eta: int = 16,
        mode: str = "refined",
        k=None,
        u=None,
        params=None,
        prior=None,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ):
        """uxemu.joint_filter.run_joint_filter through the C core: a JointRun with NJoint posteriors and each
        step's test ratio."""
        from .joint_filter import run_trace

        f = self.joint_filter(system_id, eta, mode, params, prior, gate, gate_outliers, nis_limit)
        return run_trace(
            f.predict,
            f.update,
            lambda: (f.mean(), f.cov(), f.log_evidence(), f.posterior()),
            f.dim,
            z,
            k,
            u,
            ratio=f.test_ratio,
            nis=f.nis,
        )

    def joint_cells(
        self,
        system_id: int,
        eta: int = 16,
        params=None,
        prior=None,
        exchange=True,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ) -> "NativeJointCells":
        """A ux_joint_cells; prior: None, or one (kind, a, b) per component; exchange: ux_joint_cells_set_exchange;
        gate / gate_outliers: its innovation gate (ux_joint_cells_set_gate; None: UX_OUTLIER_GATE); nis_limit:
        ux_joint_cells_set_consistency (None: UX_NIS_LIMIT)."""
        return _gated(NativeJointCells(self, system_id, eta, params, prior, exchange), gate, gate_outliers, nis_limit)

    def run_joint_cells(
        self,
        system_id: int,
        z,
        eta: int = 16,
        k=None,
        u=None,
        params=None,
        prior=None,
        exchange: bool = True,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ):
        """uxemu.joint_cells.run_joint_cells through the C core: a JointRun whose posteriors are the cells."""
        from .joint_filter import run_trace

        f = self.joint_cells(system_id, eta, params, prior, exchange, gate, gate_outliers, nis_limit)
        return run_trace(
            f.predict,
            f.update,
            lambda: (f.mean(), f.cov(), f.log_evidence(), f.cells()),
            f.dim,
            z,
            k,
            u,
            ratio=f.test_ratio,
            nis=f.nis,
        )

    def workspace_bytes(self, system_id: int, eta: int, mode: str = "refined", likelihood: str = "kernel") -> int:
        return int(self.lib.ux_filter_workspace_bytes(self.model(system_id), eta, MODES[mode], LIKELIHOODS[likelihood]))

    def filter(
        self,
        system_id: int,
        eta: int = 16,
        mode: str = "refined",
        likelihood: str = "kernel",
        params=None,
        prior=None,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ) -> "NativeFilter":
        """A filter; gate / gate_outliers: its innovation gate (ux_filter_set_gate; None: UX_OUTLIER_GATE);
        nis_limit: ux_filter_set_consistency (None: UX_NIS_LIMIT)."""
        return _gated(
            NativeFilter(self, system_id, eta, mode, likelihood, params, prior), gate, gate_outliers, nis_limit
        )

    def run_filter(
        self,
        system_id: int,
        k,
        u,
        z,
        eta: int = 16,
        mode: str = "refined",
        likelihood: str = "kernel",
        params=None,
        prior=None,
        atoms: bool = True,
        density_evidence: bool = False,
        gate: float | None = None,
        gate_outliers: bool = False,
        nis_limit: float | None = None,
    ) -> NativeRun:
        """Filter a whole trace (arrays k, u, z; the first step only updates; a NaN z is a step without
        observation), like uxemu.run_filter. density_evidence: also each step's evidence by the filter
        density's quadrature (ux_filter_density_log_evidence)."""
        from .filter import observation

        f = self.filter(system_id, eta, mode, likelihood, params, prior, gate, gate_outliers, nis_limit)
        T = len(z)
        means, vars_, status, posts, evidence = np.empty(T), np.empty(T), np.empty(T, dtype=np.int8), [], np.empty(T)
        density = np.empty(T) if density_evidence else None
        ratio, nis = np.empty(T), np.empty(T)
        for i in range(T):
            if i > 0:
                f.predict(int(k[i]), float(u[i]))
            status[i] = f.update(observation(z[i]))
            means[i], vars_[i], evidence[i] = f.mean(), f.var(), f.log_evidence()
            ratio[i], nis[i] = f.test_ratio(), f.nis()
            if density_evidence:
                density[i] = f.density_log_evidence()
            if atoms:
                posts.append(f.posterior_atoms())
        return NativeRun(means, vars_, status, posts, evidence, f.log_likelihood(), density, ratio, nis)

    def _declare_simulate(self):
        """ux_abi_simulate and ux_abi_rng_jump, declared when first used (a library built before them still
        loads for everything else)."""
        L, Rng = self.lib, C.POINTER(self.Rng)
        try:
            sim, jump = L.ux_abi_simulate, L.ux_abi_rng_jump
        except AttributeError:
            raise NativeLayoutError(self.path, ["ux_abi_simulate is missing (a build older than it)"]) from None
        sim.restype = C.c_int
        sim.argtypes = [
            C.POINTER(self.Model),
            C.POINTER(C.c_double),
            C.POINTER(self.Law),
            Rng,
            C.c_uint32,
            C.POINTER(C.c_double),
            C.c_int,
            C.POINTER(C.c_double),
            C.POINTER(C.c_double),
        ]
        jump.restype, jump.argtypes = None, [Rng]
        return sim, jump

    def simulate(
        self,
        system,
        steps: int,
        seed: int,
        traces: int = 1,
        params=None,
        prior=None,
        u=None,
        likelihood: str | None = None,
    ) -> list:
        """`traces` traces of `steps` steps of a scalar system (id or name) simulated from its C model with the
        core's generator (ux_abi_simulate), as uxemu.traces.Trace objects with k, u, z, x and the meta a
        simulated trace carries (system, params). Trace i draws from stream i of `seed` (the generator seeded
        with it, then jumped 2^128 draws i times), so it is the same whatever `traces` is; the same seed gives
        the same bits. params: the vector in table order (None: the defaults); prior: (kind, a, b[, c]) with a
        kind of LAW_KINDS and ux_law's parameters (None: the system's); u: the control input of each step
        (None: 0); likelihood: the observation form that draws z, "sampler" or "kernel" (None: the sampler form
        when the model has one, else the kernel form).
        The draws are not numpy's: a trace agrees with the reference's simulation in law, not in value."""
        from .traces import Trace

        sim, jump = self._declare_simulate()
        if isinstance(system, str):
            model = self.lib.ux_model_named(system.encode())
        else:
            model = self.lib.ux_model_find(int(system))
        if not model:
            raise ValueError(f"the native core has no scalar system {system!r}")
        name = model.contents.name.decode()
        steps, traces, seed = int(steps), int(traces), int(seed)
        if not 1 <= steps < 2**32 or traces < 1:
            raise ValueError(f"steps must be 1 … {2**32 - 1} and traces at least 1, got {steps} and {traces}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"a seed is a whole number 0 … 2^64 − 1, got {seed}")
        code = model.contents.code.contents
        if likelihood is not None:
            if likelihood not in LIKELIHOODS:
                raise ValueError(f"likelihood is one of {', '.join(LIKELIHOODS)}, got {likelihood!r}")
            if not (code.sampler if likelihood == "sampler" else code.kernel):
                raise ValueError(f"system {name} has no {likelihood} form")
        p = self._params(model, params)
        pvec = (C.c_double * max(len(p), 1))(*p)
        law = None
        if prior is not None:
            kind, *abc = prior
            law = self.Law(LAW_KINDS[kind] if isinstance(kind, str) else int(kind), *map(float, abc))
        uk = np.zeros(steps) if u is None else np.ascontiguousarray(u, dtype=np.float64)
        if uk.shape != (steps,):
            raise ValueError(f"u holds one control input per step ({steps}), got shape {uk.shape}")
        form = -1 if likelihood is None else LIKELIHOODS[likelihood]
        dp = C.POINTER(C.c_double)
        out = []
        for stream in self._trace_streams(seed, traces, jump):
            x, z = np.empty(steps), np.empty(steps)
            self._check(
                sim(
                    model,
                    pvec,
                    None if law is None else C.byref(law),
                    C.byref(stream),
                    steps,
                    uk.ctypes.data_as(dp),
                    form,
                    x.ctypes.data_as(dp),
                    z.ctypes.data_as(dp),
                ),
                f"ux_abi_simulate({name})",
            )
            meta = {"system": name, "params": ",".join(repr(float(v)) for v in p)} if p else {}
            out.append(Trace(np.arange(steps), uk.copy(), z, x, meta))
        return out

    def _declare_simulate_joint(self):
        """ux_abi_joint_simulate, ux_abi_joint_shape and ux_abi_rng_jump, declared when first used."""
        L = self.lib
        try:
            sim, shape, jump = L.ux_abi_joint_simulate, L.ux_abi_joint_shape, L.ux_abi_rng_jump
        except AttributeError:
            raise NativeLayoutError(self.path, ["ux_abi_joint_simulate is missing (a build older than it)"]) from None
        dp, up = C.POINTER(C.c_double), C.POINTER(C.c_uint)
        sim.restype, sim.argtypes = (
            C.c_int,
            [C.c_void_p, dp, C.POINTER(self.Law), C.POINTER(self.Rng), C.c_uint32, dp, dp, dp],
        )
        shape.restype, shape.argtypes = C.c_int, [C.c_void_p, C.POINTER(C.c_char_p), up, up, up, up, dp]
        jump.restype, jump.argtypes = None, [C.POINTER(self.Rng)]
        L.ux_joint_model_named.restype, L.ux_joint_model_named.argtypes = C.c_void_p, [C.c_char_p]
        return sim, shape, jump

    def joint_shape(self, system) -> dict | None:
        """What the library says of a joint system (id or name): {pointer, name, id, dim, dim_obs, defaults};
        None when it has no such system."""
        _, shape, _ = self._declare_simulate_joint()
        L = self.lib
        model = (
            L.ux_joint_model_named(system.encode()) if isinstance(system, str) else L.ux_joint_model_find(int(system))
        )
        if not model:
            return None
        name, sid, dim, dim_obs, n = C.c_char_p(), C.c_uint(), C.c_uint(), C.c_uint(), C.c_uint()
        defaults = (C.c_double * 16)()
        shape(model, C.byref(name), C.byref(sid), C.byref(dim), C.byref(dim_obs), C.byref(n), defaults)
        return {
            "pointer": model,
            "name": name.value.decode(),
            "id": sid.value,
            "dim": dim.value,
            "dim_obs": dim_obs.value,
            "defaults": [defaults[i] for i in range(n.value)],
        }

    def simulate_joint(self, system, steps: int, seed: int, traces: int = 1, params=None, prior=None, u=None) -> list:
        """`traces` traces of a joint system (id or name) from its C model (ux_abi_joint_simulate), as
        uxemu.joint_systems.simulate gives one: a list of (x (steps, dim), z (steps, dim_obs)) pairs, with
        streams, seeds and u as `simulate` takes them; prior: None (the system's) or one (kind, a, b[, c]) per
        state component. The draws are the C core's: the reference's law, not its values."""
        sim, _, jump = self._declare_simulate_joint()
        found = self.joint_shape(system)
        if found is None:
            raise ValueError(f"the native core has no joint system {system!r}")
        name, dim, dim_obs, defaults = found["name"], found["dim"], found["dim_obs"], found["defaults"]
        p = list(defaults) if params is None else list(map(float, params))
        if len(p) != len(defaults):
            raise ValueError(f"system {name} takes {len(defaults)} parameters, got {len(p)}")
        steps, traces, seed = int(steps), int(traces), int(seed)
        if not 1 <= steps < 2**32 or traces < 1:
            raise ValueError(f"steps must be 1 … {2**32 - 1} and traces at least 1, got {steps} and {traces}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"a seed is a whole number 0 … 2^64 − 1, got {seed}")
        laws = None
        if prior is not None:
            if len(prior) != dim:
                raise ValueError(f"system {name} has {dim} state components; the prior gives {len(prior)} laws")
            laws = (self.Law * dim)(
                *[
                    self.Law(LAW_KINDS[kind] if isinstance(kind, str) else int(kind), *map(float, abc))
                    for kind, *abc in prior
                ]
            )
        uk = np.zeros(steps) if u is None else np.ascontiguousarray(u, dtype=np.float64)
        if uk.shape != (steps,):
            raise ValueError(f"u holds one control input per step ({steps}), got shape {uk.shape}")
        dp = C.POINTER(C.c_double)
        pvec = (C.c_double * max(len(p), 1))(*p)
        out = []
        for stream in self._trace_streams(seed, traces, jump):
            x, z = np.empty((steps, dim)), np.empty((steps, dim_obs))
            self._check(
                sim(
                    found["pointer"],
                    pvec,
                    laws,
                    C.byref(stream),
                    steps,
                    uk.ctypes.data_as(dp),
                    x.ctypes.data_as(dp),
                    z.ctypes.data_as(dp),
                ),
                f"ux_abi_joint_simulate({name})",
            )
            out.append((x, z))
        return out

    def _trace_streams(self, seed: int, traces: int, jump):
        """One generator per trace: trace i's is the seed's jumped i times (ux_abi_rng_jump), each a copy that
        its trace advances on its own, so a trace does not depend on how many are asked for."""
        rng = self.Rng()
        self.lib.ux_rng_seed(C.byref(rng), seed)
        for _ in range(traces):
            stream = self.Rng()
            C.pointer(stream)[0] = rng
            yield stream
            jump(C.byref(rng))


class NativeFilter:
    """One ux_filter with its own workspace, driven step by step."""

    def __init__(self, nat: Native, system_id: int, eta: int, mode: str, likelihood: str, params, prior):
        self.nat = nat
        model = nat.model(system_id)
        p = nat._params(model, params)
        self._params = (C.c_double * len(p))(*p)
        self._state = (C.c_uint64 * ((nat.lib.ux_filter_sizeof() + 7) // 8))()
        nbytes = nat.workspace_bytes(system_id, eta, mode, likelihood)
        self._ws = (C.c_uint64 * ((nbytes + 7) // 8))()
        ws = nat.Workspace(C.cast(self._ws, C.c_void_p), nbytes)
        law_p = None
        if prior is not None:
            kind, a, b = prior
            self._prior = nat.Law(LAW_KINDS[kind], a, b, 0.0)
            law_p = C.pointer(self._prior)
        cfg = nat.FilterConfig(model, self._params, eta, MODES[mode], LIKELIHOODS[likelihood], law_p)
        nat._check(nat.lib.ux_filter_init(self._state, C.byref(cfg), ws), "ux_filter_init")
        self.workspace_in_use = int(nat.lib.ux_filter_workspace_in_use(self._state))

    def predict(self, k: int, u: float = 0.0) -> int:
        return self.nat._check(self.nat.lib.ux_filter_predict(self._state, k, u), "ux_filter_predict")

    def update(self, z, omega=None, m: int = 1) -> int:
        """BayesLaplace with evidence z (weights omega, count m); z None: a step without observation."""
        if z is None:
            return self.nat._check(self.nat.lib.ux_filter_update(self._state, None, None, 0, 0), "ux_filter_update")
        zs = np.ascontiguousarray(np.atleast_1d(z), dtype=np.float64)
        po = None
        if omega is not None:
            self._om = np.ascontiguousarray(np.atleast_1d(omega), dtype=np.float64)
            po = self._om.ctypes.data_as(C.POINTER(C.c_double))
        st = self.nat.lib.ux_filter_update(self._state, zs.ctypes.data_as(C.POINTER(C.c_double)), po, zs.size, m)
        return self.nat._check(st, "ux_filter_update")

    def set_gate(self, gate: float, gate_outliers: bool = False) -> None:
        """The innovation gate in standard deviations (inf: off); gate_outliers: treat a failing observation as
        missing (ux_filter_set_gate)."""
        self.nat._check(
            self.nat.lib.ux_filter_set_gate(self._state, float(gate), int(bool(gate_outliers))), "ux_filter_set_gate"
        )

    def test_ratio(self) -> float:
        """ν²/S of the last update (NaN: not taken)."""
        return float(self.nat.lib.ux_filter_test_ratio(self._state))

    def nis(self) -> float:
        """The running mean of the test ratios (ux_filter_nis; docs/semantics.md, "Consistency")."""
        return float(self.nat.lib.ux_filter_nis(self._state))

    def set_consistency(self, limit: float) -> None:
        """The limit of that mean above which an update that would be OK is INCONSISTENT (inf: off)."""
        self.nat._check(self.nat.lib.ux_filter_set_consistency(self._state, float(limit)), "ux_filter_set_consistency")

    def mean(self) -> float:
        return float(self.nat.lib.ux_filter_mean(self._state))

    def var(self) -> float:
        return float(self.nat.lib.ux_filter_var(self._state))

    def log_evidence(self) -> float:
        return float(self.nat.lib.ux_filter_log_evidence(self._state))

    def log_likelihood(self) -> float:
        return float(self.nat.lib.ux_filter_log_likelihood(self._state))

    def density_log_evidence(self) -> float:
        return float(self.nat.lib.ux_filter_density_log_evidence(self._state))

    def posterior(self) -> NValue:
        return self.nat.from_c(self.nat.lib.ux_filter_posterior(self._state).contents)

    def logpdf(self, t):
        """log density of the posterior at t (ux_filter_logpdf: the filter density of docs/semantics.md)."""
        ts = np.atleast_1d(np.asarray(t, dtype=np.float64))
        out = np.array([self.nat.lib.ux_filter_logpdf(self._state, float(v)) for v in ts.ravel()]).reshape(ts.shape)
        return out if np.ndim(t) else float(out[0])

    def pdf(self, t):
        ts = np.atleast_1d(np.asarray(t, dtype=np.float64))
        out = np.array([self.nat.lib.ux_filter_pdf(self._state, float(v)) for v in ts.ravel()]).reshape(ts.shape)
        return out if np.ndim(t) else float(out[0])

    def density_form(self) -> str:
        from .filter import DENSITY_FORMS

        return DENSITY_FORMS[self.nat.lib.ux_filter_density_form(self._state)]

    def posterior_atoms(self):
        v = self.posterior()
        return v.x, v.w


class _NativeJoint:
    """A vector-state filter of the C core with its own workspace, driven step by step: the calls both joint
    filters share, named by their C prefix (`ux_joint_filter`, `ux_joint_cells`)."""

    prefix = ""

    def __init__(self, nat: Native, system_id: int, eta: int, mode: str, params, prior):
        self.nat = nat
        model = nat.joint_model(system_id)
        n = len(params) if params is not None else 0
        self._params = (C.c_double * max(n, 1))(*(params or []))
        self._state = (C.c_uint64 * ((self._call("sizeof") + 7) // 8))()
        nbytes = int(self._call("workspace_bytes", model, eta))
        self._ws = (C.c_uint64 * ((max(nbytes, 8) + 7) // 8))()
        law_p = None
        if prior is not None:
            self._prior = (nat.Law * len(prior))(*[nat.Law(LAW_KINDS[kind], a, b, 0.0) for kind, a, b in prior])
            law_p = C.cast(self._prior, C.POINTER(nat.Law))
        cfg = nat.JointFilterConfig(model, self._params if params is not None else None, eta, MODES[mode], law_p)
        workspace = nat.Workspace(C.cast(self._ws, C.c_void_p), nbytes)
        nat._check(self._call("init", self._state, C.byref(cfg), workspace), f"{self.prefix}_init")
        from . import joint_systems

        self.dim = joint_systems.spec(system_id).dim
        self.workspace_bytes = nbytes

    def _call(self, name: str, *args):
        return getattr(self.nat.lib, f"{self.prefix}_{name}")(*args)

    def set_gate(self, gate: float, gate_outliers: bool = False) -> None:
        """The innovation gate in standard deviations (inf: off); gate_outliers: a failing observation is not
        weighed (ux_joint_filter_set_gate, ux_joint_cells_set_gate)."""
        self._checked("set_gate", float(gate), int(bool(gate_outliers)))

    def test_ratio(self) -> float:
        return float(self._call("test_ratio", self._state))

    def nis(self) -> float:
        """The running mean of the test ratio per observation component (docs/semantics.md, "Consistency")."""
        return float(self._call("nis", self._state))

    def set_consistency(self, limit: float) -> None:
        """The limit of that mean above which an update that would be OK is INCONSISTENT (inf: off)."""
        self._checked("set_consistency", float(limit))

    def _checked(self, name: str, *args) -> int:
        return self.nat._check(self._call(name, self._state, *args), f"{self.prefix}_{name}")

    def predict(self, k: int, u: float = 0.0) -> int:
        return self._checked("predict", k, u)

    def update(self, z, omega=None, m: int = 1) -> int:
        """Evidence z: one point (dim_obs values) or J rows; None: a step without observation."""
        if z is None:
            return self._checked("update", None, None, 0, 0)
        zs = np.ascontiguousarray(np.asarray(z, dtype=np.float64))
        J = 1 if zs.ndim <= 1 else zs.shape[0]
        po = None
        if omega is not None:
            self._om = np.ascontiguousarray(np.atleast_1d(omega), dtype=np.float64)
            po = self._om.ctypes.data_as(C.POINTER(C.c_double))
        return self._checked("update", zs.ctypes.data_as(C.POINTER(C.c_double)), po, J, m)

    def mean(self) -> np.ndarray:
        out = (C.c_double * MAX_DIM)()
        self._checked("mean", out)
        return np.array(out[: self.dim])

    def cov(self) -> np.ndarray:
        out = (C.c_double * (MAX_DIM * MAX_DIM))()
        self._checked("cov", out)
        return np.array(out[: self.dim * self.dim]).reshape(self.dim, self.dim)

    def log_evidence(self) -> float:
        return float(self._call("log_evidence", self._state))

    def log_likelihood(self) -> float:
        return float(self._call("log_likelihood", self._state))


class NativeJointFilter(_NativeJoint):
    """One ux_joint_filter (the atom filter) with its own workspace, driven step by step."""

    prefix = "ux_joint_filter"

    def posterior(self) -> NJoint:
        return self.nat.joint_from_c(self._call("posterior", self._state).contents)


class NativeJointCells(_NativeJoint):
    """One ux_joint_cells (the cell filter) with its own workspace, driven step by step."""

    prefix = "ux_joint_cells"

    def __init__(self, nat: Native, system_id: int, eta: int, params, prior, exchange: bool = True):
        super().__init__(nat, system_id, eta, "cells", params, prior)
        self._checked("set_exchange", int(bool(exchange)))

    def departure(self) -> np.ndarray:
        """How far the model's own posterior mean may be from the belief's (ux_joint_cells_departure)."""
        out = (C.c_double * MAX_DIM)()
        self._checked("departure", out)
        return np.array(out[: self.dim])

    def posterior(self):
        """The cells' means and weights (uxemu.joint_cells.CellAtoms), as the link carries them."""
        from .joint_cells import CellAtoms

        w, m, _ = self.cells()
        return CellAtoms(m, w)

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(weights, means, covariances) of the cells."""
        n = int(self._call("count", self._state))
        w, m, P = C.c_double(), (C.c_double * MAX_DIM)(), (C.c_double * (MAX_DIM * MAX_DIM))()
        ws, ms, Ps = [], [], []
        for i in range(n):
            self._checked("cell", i, C.byref(w), m, P)
            ws.append(w.value)
            ms.append(list(m))
            Ps.append(list(P))
        d = self.dim
        return (
            np.array(ws),
            np.array(ms).reshape(n, MAX_DIM)[:, :d],
            np.array(Ps).reshape(n, -1)[:, : d * d].reshape(n, d, d),
        )

    def logpdf(self, x) -> float:
        xs = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
        return float(self._call("logpdf", self._state, xs.ctypes.data_as(C.POINTER(C.c_double))))


def _gated(f, gate: float | None, gate_outliers: bool, nis_limit: float | None = None):
    """A filter (scalar, joint or cells) with its innovation gate set unless both are init's (gate None:
    UX_OUTLIER_GATE), and its consistency limit unless it is init's (None: UX_NIS_LIMIT)."""
    if gate is not None or gate_outliers:
        from .filter import OUTLIER_GATE

        f.set_gate(OUTLIER_GATE if gate is None else gate, gate_outliers)
    if nis_limit is not None:
        f.set_consistency(nis_limit)
    return f


_loaded: dict = {}


def load(float_build: bool = False) -> Native:
    """The native engine (cached per build)."""
    if float_build not in _loaded:
        _loaded[float_build] = Native(float_build=float_build)
    return _loaded[float_build]
