"""The shock benchmark (benchmarks/shocks.py): the generator's jump, the measure, the tables, on tiny sizes."""
import importlib.util
import math
import sys

import numpy as np
import pytest

from uxbench import shocks as S
from uxhost import qemu


def _script():
    spec = importlib.util.spec_from_file_location("shocks_script", qemu.REPO_ROOT / "benchmarks" / "shocks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _script()


def test_the_trace_is_the_calm_trace_plus_a_decaying_jump():
    """Same seed with and without the jump: equal before the shock, then apart by jump·φ^(k − calm)."""
    for se in S.SIGMA_ETAS:
        calm, shocked = S.trace(3, se, jump=0.0), S.trace(3, se)
        phi = S.model(se).params[0]
        assert np.array_equal(calm.x[:S.CALM], shocked.x[:S.CALM])
        k = np.arange(S.CALM, S.STEPS)
        np.testing.assert_allclose(shocked.x[S.CALM:] - calm.x[S.CALM:], S.JUMP * phi ** (k - S.CALM), atol=1e-12)
        assert math.isclose(math.exp(S.JUMP / 2.0), 3.0)  # the volatility exp(x/2) triples
        assert np.array_equal(S.trace(3, se).z, shocked.z)  # reproducible bit for bit


def test_the_gap_is_in_reference_sds_and_windows_split_at_the_shock():
    tr = S.trace(0, 0.2)
    ref = S.grid_reference(tr, 0.2, n_points=401)
    assert S.gap(ref, ref).worst() == 0.0
    run = S.run_filter(S.model(0.2), tr, 8)
    g = S.gap(run, ref)
    np.testing.assert_array_equal(g.sd, np.abs(run.mean - ref.mean) / np.sqrt(ref.var))
    assert g.at_shock == g.sd[S.CALM:S.CALM + 5].max()


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setattr(S, "PARTICLES", 2000)
    monkeypatch.setattr(S, "GRID_POINTS", 401)
    monkeypatch.setattr(bench, "ETAS", (4, 8))
    monkeypatch.setattr(bench, "TARGET_ETA", 8)


def test_the_results_file_has_a_row_per_eta_and_mode_and_the_reference_rows(tiny, tmp_path):
    out = tmp_path / "shocks.md"
    bench.main(["--seeds", "1", "--out", str(out)])
    text = out.read_text()
    for se in S.SIGMA_ETAS:
        assert f"## σ_η = {se}" in text
    rows = [line for line in text.splitlines() if line.startswith(("| 4 |", "| 8 |"))]
    filter_rows = [line for line in rows if any(f"| {mode} |" in line for mode in bench.MODES)]
    assert len(filter_rows) == 2 * len(bench.MODES) * len(S.SIGMA_ETAS)
    assert len(rows) - len(filter_rows) == 2 * len(S.SIGMA_ETAS)  # the predictive-law rows
    targets = [line for line in text.splitlines() if line.startswith("Target (η = 8:")]
    assert len(targets) == len(S.SIGMA_ETAS)
    assert all(("refined met" in t or "refined not met" in t) and "paper" in t for t in targets)
    assert text.count("| PF, seed 1000 + s |") == len(S.SIGMA_ETAS)


def test_edge_mass_is_the_weighted_share_on_the_outermost_points():
    """An observation far beyond what any prior point explains puts the weighted mass on the top point."""
    from uxemu.traces import Trace

    tr = Trace(np.arange(3), np.zeros(3), np.array([0.5, 0.4, 1e4]), None, {"system": "sv"})
    for eta in (8, 16):
        e = S.edge_mass(tr, 0.2, eta)
        assert e[1] < 0.2  # an ordinary observation: the mass sits inside
        assert e[2] > 0.99  # z = 10⁴ needs x ≈ 18: only the outermost point comes near
