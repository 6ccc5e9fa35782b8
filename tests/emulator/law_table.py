"""The parameter table of docs/semantics.md ("Parameters: those of numpy.random and scipy.stats") as data.

The tests evaluate its cells rather than restating them, so the documentation, the reference and the C
core cannot drift apart: each row names the Python calls, the `ux_law` fields, the numpy draw, the frozen
scipy.stats law and the closed-form mean and variance, as expressions in the parameter names.
"""

import functools
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

SEMANTICS = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"
HEADING = "### Parameters: those of numpy.random and scipy.stats"

# One value per parameter name, shared by every row; chosen so that a confused meaning shows (a scale of 2
# read as a rate gives mean 1/2, a uniform's high read as a width moves the mean).
PARAMS = {"mu": 0.3, "sigma": 0.6, "loc": -1.5, "scale": 2.0, "low": -1.0, "high": 3.0, "df": 5.0}


@dataclass(frozen=True)
class Row:
    law: str
    constructor: str  # "exponential(scale)": a function of uxemu and of uxemu.native's engine
    law_class: str  # "Exponential(scale)": a class of uxemu.laws
    kind: str  # "exponential": the ux_law kind, as uxemu.native.LAW_KINDS names it
    fields: dict  # ux_law field → parameter name: {"a": "scale"}
    numpy: str  # "rng.exponential(scale)"
    scipy: str  # "expon(scale=scale)"
    mean: str
    var: str

    def evaluate(self, expr: str, **names):
        """An expression of the row, with the shared parameter values and `names` bound."""
        return eval(expr, {"__builtins__": {}, "exp": math.exp, **PARAMS, **names})

    def call(self, expr: str, namespace, **extra):
        """A call of the row ("laplace(loc, scale)") with its function from `namespace`, `extra` added."""
        name = expr.split("(", 1)[0]
        return self.evaluate(expr, **{name: functools.partial(getattr(namespace, name), **extra)})

    def frozen(self):
        return self.call(self.scipy, stats)

    def field_values(self) -> dict:
        return {field: PARAMS[name] for field, name in self.fields.items()}

    def draw(self, rng):
        return self.evaluate(self.numpy, rng=rng)


def _code(cell: str) -> list[str]:
    return re.findall(r"`([^`]*)`", cell)


@functools.cache
def rows() -> tuple[Row, ...]:
    lines = SEMANTICS.read_text(encoding="utf-8").split(HEADING, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    out = []
    for line in list(itertools.takewhile(lambda s: s.startswith("|"), lines[start:]))[2:]:  # after the header
        law, py, c_fields, np_cell, sp_cell, mean, var = (c.strip() for c in line.strip("|").split(" | "))
        constructor, law_class = _code(py)
        kind, assignments = _code(c_fields)[0].split(":", 1)
        fields = dict(a.strip().split("=") for a in assignments.split(","))
        out.append(
            Row(
                law,
                constructor,
                law_class,
                kind.removeprefix("UX_LAW_").lower(),
                fields,
                _code(np_cell)[0],
                _code(sp_cell)[0],
                _code(mean)[0],
                _code(var)[0],
            )
        )
    return tuple(out)


# Keywords of other parameterisations (a rate, scipy's uniform(loc, scale), lognorm's shape s, …): a
# constructor refuses them with a TypeError instead of reading them with its own meaning.
FOREIGN_KEYWORDS = [
    ("exponential", "rate"),
    ("exponential", "lam"),
    ("uniform", "loc"),
    ("uniform", "scale"),
    ("laplace", "b"),
    ("student_t", "nu"),
    ("lognormal", "s"),
]


def assert_quantized_moments(value, frozen, what: str):
    """A quantization at 64 atoms (a reference or a native value) keeps the law's mean and loses a little
    variance: at most 2 %, where a parameter read with another meaning (a scale taken for a rate) misses
    by far more."""
    x, w = np.asarray(value.x), np.asarray(value.w)
    m = float(np.sum(w * x))
    v = float(np.sum(w * (x - m) ** 2))
    mean, var = frozen.mean(), frozen.var()
    assert m == pytest.approx(mean, rel=1e-9, abs=1e-12 * math.sqrt(var)), f"{what}: mean {m} vs {mean}"
    assert 0.98 * var < v <= var * (1 + 1e-9), f"{what}: variance {v} vs {var}"
