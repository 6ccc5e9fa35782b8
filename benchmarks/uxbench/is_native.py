"""ctypes binding of the inference benchmark's C side (benchmarks/c/include/uxbench/is.h) in libuxbench.so.

libuxbench.so is the core plus the host-only baselines built with the same flags (`make bench-lib`), so
the core's own declarations (uxemu.native.Native on that library) serve for values, laws and
evidence, and this module adds the benchmark's functions:

    >>> from uxbench import is_native
    >>> inf = is_native.load()
    >>> obs = inf.observation(2, "kernel", eta=64)          # GSS, inner noises at 64 atoms
    >>> x, w, status = inf.importance(obs, ("gaussian", 3.0, 3.0), [0.5], n=100, seed=1)

Timings call the C repeat loops, so one foreign call covers many runs of the method.
"""

from __future__ import annotations

import ctypes as C
import time
from pathlib import Path

import numpy as np

from uxemu import native

from . import clib

FAMILIES = {name: native.LAW_KINDS[name] for name in ("gaussian", "laplace", "uniform")}  # the kernel families


library_path, available = clib.library_path, clib.available


class Observation:
    """A bound observation model (C struct uxb_observation, or a bare ux_observation) kept alive."""

    def __init__(self, ptr, keep, form: str, eta: int):
        self.ptr = ptr  # POINTER(ux_observation)
        self._keep = keep  # the memory and callbacks ptr refers to
        self.form = form
        self.eta = eta


