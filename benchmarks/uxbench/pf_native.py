"""ctypes bindings of the filtering benchmark's C code in libuxbench.so (`make bench-lib`).

- `run_pf`: the bootstrap particle filter of benchmarks/c/src/pf.c over a registered system;
- `run_pf_fast`: the same filter as a tuned loop per system (benchmarks/c/src/pf_fast.c: sv, gss, cubic,
  lg), inner noise sampled once per particle;
- `run_ux`: a whole trace through the ux filter in one C call (benchmarks/c/src/ux_run.c);
- `run_kf`: the EKF, the UKF or the EKF on log y² of benchmarks/c/src/kf.c (uxbench/kf.h) over a
  registered system.

All fill numpy arrays the caller side allocates, and report the time of the single C call in
nanoseconds: `elapsed_ns` (wall clock) and `cpu_ns` (the calling thread's CPU time, which is what the
call costs on a core of its own: on a shared machine the wall clock also counts other processes'
turns). Outputs are allocated before the clocks start, so the time is the filter's alone plus one
ctypes crossing per trace. libuxbench.so holds the whole core too, so the core's types
and functions come from `uxemu.native.Native` loaded over the same library.

Where the library is: `clib.library_path()`.
"""

from __future__ import annotations

import ctypes as C
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uxemu import native

from . import clib

MAX_ETA = native.MAX_ETA
library_path, available = clib.library_path, clib.available


@dataclass
class PFRun:
    mean: np.ndarray  # (T,)
    var: np.ndarray  # (T,)
    ess: np.ndarray  # (T,)
    fallback: np.ndarray  # (T,) bool
    x: np.ndarray | None = field(default=None, repr=False)  # (T, n) weighted set of each step
    w: np.ndarray | None = field(default=None, repr=False)  # (T, n) its normalised weights
    elapsed_ns: int = 0
    cpu_ns: int = 0
    log_evidence: np.ndarray | None = field(default=None, repr=False)  # (T,) the PF's estimate (random)

    @property
    def log_likelihood(self) -> float:
        """The PF's estimate of log p(z_0..T−1): its steps' log mean likelihoods summed."""
        return float(np.sum(self.log_evidence))


@dataclass
class UXRun:
    mean: np.ndarray
    var: np.ndarray
    status: np.ndarray  # (T,) int8: 0 OK, 1 fallback
    count: np.ndarray | None = field(default=None, repr=False)  # (T,) atoms per posterior
    x: np.ndarray | None = field(default=None, repr=False)  # (T, 64), first count[t] used
    w: np.ndarray | None = field(default=None, repr=False)
    logpdf: np.ndarray | None = field(default=None, repr=False)  # (T,) filter density at the truth
    elapsed_ns: int = 0
    cpu_ns: int = 0

    def atoms(self, t: int):
        c = int(self.count[t])
        return self.x[t, :c], self.w[t, :c]


@dataclass
class KFRun:
    mean: np.ndarray  # (T,) posterior mean of the Gaussian belief
    var: np.ndarray  # (T,) its variance
    skipped: np.ndarray  # (T,) bool: the update was skipped (the step only predicted)
    elapsed_ns: int = 0
    cpu_ns: int = 0


KF_METHODS = {"ekf": 0, "ukf": 1, "ekf_logsq": 2}  # uxb_kf_method


class _KFConfig(C.Structure):
    _fields_ = [("model", C.c_void_p), ("params", C.POINTER(C.c_double)), ("prior", C.c_void_p), ("method", C.c_int)]


class _KFOutput(C.Structure):
    _fields_ = [("mean", C.c_void_p), ("var", C.c_void_p), ("skipped", C.c_void_p)]


class _PFConfig(C.Structure):
    _fields_ = [
        ("model", C.c_void_p),
        ("params", C.POINTER(C.c_double)),
        ("prior", C.c_void_p),
        ("n", C.c_size_t),
        ("seed", C.c_uint64),
        ("inner_eta", C.c_uint),
    ]


class _PFOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("var", C.c_void_p),
        ("ess", C.c_void_p),
        ("fallback", C.c_void_p),
        ("x", C.c_void_p),
        ("w", C.c_void_p),
        ("log_evidence", C.c_void_p),
    ]


class _UXOutput(C.Structure):
    _fields_ = [
        ("mean", C.c_void_p),
        ("var", C.c_void_p),
        ("status", C.c_void_p),
        ("count", C.c_void_p),
        ("x", C.c_void_p),
        ("w", C.c_void_p),
        ("at", C.c_void_p),
        ("logpdf", C.c_void_p),
    ]


def _ptr(a):
    return None if a is None else a.ctypes.data


