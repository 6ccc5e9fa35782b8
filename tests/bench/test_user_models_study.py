"""`python -m uxbench user_models` on one trace of one model: every mode and η scored against the grid, the table
written; an unknown model is refused in one line."""

import gzip
import json

import pytest

from uxbench import user_models as study
from uxbench.__main__ import main as uxbench


def test_one_trace_of_the_quantizer_is_scored_in_every_mode_and_eta(tmp_path):
    out = tmp_path / "u.md"
    assert uxbench(["user_models", "--traces", "1", "--only", "quantizer", "--out", str(out)]) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    assert list(record["sets"]) == ["quantizer"]
    by_mode = record["sets"]["quantizer"]
    assert list(by_mode) == list(study.MODES)
    for by_eta in by_mode.values():
        assert list(by_eta) == [str(eta) for eta in study.ETAS]
        for score in by_eta.values():
            assert score["steps"] == study.STEPS and 0 <= score["silent"] <= score["wrong"] <= study.STEPS
    # every reading a point misses is weighed on the density's nodes: no −∞ log-likelihood, none silently wrong
    refined = by_mode["refined"]
    assert all(refined[str(eta)]["log_l_gap"] > -5.0 for eta in study.ETAS)
    assert "| quantizer | refined |" in out.read_text()


def test_an_unknown_model_is_refused_by_name():
    with pytest.raises(SystemExit, match="unknown model 'adc'; known: quantizer"):
        study.chosen("quantizer,adc")
