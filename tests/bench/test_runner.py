"""uxbench.runner: the local process pool, the Dask path on a local cluster, and the command line."""

import json
import os

import pytest

from uxbench import __main__ as cli
from uxbench import filtering, runner


def square_and_pid(x):
    return x * x, os.getpid()


def test_the_pool_returns_results_in_task_order():
    out = runner.execute(list(range(12)), square_and_pid, workers=2)
    assert [v for v, _ in out] == [x * x for x in range(12)]
    assert all(pid != os.getpid() for _, pid in out)  # the work ran in worker processes
    assert runner.execute([], square_and_pid) == []


def stamp(task):
    import time

    start = time.monotonic()
    time.sleep(0.05)
    return task["id"], os.getpid(), start, time.monotonic()


def test_a_task_marked_alone_runs_first_with_nothing_beside_it():
    tasks = [{"id": i} for i in range(4)] + [{"id": 4, "alone": True}] + [{"id": i} for i in range(5, 8)]
    out = runner.execute(tasks, stamp, workers=2)
    assert [r[0] for r in out] == list(range(8))  # results still in task order
    _, pid, start, end = out[4]
    assert pid == os.getpid()  # in the calling process, not beside a worker
    assert all(r[2] >= end for i, r in enumerate(out) if i != 4)  # nothing else started before it ended


def _comparable(results):
    """Everything but wall-clock measurements, which no two runs share."""
    out = []
    for r in sorted(results, key=lambda r: (r["kind"], r.get("system", ""), r.get("trace", -1))):
        r = {k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds", "empty_call_ns")}
        if r["kind"] == "timing":
            r["rows"] = [
                {k: v for k, v in row.items() if k not in ("ns_per_step", "wall_ns_per_step", "samples")}
                for row in r["rows"]
            ]
        out.append(r)
    return out


@pytest.fixture(scope="module")
def small():
    return filtering.tiny(systems=("sv", "cubic"), etas=(8,), particles=(10,))


def test_dask_cluster_gives_the_local_pool_results(benchlib, small):
    distributed = pytest.importorskip("distributed")
    tasks = filtering.tasks(small)
    local = runner.execute(tasks, filtering.run_task, workers=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl:
        remote = runner.execute(tasks, filtering.run_task, scheduler=cl.scheduler_address)
    assert [r["kind"] for r in remote] == [t["kind"] for t in tasks]  # task order kept
    assert json.dumps(_comparable(remote), sort_keys=True) == json.dumps(_comparable(local), sort_keys=True)


def test_an_unreachable_scheduler_is_one_clear_error(monkeypatch):
    pytest.importorskip("distributed")
    import distributed

    def refuse(*args, **kwargs):
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1")

    monkeypatch.setattr(distributed, "Client", refuse)
    with pytest.raises(SystemExit, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        runner.execute([1], square_and_pid, scheduler="tcp://127.0.0.1:1")


def test_the_command_line_writes_the_filtering_results(benchlib, small, monkeypatch, tmp_path):
    monkeypatch.setitem(filtering.SIZES, "quick", small)
    assert cli.main(["--quick", "--only", "filtering", "--workers", "1", "--out", str(tmp_path)]) == 0
    for name in (
        "sv.md",
        "cubic.md",
        "README.md",
        "filtering_summary.csv",
        "filtering_results.json.gz",
        "sv_pareto.png",
    ):
        assert (tmp_path / "filtering" / name).exists(), name
