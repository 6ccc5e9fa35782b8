"""`uxhost simulate` on the native engine: a system with no Python twin is simulated by the host build of its
C model (uxemu.native.Native.simulate), and `--engine native` asks for that path for any scalar system.

A C-only system cannot be made here without rebuilding the library, so the tests hide lg's twin (the lookup
`uxemu.systems.TWINS`) and check that the command then takes the C path, and that what it writes is a trace
the filter, `uxhost stream` and `uxhost validate` take.
"""

import numpy as np
import pytest

from cli_run import run_cli
from uxemu import native, systems
from uxemu.traces import Trace

pytestmark = pytest.mark.skipif(not native.available(), reason="the native library is not built (make native)")


def simulate(capsys, out, *extra, system="lg", steps=40, seed=7):
    return run_cli(capsys, "simulate", "--system", system, "--steps", steps, "--seed", seed, "-o", out, *extra)


@pytest.fixture
def no_twin(monkeypatch):
    """lg as a system that exists only in C: the host table has it, the reference has no twin of it."""
    monkeypatch.delitem(systems.TWINS, "lg")
    assert "lg" in systems.SPECS and "lg" not in systems.with_twin()


def assert_one_line_error(code, err, *words):
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("uxhost simulate: error: "), err
    for word in words:
        assert word in err, err


def test_a_system_without_a_twin_is_simulated_from_its_c_model(no_twin, tmp_path, capsys):
    out = tmp_path / "lg.csv"
    code, stdout, err = simulate(capsys, out)
    assert code == 0, err
    assert stdout.strip() == f"wrote 1 trace(s) of lg, 40 steps, seed 7, native engine: {out}"
    text = out.read_text().splitlines()
    assert text[:3] == ["# system: lg", "# params: 0.95,0.5,1.0", "k,u,z,x"]
    trace = Trace.from_csv(out)
    assert list(trace.k) == list(range(40)) and not trace.u.any()
    assert np.all(np.isfinite(trace.x)) and np.all(np.isfinite(trace.z))
    expected = native.load().simulate("lg", 40, 7)[0]  # the binding's trace, written as it is
    assert trace.x.tobytes() == expected.x.tobytes() and trace.z.tobytes() == expected.z.tobytes()

    code, _, err = simulate(capsys, tmp_path / "ref.csv", "--engine", "reference")
    assert_one_line_error(code, err, "exists only in C")


def test_engine_native_takes_the_c_path_for_a_system_with_a_twin(tmp_path, capsys):
    auto, c_path = tmp_path / "auto.csv", tmp_path / "native.csv"
    assert simulate(capsys, auto)[0] == 0
    code, stdout, err = simulate(capsys, c_path, "--engine", "native")
    assert code == 0, err
    assert "native engine" in stdout
    assert auto.read_bytes() != c_path.read_bytes()  # numpy's generator, then the core's
    assert auto.read_text().splitlines()[:3] == c_path.read_text().splitlines()[:3]  # the same format


def test_the_same_seed_writes_the_same_bytes(no_twin, tmp_path, capsys):
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    assert simulate(capsys, a)[0] == 0 and simulate(capsys, b)[0] == 0 and simulate(capsys, c, seed=8)[0] == 0
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    assert a.read_text().splitlines()[:3] == c.read_text().splitlines()[:3]


def test_trace_i_is_the_same_whatever_the_count(no_twin, tmp_path, capsys):
    assert simulate(capsys, tmp_path / "two.csv", "--traces", 2)[0] == 0
    assert simulate(capsys, tmp_path / "three.csv", "--traces", 3)[0] == 0
    for i in range(2):
        assert (tmp_path / f"two-00{i}.csv").read_bytes() == (tmp_path / f"three-00{i}.csv").read_bytes()
    assert (tmp_path / "three-001.csv").read_bytes() != (tmp_path / "three-002.csv").read_bytes()


def test_the_filter_runs_on_the_c_trace(no_twin, tmp_path, capsys):
    """The trace is one the filter takes, and it is of lg: the C filter follows its true state better than
    the readings do (the Kalman filter's stationary error on lg is 0.61, the readings' 1)."""
    out = tmp_path / "lg.csv"
    assert simulate(capsys, out, steps=400, seed=3)[0] == 0
    trace = Trace.from_csv(out)
    run = native.load().run_filter(systems.spec("lg").id, trace.k, trace.u, trace.z, eta=16, atoms=False)
    assert set(run.status.tolist()) <= {0}  # every step OK
    rmse = np.sqrt(np.mean((run.mean - trace.x) ** 2))
    readings = np.sqrt(np.mean((trace.z - trace.x) ** 2))
    assert 0.45 < rmse < 0.75 and 0.9 < readings < 1.1, (rmse, readings)


def test_the_c_trace_streams_and_validates(device, tmp_path, capsys, monkeypatch):
    """Written with the twin hidden, the trace streams to a device (the system and parameters from its header)
    and the dump validates with its true state."""
    out, dump = tmp_path / "lg.csv", tmp_path / "lg.jsonl"
    with monkeypatch.context() as m:
        m.delitem(systems.TWINS, "lg")
        assert simulate(capsys, out, "--params", "q=0.7", steps=25)[0] == 0
    dev = device()
    code, stdout, err = run_cli(capsys, "stream", out, "--port", dev.url, "--eta", 8, "-o", dump)
    assert code == 0, err
    assert "model: lg (a=0.95, q=0.7, r=1)" in stdout and "25 steps, 0 fallback(s)" in stdout
    code, stdout, _ = run_cli(capsys, "validate", dump, "--trace", out)
    assert code == 0, stdout
    assert "within tolerance" in stdout and "RMSE" in stdout


