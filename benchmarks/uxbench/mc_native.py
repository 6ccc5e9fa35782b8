"""ctypes bindings of the propagation benchmark's C code in libuxbench.so (benchmarks/c/src/mc.c).

- `ux`: one ux propagation (inputs quantized at η, the C model function lifted over them);
- `mc`: plain Monte Carlo over the same C function with xoshiro256**;
- `timings`: the native time of a ux propagation at each η and of one Monte Carlo draw, interleaved;
- `w1_steps`, `w1_curve`: W1 of weighted atoms or of growing Monte Carlo prefixes against a tabulated
  law (`LawTable`).

Times are the CPU time of the calling thread (`time.thread_time_ns`, CLOCK_THREAD_CPUTIME_ID) around
one foreign call that runs the work back to back long enough (≥ `min_call_ns`) for the call's own cost
to be small; the median over repeated calls is reported. CPU time rather than wall time because the
benchmarks share their machine: a 3 ms propagation measured by the wall clock under a load of 5 on 2
cores reads 7.5 ms (half of it spent descheduled), its CPU time 3.5 ms, as unloaded.

Where the library is: `clib.library_path()`.
"""

from __future__ import annotations

import ctypes as C
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from uxemu import layouts
from uxemu.facts import LAW_KINDS, MAX_ARGS

from . import clib

MAX_PARAMS = 8

# uxb_prop_model
SV_TRANSITION, SV_OBSERVATION, GSS_TRANSITION, GSS_OBSERVATION, CUBIC_TRANSITION, BL_OBSERVATION = range(6)

library_path = clib.library_path


TIMING_ATTEMPTS = 3  # calibrate-and-measure rounds before a Monte Carlo timing is given up


# The core's structs (double build), generated from its headers (uxemu.layouts).
_CORE = layouts.declare(C.c_double)
_Law, _Value, _Workspace = _CORE["ux_law"], _CORE["ux_value"], _CORE["ux_workspace"]


class _Prop(C.Structure):
    _fields_ = [
        ("model", C.c_uint),
        ("params", C.c_double * MAX_PARAMS),
        ("k", C.c_uint32),
        ("inputs", _Law * MAX_ARGS),
    ]


class _Table(C.Structure):
    _fields_ = [
        ("n", C.c_size_t),
        ("y", C.POINTER(C.c_double)),
        ("F", C.POINTER(C.c_double)),
        ("f", C.POINTER(C.c_double)),
        ("A", C.POINTER(C.c_double)),
    ]


@dataclass(frozen=True)
class Problem:
    """One model function with its parameters and the laws of its inputs, e.g. ("gaussian", μ, σ)."""

    model: int
    params: tuple
    inputs: tuple  # ((kind, a, b), …) in the function's argument order
    k: int = 0

    def to_c(self) -> _Prop:
        p = _Prop()
        p.model = self.model
        for i, v in enumerate(self.params):
            p.params[i] = float(v)
        p.k = self.k
        for i, (kind, a, b) in enumerate(self.inputs):
            p.inputs[i] = _Law(LAW_KINDS[kind], float(a), float(b), 0.0)
        return p


class LawTable:
    """A continuous law on a grid: cdf F, density f and A = ∫F (see uxbench/mc.h)."""

    def __init__(self, y, F, f, A):
        self.y, self.F, self.f, self.A = (np.ascontiguousarray(a, dtype=np.float64) for a in (y, F, f, A))
        same = all(a.shape == self.y.shape for a in (self.F, self.f, self.A))
        if not (self.y.ndim == 1 and self.y.size >= 2 and same):
            raise ValueError("a law table needs y, F, f, A of one length ≥ 2")
        ptr = C.POINTER(C.c_double)
        self.c = _Table(self.y.size, *(a.ctypes.data_as(ptr) for a in (self.y, self.F, self.f, self.A)))

    @property
    def mean(self) -> float:
        return float(self.y[-1] - self.A[-1])


