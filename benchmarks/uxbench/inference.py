"""Inference benchmark: BayesLaplace against importance sampling on the paper's inference instances.

For each system (stochastic volatility, Gordon–Salmond–Smith, the cubic system's exponential
observation) the instances of `inference_instances` (prior locations from a trace, observations kept
above a likelihood threshold, Gaussian and Laplace priors) are solved by
- BayesLaplace in the C core at η = 2, 4, 8, 16, 32 (the paper's 8, 16, 32 and two cheaper sizes it has
  no rows for): the prior law quantized at η atoms, weighed by the kernel likelihood (exact
  marginalisation) and, as a separate row, by the sampler likelihood (the model's sampler lifted per
  hypothesis, TTR-binned density);
- importance sampling in C with 10 … 1000 particles drawn from the prior law, weighed by the same
  kernel functions with the inner noise at 64 atoms, over many seeds per instance;
and each posterior is compared with the exact one (dense grid integration, `inference_exact`): W1 of
the ux atoms, W1 of their TTR-binned reconstruction (named as such) and W1 of the weighted particles.
Latency is native: the C repeat loops of uxbench/is.h, median of repeats.

One task is one prior location: its observations × prior families.
"""

from __future__ import annotations

import time

import numpy as np

from uxemu import systems
from uxemu.value import Value

from . import inference_instances, inference_report, paper_inference
from .inference_exact import POINTS, exact_posterior, system_loglik

SYSTEMS = tuple(paper_inference.TABLES)  # the systems the paper reports inference results for
ETAS = (2, 4, 8, 16, 32)  # the paper's 8, 16, 32 and two cheaper sizes it has no rows for
FORMS = ("kernel", "sampler")
PARTICLES = (10, 20, 50, 100, 500, 1000)
IS_INNER_ETA = 64  # importance sampling marginalises an inner noise over its 64-atom quantization

SIZES = {
    # 4 locations → 40 instances per system; about a minute on two cores.
    "quick": dict(
        systems=SYSTEMS,
        locations=4,
        is_seeds=5,
        time_every=1,
        repeats=3,
        min_seconds=1e-3,
        points=POINTS,
        seed=inference_instances.SEED,
    ),
    # The paper's construction: 50 locations → 500 instances per system. The paper gives no seed count
    # for importance sampling: 20 per instance. Latency on one instance in 5. About 13 minutes on two
    # cores shared with other work.
    "full": dict(
        systems=SYSTEMS,
        locations=50,
        is_seeds=20,
        time_every=5,
        repeats=5,
        min_seconds=2e-3,
        points=POINTS,
        seed=inference_instances.SEED,
    ),
}


def tasks(params: dict) -> list[dict]:
    out = []
    for system in params["systems"]:
        inst = inference_instances.build(system, params["locations"], params["seed"])
        for k in sorted({i.location_index for i in inst}):
            out.append(
                dict(
                    system=system,
                    location=k,
                    params=params,
                    instances=[i.as_dict() for i in inst if i.location_index == k],
                )
            )
    return out


def _is_seed(base: int, inst: inference_instances.Instance, n: int, s: int) -> int:
    model_id = systems.get(inst.system).system_id
    fam = inference_instances.FAMILIES.index(inst.family)
    seq = np.random.SeedSequence([base, model_id, inst.location_index, inst.observation_index, fam, n, s])
    return int(seq.generate_state(1, np.uint64)[0])


def run_task(task: dict) -> list[dict]:
    from . import is_native

    started = time.perf_counter()
    inf = is_native.load()
    p = task["params"]
    model = systems.get(task["system"])
    sid = model.system_id
    ux_obs = {(eta, form): inf.observation(sid, form, eta) for eta in ETAS for form in FORMS}
    is_obs = inf.observation(sid, "kernel", IS_INNER_ETA)
    timing = dict(repeats=p["repeats"], min_seconds=p["min_seconds"])
    records = []
    for d in task["instances"]:
        inst = inference_instances.Instance(**d)
        exact = exact_posterior(inst.prior_law(), system_loglik(model, inst.z), p["points"])
        timed = (inst.location_index * len(task["instances"]) + task["instances"].index(d)) % p["time_every"] == 0
        base = dict(d, exact_mean=exact.mean(), exact_std=float(np.sqrt(exact.var())))
        for (eta, form), obs in ux_obs.items():
            x, w, status = inf.bayes(obs, inst.prior_spec(), inst.z)
            v = Value(x, w, eta)
            records.append(
                dict(
                    base,
                    method="ux",
                    form=form,
                    fidelity=eta,
                    status=int(status),
                    atoms=len(x),
                    w1_atoms=exact.w1_atoms(x, w),
                    w1_reconstructed=exact.w1_reconstructed(v),
                    latency_s=inf.bayes_seconds(obs, inst.prior_spec(), inst.z, **timing) if timed else None,
                    quantize_s=inf.quantize_seconds(inst.prior_spec(), eta, **timing) if timed else None,
                )
            )
        for n in PARTICLES:
            w1s, ess, fallbacks = [], [], 0
            for s in range(p["is_seeds"]):
                x, w, status = inf.importance(is_obs, inst.prior_spec(), inst.z, n, _is_seed(p["seed"], inst, n, s))
                w1s.append(exact.w1_atoms(x, w))
                ess.append(1.0 / float(w @ w))
                fallbacks += int(status != 0)
            w1s = np.array(w1s)
            records.append(
                dict(
                    base,
                    method="is",
                    form="kernel",
                    fidelity=n,
                    seeds=len(w1s),
                    w1_atoms=float(w1s.mean()),
                    w1_sq=float((w1s**2).mean()),
                    w1_seed_std=float(w1s.std(ddof=1)) if w1s.size > 1 else 0.0,
                    ess=float(np.mean(ess)),
                    fallbacks=fallbacks,
                    latency_s=inf.importance_seconds(is_obs, inst.prior_spec(), inst.z, n, **timing) if timed else None,
                )
            )
    elapsed = time.perf_counter() - started
    for r in records:
        r["task_s"] = elapsed  # wall time of the whole task (one location), for sizing runs
    return records


def report(results: list, params: dict, out_dir, meta: dict | None = None) -> None:
    records = [r for rs in results for r in rs]
    inference_report.write(records, params, out_dir, meta)
