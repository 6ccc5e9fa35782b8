"""uxemu: the executable reference of uncertainty-extended arithmetic and the BayesLaplace filter.

>>> import numpy as np, uxemu as ux
>>> x = ux.gaussian(1.0, 0.5, eta=16)
>>> y = ux.exp(x) * 2 + ux.uniform(0, 1)
>>> round(y.mean(), 3) > 0
True
"""

from . import laws, metrics, systems
from .bayes import BayesResult, KernelLikelihood, SamplerLikelihood, Status, bayes_laplace
from .constructors import (
    exponential,
    from_samples,
    from_weighted_samples,
    gaussian,
    laplace,
    lognormal,
    mixture,
    point,
    student_t,
    uniform,
)
from .filter import BayesLaplaceFilter, FilterRun
from .lift import DependencyError, cos, exp, independent_copy, lift, log, pow, sin, sqrt
from .model import Kernel, Sampler, StateSpaceModel
from .run import run_filter
from .traces import Trace, simulate, simulate_many
from .value import Value

__all__ = [
    "BayesLaplaceFilter",
    "BayesResult",
    "DependencyError",
    "FilterRun",
    "Kernel",
    "KernelLikelihood",
    "Sampler",
    "SamplerLikelihood",
    "StateSpaceModel",
    "Status",
    "Trace",
    "Value",
    "bayes_laplace",
    "cos",
    "exp",
    "exponential",
    "from_samples",
    "from_weighted_samples",
    "gaussian",
    "independent_copy",
    "laplace",
    "laws",
    "lift",
    "log",
    "metrics",
    "lognormal",
    "mixture",
    "point",
    "pow",
    "run_filter",
    "simulate",
    "simulate_many",
    "sin",
    "sqrt",
    "student_t",
    "systems",
    "uniform",
]
