import re

import numpy as np
import pytest

import uxemu as ux


def test_simulation_is_seeded_and_round_trips_through_csv(tmp_path):
    m = ux.systems.get("cubic")
    a = ux.simulate(m, 25, np.random.default_rng(5))
    b = ux.simulate(m, 25, np.random.default_rng(5))
    np.testing.assert_array_equal(a.z, b.z)
    path = tmp_path / "t.csv"
    a.to_csv(path)
    c = ux.Trace.from_csv(path)
    np.testing.assert_array_equal(c.z, a.z)
    np.testing.assert_array_equal(c.x, a.x)
    np.testing.assert_array_equal(c.k, np.arange(25))


def test_a_trace_of_rows_round_trips_through_csv(tmp_path):
    x, z = ux.joint_systems.simulate(ux.joint_systems.get("cvrange"), 9, seed=3)
    z[4] = np.nan  # a step without observation: every z field empty
    path = tmp_path / "v.csv"
    ux.Trace(np.arange(9) * 2, np.full(9, 0.25), z, x, {"system": "cvrange"}).to_csv(path)
    assert path.read_text().splitlines()[:2] == ["# system: cvrange", "k,u,z0,x0,x1"]
    back = ux.Trace.from_csv(path)
    assert back.z.tobytes() == z.tobytes() and back.x.tobytes() == x.tobytes()
    assert back.k.tolist() == list(range(0, 18, 2)) and back.observation(4) is None and len(back) == 9


@pytest.mark.parametrize(
    "text, words",
    [
        ("k,u,z0,z2\n0,0,1,2\n", ":1: columns z0, z1, … (and x0, x1, …) in order, none skipped"),
        ("k,u,z0,x1\n0,0,1,2\n", ":1: columns z0, z1, … (and x0, x1, …) in order, none skipped"),
        ("k,u,z0,z1\n0,0,1,\n", ":2: some observation components are empty"),
        ("k,u,z0\n0,0,a\n", ":2: column 'z0' is not a number: 'a'"),
    ],
)
def test_a_trace_of_rows_refuses_what_cannot_be_meant(tmp_path, text, words):
    path = tmp_path / "v.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(words)):
        ux.Trace.from_csv(path)


def test_many_traces_differ_and_reproduce():
    m = ux.systems.get("sv")
    t1 = ux.simulate_many(m, 3, 40, seed=1)
    t2 = ux.simulate_many(m, 3, 40, seed=1)
    assert not np.array_equal(t1[0].z, t1[1].z)
    np.testing.assert_array_equal(t1[2].x, t2[2].x)


def test_malformed_csv_names_the_line(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("k,u,z\n0,0,1.0\n1,0,abc\n")
    with pytest.raises(ValueError, match=":3: column 'z'"):
        ux.Trace.from_csv(p)
    p.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="header"):
        ux.Trace.from_csv(p)
    with pytest.raises(FileNotFoundError):
        ux.Trace.from_csv(tmp_path / "missing.csv")
    with pytest.raises(TypeError, match="Generator"):
        ux.simulate(ux.systems.get("sv"), 3, 42)


def test_missing_observations_are_empty_fields_and_round_trip(tmp_path):
    p = tmp_path / "gaps.csv"
    p.write_text("k,u,z\n0,0,1.0\n1,0,\n2,0,nan\n3,0,2.5\n")
    tr = ux.Trace.from_csv(p)
    np.testing.assert_array_equal(np.isnan(tr.z), [False, True, True, False])
    tr.to_csv(tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_text().splitlines()[2:4] == ["1,0.0,", "2,0.0,"]  # written empty
    back = ux.Trace.from_csv(tmp_path / "out.csv")
    np.testing.assert_array_equal(back.z, tr.z)  # NaN where missing, the same numbers elsewhere
    p.write_text("k,u,z\n0,,1.0\n")
    with pytest.raises(ValueError, match=":2: column 'u' is not a number"):  # only z may be missing
        ux.Trace.from_csv(p)


def test_a_spreadsheet_s_byte_order_mark_does_not_hide_the_first_column(tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes("k,u,z\n100,0,1.0\n101,0,2.0\n".encode("utf-8-sig"))
    np.testing.assert_array_equal(ux.Trace.from_csv(p).k, [100, 101])


@pytest.mark.parametrize(
    "text, what",
    [
        ("k,u,z,k\n0,0,1.0,7\n", "column 'k' more than once"),
        ("k,z,z\n0,1.0,2.0\n", "column 'z' more than once"),
        ("k,u,z\n1e20,0,1.0\n", "k=1e20 does not fit 64 bits"),
        ("k,u,z\n9.3e18,0,1.0\n", "k=9.3e18 does not fit 64 bits"),
    ],
)
def test_an_ambiguous_or_impossible_trace_is_refused_with_its_reason(tmp_path, text, what):
    p = tmp_path / "t.csv"
    p.write_text(text)
    with pytest.raises(ValueError, match=what):
        ux.Trace.from_csv(p)


@pytest.mark.parametrize("column", ["k", "u", "x"])
def test_the_observation_column_is_not_k_u_or_x(tmp_path, column):
    p = tmp_path / "t.csv"
    p.write_text("k,u,z,x\n0,0,1.0,0.5\n")
    with pytest.raises(ValueError, match=f"{column!r} is the trace's"):
        ux.Trace.from_csv(p, z_col=column)


@pytest.mark.parametrize(
    "ks, line, what", [("0 1 1", 4, "k=1 does not follow k=1"), ("0 5 3", 4, "k=3 does not follow k=5")]
)
def test_steps_come_in_increasing_k(tmp_path, ks, line, what):
    p = tmp_path / "t.csv"
    p.write_text("# system: lg\nk,u,z\n" + "".join(f"{k},0,1.0\n" for k in ks.split()))
    with pytest.raises(ValueError, match=f"t.csv:{line + 1}: step index {what}"):
        ux.Trace.from_csv(p)
    p.write_text("k,u,z\n0,0,1.0\n7,0,2.0\n")  # a gap: the steps the trace does not have
    assert ux.Trace.from_csv(p).k.tolist() == [0, 7]
