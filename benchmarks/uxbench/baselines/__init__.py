"""Sampling baselines that the ux filter is measured against (all seeded through a caller's Generator).

- `bootstrap_filter`: bootstrap particle filter with systematic or multinomial resampling;
- `importance_posterior`: self-normalised importance sampling of one BayesLaplace instance;
- `propagate`: plain Monte Carlo of a function of independent laws.

The near-exact Bayes reference for 1-D models is the grid filter in uxemu.grid.
"""
from . import resampling
from .montecarlo import WeightedSample, draw, importance_posterior, propagate
from .particle import ParticleRun, bootstrap_filter, normalise_log_weights

__all__ = ["ParticleRun", "WeightedSample", "bootstrap_filter", "draw", "importance_posterior",
           "normalise_log_weights", "propagate", "resampling"]
