"""benchmarks/firmware_costs.py on its smallest setting: one board, η = 4 and 8, a 3-step trace. Its sizes
must be what `make arm` prints, its cycle counts what the device reports for the same steps (η = 4 on the
η = 8 image: no image is built below 8), and its three files must agree."""

import csv
import importlib.util
import json
import sys

import pytest
from fwutil import GSS, configure_args

from uxemu import systems, traces
from uxhost import link, qemu
from uxhost import protocol as p

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def costs():
    spec = importlib.util.spec_from_file_location("firmware_costs",
                                                  qemu.REPO_ROOT / "benchmarks" / "firmware_costs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_small_run_writes_consistent_results(costs, tmp_path, capsys):
    out = tmp_path / "firmware.md"
    argv = ["--boards", "mps2-an500", "--etas", "4,8", "--steps", "3", "--seed", "4", "--out", str(out)]
    assert costs.main(argv) == 0
    record = json.loads(out.with_suffix(".json").read_text())
    rows = list(csv.DictReader(out.with_suffix(".csv").open()))
    md = out.read_text()

    [build] = record["builds"]
    assert build["board"] == "mps2-an500" and build["max_eta"] == 8 and build["stack"] == 16384
    assert f"| mps2-an500 | 8 | {build['flash']:,} | {build['ram']:,} |" in md
    assert "firmware_costs.py --boards mps2-an500 --etas 4,8" in md and "-icount shift=6" in md

    # systems × η × modes × likelihoods
    assert len(record["cycles"]) == len(rows) == len(costs.SYSTEMS) * 2 * 2 * 2
    assert {c["eta"] for c in record["cycles"]} == {4, 8}
    assert all(c["steps"] == 2 and c["predict_max"] >= c["predict_median"] > 0 for c in record["cycles"])
    assert [int(r["update_max"]) for r in rows] == [c["update_max"] for c in record["cycles"]]
    assert "[" in capsys.readouterr().err  # progress

    # The same trace streamed here, on the image the benchmark built, gives the same counts.
    image = costs.SCRATCH / "mps2-an500-eta8" / "firmware.elf"
    tr = traces.simulate(systems.get(GSS), 3, costs.np.random.default_rng([4, GSS]))
    for eta in (4, 8):
        gss = next(c for c in record["cycles"]
                   if (c["system"], c["eta"], c["mode"], c["likelihood"]) == ("gss", eta, "refined", "kernel"))
        with qemu.boot("mps2-an500", image) as instance, link.Device.open(instance.url, timeout=30) as dev:
            dev.configure(**configure_args(GSS, eta))
            steps = [dev.step(int(tr.k[i]), i > 0, float(tr.u[i]), float(tr.z[i])) for i in range(3)]
        assert gss["update_max"] == max(s.cycles_update for s in steps[1:])
        assert gss["predict_max"] == max(s.cycles_predict for s in steps[1:])
        assert gss["update_step0"] == steps[0].cycles_update
