"""A long stream's memory: stream_trace writes each posterior to the dump and keeps none of them, so a run
of 10⁵ steps holds what a run of 10 does (plus 16 bytes a step of cycle counts for its summary). Checked
over a real socket link against the reference device of test_cli_stream.py."""

import gc

import numpy as np

import uxemu
from uxhost.config import ModelConfig
from uxhost.dump import StepRecord, load_dump
from uxhost.link import Device
from uxhost.streaming import stream_trace

from peers import ReferenceDevice


def live_step_records() -> int:
    return sum(isinstance(o, StepRecord) for o in gc.get_objects())


def test_stream_keeps_no_posterior_of_past_steps_and_its_summary_is_the_dumps(tmp_path):
    trace = uxemu.simulate_many(uxemu.systems.get("gss"), 1, 60, 2)[0]
    trace.z[[7, 30, 31]] = np.nan  # three steps without observation
    config = ModelConfig("gss", (3.0, 1.0), 4, "refined", "kernel", "gaussian", 0.0, 5.0)
    peer = ReferenceDevice()
    alive = []

    class Watched(Device):
        def step(self, *args, **kwargs):
            alive.append(live_step_records())
            return super().step(*args, **kwargs)

    out = tmp_path / "d.jsonl"
    with Watched.open(peer.url, timeout=10) as device:
        summary = stream_trace(device, trace, config, out, progress=False)
    peer.close()
    assert max(alive) <= 1, alive  # at most the record of the step just written, never a growing list

    dump = load_dump(out)
    assert summary.steps == len(dump) == 60 and summary.missing == 3
    assert summary.fallbacks == sum(s.status == 1 for s in dump.steps)
    assert summary.cycles_update.tolist() == [s.cycles_update for s in dump.steps]
    assert summary.cycles_predict.tolist() == [s.cycles_predict for s in dump.steps[1:]]