def test_a_missing_library_is_one_line_saying_how_to_build_it(no_twin, tmp_path, capsys, monkeypatch):
    code, _, err = simulate(capsys, tmp_path / "t.csv", "--native-lib", tmp_path / "nowhere" / "libux.so")
    assert_one_line_error(code, err, "lg has no Python twin", "is missing", "make native")
    monkeypatch.setattr(native, "_loaded", {})  # load() reads UX_NATIVE_LIB afresh
    monkeypatch.setenv("UX_NATIVE_LIB", str(tmp_path / "gone.so"))
    code, _, err = simulate(capsys, tmp_path / "t.csv")
    assert_one_line_error(code, err, "gone.so is missing", "make native")
    code, _, err = simulate(capsys, tmp_path / "t.csv", "--engine", "native", system="gss")
    assert_one_line_error(code, err, "--engine native runs the system's C model", "make native")
    assert not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize(
    "argv, words",
    [
        (("--system", "nope", "--engine", "native"), ("no system 'nope'",)),
        (("--system", "lg", "--engine", "native", "--seed", 2**64), ("below 2^64",)),
        (("--system", "lg", "--engine", "native", "--params", "a=1e308"), ("diverges",)),
        (("--system", "lg", "--engine", "native", "--params", "q=-1"), ("q",)),
    ],
)
def test_bad_input_is_one_line(argv, words, tmp_path, capsys):
    args = {"--steps": 30, "--seed": 1, "-o": tmp_path / "t.csv"}
    for i in range(0, len(argv), 2):
        args[argv[i]] = argv[i + 1]
    code, _, err = run_cli(capsys, "simulate", *[v for pair in args.items() for v in pair])
    assert_one_line_error(code, err, *words)
    assert not (tmp_path / "t.csv").exists()


def test_a_vector_system_without_a_twin_is_simulated_from_its_c_model(tmp_path, capsys, monkeypatch):
    """A joint system with no twin takes the C path too: a joint trace (k, u, z0 …, x0 …) the host reads back
    and the C joint filter runs on."""
    from uxemu import joint_systems
    from uxhost.traces import load_trace

    monkeypatch.delitem(joint_systems.TWINS, "pendulum")
    out = tmp_path / "pendulum.csv"
    code, stdout, err = simulate(capsys, out, system="pendulum", steps=60, seed=4)
    assert code == 0, err
    assert stdout.strip() == f"wrote 1 trace of pendulum, 60 steps, seed 4, native engine: {out}"
    assert out.read_text().splitlines()[:3] == ["# system: pendulum", "# params: 0.05,9.81,0.5,0.3", "k,u,z0,x0,x1"]
    trace = load_trace(out, dim_obs=1, dim=2)
    x, z = native.load().simulate_joint("pendulum", 60, 4)[0]
    assert trace.x.tobytes() == x.tobytes() and trace.z.tobytes() == z.tobytes()
    run = native.load().run_joint_filter(joint_systems.spec("pendulum").id, trace.z, eta=16)
    angle_rmse = float(np.sqrt(np.mean((run.mean[:, 0] - trace.x[:, 0]) ** 2)))
    assert angle_rmse < 0.5 * float(np.std(trace.x[:, 0])), angle_rmse  # it follows the true angle

    code, _, err = simulate(capsys, tmp_path / "ref.csv", "--engine", "reference", system="pendulum")
    assert_one_line_error(code, err, "exists only in C", "leave --engine out")
    code, _, err = simulate(capsys, tmp_path / "two.csv", "--traces", 2, system="pendulum")
    assert_one_line_error(code, err, "one trace at a time")


def test_engine_native_takes_the_c_path_for_a_vector_system_with_a_twin(tmp_path, capsys):
    ref, c_path = tmp_path / "ref.csv", tmp_path / "c.csv"
    assert simulate(capsys, ref, system="cvrange")[0] == 0
    code, stdout, err = simulate(capsys, c_path, "--engine", "native", system="cvrange")
    assert code == 0 and "native engine" in stdout, err
    assert ref.read_bytes() != c_path.read_bytes()
    assert ref.read_text().splitlines()[:3] == c_path.read_text().splitlines()[:3]  # the same format
    code, _, err = simulate(
        capsys, tmp_path / "big.csv", "--engine", "native", "--params", "dt=1e300", system="pendulum"
    )
    assert_one_line_error(code, err, "diverges")


def test_a_model_of_your_own_is_not_sent_to_the_native_engine(tmp_path, capsys):
    model = tmp_path / "mine.py"
    model.write_text(
        "import uxemu as ux\nfrom uxemu import laws\n\n"
        "def mine(q=1.0):\n"
        "    return ux.StateSpaceModel(name='mine', transition=lambda x, w, k, u: x + w,\n"
        "        process_noise=laws.Normal(0, q), prior=laws.Normal(0, 1),\n"
        "        sampler=ux.Sampler(lambda x, v: x + v, (laws.Normal(0, 1),)))\n"
    )
    code, _, err = run_cli(
        capsys,
        "simulate",
        "--model",
        f"{model}:mine",
        "--steps",
        5,
        "--seed",
        1,
        "--engine",
        "native",
        "-o",
        tmp_path / "t.csv",
    )
    assert_one_line_error(code, err, "--model", "runs on the reference")
