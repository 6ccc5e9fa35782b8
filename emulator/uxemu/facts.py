# GENERATED from firmware/src/ux/facts.toml by scripts/codegen — do not edit by hand.
# Change the source and run `make generate`; tests fail when this file and its source drift apart.
"""The C core's limits, status codes and law kinds (ux/facts.h), as Python."""

import enum

MAX_LOG2_ETA = 6  # largest number of atoms of a value: η = 2^n with n ≤ UX_MAX_LOG2_ETA (UX_MAX_ETA = 2^n)
MAX_ETA = 1 << MAX_LOG2_ETA
DEFAULT_ETA = 16  # size used by constructors when the caller passes eta = 0
MAX_ARGS = 4  # largest number of inputs of one lift (the outer product has up to η^k points)
MAX_DIM = 4  # largest number of components of a joint value


class Status(enum.IntEnum):
    """What a filter step or a BayesLaplace call reports when it succeeds (ux_status ≥ 0)."""

    OK = 0  # success
    FALLBACK = 1  # BayesLaplace: every likelihood was zero; the result is the prior
    NO_EVIDENCE = 2  # filter: a step without observation; the result is the prediction
    REFOCUSED = 3  # filter: the first update re-quantized the prior over the likelihood's region
    OUTLIER = 4  # filter: the observation failed the innovation gate (ux_filter_set_gate)
    DEPARTED = 5  # filter: the posterior is far from the model's own since an outlier it could not follow
    INCONSISTENT = 6  # filter: the recent innovations are larger than the predictions allow (ux_filter_nis)


# The core's errors (ux_status < 0), by their C names.
ERRORS = {-1: "UX_ERR_ARG", -2: "UX_ERR_DOMAIN", -3: "UX_ERR_DEPENDENT", -4: "UX_ERR_WORKSPACE"}
ERR_ARG = -1
ERR_DOMAIN = -2
ERR_DEPENDENT = -3
ERR_WORKSPACE = -4

# ux_law_kind by the reference's lower-case names, in the C numbering.
LAW_KINDS = {"gaussian": 0, "laplace": 1, "uniform": 2, "exponential": 3, "student_t": 4, "lognormal": 5, "point": 6}

# ux_mode by the reference's lower-case names, in the C numbering.
MODES = {"refined": 0, "paper": 1, "mixture": 2, "cells": 3}

# ux_likelihood by the reference's lower-case names, in the C numbering.
LIKELIHOODS = {"kernel": 0, "sampler": 1}
