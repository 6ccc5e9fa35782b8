"""The baselines the ux filter is measured against: sampling methods (all seeded through a caller's
Generator) and the near-exact grid filter.

- `bootstrap_filter`: bootstrap particle filter with systematic or multinomial resampling;
- `importance_posterior`: self-normalised importance sampling of one BayesLaplace instance;
- `propagate`: plain Monte Carlo of a function of independent laws;
- `grid_filter`: point-mass grid filter, the near-exact Bayes reference for 1-D models;
- `joint_grid.joint_grid_filter`: its 2-D counterpart for the joint systems (additive Gaussian noise);
- `kalman_filter`: EKF, UKF and the EKF on log y², the numpy reference of the C ones (c/src/kf.c).
"""

from . import grid, resampling
from .grid import GridRun, grid_filter
from .kalman import KalmanRun, kalman_filter
from .montecarlo import WeightedSample, draw, importance_posterior, propagate
from .particle import ParticleRun, bootstrap_filter, normalise_log_weights

__all__ = [
    "GridRun",
    "ParticleRun",
    "WeightedSample",
    "bootstrap_filter",
    "draw",
    "grid",
    "grid_filter",
    "importance_posterior",
    "KalmanRun",
    "kalman_filter",
    "normalise_log_weights",
    "propagate",
    "resampling",
]
