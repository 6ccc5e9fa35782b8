"""The telescoping-torques restructuring (TTR), vectorised over cells and over batches of atom sets.

Every sum that decides a split is a *sequential* sum from the cell's first atom, exactly as
docs/semantics.md prescribes and as the C core computes it. numpy's `sum` is pairwise, so cell sums here
come from `cumsum` along the rows of a zero-padded (cells × longest cell) matrix: `cumsum` is sequential,
and adding the padding zeros leaves a sum unchanged.
"""
from __future__ import annotations

import numpy as np

MAX_LOG2_ETA = 6
MAX_ETA = 1 << MAX_LOG2_ETA


def log2_eta(eta: int) -> int:
    """n for η = 2**n, with a clear error for anything else."""
    eta = int(eta)
    if eta < 1 or eta > MAX_ETA or eta & (eta - 1):
        raise ValueError(f"eta must be a power of two between 1 and {MAX_ETA}, got {eta}")
    return eta.bit_length() - 1


def canonical(x, w):
    """Drop zero weights and stable-sort by position (ties keep their input order)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    w = np.asarray(w, dtype=np.float64).ravel()
    keep = w != 0.0
    if not keep.all():
        x, w = x[keep], w[keep]
    order = np.argsort(x, kind="stable")
    return x[order], w[order]


def sequential_sum(values: np.ndarray) -> float:
    """Σ values in index order, one rounding per addition (the C core's loop)."""
    if values.size == 0:
        return 0.0
    return float(np.cumsum(values)[-1])


def _cell_sums(x, w, starts, ends):
    """Sequential W = Σw and S = Σw·x over each cell [start, end), plus the padded matrices."""
    lengths = ends - starts
    width = int(lengths.max())
    cols = np.arange(width)
    inside = cols[None, :] < lengths[:, None]
    idx = np.where(inside, starts[:, None] + cols[None, :], 0)
    xm = np.where(inside, x[idx], 0.0)
    wm = np.where(inside, w[idx], 0.0)
    W = np.cumsum(wm, axis=1)[:, -1]
    S = np.cumsum(wm * xm, axis=1)[:, -1]
    return W, S, xm, inside


def split_cells(x, w, starts, ends, levels: int | None, record_splits: bool = False):
    """Run the mean-split recursion on cells of sorted atoms.

    `levels=None` splits until every cell holds one distinct position. Returns the final cells and,
    if asked, the (gap index, split mean) pairs: the split that separated atoms gap-1 and gap.
    """
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    gaps, means = [], []
    level = 0
    while levels is None or level < levels:
        if starts.size == 0:
            break
        splittable = x[starts] != x[ends - 1]
        if not splittable.any():
            break
        W, S, xm, inside = _cell_sums(x, w, starts, ends)
        m = S / W
        below = ((xm < m[:, None]) & inside).sum(axis=1)
        j = starts + below
        left_ok = splittable & (j > starts)
        right_ok = splittable & (j < ends)
        both = left_ok & right_ok
        if levels is None and not both.any():
            break  # rounding put every remaining split at an end: nothing more can be separated
        if record_splits:
            gaps.append(j[both])
            means.append(m[both])
        # Each cell becomes up to two cells, kept in left-to-right order.
        new_starts = np.stack([starts, j], axis=1)
        new_ends = np.stack([j, ends], axis=1)
        keep = np.stack([left_ok | ~splittable, right_ok], axis=1)
        # An unsplittable cell stays whole as its "left" child.
        new_ends[:, 0] = np.where(splittable, j, ends)
        starts = new_starts[keep]
        ends = new_ends[keep]
        level += 1
    if record_splits:
        g = np.concatenate(gaps) if gaps else np.zeros(0, dtype=np.int64)
        mm = np.concatenate(means) if means else np.zeros(0)
        return starts, ends, g, mm
    return starts, ends


def cell_atoms(x, w, starts, ends):
    """One atom per cell: position clamp(S/W, first, last) and mass W."""
    W, S, _, _ = _cell_sums(x, w, starts, ends)
    pos = np.minimum(np.maximum(S / W, x[starts]), x[ends - 1])
    return pos, W


def merge_equal(pos, mass):
    """Merge consecutive equal positions, adding masses left to right."""
    if pos.size < 2:
        return pos, mass
    new_run = np.empty(pos.size, dtype=bool)
    new_run[0] = True
    np.not_equal(pos[1:], pos[:-1], out=new_run[1:])
    if new_run.all():
        return pos, mass
    heads = np.flatnonzero(new_run)
    out_mass = np.array([sequential_sum(seg) for seg in np.split(mass, heads[1:])])
    return pos[heads], out_mass


def ttr_sorted(x, w, n: int):
    """TTR(n) of canonically ordered atoms (positions sorted, weights > 0)."""
    if x.size == 0:
        raise ValueError("TTR of an empty atom set")
    starts, ends = split_cells(x, w, np.array([0]), np.array([x.size]), n)
    pos, mass = cell_atoms(x, w, starts, ends)
    return merge_equal(pos, mass)


def ttr_batch_sorted(x, w, n: int):
    """TTR(n) of B independent atom sets given as (B, M) arrays, each row canonically ordered.

    Zero weights are allowed only as trailing padding of a row (they never reach a cell). Returns padded
    (B, 2**n) position and mass arrays (mass 0 marks padding) and the count per row.
    """
    B, M = x.shape
    counts_in = (w > 0).sum(axis=1)
    flat_x = x.ravel()
    flat_w = w.ravel()
    row_start = np.arange(B) * M
    starts, ends = split_cells(flat_x, flat_w, row_start, row_start + counts_in, n)
    pos, mass = cell_atoms(flat_x, flat_w, starts, ends)
    row = starts // M
    eta = 1 << n
    out_x = np.zeros((B, eta))
    out_w = np.zeros((B, eta))
    counts = np.bincount(row, minlength=B)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(row.size) - first[row]
    out_x[row, slot] = pos
    out_w[row, slot] = mass
    # Merging equal positions is rare (it needs rounding to collide two cell means); do it per row.
    dup = np.zeros(B, dtype=bool)
    same = (pos[1:] == pos[:-1]) & (row[1:] == row[:-1])
    dup[row[1:][same]] = True
    for r in np.flatnonzero(dup):
        c = counts[r]
        px, pw = merge_equal(out_x[r, :c], out_w[r, :c])
        out_x[r, :] = 0.0
        out_w[r, :] = 0.0
        out_x[r, : px.size] = px
        out_w[r, : px.size] = pw
        counts[r] = px.size
    return out_x, out_w, counts
