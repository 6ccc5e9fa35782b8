"""The filters' tuning constants are written twice, in ux/filter.h and ux/joint_cells.h for the C core and in
uxemu.filter and uxemu.joint_cells for the reference; C = reference bit for bit holds only while they agree, so
this reads the headers and compares."""

import re
from pathlib import Path

import pytest

from uxemu import filter as uxfilter
from uxemu import joint_cells

HEADERS = Path(__file__).resolve().parents[2] / "firmware" / "include" / "ux"
PAIRS = {  # C macro -> reference constant
    "UX_OUTLIER_GATE": "OUTLIER_GATE",
    "UX_REFOCUS_ESS": "REFOCUS_ESS",
    "UX_REFOCUS_WIDE_ETA": "REFOCUS_WIDE_ETA",
    "UX_KERNEL_SHARE": "KERNEL_SHARE",
    "UX_KERNEL_CAP": "KERNEL_CAP",
    "UX_KERNEL_INFO": "KERNEL_INFO",
    "UX_KERNEL_BIMODALITY": "KERNEL_BIMODALITY",
    "UX_CELL_BEND": "CELL_BEND",
    "UX_DEPARTURE_SD": "DEPARTURE_SD",
    "UX_NIS_WEIGHT": "NIS_WEIGHT",
    "UX_NIS_CAP": "NIS_CAP",
    "UX_NIS_LIMIT": "NIS_LIMIT",
    "UX_LINEAR_RESIDUAL": "LINEAR_RESIDUAL",
    "UX_LINEAR_ROUNDING": "LINEAR_ROUNDING",
    "UX_LINEAR_BIMODALITY": "LINEAR_BIMODALITY",
    "UX_REFOCUS_ROUNDS": "REFOCUS_ROUNDS",
    "UX_REGION_NODES": "REGION_NODES",
    "UX_LUMPS": "LUMPS",
    "UX_NARROW_PEAK": "NARROW_PEAK",
    "UX_LUMP_ATOM_ETA": "LUMP_ATOM_ETA",
    "UX_NODE_RESOLUTION": "NODE_RESOLUTION",
    "UX_COMPONENT_SPAN": "COMPONENT_SPAN",
    "UX_COMB_SPAN": "COMB_SPAN",
    "UX_COMB_GAP": "COMB_GAP",
    "UX_COMB_BIMODALITY": "COMB_BIMODALITY",
    "UX_EDGE_SHARE": "EDGE_SHARE",
    "UX_EDGE_PROBES": "EDGE_PROBES",
    "UX_EDGE_PROBES_ETA": "EDGE_PROBES_ETA",
}
CELL_PAIRS = {
    "UX_CELLS_MERGE_WEIGHT": "MERGE_WEIGHT",
    "UX_CELLS_BEND": "BEND",
    "UX_CELLS_SPLIT_ITERATIONS": "SPLIT_ITERATIONS",
}


def header_value(header: str, name: str) -> float:
    path = HEADERS / header
    m = re.search(rf"^#define {name} +(?:UX_R\()?([-+0-9.eE]+)\)?", path.read_text(), re.MULTILINE)
    assert m, f"{name} is not defined as a number in {path}"
    return float(m.group(1))


@pytest.mark.parametrize("c_name, py_name", PAIRS.items())
def test_the_reference_uses_the_cores_constant(c_name, py_name):
    assert header_value("filter.h", c_name) == getattr(uxfilter, py_name)


@pytest.mark.parametrize("c_name, py_name", CELL_PAIRS.items())
def test_the_cell_filter_reference_uses_the_cores_constant(c_name, py_name):
    assert header_value("joint_cells.h", c_name) == getattr(joint_cells, py_name)
