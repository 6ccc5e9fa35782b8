"""How uxbench commits its files (uxbench.report): raw results as gzip'd JSON and plots as palette PNGs, both
the same bytes for the same content, so a result rendered again shows no change."""

import gzip

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402

from uxbench import environment, report  # noqa: E402


def test_raw_results_round_trip_as_the_same_gzip_bytes(tmp_path):
    data = {"meta": environment.block({"traces": 2}), "results": [{"rmse": [0.1, 1 / 3]}, [1, 2.5e-300]]}
    report.write_json_gz(tmp_path / "a.json.gz", data)
    report.write_json_gz(tmp_path / "b.json.gz", data)
    assert report.read_json_gz(tmp_path / "a.json.gz") == data
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    assert gzip.decompress((tmp_path / "a.json.gz").read_bytes()).startswith(b'{"meta": {"commit"')


def test_a_figure_is_saved_as_a_palette_png_the_same_bytes_each_time(tmp_path):
    def draw(path):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([1, 2, 3], [3, 1, 2], "o:", label="ux")
        ax.legend()
        report.save_figure(fig, path, dpi=80)
        plt.close(fig)

    draw(tmp_path / "a.png")
    draw(tmp_path / "b.png")
    image = Image.open(tmp_path / "a.png")
    assert image.mode == "P" and image.size == (240, 160)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_the_environment_block_says_where_and_when_in_one_sentence():
    env = environment.block({"traces": 50, "steps": 100}, seconds=12.4)
    line = environment.line(env)
    assert line.startswith(f"Measured on {env['cpu']}, {env['cpus']} CPUs") and line.endswith("traces 50, steps 100.")
    assert env["commit"] and f"commit {env['commit']}" in line and "12 s" in line
    assert environment.line({"cpu": "x", "cpus": 2}) == "Measured on x, 2 CPUs."  # an older run's block
