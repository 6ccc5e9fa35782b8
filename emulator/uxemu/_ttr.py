"""The telescoping-torques restructuring (TTR), vectorised over cells and over groups of atom sets.

TTR never sorts: at level ℓ an atom in cell c moves to child 2c when x < mean(c), else to 2c + 1, and
every sum that decides a split is a *sequential* sum over the cell's atoms in their input order, exactly
as docs/semantics.md prescribes and as the C core computes it. numpy's `sum` is pairwise, so cell sums
here come from `cumsum` along the rows of a zero-padded (cells × longest cell) matrix of the atoms grouped
by cell with a stable sort (which keeps their input order): `cumsum` is sequential, and adding the
padding zeros leaves a sum unchanged.
"""

from __future__ import annotations

import numpy as np

from .facts import MAX_ETA


def log2_eta(eta: int) -> int:
    """n for η = 2**n, with a clear error for anything else."""
    eta = int(eta)
    if eta < 1 or eta > MAX_ETA or eta & (eta - 1):
        raise ValueError(f"eta must be a power of two between 1 and {MAX_ETA}, got {eta}")
    return eta.bit_length() - 1


def compact(x, w):
    """Drop zero weights, keeping the other atoms in their order."""
    x = np.asarray(x, dtype=np.float64).ravel()
    w = np.asarray(w, dtype=np.float64).ravel()
    keep = w != 0.0
    if not keep.all():
        x, w = x[keep], w[keep]
    return x, w


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


def _sums_by_key(x, w, key, keys: int):
    """Sequential W and S per key over its atoms in input order, with the grouping used for them.

    Returns W, S (length `keys`, zero for a key with no atom), the positions grouped by key (a stable
    order), the start of each non-empty key's run in it, and which keys are non-empty.
    """
    order = np.argsort(key, kind="stable")
    counts = np.bincount(key, minlength=keys)
    ends = np.cumsum(counts)
    starts = ends - counts
    live = counts > 0
    W = np.zeros(keys)
    S = np.zeros(keys)
    xs, ws = x[order], w[order]
    W[live], S[live], _, _ = _cell_sums(xs, ws, starts[live], ends[live])
    return W, S, xs, starts[live], live


def cell_keys(x, w, group, groups: int, n: int):
    """The cell of every atom after n levels, as set·2^n + cell (cells numbered left to right)."""
    key = np.asarray(group, dtype=np.int64)  # set·2^ℓ + cell: the children of key k are 2k and 2k + 1
    for level in range(n):
        W, S, *_ = _sums_by_key(x, w, key, groups << level)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = S / W  # NaN for a cell with no atom: no atom asks for it
        key = 2 * key + (~(x < mean[key])).astype(np.int64)
    return key


def ttr_groups(x, w, group, groups: int, n: int):
    """TTR(n) of `groups` independent atom sets at once.

    x, w, group are flat arrays: atom i belongs to set group[i], and each set's atoms are taken in their
    order here (weights > 0). Returns positions, masses and the set of each output atom, ordered by set
    and, within a set, by increasing position (equal positions merged).
    """
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    key = cell_keys(x, w, group, groups, n)
    W, S, xs, starts, live = _sums_by_key(x, w, key, groups << n)
    lo = np.minimum.reduceat(xs, starts)
    hi = np.maximum.reduceat(xs, starts)
    pos = np.minimum(np.maximum(S[live] / W[live], lo), hi)
    mass = W[live]
    out_group = np.flatnonzero(live) >> n
    same = (pos[1:] == pos[:-1]) & (out_group[1:] == out_group[:-1])
    if same.any():  # rare: it needs rounding to collide two cell means
        parts = [merge_equal(pos[out_group == g], mass[out_group == g]) for g in range(groups)]
        pos = np.concatenate([p for p, _ in parts])
        mass = np.concatenate([m for _, m in parts])
        out_group = np.concatenate([np.full(p.size, g) for g, (p, _) in enumerate(parts)])
    return pos, mass, out_group


def ttr(x, w, n: int):
    """TTR(n) of one atom set in its given order (weights > 0): positions and masses, not renormalised."""
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size == 0:
        raise ValueError("TTR of an empty atom set")
    pos, mass, _ = ttr_groups(x, w, np.zeros(x.size, dtype=np.int64), 1, n)
    return pos, mass


def ttr_rows(y, w, n: int):
    """TTR(n) of B atom sets given as (B, P) arrays; atoms with weight 0 are not part of their row.

    Returns padded (B, 2**n) position and mass arrays (mass 0 marks padding) and the count per row.
    """
    B, P = y.shape
    live = w > 0
    rows = np.broadcast_to(np.arange(B)[:, None], (B, P))
    pos, mass, row = ttr_groups(y[live], w[live], rows[live], B, n)
    counts = np.bincount(row, minlength=B)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(row.size) - first[row]
    out_x = np.zeros((B, 1 << n))
    out_w = np.zeros((B, 1 << n))
    out_x[row, slot] = pos
    out_w[row, slot] = mass
    return out_x, out_w, counts
