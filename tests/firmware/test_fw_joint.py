"""Joint (vector-state) systems through the firmware in QEMU, in the messages every system shares: a short
pendulum, cvrange, bearings and reentry trace streamed, by the atom filter and by the cell filter, (STEP, a missing observation among them, and a reading the filters' innovation gate flags) and validated against the
reference as `uxhost validate --exact` does it (every bit of the reference's own run: the Python reference's
for a double build, the host float build of the same C code for a float build), the error paths of a 2-D system's CONFIGURE and STEP, and a board
built without joint systems (microbit: DESCRIBE does not list them, CONFIGURE refuses them)."""

import math

import numpy as np
import pytest
from fwutil import expect_error, prior_on, raw_frame, serves_joint

from uxemu import joint_systems
from uxhost import joint
from uxhost.dump import load_dump
from uxhost import protocol as p
from uxhost.streaming import stream_trace
from uxhost.validate import compare

pytestmark = pytest.mark.qemu

E = p.ErrorCode
T = 8  # steps: short, so that QEMU stays fast


@pytest.fixture
def joint_board(board):
    if not serves_joint(board):
        pytest.skip(f"{board} is built without joint systems (-DAPP_JOINT=0)")
    return board


def config(name: str, eta: int, mode: str = "refined") -> joint.JointConfig:
    spec = joint_systems.spec(name)
    return joint.resolve(spec, eta=eta, mode=mode)


def priors_of(cfg):
    return [(p.PriorKind[kind.upper()], a, b) for kind, a, b in cfg.priors]


@pytest.mark.parametrize(
    "name, eta, mode",
    [
        ("pendulum", 8, "refined"),
        ("cvrange", 16, "paper"),
        ("bearings", 16, "refined"),
        ("pendulum", 16, "cells"),
        ("bearings", 8, "cells"),
        ("reentry", 16, "cells"),
    ],
)
def test_joint_trace_streams_and_validates(dev, joint_board, tmp_path, name, eta, mode):
    cfg = config(name, eta, mode)
    trace = joint.simulate(joint_systems.spec(name), cfg.params, T, seed=7)
    trace.z[3] = np.nan  # a missing observation: the step only predicts
    # a reading 15 noise sd off: every filter's gate says OUTLIER, on the wire as in the reference
    model = joint_systems.get(name, **dict(zip(joint_systems.spec(name).param_names, cfg.params)))
    trace.z[5] = trace.z[5] + 15.0 * np.asarray(model.loc_scale(trace.x[[5]])[1])[0]
    out = tmp_path / "run.jsonl"
    summary = stream_trace(dev, trace, cfg, out, progress=False)
    assert summary.steps == T and summary.missing == 1
    dump = load_dump(out)
    assert [s.status for s in dump.steps].count(p.Status.NO_EVIDENCE) == 1
    assert dump.steps[5].status == p.Status.OUTLIER
    if (name, mode) == ("pendulum", "cells"):  # sin θ saturates where the cells' update does not: the gap it left
        assert [s.status for s in dump.steps[6:]] == [p.Status.DEPARTED] * (T - 6)
    d = joint_systems.spec(name).dim
    assert all(len(s.atoms_w) <= eta and len(s.mean) == d and len(s.cov) == d * d for s in dump.steps)
    assert all(math.isclose(sum(s.atoms_w), 1.0, rel_tol=1e-5) for s in dump.steps)
    cmp = compare(dump, exact=True)
    assert cmp.ok, cmp.first_bad
    assert max(cmp.max_rel.values()) == 0.0


def test_joint_systems_are_described(dev, board):
    specs = dev.systems()
    joint_names = [n for n, s in specs.items() if hasattr(s, "dim")]
    if not serves_joint(board):
        assert joint_names == []
        return
    assert joint_names == joint_systems.names()
    for name in joint_names:
        model = joint_systems.get(name)
        assert (specs[name].dim, specs[name].dim_obs) == (model.dim, model.dim_obs)
        assert specs[name].prior == prior_on(board, joint_systems.spec(name).prior)  # in the board's reals


def test_joint_configure_refused_without_joint_support(dev, board):
    if serves_joint(board):
        pytest.skip(f"{board} serves joint systems")
    cfg = config("pendulum", 4)
    msg = p.Configure(cfg.system_id, cfg.eta, p.Mode.REFINED, p.Likelihood.KERNEL, cfg.params, tuple(priors_of(cfg)))
    expect_error(dev, p.encode(msg, 300), E.CONFIG, detail=0, seq=300)


def test_joint_step_errors(dev, joint_board):
    cfg = config("pendulum", 8)
    dev.configure(cfg.system_id, cfg.eta, p.Mode.REFINED, p.Likelihood.KERNEL, cfg.params, priors_of(cfg))
    # the wrong z width: two components per point where the system observes one
    expect_error(dev, p.encode(p.Step(0, False, 0.0, (0.5, 0.1), (1.0,), dim_obs=2), 310), E.EVIDENCE, detail=5)
    # a NaN observation: field z[0] = 6 + n_evidence
    expect_error(dev, p.encode(p.Step(0, False, 0.0, (math.nan,), (1.0,)), 311), E.EVIDENCE, detail=7)
    # a length that disagrees with n_evidence · dim_obs
    payload = p.Step(0, False, 0.0, (0.5,), (1.0,)).pack()[:-8]
    expect_error(dev, raw_frame(p.MsgType.STEP, 313, payload), E.LENGTH)
    # the mixture mode and the sampler are the scalar core's: CONFIGURE fields 2 and 3
    for field, change in ((2, dict(mode=p.Mode.MIXTURE)), (3, dict(likelihood=p.Likelihood.SAMPLER))):
        msg = p.Configure(
            cfg.system_id,
            cfg.eta,
            **{"mode": p.Mode.REFINED, "likelihood": p.Likelihood.KERNEL, **change},
            params=cfg.params,
            priors=tuple(priors_of(cfg)),
        )
        expect_error(dev, p.encode(msg, 314 + field), E.CONFIG, detail=field)
    # the cells mode is the joint core's: a scalar system (sv) refuses it at field 2
    sv = p.Configure(
        1, 8, p.Mode.CELLS, p.Likelihood.KERNEL, (0.98, 0.0, 0.2, 1.0), ((p.PriorKind.GAUSSIAN, 0.0, 1.0),)
    )
    expect_error(dev, p.encode(sv, 317), E.CONFIG, detail=2)
    # none of them changed the filter: the first step still runs, and runs as on a fresh configuration
    first = dev.step(0, False, 0.0, (0.5,))
    assert first.dim == 2 and len(first.x) == 2 * first.count
    dev.configure(cfg.system_id, cfg.eta, p.Mode.REFINED, p.Likelihood.KERNEL, cfg.params, priors_of(cfg))
    assert dev.step(0, False, 0.0, (0.5,)).x == first.x


def test_joint_eta_limited_by_the_frame(dev, joint_board):
    """POSTERIOR of η = 64 atoms of dim 2 does not fit MAX_PAYLOAD: refused at the η field."""
    if dev.hello().max_eta < 64:
        pytest.skip("the board's η stops below 64")
    cfg = config("pendulum", 64)
    msg = p.Configure(cfg.system_id, 64, p.Mode.REFINED, p.Likelihood.KERNEL, cfg.params, tuple(priors_of(cfg)))
    expect_error(dev, p.encode(msg, 320), E.CONFIG, detail=1)
