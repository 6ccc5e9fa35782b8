"""uxbench.ab_cost: the filter's cost against an earlier commit's."""

from uxbench import ab_cost


def test_ab_cost_times_both_cores_on_the_same_traces(benchlib):
    """uxbench.ab_cost's rows: one per system and η, the ratio of the two medians; a core against itself."""
    said = []
    rows = ab_cost.cost_rows(
        benchlib, benchlib, "refined", steps=20, rounds=2, progress=said.append, systems=("sv", "lg"), etas=(4, 8)
    )
    assert [r[:2] for r in rows] == [["sv", 4], ["sv", 8], ["lg", 4], ["lg", 8]] and len(said) == 4
    for _, _, base, head, ratio in rows:
        b, h, q = float(base), float(head), float(ratio)
        assert b > 0 and h > 0
        # each printed to 0.01: the printed times' ratio is off the true one by up to about 0.005·(1 + q)/b (the
        # bound below keeps a margin for b's own rounding), the printed ratio by 0.005
        assert abs(q - h / b) <= 0.005 * (2.0 + q) / max(b - 0.005, 1e-3) + 0.005


def test_a_third_core_is_timed_in_the_same_rotation(benchlib):
    """--platform-libm's core joins the rotation: two more columns, its median and its ratio to the base's."""
    rows = ab_cost.cost_rows(
        benchlib,
        benchlib,
        "refined",
        steps=20,
        rounds=3,
        progress=lambda _: None,
        systems=("lg",),
        etas=(4,),
        platform=benchlib,
    )
    assert len(rows) == 1 and len(rows[0]) == 7
    base, platform, ratio = (float(v) for v in (rows[0][2], rows[0][5], rows[0][6]))
    assert platform > 0 and abs(ratio - platform / base) <= 0.005 * (2.0 + ratio) / max(base - 0.005, 1e-3) + 0.005
