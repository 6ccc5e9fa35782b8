"""A dump as a picture: the posterior mean and a quantile band against the true state, the
observations, and the cycles of each step.

The observations live in the observation space (z = x²/20 + v for GSS, a volatility-scaled noise for SV,
a light intensity for the cubic system), not in the state space, so they get their own panel rather
than being drawn over the state.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .dump import Dump
from .protocol import Status

BAND = (0.05, 0.95)


def atom_quantile(x, w, q: float) -> float:
    """Smallest atom whose cumulative weight reaches q (the reference's Value.quantile)."""
    cw = np.cumsum(np.asarray(w, dtype=np.float64))
    i = min(int(np.searchsorted(cw, q, side="left")), len(x) - 1)
    return float(x[i])


def plot_dump(dump: Dump, out_path, truth=None, title: str | None = None) -> Path:
    """Draws the dump to a PNG at `out_path` (Agg, no display needed) and returns the path."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not dump.steps:
        raise ValueError("the dump has no step records: nothing to plot")
    k = dump.column("k")
    mean = dump.column("mean")
    lo = np.array([atom_quantile(s.atoms_x, s.atoms_w, BAND[0]) for s in dump.steps])
    hi = np.array([atom_quantile(s.atoms_x, s.atoms_w, BAND[1]) for s in dump.steps])
    truth = dump.truth if truth is None else np.asarray(truth, dtype=np.float64)[: len(dump)]
    cycles = dump.column("cycles_predict") + dump.column("cycles_update")
    show_cycles = bool(np.any(cycles))

    fig = Figure(figsize=(9, 7.5 if show_cycles else 6), layout="constrained")
    axes = fig.subplots(3 if show_cycles else 2, 1, sharex=True,
                        height_ratios=[3, 1.3, 1.3] if show_cycles else [3, 1.3])
    ax = axes[0]
    ax.fill_between(k, lo, hi, step=None, color="tab:blue", alpha=0.25,
                    label=f"posterior {BAND[0]:.0%}–{BAND[1]:.0%} quantiles")
    ax.plot(k, mean, color="tab:blue", lw=1.5, label="posterior mean")
    if truth is not None:
        ax.plot(k, truth, "o", color="black", ms=3, label="true state")
    status = dump.column("status")
    for code, marker, color, label in ((Status.FALLBACK, "x", "tab:red", "fallback (prior kept)"),
                                       (Status.NO_EVIDENCE, "s", "tab:gray", "no observation (predicted)"),
                                       (Status.REFOCUSED, "D", "tab:green", "refocused (prior re-quantized)"),
                                       (Status.OUTLIER, "^", "tab:purple", "outlier (failed the innovation gate)"),
                                       (Status.DEPARTED, "v", "tab:orange", "departed (after an outlier)")):
        hit = status == code
        if hit.any():
            ax.plot(k[hit], mean[hit], marker, color=color, ms=6, mfc="none", label=label)
    ax.set_ylabel("state x")
    ax.legend(loc="best", fontsize="small")
    h = dump.header
    cfg = h.config
    where = f"{h.board} (firmware {h.firmware_version})" if h.board else "reference"
    ax.set_title(title or f"{cfg.system}, η={cfg.eta}, {cfg.mode}, {cfg.likelihood} likelihood — {where}")

    axes[1].plot(k, dump.column("z"), ".", color="tab:orange", ms=4)
    axes[1].set_ylabel("observation z")
    if show_cycles:
        predict = dump.column("cycles_predict").astype(np.float64)
        predict[0] = np.nan  # the first step only updates
        axes[2].plot(k, predict, label="predict", color="tab:green")
        axes[2].plot(k, dump.column("cycles_update"), label="update", color="tab:purple")
        axes[2].set_ylabel(h.cycle_unit, fontsize="small")
        axes[2].legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("step k")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))

    out = Path(out_path)
    fig.savefig(out, dpi=110, format="png")
    return out