class InferenceNative:
    def __init__(self, path: Path | str | None = None):
        path = Path(path) if path is not None else library_path()
        if not path.exists():
            raise clib.missing(path)
        self.nat = native.Native(path=path)
        self.lib = self.nat.lib
        n = self.nat
        R, PR = C.c_double, C.POINTER(C.c_double)

        class UxbObservation(C.Structure):
            _fields_ = [
                ("params", R * 8),
                ("ctx", n.ModelCtx),
                ("noise", n.Value * 2),
                ("noise_ptr", C.POINTER(n.Value) * 2),
                ("obs", n.Observation),
            ]

        self.UxbObservation = UxbObservation
        PO, PL, PE = C.POINTER(n.Observation), C.POINTER(n.Law), C.POINTER(n.Evidence)
        PS, PW, PV = C.POINTER(n.Sources), C.POINTER(n.Workspace), C.POINTER(n.Value)
        sig = {
            "uxb_observation_init": (C.c_int, [C.POINTER(UxbObservation), C.c_uint, PR, C.c_int, C.c_uint, PS]),
            "uxb_draw_n": (C.c_int, [PL, C.c_void_p, PR, C.c_size_t]),
            "uxb_is_posterior": (C.c_int, [PO, PL, PE, C.c_size_t, C.c_void_p, PR, PR]),
            "uxb_is_repeat": (C.c_int, [PO, PL, PE, C.c_size_t, C.c_void_p, PR, PR, C.c_uint]),
            "uxb_bayes_repeat": (C.c_int, [PV, PO, PL, PE, C.c_uint, C.c_uint, PS, PW]),
            "uxb_quantize_repeat": (C.c_int, [PV, PL, C.c_uint, C.c_uint, PS]),
            "uxb_observation_sizeof": (C.c_size_t, []),
        }
        for name, (res, args) in sig.items():
            f = getattr(self.lib, name)
            f.restype, f.argtypes = res, args
        if self.lib.uxb_observation_sizeof() != C.sizeof(UxbObservation):
            raise RuntimeError("uxb_observation in is.h and its ctypes mirror here have different layouts")
        self._sources = self.nat.Sources()
        self.lib.ux_sources_init(C.byref(self._sources))

    # -- observation models ------------------------------------------------------------------------
    def observation(self, system_id: int, form: str = "kernel", eta: int = 64, params=None) -> Observation:
        """A registry system's observation model, noises quantized at eta atoms by the core."""
        o = self.UxbObservation()
        p = None if params is None else (C.c_double * len(params))(*map(float, params))
        st = self.lib.uxb_observation_init(
            C.byref(o), system_id, p, native.LIKELIHOODS[form], eta, C.byref(self._sources)
        )
        self.nat._check(st, f"uxb_observation_init(system {system_id}, {form}, eta {eta})")
        ptr = C.cast(C.addressof(o) + self.UxbObservation.obs.offset, C.POINTER(self.nat.Observation))
        return Observation(ptr, (o, p), form, eta)

    def kernel_observation(self, family: str, loc_scale, inner=None, eta: int = 64) -> Observation:
        """A kernel-form model from a Python function (x, inner atom) -> (loc, scale), for tests with a
        closed-form posterior. `inner` is an optional (kind, a, b) law quantized at eta atoms."""

        def trampoline(args, _ctx, loc, scale):
            lo, sc = loc_scale(args[0], args[1])
            loc[0], scale[0] = float(lo), float(sc)

        cb = self.nat.kernel_fn_type(trampoline)
        obs = self.nat.Observation()
        obs.form = native.LIKELIHOODS["kernel"]
        obs.family = FAMILIES[family]
        obs.kernel = C.cast(cb, C.c_void_p)
        keep = [obs, cb]
        if inner is not None:
            v = self.nat.to_c(self.nat.quantize(inner[0], inner[1], inner[2], 0.0, eta))
            obs.inner = C.pointer(v)
            keep.append(v)
        return Observation(C.pointer(obs), keep, "kernel", eta)

    # -- helpers -------------------------------------------------------------------------------------
    def _law(self, law):
        kind, a, b = law
        return self.nat.Law(native.LAW_KINDS[kind], float(a), float(b), 0.0)

    def _evidence(self, z, omega, m):
        zs = np.ascontiguousarray(np.atleast_1d(z), dtype=np.float64)
        om = None if omega is None else np.ascontiguousarray(np.atleast_1d(omega), dtype=np.float64)
        pom = None if om is None else om.ctypes.data_as(C.POINTER(C.c_double))
        ev = self.nat.Evidence(zs.ctypes.data_as(C.POINTER(C.c_double)), pom, zs.size, int(m))
        return ev, (zs, om)

    def _seeded(self, seed: int):
        rng = self.nat.Rng()
        self.lib.ux_rng_seed(C.byref(rng), int(seed) & (2**64 - 1))
        return rng

    def _workspace(self, obs: Observation):
        eta = obs.eta
        points = eta**2 if obs.form == "sampler" else eta  # at most two noises, each at eta atoms
        nbytes = 8 * (eta + 5 * 64) + 4 * 8 * points + 256
        buf = (C.c_uint64 * ((nbytes + 7) // 8))()
        return self.nat.Workspace(C.cast(buf, C.c_void_p), C.sizeof(buf)), buf

    # -- importance sampling -----------------------------------------------------------------------------
    def draw(self, law, n: int, seed: int) -> np.ndarray:
        out = np.empty(n)
        lw = self._law(law)
        st = self.lib.uxb_draw_n(C.byref(lw), C.byref(self._seeded(seed)), out.ctypes.data_as(C.POINTER(C.c_double)), n)
        self.nat._check(st, "uxb_draw_n")
        return out

    def importance(self, obs: Observation, prior, z, n: int, seed: int, omega=None, m: int = 1):
        """(x, w, status) of one importance-sampling posterior with n particles."""
        x, w = np.empty(n), np.empty(n)
        lw = self._law(prior)
        ev, keep = self._evidence(z, omega, m)
        st = self.lib.uxb_is_posterior(
            obs.ptr,
            C.byref(lw),
            C.byref(ev),
            n,
            C.byref(self._seeded(seed)),
            x.ctypes.data_as(C.POINTER(C.c_double)),
            w.ctypes.data_as(C.POINTER(C.c_double)),
        )
        self.nat._check(st, "uxb_is_posterior")
        return x, w, st

    def importance_seconds(self, obs: Observation, prior, z, n: int, seed: int = 0, **timing) -> float:
        """Median seconds of one importance-sampling posterior (see `_time`)."""
        x, w = np.empty(n), np.empty(n)
        lw = self._law(prior)
        ev, keep = self._evidence(z, None, 1)
        rng = self._seeded(seed)
        px, pw = x.ctypes.data_as(C.POINTER(C.c_double)), w.ctypes.data_as(C.POINTER(C.c_double))

        def run(reps):
            return self.lib.uxb_is_repeat(obs.ptr, C.byref(lw), C.byref(ev), n, C.byref(rng), px, pw, reps)

        return self._time(run, "uxb_is_repeat", **timing)

    # -- BayesLaplace ----------------------------------------------------------------------------------
    def bayes(self, obs: Observation, prior, z, omega=None, m: int = 1):
        """(x, w, status): the posterior at obs.eta atoms of the prior law quantized at obs.eta atoms."""
        out = self.nat.Value()
        lw = self._law(prior)
        ev, keep = self._evidence(z, omega, m)
        ws, buf = self._workspace(obs)
        st = self.lib.uxb_bayes_repeat(
            C.byref(out), obs.ptr, C.byref(lw), C.byref(ev), obs.eta, 1, C.byref(self._sources), C.byref(ws)
        )
        self.nat._check(st, "uxb_bayes_repeat")
        v = self.nat.from_c(out)
        return v.x, v.w, st

    def bayes_seconds(self, obs: Observation, prior, z, **timing) -> float:
        """Median seconds of one BayesLaplace posterior from the prior law (quantization included)."""
        out = self.nat.Value()
        lw = self._law(prior)
        ev, keep = self._evidence(z, None, 1)
        ws, buf = self._workspace(obs)

        def run(reps):
            return self.lib.uxb_bayes_repeat(
                C.byref(out), obs.ptr, C.byref(lw), C.byref(ev), obs.eta, reps, C.byref(self._sources), C.byref(ws)
            )

        return self._time(run, "uxb_bayes_repeat", **timing)

    def quantize_seconds(self, prior, eta: int, **timing) -> float:
        """Median seconds of quantizing the prior law at eta atoms (the core's constructor)."""
        out = self.nat.Value()
        lw = self._law(prior)

        def run(reps):
            return self.lib.uxb_quantize_repeat(C.byref(out), C.byref(lw), eta, reps, C.byref(self._sources))

        return self._time(run, "uxb_quantize_repeat", **timing)

    # -- timing -------------------------------------------------------------------------------------------
    def _time(self, run, what: str, repeats: int = 5, min_seconds: float = 2e-3) -> float:
        """Median over `repeats` of (time of one call of `reps` runs) / reps, with reps grown until one
        call lasts min_seconds, so the foreign-call overhead is spread over many runs.

        The clock is the calling thread's CPU time: on a machine shared with other work, wall time
        would add whatever the scheduler gives to other processes; on an idle core the two agree."""
        clock = time.thread_time
        reps = 1
        while True:
            t0 = clock()
            self.nat._check(run(reps), what)
            dt = clock() - t0
            if dt >= min_seconds or reps >= 1 << 20:
                break
            reps = min(1 << 20, max(2 * reps, int(reps * 1.2 * min_seconds / max(dt, 1e-9))))
        per = [dt / reps]
        for _ in range(repeats - 1):
            t0 = clock()
            self.nat._check(run(reps), what)
            per.append((clock() - t0) / reps)
        return float(np.median(per))


_loaded: dict = {}


def load() -> InferenceNative:
    """The binding (cached per process)."""
    if "lib" not in _loaded:
        _loaded["lib"] = InferenceNative()
    return _loaded["lib"]