class BenchLib:
    """libuxbench.so: the core (through uxemu.native) plus the benchmark's PF and trace runner."""

    def __init__(self, path: Path | str | None = None):
        path = Path(path) if path is not None else library_path()
        if not path.exists():
            raise clib.missing(path)
        self.nat = native.Native(path)
        lib = self.nat.lib
        lib.uxb_pf_workspace_bytes.restype, lib.uxb_pf_workspace_bytes.argtypes = C.c_size_t, [C.c_size_t]
        lib.uxb_pf_run.restype = C.c_int
        lib.uxb_pf_run.argtypes = [
            C.POINTER(_PFConfig),
            C.c_void_p,
            C.c_void_p,
            C.c_void_p,
            C.c_size_t,
            C.POINTER(_PFOutput),
            self.nat.Workspace,
        ]
        lib.uxb_pf_fast_workspace_bytes.restype = C.c_size_t
        lib.uxb_pf_fast_workspace_bytes.argtypes = [C.c_size_t]
        lib.uxb_pf_fast_run.restype = C.c_int
        lib.uxb_pf_fast_run.argtypes = lib.uxb_pf_run.argtypes
        lib.uxb_pf_fast_supports.restype, lib.uxb_pf_fast_supports.argtypes = C.c_int, [C.c_void_p]
        lib.uxb_ux_run.restype = C.c_int
        lib.uxb_ux_run.argtypes = [
            C.c_void_p,
            C.POINTER(self.nat.FilterConfig),
            self.nat.Workspace,
            C.c_void_p,
            C.c_void_p,
            C.c_void_p,
            C.c_size_t,
            C.POINTER(_UXOutput),
        ]
        lib.uxb_kf_run.restype = C.c_int
        lib.uxb_kf_run.argtypes = [
            C.POINTER(_KFConfig),
            C.c_void_p,
            C.c_void_p,
            C.c_void_p,
            C.c_size_t,
            C.POINTER(_KFOutput),
        ]
        self.lib = lib

    @staticmethod
    def _trace_arrays(k, u, z):
        z = np.ascontiguousarray(z, dtype=np.float64)
        k = np.ascontiguousarray(k, dtype=np.uint32)
        u = np.ascontiguousarray(u, dtype=np.float64)
        if not (k.shape == u.shape == z.shape and z.ndim == 1):
            raise ValueError("k, u and z must be 1-D arrays of one length")
        return k, u, z

    def _params(self, model, params):
        p = self.nat._params(model, params)
        return (C.c_double * len(p))(*p)

    def _prior(self, prior):
        if prior is None:
            return None, None
        kind, a, b = prior
        law = self.nat.Law(native.LAW_KINDS[kind], a, b, 0.0)
        return law, C.cast(C.pointer(law), C.c_void_p)

    def run_pf(
        self,
        system_id: int,
        k,
        u,
        z,
        n: int,
        seed: int,
        particles: bool = True,
        params=None,
        prior=None,
        inner_eta: int = 64,
    ) -> PFRun:
        """The bootstrap PF with n particles over a trace; `particles=False` skips the (T, n) sets."""
        return self._pf("uxb_pf_run", system_id, k, u, z, n, seed, particles, params, prior, inner_eta)

    def pf_fast_supports(self, system_id: int) -> bool:
        """Whether `run_pf_fast` has a tuned loop for this system."""
        return bool(self.lib.uxb_pf_fast_supports(C.cast(self.nat.model(system_id), C.c_void_p)))

    def run_pf_fast(
        self, system_id: int, k, u, z, n: int, seed: int, particles: bool = True, params=None, prior=None
    ) -> PFRun:
        """The tuned bootstrap PF (pf_fast.c) with n particles over a trace: the same filter as `run_pf`
        in distribution (another random stream; inner noise sampled, not integrated)."""
        return self._pf("uxb_pf_fast_run", system_id, k, u, z, n, seed, particles, params, prior, 0)

    def _pf(self, fn: str, system_id: int, k, u, z, n, seed, particles, params, prior, inner_eta) -> PFRun:
        k, u, z = self._trace_arrays(k, u, z)
        T = z.size
        model = self.nat.model(system_id)
        cparams = self._params(model, params)
        law, plaw = self._prior(prior)
        cfg = _PFConfig(
            C.cast(model, C.c_void_p),
            C.cast(cparams, C.POINTER(C.c_double)),
            plaw,
            int(n),
            int(seed) & (2**64 - 1),
            int(inner_eta),
        )
        run = PFRun(
            np.empty(T),
            np.empty(T),
            np.empty(T),
            np.zeros(T, dtype=np.uint8),
            np.empty((T, n)) if particles else None,
            np.empty((T, n)) if particles else None,
            log_evidence=np.empty(T),
        )
        out = _PFOutput(
            _ptr(run.mean),
            _ptr(run.var),
            _ptr(run.ess),
            _ptr(run.fallback),
            _ptr(run.x),
            _ptr(run.w),
            _ptr(run.log_evidence),
        )
        nbytes = int(getattr(self.lib, fn.replace("_run", "_workspace_bytes"))(n))
        buf = (C.c_uint64 * ((nbytes + 7) // 8))()
        ws = self.nat.Workspace(C.cast(buf, C.c_void_p), nbytes)
        call = getattr(self.lib, fn)
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = call(C.byref(cfg), k.ctypes.data, u.ctypes.data, z.ctypes.data, T, C.byref(out), ws)
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, fn)
        run.fallback = run.fallback.astype(bool)
        return run

    def run_kf(self, system, k, u, z, method: str = "ekf", params=None, prior=None) -> KFRun:
        """A Kalman-type filter over a trace: method 'ekf', 'ukf' or 'ekf_logsq'; `system` is a registered
        system's id or a model pointer."""
        k, u, z = self._trace_arrays(k, u, z)
        T = z.size
        model = self.nat.model(system) if isinstance(system, int) else system
        cparams = self._params(model, params)
        law, plaw = self._prior(prior)
        cfg = _KFConfig(C.cast(model, C.c_void_p), C.cast(cparams, C.POINTER(C.c_double)), plaw, KF_METHODS[method])
        run = KFRun(np.empty(T), np.empty(T), np.zeros(T, dtype=np.uint8))
        out = _KFOutput(_ptr(run.mean), _ptr(run.var), _ptr(run.skipped))
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = self.lib.uxb_kf_run(C.byref(cfg), k.ctypes.data, u.ctypes.data, z.ctypes.data, T, C.byref(out))
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, "uxb_kf_run")
        run.skipped = run.skipped.astype(bool)
        return run

    def run_ux(
        self,
        system_id: int,
        k,
        u,
        z,
        eta: int,
        mode: str = "refined",
        likelihood: str = "kernel",
        atoms: bool = True,
        params=None,
        prior=None,
        truth=None,
    ) -> UXRun:
        """The ux filter over a whole trace in one C call; `atoms=False` skips the posteriors' atoms;
        `truth` (T points) also returns run.logpdf, each posterior's ux_filter_logpdf at its point."""
        k, u, z = self._trace_arrays(k, u, z)
        T = z.size
        model = self.nat.model(system_id)
        cparams = self._params(model, params)
        law, plaw = self._prior(prior)
        cfg = self.nat.FilterConfig(
            model,
            C.cast(cparams, C.POINTER(C.c_double)),
            eta,
            native.MODES[mode],
            native.LIKELIHOODS[likelihood],
            C.cast(plaw, C.POINTER(self.nat.Law)) if plaw else None,
        )
        nbytes = self.nat.workspace_bytes(system_id, eta, mode, likelihood)
        buf = (C.c_uint64 * ((nbytes + 7) // 8))()
        ws = self.nat.Workspace(C.cast(buf, C.c_void_p), nbytes)
        state = (C.c_uint64 * ((self.lib.ux_filter_sizeof() + 7) // 8))()
        run = UXRun(np.empty(T), np.empty(T), np.zeros(T, dtype=np.int8))
        if atoms:
            run.count = np.zeros(T, dtype=np.uint32)
            run.x = np.zeros((T, MAX_ETA))
            run.w = np.zeros((T, MAX_ETA))
        at = None if truth is None else np.ascontiguousarray(truth, dtype=np.float64)
        if at is not None:
            if at.size != T:
                raise ValueError(f"truth needs one point per step ({T}), got {at.size}")
            run.logpdf = np.empty(T)
        out = _UXOutput(
            _ptr(run.mean),
            _ptr(run.var),
            _ptr(run.status),
            _ptr(run.count),
            _ptr(run.x),
            _ptr(run.w),
            _ptr(at),
            _ptr(run.logpdf) if at is not None else None,
        )
        c0, t0 = time.thread_time_ns(), time.perf_counter_ns()
        st = self.lib.uxb_ux_run(
            C.cast(state, C.c_void_p), C.byref(cfg), ws, k.ctypes.data, u.ctypes.data, z.ctypes.data, T, C.byref(out)
        )
        run.elapsed_ns, run.cpu_ns = time.perf_counter_ns() - t0, time.thread_time_ns() - c0
        self.nat._check(st, "uxb_ux_run")
        return run


_loaded: dict = {}


def load(path: Path | str | None = None) -> BenchLib:
    """The benchmark library (cached per path)."""
    key = str(path or library_path())
    if key not in _loaded:
        _loaded[key] = BenchLib(path)
    return _loaded[key]