class MCNative:
    def __init__(self, path: Path | str | None = None):
        path = Path(path) if path is not None else library_path()
        if not path.exists():
            raise clib.missing(path)
        self.lib = L = C.CDLL(str(path))
        P, PV, PT, PD = C.POINTER(_Prop), C.POINTER(_Value), C.POINTER(_Table), C.POINTER(C.c_double)
        sig = {
            "uxb_prop_arity": (C.c_uint, [P]),
            "uxb_prop_ux_workspace_bytes": (C.c_size_t, [P, C.c_uint]),
            "uxb_prop_ux": (C.c_int, [P, C.c_uint, PV, _Workspace]),
            "uxb_prop_ux_every_point": (C.c_int, [P, C.c_uint, PV, _Workspace]),
            "uxb_prop_lift_form": (C.c_int, [P]),
            "uxb_prop_ux_repeat": (C.c_int, [P, C.c_uint, C.c_uint, PV, _Workspace]),
            "uxb_prop_ux_chained": (C.c_int, [P, C.c_uint, PV, _Workspace]),
            "uxb_prop_ux_chained_repeat": (C.c_int, [P, C.c_uint, C.c_uint, PV, _Workspace]),
            "uxb_prop_mc": (C.c_int, [P, C.c_uint64, PD, C.c_size_t]),
            "uxb_w1_steps": (C.c_double, [PD, PD, C.c_size_t, PT]),
            "uxb_prop_curve_workspace_bytes": (C.c_size_t, [C.c_size_t, C.c_size_t]),
            "uxb_prop_mc_w1_curve": (
                C.c_size_t,
                [P, C.c_uint64, PT, C.POINTER(C.c_size_t), C.c_size_t, C.c_double, PD, _Workspace],
            ),
        }
        for name, (res, args) in sig.items():
            fn = getattr(L, name)
            fn.restype, fn.argtypes = res, args
        self._ws = np.zeros(0, dtype=np.uint64)

    def _workspace(self, nbytes: int) -> _Workspace:
        if self._ws.nbytes < nbytes:
            self._ws = np.zeros((nbytes + 7) // 8, dtype=np.uint64)
        return _Workspace(self._ws.ctypes.data, self._ws.nbytes)

    def _status(self, st: int, what: str):
        if st < 0:
            raise RuntimeError(f"{what} failed with status {st}")

    # -- the ux side -----------------------------------------------------------------------------
    def ux(self, prob: Problem, eta: int, every_point: bool = False, chained: bool = False):
        """Atoms (x, w) of the ux propagation of `prob` at η (every_point: the function evaluated at every
        point even where it is lifted additively; chained: the exponential observation as two two-input
        lifts, uxb_prop_ux_chained)."""
        p, out = prob.to_c(), _Value()
        ws = self._workspace(self.lib.uxb_prop_ux_workspace_bytes(C.byref(p), eta))
        fn = (
            self.lib.uxb_prop_ux_chained
            if chained
            else self.lib.uxb_prop_ux_every_point
            if every_point
            else self.lib.uxb_prop_ux
        )
        self._status(fn(C.byref(p), eta, C.byref(out), ws), "uxb_prop_ux")
        n = out.count
        return np.array(out.x[:n]), np.array(out.w[:n])

    LIFT_FORMS = ("every point", "additive", "multiplicative")  # uxb_lift_form, in its order

    def lift_form(self, prob: Problem) -> str:
        """How the ux propagation lifts the problem's function (uxb_prop_lift_form)."""
        return self.LIFT_FORMS[self.lib.uxb_prop_lift_form(C.byref(prob.to_c()))]

    def _ux_call(self, prob: Problem, eta: int, chained: bool = False):
        """A timed call of `reps` back-to-back ux propagations (chained: uxb_prop_ux_chained's): call(reps) -> ns."""
        p, out = prob.to_c(), _Value()
        # Its own buffer: the shared one may be replaced by a larger one while this call is kept.
        buf = np.zeros((self.lib.uxb_prop_ux_workspace_bytes(C.byref(p), eta) + 7) // 8, dtype=np.uint64)
        ws = _Workspace(buf.ctypes.data, buf.nbytes)
        repeat = self.lib.uxb_prop_ux_chained_repeat if chained else self.lib.uxb_prop_ux_repeat

        def call(reps):
            t0 = time.thread_time_ns()
            st = repeat(C.byref(p), eta, reps, C.byref(out), ws)
            dt = time.thread_time_ns() - t0
            self._status(st, "uxb_prop_ux_repeat")
            return dt

        call.buffer = buf  # ws points into it: it lives as long as the call
        return call

    # -- Monte Carlo -----------------------------------------------------------------------------
    def mc(self, prob: Problem, seed: int, n: int) -> np.ndarray:
        """The first n outputs of the Monte Carlo stream `seed`."""
        p = prob.to_c()
        out = np.empty(n, dtype=np.float64)
        self._status(
            self.lib.uxb_prop_mc(C.byref(p), C.c_uint64(seed), out.ctypes.data_as(C.POINTER(C.c_double)), n),
            "uxb_prop_mc",
        )
        return out

    def _mc_call(self, prob: Problem, seed: int = 1):
        """A timed call drawing n outputs: call(n) -> ns."""
        p = prob.to_c()
        buf = np.empty(1, dtype=np.float64)

        def call(n):
            nonlocal buf
            if buf.size < n:
                buf = np.empty(n, dtype=np.float64)
            ptr = buf.ctypes.data_as(C.POINTER(C.c_double))
            t0 = time.thread_time_ns()
            st = self.lib.uxb_prop_mc(C.byref(p), C.c_uint64(seed), ptr, n)
            dt = time.thread_time_ns() - t0
            self._status(st, "uxb_prop_mc")
            return dt

        return call

    def timings(self, prob: Problem, etas, repeats: int = 31, min_call_ns: float = 2e5, chained_etas=()) -> dict:
        """Median native CPU times: ns per ux propagation at each η, per chained propagation at each of
        chained_etas (keys "chained{η}"), and ns per Monte Carlo draw ("mc").

        The measurements of all methods are interleaved, repeat after repeat, so that whatever else
        runs on the machine (cache pressure, frequency) falls on each alike. A Monte Carlo draw is timed
        as (median call of n draws − median call of 1 draw) / n: the one-draw call measures the per-call
        set-up (seeding, ziggurat tables, ≈ 9 µs) and the foreign call itself, which would otherwise add
        ≈ 4 % to a 27 ns draw. Not the difference of n and 2n draws: that subtracts two noisy medians of
        the same size and, on a loaded machine with few repeats, came out negative.
        """
        calls = {eta: self._ux_call(prob, eta) for eta in etas}
        calls.update({f"chained{eta}": self._ux_call(prob, eta, chained=True) for eta in chained_etas})
        calls["mc"] = self._mc_call(prob)
        for _ in range(TIMING_ATTEMPTS):
            # A load spike during calibration can leave the Monte Carlo call too short to tell its draws
            # from its set-up: calibrate and measure again rather than lose a long run to it.
            work = {k: _calibrate(c, min_call_ns) for k, c in calls.items()}
            samples = {k: [] for k in calls}
            setup = []
            for _ in range(repeats):
                for k, c in calls.items():
                    samples[k].append(c(work[k]))
                setup.append(calls["mc"](1))
            mc_call, mc_setup = float(np.median(samples["mc"])), float(np.median(setup))
            if 0 <= mc_setup < mc_call / 2:
                out = {k: float(np.median(samples[k])) / work[k] for k in calls if k != "mc"}
                out["mc"] = (mc_call - mc_setup) / work["mc"]
                return out
        raise RuntimeError(
            f"Monte Carlo timing is unusable after {TIMING_ATTEMPTS} attempts: one draw took "
            f"{mc_setup:.0f} ns, {work['mc']} draws {mc_call:.0f} ns (is the machine overloaded?)"
        )

    # -- W1 ----------------------------------------------------------------------------------------
    def w1_steps(self, x, table: LawTable, w=None) -> float:
        """W1 between sorted positions x (weights w, default equal) and the tabulated law."""
        xs = np.ascontiguousarray(x, dtype=np.float64)
        PD = C.POINTER(C.c_double)
        if w is None:
            pc = None
        else:
            c = np.cumsum(np.asarray(w, dtype=np.float64))
            c = np.ascontiguousarray(c / c[-1])
            pc = c.ctypes.data_as(PD)
        return float(self.lib.uxb_w1_steps(xs.ctypes.data_as(PD), pc, xs.size, C.byref(table.c)))

    def w1_curve(self, prob: Problem, seed: int, table: LawTable, counts, stop: float = -1.0) -> np.ndarray:
        """W1 of the first counts[i] draws of stream `seed`, up to the first count at or below `stop`."""
        counts = np.ascontiguousarray(counts, dtype=np.uintp)
        steps = np.diff(counts, prepend=0)
        ws = self._workspace(self.lib.uxb_prop_curve_workspace_bytes(int(counts[-1]), int(steps.max())))
        p = prob.to_c()
        out = np.empty(counts.size, dtype=np.float64)
        done = self.lib.uxb_prop_mc_w1_curve(
            C.byref(p),
            C.c_uint64(seed),
            C.byref(table.c),
            counts.ctypes.data_as(C.POINTER(C.c_size_t)),
            counts.size,
            float(stop),
            out.ctypes.data_as(C.POINTER(C.c_double)),
            ws,
        )
        if done == 0:
            raise RuntimeError("uxb_prop_mc_w1_curve refused its arguments or drew a non-finite output")
        return out[:done]


def _calibrate(call, min_call_ns: float) -> int:
    """The smallest power-of-two amount of work whose call lasts at least min_call_ns."""
    n = 1
    while True:
        if call(n) >= min_call_ns or n >= 1 << 26:
            return n
        n *= 2


_loaded: MCNative | None = None


def load() -> MCNative:
    """The library, loaded once per process."""
    global _loaded
    if _loaded is None:
        _loaded = MCNative()
    return _loaded
