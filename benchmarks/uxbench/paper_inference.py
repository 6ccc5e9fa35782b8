"""The paper's inference benchmark tables (paper.tex §5, the three "… inference benchmark" subsections),
transcribed row by row: (method, fidelity, latency µs, mean W1, W1 std).

"MC" is importance sampling with `fidelity` particles, "UxHw" is BayesLaplace at η = `fidelity`. The
paper measures W1 against a Monte Carlo ground-truth posterior and times UxHw on its hardware module,
so its latencies are not comparable with host timings in absolute terms; their ratios are.
"""

# Table TableStochVolInferenceBenchmarkResults.
SV = [
    ("MC", 10, 5793, 0.482255, 0.190635),
    ("MC", 20, 11651, 0.351222, 0.137857),
    ("UxHw", 8, 20803, 0.058566, 0.019230),
    ("MC", 50, 29617, 0.228117, 0.089055),
    ("MC", 100, 59722, 0.163482, 0.062948),
    ("UxHw", 16, 72104, 0.030325, 0.009997),
    ("UxHw", 32, 254353, 0.022761, 0.007901),
    ("MC", 500, 313324, 0.075388, 0.028843),
    ("MC", 1000, 631903, 0.054679, 0.020856),
]

# Table TableGSSInferenceBenchmarkResults (500 instances: 50 prior locations × 5 observations × 2 families).
GSS = [
    ("MC", 10, 4298, 0.918780, 0.600507),
    ("MC", 20, 8915, 0.655264, 0.425093),
    ("UxHw", 8, 19110, 0.226054, 0.101888),
    ("MC", 50, 22286, 0.419784, 0.270830),
    ("MC", 100, 44573, 0.301244, 0.191753),
    ("UxHw", 16, 69406, 0.096282, 0.048861),
    ("MC", 500, 222863, 0.140070, 0.087858),
    ("UxHw", 32, 247796, 0.052341, 0.037639),
    ("MC", 1000, 479288, 0.101370, 0.063020),
]

# Table TableBeerLambertInferenceBenchmarkResults (the exponential observation of the cubic system).
CUBIC = [
    ("MC", 10, 6875, 0.026141, 0.010015),
    ("MC", 20, 13856, 0.019122, 0.007059),
    ("MC", 50, 35254, 0.012480, 0.004477),
    ("MC", 100, 70714, 0.008948, 0.003143),
    ("UxHw", 8, 89663, 0.002206, 0.001898),
    ("MC", 500, 367572, 0.004123, 0.001430),
    ("UxHw", 16, 659346, 0.001489, 0.000487),
    ("MC", 1000, 739641, 0.002991, 0.001035),
    ("UxHw", 32, 20257900, 0.001329, 0.000529),
]

TABLES = {"sv": SV, "gss": GSS, "cubic": CUBIC}
LABELS = {
    "sv": "TableStochVolInferenceBenchmarkResults",
    "gss": "TableGSSInferenceBenchmarkResults",
    "cubic": "TableBeerLambertInferenceBenchmarkResults",
}


def row(system: str, method: str, fidelity: int):
    """The paper's (latency µs, mean W1, W1 std) for one method, or None when the paper has no such row."""
    for m, f, lat, w1, sd in TABLES[system]:
        if m == method and f == fidelity:
            return lat, w1, sd
    return None
