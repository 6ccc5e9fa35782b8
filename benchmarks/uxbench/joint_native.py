"""ctypes bindings of the joint filtering benchmark's C code in libuxbench.so (`make bench-lib`), over the
joint systems of firmware/src/models (ux/joint_model.h):

- `run_pf`: the bootstrap particle filter of benchmarks/c/src/joint_pf.c (uxbench/joint_pf.h);
- `run_kf`: the EKF or UKF of benchmarks/c/src/joint_kf.c (uxbench/joint_kf.h);
- `run_ux`: a whole trace through the joint ux filter in one C call (benchmarks/c/src/joint_ux_run.c).

A system is named by its table name ("pendulum") or given as a pointer to a `ux_joint_model` (a model
built outside the table, as the tests' linear-Gaussian check does). Observations are (T, dim_obs) arrays.
Times as in `uxbench.pf_native`: `cpu_ns` is the calling thread's CPU time of the single C call,
`elapsed_ns` its wall clock; outputs are allocated before the clocks start.
"""

from __future__ import annotations

import ctypes as C
import time
from dataclasses import dataclass, field

import numpy as np

from uxemu import layouts, native

from . import clib, pf_native

MAX_ETA = native.MAX_ETA
JKF_METHODS = {"ekf": 0, "ukf": 1}  # uxb_joint_kf_method


@dataclass
class JointPFRun:
    mean: np.ndarray  # (T, dim)
    cov: np.ndarray  # (T, dim, dim)
    ess: np.ndarray  # (T,)
    fallback: np.ndarray  # (T,) bool
    x: np.ndarray | None = field(default=None, repr=False)  # (T, n, dim) weighted set of each step
    w: np.ndarray | None = field(default=None, repr=False)  # (T, n) its normalised weights
    log_evidence: np.ndarray | None = field(default=None, repr=False)  # (T,)
    elapsed_ns: int = 0
    cpu_ns: int = 0


@dataclass
class JointKFRun:
    mean: np.ndarray  # (T, dim) posterior mean of the Gaussian belief
    cov: np.ndarray  # (T, dim, dim) its covariance
    skipped: np.ndarray  # (T,) bool: the update was skipped
    log_evidence: np.ndarray | None = field(default=None, repr=False)  # (T,) log N(z; ẑ, S); 0 where z is missing
    nis: np.ndarray | None = field(default=None, repr=False)  # (T,) (z − ẑ)ᵀS⁻¹(z − ẑ); NaN where z is missing
    elapsed_ns: int = 0
    cpu_ns: int = 0


@dataclass
class JointUXRun:
    mean: np.ndarray  # (T, dim)
    cov: np.ndarray  # (T, dim, dim)
    status: np.ndarray  # (T,) int8: 0 OK, 1 fallback
    count: np.ndarray | None = field(default=None, repr=False)  # (T,) atoms per posterior
    x: np.ndarray | None = field(default=None, repr=False)  # (T, MAX_ETA, dim), first count[t] rows used
    w: np.ndarray | None = field(default=None, repr=False)  # (T, MAX_ETA)
    elapsed_ns: int = 0
    cpu_ns: int = 0

    def atoms(self, t: int):
        c = int(self.count[t])
        return self.x[t, :c], self.w[t, :c]


class _PFConfig(C.Structure):
    _fields_ = [
        ("model", C.c_void_p),
        ("params", C.POINTER(C.c_double)),
        ("prior", C.c_void_p),
        ("n", C.c_size_t),
        ("seed", C.c_uint64),
    ]


class _PFOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("cov", C.c_void_p),
        ("ess", C.c_void_p),
        ("fallback", C.c_void_p),
        ("x", C.c_void_p),
        ("w", C.c_void_p),
        ("log_evidence", C.c_void_p),
    ]


class _KFConfig(C.Structure):
    _fields_ = [("model", C.c_void_p), ("params", C.POINTER(C.c_double)), ("prior", C.c_void_p), ("method", C.c_int)]


class _KFOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("cov", C.c_void_p),
        ("skipped", C.c_void_p),
        ("log_evidence", C.c_void_p),
        ("nis", C.c_void_p),
    ]


class _UXOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("cov", C.c_void_p),
        ("status", C.c_void_p),
        ("count", C.c_void_p),
        ("x", C.c_void_p),
        ("w", C.c_void_p),
    ]


class _CellsOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("cov", C.c_void_p),
        ("status", C.c_void_p),
        ("count", C.c_void_p),
        ("at", C.c_void_p),
        ("logpdf", C.c_void_p),
    ]


