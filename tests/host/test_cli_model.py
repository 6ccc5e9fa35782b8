"""`uxhost simulate` / `uxhost fit` with --model FILE.py:FUNCTION: a model of the user's own, from the command
line, fitted as the library fits it, and every mistake in naming or writing it as one line."""

import json
import textwrap

import pytest

from uxemu import Trace, fit, kalman
from uxhost.cli import main
from uxhost.user_model import load_function

from cli_run import run_cli

# The README's own model (x' = 0.9x + u + w, z = x + v): linear-Gaussian, so Kalman is its oracle.
MODEL = textwrap.dedent("""
    import uxemu as ux
    from uxemu import laws


    def my_sensor(q=1.0, r=0.5):
        return ux.StateSpaceModel(
            name="my-sensor",
            transition=lambda x, w, k, u: 0.9 * x + u + w,
            process_noise=laws.Normal(0, q),
            prior=laws.Normal(0, 2.0),
            sampler=ux.Sampler(lambda x, v: x + v, (laws.Normal(0, r),)),
            kernel=ux.Kernel("gaussian", lambda x: (x, r + 0 * x)),
            additive_noise=True,
        )
""")


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "my_model.py"
    path.write_text(MODEL)
    return path


@pytest.fixture(scope="module")
def trace_csv(model_file):
    path = model_file.parent / "mine.csv"
    assert (
        main(
            [
                "simulate",
                "--model",
                f"{model_file}:my_sensor",
                "--params",
                "q=0.7,r=0.4",
                "--steps",
                "80",
                "--seed",
                "3",
                "-o",
                str(path),
            ]
        )
        == 0
    )
    return path


def test_simulate_writes_the_models_trace_with_its_parameters(trace_csv):
    trace = Trace.from_csv(trace_csv)
    assert len(trace) == 80 and trace.x is not None
    assert trace.meta == {"system": "my-sensor", "params": "0.7,0.4"}


def test_fit_of_a_model_of_your_own_is_the_librarys(model_file, trace_csv, tmp_path, capsys):
    out = tmp_path / "fit.json"
    code, stdout, err = run_cli(
        capsys,
        "fit",
        trace_csv,
        "--model",
        f"{model_file}:my_sensor",
        "--free",
        "q,r",
        "--bounds",
        "q=0:,r=0:",
        "--eta",
        4,
        "--json",
        out,
    )
    assert code == 0, err
    assert f"fit q, r of my-sensor to {trace_csv} (80 steps) ({model_file}:my_sensor): η=4, mixture" in stdout
    assert "reference engine" in stdout and "simulated" in stdout and "converged" in stdout
    result = json.loads(out.read_text())
    assert result["model"] == f"{model_file}:my_sensor" and result["engine"] == "reference"
    # The same numbers as uxemu.fit on the same function and trace, bit for bit ...
    trace = Trace.from_csv(trace_csv)
    library = fit.fit(
        load_function(f"{model_file}:my_sensor"), trace, ["q", "r"], bounds={"q": (0, None), "r": (0, None)}, eta=4
    )
    assert result["estimate"] == library.estimate and result["stderr"] == library.stderr
    # ... and the estimate the exact (Kalman) likelihood gives: measured within 0.003 of its standard error.
    best, se = kalman.fit_noises(trace.z, 0.9, 0.0, 2.0)
    for name, b, s in zip(("q", "r"), best, se):
        assert abs(result["estimate"][name] - b) < 0.05 * s, (name, result["estimate"][name], b, s)


BAD_MODULES = {
    "raises.py": "def f(q=1.0):\n    return 1 / 0\n",
    "syntax.py": "def f(q=1.0:\n",
    "imports.py": "import a_module_nobody_has\n",
    "no_default.py": "def f(q):\n    pass\n",
    "not_a_model.py": "def f(q=1.0):\n    return q\n",
}


@pytest.mark.parametrize(
    "model, complaint",
    [
        ("missing.py:f", "--model: {dir}/missing.py does not exist"),
        ("my_model.py", "expected FILE.py:FUNCTION"),
        ("my_model.py:my-sensor", "expected FILE.py:FUNCTION"),
        ("my_model.py:sensor", "my_model.py defines no function sensor (it defines: my_sensor)"),
        ("raises.py:f", "--model: f() failed at {dir}/raises.py:2: ZeroDivisionError: division by zero"),
        ("syntax.py:f", "--model: running {dir}/syntax.py failed at {dir}/syntax.py:1: SyntaxError"),
        ("imports.py:f", "imports.py:1: ModuleNotFoundError: No module named 'a_module_nobody_has'"),
        ("no_default.py:f", "every parameter needs a numeric default (the search's start); q"),
        ("not_a_model.py:f", "f() returned float, not a StateSpaceModel"),
    ],
)
def test_a_model_that_cannot_be_loaded_is_one_line(model_file, trace_csv, capsys, model, complaint):
    for name, text in BAD_MODULES.items():
        (model_file.parent / name).write_text(text)
    where = model_file.parent
    for argv in (("fit", trace_csv, "--free", "q"), ("simulate", "--steps", 5, "--seed", 1, "-o", where / "x.csv")):
        code, _, err = run_cli(capsys, *argv, "--model", f"{where}/{model}")
        assert code == 2 and complaint.format(dir=where) in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    "argv, complaint",
    [
        (("--system", "lg", "--free", "q"), "--model and --system: give one"),
        (("--free", "s"), "--free: system my-sensor has parameters q, r; got s"),
        (("--free", "q", "--engine", "native"), "model 'my-sensor' is Python only: it runs on the reference engine"),
        (("--free", "q", "--start", "q=-1", "--bounds", "q=0:"), "start q = -1.0: not positive"),
        (
            ("--free", "q", "--params", "r=-1"),
            "no log-likelihood at the start {'q': 1.0}: sigma must be a finite positive",
        ),
    ],
)
def test_bad_fit_options_with_a_model_are_one_line(model_file, trace_csv, capsys, argv, complaint):
    code, _, err = run_cli(capsys, "fit", trace_csv, "--model", f"{model_file}:my_sensor", *argv)
    assert code == 2 and complaint in err and len(err.strip().splitlines()) == 1, err


def test_simulate_needs_a_system_or_a_model(tmp_path, capsys):
    code, _, err = run_cli(capsys, "simulate", "--steps", 5, "--seed", 1, "-o", tmp_path / "x.csv")
    assert code == 2 and "which system? pass --system NAME, or --model FILE.py:FUNCTION" in err
