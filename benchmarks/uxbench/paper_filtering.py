"""The paper's filter-accuracy tables, transcribed (paper.tex §5: TableStochasticVolatilityFilterAccuracy,
TableGordonFilterAccuracy, TableCubicBeerFilterAccuracy) with what its Pareto figures' captions say.

Each row: (method, traces, RMSE, per-trace RMSE std, NLL, CRPS), in the paper's order (by RMSE).
"UxHw η" is the paper's BayesLaplace filter at size η; "BPF N" its bootstrap particle filter with N
particles. Every row ran 50 traces; each filter 100 times per trace. The tables give no latency: the
figures are not in the source, only their captions, kept in PARETO_CAPTIONS.
"""

from __future__ import annotations

COLUMNS = ("method", "traces", "rmse", "rmse_std", "nll", "crps")

TABLES = {
    "sv": [
        ("UxHw 64", 50, 0.495185, 0.000000, 0.743210, 0.282312),
        ("UxHw 32", 50, 0.495827, 0.000000, 0.763453, 0.283125),
        ("BPF 1000", 50, 0.496254, 0.010016, 0.728420, 0.283270),
        ("BPF 500", 50, 0.498984, 0.014842, 0.738632, 0.285158),
        ("UxHw 16", 50, 0.499267, 0.000000, 0.819344, 0.286394),
        ("BPF 100", 50, 0.511004, 0.032625, 0.815526, 0.294365),
        ("UxHw 8", 50, 0.526074, 0.000000, 0.902752, 0.306625),
        ("BPF 50", 50, 0.526232, 0.045955, 0.962281, 0.306609),
        ("BPF 20", 50, 0.572537, 0.077646, 1.691358, 0.343519),
        ("BPF 10", 50, 0.645772, 0.115810, 4.467825, 0.404854),
    ],
    "gss": [
        ("UxHw 64", 50, 4.554662, 0.000000, 2.385085, 1.722927),
        ("BPF 1000", 50, 4.631633, 0.121110, 2.743835, 1.753481),
        ("BPF 500", 50, 4.649263, 0.166242, 3.125517, 1.765093),
        ("UxHw 32", 50, 4.657051, 0.000000, 2.811172, 1.775729),
        ("UxHw 16", 50, 4.994060, 0.000000, 4.308073, 1.968334),
        ("BPF 100", 50, 5.016186, 0.635257, 9.264011, 1.964372),
        ("BPF 50", 50, 5.643520, 1.073605, 23.979015, 2.330302),
        ("UxHw 8", 50, 6.271464, 0.000000, 8.375627, 2.754201),
        ("BPF 20", 50, 7.202361, 1.487972, 77.521031, 3.467684),
        ("BPF 10", 50, 8.617990, 1.539336, 150.995513, 4.790006),
    ],
    "cubic": [
        ("BPF 1000", 50, 0.109398, 0.002258, -0.772228, 0.062809),
        ("UxHw 64", 50, 0.109505, 0.000000, -0.723642, 0.062816),
        ("BPF 500", 50, 0.109620, 0.003112, -0.766055, 0.062968),
        ("BPF 100", 50, 0.111778, 0.006678, -0.714208, 0.064579),
        ("UxHw 32", 50, 0.111926, 0.000000, -0.547223, 0.064762),
        ("UxHw 16", 50, 0.114206, 0.000000, -0.404290, 0.066548),
        ("BPF 50", 50, 0.114322, 0.009559, -0.643363, 0.066502),
        ("UxHw 8", 50, 0.114852, 0.000000, -0.595478, 0.067312),
        ("BPF 20", 50, 0.121551, 0.014104, -0.291816, 0.072266),
        ("BPF 10", 50, 0.129010, 0.017815, 0.781573, 0.079262),
    ],
}

TITLES = {
    "sv": "Stochastic volatility: x' = 0.98x + η, η ~ N(0, 0.2²); y = ε·exp(x/2), ε ~ N(0, 1); x₀ ~ N(0, 2.25²)",
    "gss": "Gordon–Salmond–Smith: x' = x/2 + 25x/(1 + x²) + 8cos(1.2k) + υ, υ ~ N(0, 3²); z = x²/20 + ν, "
    "ν ~ N(0, 1); x₀ ~ N(0, 5²)",
    "cubic": "Cubic mean-reverting / Beer–Lambert: d = 0.95 − x, x' = x + 0.1d − 0.005d³ + υ, υ ~ N(0, 0.05²); "
    "y = e^{−x}(1 + m) + h, m ~ N(0, 0.05²), h ~ Laplace(0, √(0.01² + e^{−x}(1 + m))); x₀ ~ N(0, 0.1²)",
}


def rows(system: str) -> list[dict]:
    """The paper's rows for one system as dicts keyed by COLUMNS."""
    return [dict(zip(COLUMNS, r)) for r in TABLES[system]]


def row(system: str, method: str) -> dict | None:
    for r in rows(system):
        if r["method"] == method:
            return r
    return None