@dataclass
class JointCellsRun:
    mean: np.ndarray  # (T, dim)
    cov: np.ndarray  # (T, dim, dim)
    status: np.ndarray  # (T,) int8: 0 OK, 1 fallback
    count: np.ndarray  # (T,) cells after each update
    logpdf: np.ndarray | None = None  # (T,) the belief's log-density at the given points
    elapsed_ns: int = 0
    cpu_ns: int = 0


_ptr = pf_native._ptr


class JointBenchLib:
    """The joint baselines and the joint ux runner of libuxbench.so."""

    def __init__(self, path=None):
        self.bench = pf_native.load(path)
        self.nat = self.bench.nat
        lib = self.nat.lib
        problems = native.layout_mismatches(lib, MIRRORS)
        if problems:
            raise native.NativeLayoutError(self.nat.path, problems)
        lib.ux_joint_model_named.restype, lib.ux_joint_model_named.argtypes = C.c_void_p, [C.c_char_p]
        lib.uxb_joint_pf_workspace_bytes.restype = C.c_size_t
        lib.uxb_joint_pf_workspace_bytes.argtypes = [C.c_size_t, C.c_uint]
        lib.uxb_joint_pf_run.restype = C.c_int
        lib.uxb_joint_pf_run.argtypes = [
            C.POINTER(_PFConfig),
            C.c_void_p,
            C.c_void_p,
            C.c_void_p,
            C.c_size_t,
            C.POINTER(_PFOutput),
            self.nat.Workspace,
        ]
        lib.uxb_joint_pf_fast_workspace_bytes.restype = C.c_size_t
        lib.uxb_joint_pf_fast_workspace_bytes.argtypes = [C.c_size_t, C.c_uint]
        lib.uxb_joint_pf_fast_run.restype = C.c_int
        lib.uxb_joint_pf_fast_run.argtypes = lib.uxb_joint_pf_run.argtypes
        lib.uxb_joint_kf_run.restype = C.c_int
        lib.uxb_joint_kf_run.argtypes = [
            C.POINTER(_KFConfig),
            C.c_void_p,
            C.c_void_p,
            C.c_void_p,
            C.c_size_t,
            C.POINTER(_KFOutput),
        ]
        lib.ux_joint_filter_workspace_bytes.restype = C.c_size_t
        lib.ux_joint_filter_workspace_bytes.argtypes = [C.c_void_p, C.c_uint]
        lib.ux_joint_filter_sizeof.restype, lib.ux_joint_filter_sizeof.argtypes = C.c_size_t, []
        # uxb_joint_ux_run and uxb_joint_cells_run: (state, config, workspace, k, u, z, T, outputs)
        for runner, output in (("uxb_joint_ux_run", _UXOutput), ("uxb_joint_cells_run", _CellsOutput)):
            fn = getattr(lib, runner)
            fn.restype = C.c_int
            fn.argtypes = [C.c_void_p, C.POINTER(_UXConfig), self.nat.Workspace, *[C.c_void_p] * 3, C.c_size_t]
            fn.argtypes += [C.POINTER(output)]
        lib.ux_joint_cells_workspace_bytes.restype = C.c_size_t
        lib.ux_joint_cells_workspace_bytes.argtypes = [C.c_void_p, C.c_uint]
        lib.ux_joint_cells_sizeof.restype, lib.ux_joint_cells_sizeof.argtypes = C.c_size_t, []
        self.lib = lib

    # -- the model, its parameters, prior and trace -------------------------------------------------------
    def model(self, system) -> int:
        """The ux_joint_model pointer of a table name, or `system` itself when it is already a pointer."""
        if isinstance(system, str):
            p = self.lib.ux_joint_model_named(system.encode())
            if not p:
                raise ValueError(f"unknown joint system {system!r}")
            return p
        return system

    @staticmethod
    def _dims(model_ptr) -> tuple[int, int]:
        """(dim, dim_obs) read from the C struct: dim after the identity fields, dim_obs from its code."""
        m = C.cast(model_ptr, C.POINTER(ModelStruct)).contents
        code = C.cast(m.code, C.POINTER(CodeStruct)).contents
        return int(m.dim), int(code.dim_obs)

    @staticmethod
    def _params(params):
        if params is None:
            return None, None
        arr = (C.c_double * len(params))(*map(float, params))
        return arr, C.cast(arr, C.POINTER(C.c_double))

    def _prior(self, prior):
        """prior: None (the model's) or one (kind, a, b) per component."""
        if prior is None:
            return None, None
        laws = (self.nat.Law * len(prior))(*[self.nat.Law(native.LAW_KINDS[k], a, b, 0.0) for k, a, b in prior])
        return laws, C.cast(laws, C.c_void_p)

    def _trace(self, model_ptr, k, u, z):
        dim, dim_obs = self._dims(model_ptr)
        z = np.ascontiguousarray(np.reshape(z, (len(z), dim_obs)), dtype=np.float64)
        T = z.shape[0]
        k = np.ascontiguousarray(np.arange(T) if k is None else k, dtype=np.uint32)
        u = np.ascontiguousarray(np.zeros(T) if u is None else u, dtype=np.float64)
        if not (k.shape == u.shape == (T,)):
            raise ValueError("k and u need one value per observation row")
        return dim, T, k, u, z

    # -- the runs ------------------------------------------------------------------------------------------
    def run_pf(
        self,
        system,
        z,
        n: int,
        seed: int,
        particles: bool = True,
        k=None,
        u=None,
        params=None,
        prior=None,
        tuned: bool = False,
    ) -> JointPFRun:
        """The joint bootstrap PF with n particles; `particles=False` skips the (T, n, dim) sets; `tuned`: the
        tuned loop per system (joint_pf_fast.c), the same filter at its fastest."""
        model = self.model(system)
        dim, T, k, u, z = self._trace(model, k, u, z)
        keep_p, cparams = self._params(params)
        keep_l, plaw = self._prior(prior)
        cfg = _PFConfig(model, cparams, plaw, int(n), int(seed) & (2**64 - 1))
        run = JointPFRun(
            np.empty((T, dim)),
            np.empty((T, dim, dim)),
            np.empty(T),
            np.zeros(T, dtype=np.uint8),
            np.empty((T, n, dim)) if particles else None,
            np.empty((T, n)) if particles else None,
            np.empty(T),
        )
        out = _PFOutput(
            _ptr(run.mean),
            _ptr(run.cov),
            _ptr(run.ess),
            _ptr(run.fallback),
            _ptr(run.x),
            _ptr(run.w),
            _ptr(run.log_evidence),
        )
        name = "uxb_joint_pf_fast" if tuned else "uxb_joint_pf"
        nbytes = int(getattr(self.lib, f"{name}_workspace_bytes")(n, dim))
        buf = (C.c_uint64 * ((nbytes + 7) // 8))()
        ws = self.nat.Workspace(C.cast(buf, C.c_void_p), nbytes)
        runner = getattr(self.lib, f"{name}_run")
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = runner(C.byref(cfg), k.ctypes.data, u.ctypes.data, z.ctypes.data, T, C.byref(out), ws)
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, f"{name}_run")
        run.fallback = run.fallback.astype(bool)
        return run

    def run_kf(
        self, system, z, method: str = "ekf", k=None, u=None, params=None, prior=None, log_evidence: bool = False
    ) -> JointKFRun:
        """The joint EKF ('ekf') or UKF ('ukf') over a trace; `log_evidence`: also each step's log N(z; ẑ, S) and
        normalised innovation squared (run.nis), computed only when asked, so a timed run does not pay for them."""
        if method not in JKF_METHODS:
            raise ValueError(f"unknown method {method!r}; use one of {', '.join(JKF_METHODS)}")
        model = self.model(system)
        dim, T, k, u, z = self._trace(model, k, u, z)
        keep_p, cparams = self._params(params)
        keep_l, plaw = self._prior(prior)
        cfg = _KFConfig(model, cparams, plaw, JKF_METHODS[method])
        run = JointKFRun(np.empty((T, dim)), np.empty((T, dim, dim)), np.zeros(T, dtype=np.uint8))
        run.log_evidence = np.empty(T) if log_evidence else None
        run.nis = np.empty(T) if log_evidence else None
        out = _KFOutput(_ptr(run.mean), _ptr(run.cov), _ptr(run.skipped), _ptr(run.log_evidence), _ptr(run.nis))
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = self.lib.uxb_joint_kf_run(C.byref(cfg), k.ctypes.data, u.ctypes.data, z.ctypes.data, T, C.byref(out))
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, "uxb_joint_kf_run")
        run.skipped = run.skipped.astype(bool)
        return run

    def run_ux(
        self, system, z, eta: int, mode: str = "refined", atoms: bool = True, k=None, u=None, params=None, prior=None
    ) -> JointUXRun:
        """The joint ux filter over a whole trace in one C call; `atoms=False` skips the posteriors' atoms."""
        model = self.model(system)
        dim, T, k, u, z = self._trace(model, k, u, z)
        run = JointUXRun(np.empty((T, dim)), np.empty((T, dim, dim)), np.zeros(T, dtype=np.int8))
        if atoms:
            run.count = np.zeros(T, dtype=np.uint32)
            run.x = np.zeros((T, MAX_ETA, dim))
            run.w = np.zeros((T, MAX_ETA))
        out = _UXOutput(_ptr(run.mean), _ptr(run.cov), _ptr(run.status), _ptr(run.count), _ptr(run.x), _ptr(run.w))
        self._run_whole("ux_joint_filter", "uxb_joint_ux_run", model, eta, mode, params, prior, (k, u, z), out, run)
        return run

    def run_cells(self, system, z, eta: int, at=None, k=None, u=None, params=None, prior=None) -> JointCellsRun:
        """The cell filter (ux/joint_cells.h) over a whole trace in one C call; `at` (T × dim): points at which
        to read each step's log-density (the truth, for an NLL)."""
        model = self.model(system)
        dim, T, k, u, z = self._trace(model, k, u, z)
        run = JointCellsRun(
            np.empty((T, dim)), np.empty((T, dim, dim)), np.zeros(T, dtype=np.int8), np.zeros(T, np.uint32)
        )
        points = None if at is None else np.ascontiguousarray(at, dtype=np.float64).reshape(T, dim)
        if points is not None:
            run.logpdf = np.empty(T)
        out = _CellsOutput(
            _ptr(run.mean), _ptr(run.cov), _ptr(run.status), _ptr(run.count), _ptr(points), _ptr(run.logpdf)
        )
        self._run_whole(
            "ux_joint_cells", "uxb_joint_cells_run", model, eta, "cells", params, prior, (k, u, z), out, run
        )
        return run

    def _run_whole(self, core: str, runner: str, model, eta: int, mode: str, params, prior, trace, out, run) -> None:
        """One whole-trace call of `runner` on a fresh state and workspace of the `core` filter (its C prefix),
        its thread CPU and wall times into `run`."""
        k, u, z = trace
        keep_p, cparams = self._params(params)
        keep_l, plaw = self._prior(prior)
        prior_field = dict(_UXConfig._fields_)["prior"]  # a typed pointer there, not the PF's void pointer
        cfg = _UXConfig(model, cparams, int(eta), native.MODES[mode], C.cast(plaw, prior_field) if plaw else None)
        nbytes = int(getattr(self.lib, f"{core}_workspace_bytes")(model, int(eta)))
        if nbytes == 0:
            raise ValueError(f"eta must be a power of two ≤ {MAX_ETA}, got {eta}")
        buf = (C.c_uint64 * ((nbytes + 7) // 8))()
        ws = self.nat.Workspace(C.cast(buf, C.c_void_p), nbytes)
        state = (C.c_uint64 * ((getattr(self.lib, f"{core}_sizeof")() + 7) // 8))()
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = getattr(self.lib, runner)(
            C.cast(state, C.c_void_p),
            C.byref(cfg),
            ws,
            k.ctypes.data,
            u.ctypes.data,
            z.ctypes.data,
            len(z),
            C.byref(out),
        )
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, runner)


# -- ux/joint_model.h's structs (double build), for reading a model's dims and for models built in Python ---
# The core's ctypes mirrors, generated from its headers (uxemu.layouts): function pointers are addresses there,
# so a model built in Python casts its callbacks (TRANSITION_FN, NOISES_FN, KERNEL_FN) to c_void_p.
MAX_DIM = native.MAX_DIM
REAL = C.c_double
_STRUCTS = layouts.declare(REAL)
_Law, CodeStruct, ModelStruct = _STRUCTS["ux_law"], _STRUCTS["ux_joint_model_code"], _STRUCTS["ux_joint_model"]
_UXConfig = _STRUCTS["ux_joint_filter_config"]
TRANSITION_FN = C.CFUNCTYPE(None, C.POINTER(REAL), C.POINTER(REAL), C.POINTER(REAL), C.c_void_p)
KERNEL_FN = C.CFUNCTYPE(None, C.POINTER(REAL), C.c_void_p, C.POINTER(REAL), C.POINTER(REAL))
NOISES_FN = C.CFUNCTYPE(None, C.POINTER(REAL), C.POINTER(_Law))


# This module's own mirrors, checked against the library's layout table (firmware/host/abi.c) at load.
MIRRORS = {"ux_law": _Law, "ux_joint_model_code": CodeStruct, "ux_joint_model": ModelStruct}

_loaded: dict = {}


def load(path=None) -> JointBenchLib:
    """The joint benchmark library (cached per path)."""
    key = str(path or clib.library_path())
    if key not in _loaded:
        _loaded[key] = JointBenchLib(path)
    return _loaded[key]
