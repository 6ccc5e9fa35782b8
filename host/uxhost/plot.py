"""A dump as a picture: the posterior mean and a quantile band against the true state, the
observations, and the cycles of each step — for every system the same panels, one state panel per
component of a vector state, whose atoms are drawn below.

The observations live in the observation space (z = x²/20 + v for GSS, a volatility-scaled noise for SV,
a light intensity for the cubic system), not in the state space, so they get their own panel rather
than being drawn over the state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .protocol import STATUS_LEGEND, Status

BAND = (0.05, 0.95)


def atom_quantile(x, w, q: float) -> float:
    """Smallest atom whose cumulative weight reaches q (the reference's Value.quantile)."""
    cw = np.cumsum(np.asarray(w, dtype=np.float64))
    i = min(int(np.searchsorted(cw, q, side="left")), len(x) - 1)
    return float(x[i])


def _marginal_quantile(x, w, q: float) -> float:
    """atom_quantile of one component of atoms that need not be sorted (a vector state's rows)."""
    order = np.argsort(x, kind="stable")
    return atom_quantile(np.asarray(x)[order], np.asarray(w)[order], q)


def _series(dump) -> dict:
    """The arrays a plot draws, as rows for any dump (a scalar system's is dim 1, dim_obs 1)."""
    steps = dump.steps
    mean = np.array([np.atleast_1d(s.mean) for s in steps], dtype=np.float64)
    dim = mean.shape[1]
    atoms = [(np.asarray(s.atoms_x, dtype=np.float64).reshape(len(s.atoms_w), dim), s.atoms_w) for s in steps]
    band = np.array([[[_marginal_quantile(x[:, c], w, q) for c in range(dim)] for x, w in atoms] for q in BAND])
    width = max((len(np.atleast_1d(s.z)) for s in steps if s.z is not None), default=1)
    z = np.array([np.full(width, np.nan) if s.z is None else np.atleast_1d(s.z) for s in steps], dtype=np.float64)
    return {
        "k": np.array([s.k for s in steps]),
        "mean": mean,
        "lo": band[0],
        "hi": band[1],
        "z": z,
        "atoms": atoms,
        "status": np.array([s.status for s in steps]),
        "predict": np.array([s.cycles_predict for s in steps], dtype=np.float64),
        "update": np.array([s.cycles_update for s in steps], dtype=np.float64),
    }


# Each status's marker and colour; its label is STATUS_LEGEND's (docs/protocol.toml).
STATUS_MARKS = tuple(
    (code, marker, color, STATUS_LEGEND[code])
    for code, marker, color in (
        (Status.FALLBACK, "x", "tab:red"),
        (Status.NO_EVIDENCE, "s", "tab:gray"),
        (Status.REFOCUSED, "D", "tab:green"),
        (Status.OUTLIER, "^", "tab:purple"),
        (Status.DEPARTED, "v", "tab:orange"),
        (Status.INCONSISTENT, "o", "tab:brown"),
    )
)


def _state_panel(ax, d: dict, c: int, truth, dim: int) -> None:
    k, mean = d["k"], d["mean"][:, c]
    ax.fill_between(
        k,
        d["lo"][:, c],
        d["hi"][:, c],
        step=None,
        color="tab:blue",
        alpha=0.25,
        label=f"posterior {BAND[0]:.0%}–{BAND[1]:.0%} quantiles",
    )
    ax.plot(k, mean, color="tab:blue", lw=1.5, label="posterior mean")
    if truth is not None:
        ax.plot(k, truth[:, c], "o", color="black", ms=3, label="true state")
    for code, marker, color, label in STATUS_MARKS:
        hit = d["status"] == code
        if hit.any():
            ax.plot(k[hit], mean[hit], marker, color=color, ms=6, mfc="none", label=label)
    ax.set_ylabel("state x" if dim == 1 else f"state x{c}")


def _atoms_row(fig, d: dict, at_steps, truth) -> None:
    """A vector state's atoms (components 0 and 1, area ∝ weight) at the steps `at_steps` (indices)."""
    axes = fig.subplots(1, len(at_steps), squeeze=False)[0]
    for ax, i in zip(axes, at_steps):
        rows, w = d["atoms"][i]
        ax.scatter(rows[:, 0], rows[:, 1], s=2000 * np.asarray(w), alpha=0.6)
        if truth is not None:
            ax.plot(truth[i, 0], truth[i, 1], "kx", ms=8)
        ax.set_title(f"atoms at k={d['k'][i]} ({len(w)})", fontsize="small")
        ax.set_xlabel("x0")
        ax.set_ylabel("x1")


def plot_dump(dump, out_path, truth=None, title: str | None = None, at_steps=None) -> Path:
    """Draws a dump of any system to a PNG at `out_path` (Agg, no display needed) and returns the path:
    one panel per state component (mean, quantile band of its marginal, truth, statuses), the observations,
    the cycles; a vector state's atoms at the step indices `at_steps` (default first, middle, last) below."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    if not dump.steps:
        raise ValueError("the dump has no step records: nothing to plot")
    d = _series(dump)
    T, dim = d["mean"].shape
    truth = dump.truth if truth is None else np.asarray(truth, dtype=np.float64)[: len(dump)]
    truth = None if truth is None else np.asarray(truth, dtype=np.float64).reshape(T, dim)
    show_cycles = bool(np.any(d["predict"] + d["update"]))
    scatter = sorted({0, T // 2, T - 1}) if dim >= 2 and not at_steps else list(at_steps or [])

    fig = Figure(
        figsize=(9, (7.5 if show_cycles else 6) + 2.5 * (dim - 1) + (3.2 if scatter else 0)), layout="constrained"
    )
    top, bottom = fig.subfigures(2, 1, height_ratios=[3 + dim, 1.6]) if scatter else (fig, None)
    ratios = [3] * dim + [1.3] + ([1.3] if show_cycles else [])
    axes = top.subplots(len(ratios), 1, sharex=True, height_ratios=ratios)
    for c in range(dim):
        _state_panel(axes[c], d, c, truth, dim)
    axes[0].legend(loc="best", fontsize="small")
    h = dump.header
    cfg = h.config
    where = f"{h.board} (firmware {h.firmware_version})" if h.board else "reference"
    axes[0].set_title(title or f"{cfg.system}, η={cfg.eta}, {cfg.mode}, {cfg.likelihood} likelihood — {where}")

    obs = axes[dim]
    for c in range(d["z"].shape[1]):
        obs.plot(d["k"], d["z"][:, c], ".", ms=4, color="tab:orange" if c == 0 else None)
    obs.set_ylabel("observation z")
    if show_cycles:
        predict = d["predict"].copy()
        predict[0] = np.nan  # the first step only updates
        axes[-1].plot(d["k"], predict, label="predict", color="tab:green")
        axes[-1].plot(d["k"], d["update"], label="update", color="tab:purple")
        axes[-1].set_ylabel(h.cycle_unit, fontsize="small")
        axes[-1].legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("step k")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    if scatter:
        _atoms_row(bottom, d, scatter, truth)

    out = Path(out_path)
    fig.savefig(out, dpi=110, format="png")
    return out
