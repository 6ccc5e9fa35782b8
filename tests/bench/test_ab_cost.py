"""uxbench.ab_cost: the filter's cost against an earlier commit's."""

import pytest

from uxbench import ab_cost


def test_ab_cost_times_both_cores_on_the_same_traces(benchlib):
    """uxbench.ab_cost's rows: one per system and η, the ratio of the two medians; a core against itself."""
    said = []
    rows = ab_cost.cost_rows(
        benchlib, benchlib, "refined", steps=20, rounds=2, progress=said.append, systems=("sv", "lg"), etas=(4, 8)
    )
    assert [r[:2] for r in rows] == [["sv", 4], ["sv", 8], ["lg", 4], ["lg", 8]] and len(said) == 4
    for _, _, base, head, ratio in rows:
        assert float(base) > 0 and float(head) > 0
        assert float(ratio) == pytest.approx(float(head) / float(base), abs=0.01)
