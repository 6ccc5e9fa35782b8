# GENERATED from firmware/src/models/systems.toml by scripts/codegen — do not edit by hand.
# Change the source and run `make generate`; tests fail when this file and its source drift apart.
"""The systems of the one system table, as data (see uxemu.systems and uxemu.joint_systems)."""

TABLE = (
    {"id": 1, "name": 'sv', "title": 'stochastic volatility',
     "params": (('phi', 0.98, 'real'), ('c', 0.0, 'real'), ('sigma_eta', 0.2, 'positive'), ('sigma_eps', 1.0, 'positive'),),
     "prior": ('gaussian', 0.0, 2.25)},
    {"id": 2, "name": 'gss', "title": 'Gordon–Salmond–Smith',
     "params": (('sigma_v', 3.0, 'positive'), ('sigma_n', 1.0, 'positive'),),
     "prior": ('gaussian', 0.0, 5.0)},
    {"id": 3, "name": 'cubic', "title": 'cubic mean-reverting, Beer–Lambert observation',
     "params": (('alpha', 0.1, 'real'), ('beta', 0.05, 'real'), ('c', 0.95, 'real'), ('sigma_v', 0.05, 'positive'), ('sigma_m', 0.05, 'positive'), ('sigma_base', 0.01, 'nonnegative'),),
     "prior": ('gaussian', 0.0, 0.1)},
    {"id": 4, "name": 'lg', "title": 'linear-Gaussian',
     "params": (('a', 0.95, 'real'), ('q', 0.5, 'positive'), ('r', 1.0, 'positive'),),
     "prior": ('gaussian', 0.0, 2.0)},
)

JOINT_TABLE = (
    {"id": 5, "name": 'pendulum', "title": 'pendulum, sin-of-angle sensor', "dim": 2,
     "params": (('dt', 0.05, 'positive'), ('g', 9.81, 'positive'), ('q', 0.5, 'positive'), ('r', 0.3, 'positive'),),
     "prior": (('gaussian', 1.5, 0.5), ('gaussian', 0.0, 1.0),)},
    {"id": 6, "name": 'cvrange', "title": 'constant-velocity target, range-only sensor', "dim": 2,
     "params": (('dt', 0.2, 'positive'), ('q', 0.05, 'positive'), ('h', 2.0, 'positive'), ('r', 0.5, 'positive'),),
     "prior": (('gaussian', -10.0, 2.0), ('gaussian', 1.0, 0.5),)},
    {"id": 7, "name": 'bearings', "title": 'bearings-only tracking, zig-zag observer', "dim": 4,
     "params": (('dt', 0.5, 'positive'), ('q', 0.01, 'positive'), ('speed', 1.0, 'positive'), ('leg', 20.0, 'positive'), ('r', 0.02, 'positive'),),
     "prior": (('gaussian', 20.0, 4.0), ('gaussian', 0.0, 2.0), ('gaussian', 0.0, 0.25), ('gaussian', 0.0, 0.25),)},
    {"id": 8, "name": 'reentry', "title": 'falling body, range radar', "dim": 3,
     "params": (('dt', 0.5, 'positive'), ('hs', 6.1, 'positive'), ('m', 30.5, 'positive'), ('a', 30.5, 'real'), ('q', 0.001, 'positive'), ('qb', 0.0001, 'positive'), ('r', 0.03, 'positive'),),
     "prior": (('gaussian', 91.4, 0.3), ('gaussian', 6.1, 0.6), ('gaussian', 1.2, 1.0),)},
)
