"""Resampling schemes of the bootstrap particle filter: indices of the surviving particles.

Both take normalised weights and the caller's numpy Generator and return N ancestor indices in
increasing order. Each particle's expected number of copies is N·wᵢ under either scheme; systematic
resampling also keeps each count within one of N·wᵢ (floor or ceil), which is why it is the default.
"""

from __future__ import annotations

import numpy as np


def _cumulative(w: np.ndarray) -> np.ndarray:
    cw = np.cumsum(w)
    # Rounding can leave the total a hair below 1; a uniform above it would index past the end.
    cw[-1] = 1.0
    return cw


def systematic(w: np.ndarray, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
    """One uniform offset u ~ U[0, 1), points (u + k)/N for k = 0..N−1, inverted through the cdf."""
    n = w.size if n is None else n
    points = (rng.random() + np.arange(n)) / n
    return np.searchsorted(_cumulative(w), points, side="right")


def multinomial(w: np.ndarray, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
    """N independent draws from the categorical law w (sorted uniforms: same law, ordered indices)."""
    n = w.size if n is None else n
    points = np.sort(rng.random(n))
    return np.searchsorted(_cumulative(w), points, side="right")


SCHEMES = {"systematic": systematic, "multinomial": multinomial}


def get(name: str):
    try:
        return SCHEMES[name]
    except KeyError:
        raise ValueError(f"unknown resampling scheme {name!r}; use one of {sorted(SCHEMES)}") from None
