# ux-filter top-level build. The README's two commands: `make demo` and `make test`.
# Everything a fresh Debian machine lacks is installed by these targets themselves.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
BUILD  := build
# Every board folder with a board.mk (the same rule uxhost.qemu.all_boards() applies).
BOARDS := $(patsubst boards/%/board.mk,%,$(wildcard boards/*/board.mk))

.PHONY: all deps venv uxm-lib generate native bench-lib firmware ctest lint format test test-fast demo bench bench-full bench-firmware fuzz pio clean

all: native firmware

deps:
	@bash scripts/install-deps.sh

# The virtual environment is rebuilt when the dependency list or the pins change.
$(VENV)/.stamp: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -c constraints.txt -e '.[test]'
	touch $@

venv: $(VENV)/.stamp

# Generated files (C headers, Python tables, doc tables) from their one hand-written source each.
# Checked in; regenerated here when a source changed, and a test fails when they drift apart. The venv's
# python, because the standard quantization table comes from the reference (numpy, scipy).
generate: venv uxm-lib
	cd scripts && $(abspath $(VPY)) -m codegen

# The core's elementary functions alone (firmware/include/ux/uxm.h): the reference computes exp, log, sin…
# with them, so the generator needs them before the core itself can be built from its output.
uxm-lib:
	$(MAKE) -C firmware uxm BUILD=$(abspath $(BUILD))/native

# Host build of the C core as a shared library (the native engine used by tests and benchmarks).
native: generate
	$(MAKE) -C firmware host BUILD=$(abspath $(BUILD))/native

# The C baselines the benchmarks time next to the core, linked with it (benchmarks/c): never flashed.
bench-lib: generate
	$(MAKE) -C benchmarks/c BUILD=$(abspath $(BUILD))/native

# C unit tests on the host, plain and under the sanitizers.
ctest:
	$(MAKE) -C firmware check BUILD=$(abspath $(BUILD))/native

# Firmware images for every QEMU board.
firmware: deps generate
	@for b in $(BOARDS); do $(MAKE) -C firmware arm BOARD=$$b BUILD=$(abspath $(BUILD))/$$b || exit 1; done

# The style every hand-written file keeps (scripts/style.py): ruff over the Python, clang-format over the C.
lint: deps venv uxm-lib
	cd scripts && $(abspath $(VPY)) -m style

format: deps venv uxm-lib
	cd scripts && $(abspath $(VPY)) -m style --fix

test: deps venv lint native bench-lib ctest firmware
	bash scripts/run-pytest.sh $(VPY) -m pytest -q

# The reference's tests only (no QEMU; the C compiler builds just the elementary functions): quick inner loop while editing the reference.
test-fast: venv uxm-lib
	bash scripts/run-pytest.sh $(VPY) -m pytest -q tests/emulator

demo: deps venv native firmware
	$(VPY) -m uxhost demo

# The paper's tables: `make bench` (quick, minutes) or `make bench-full` (the paper's counts).
bench: venv native bench-lib
	$(VPY) -m uxbench --quick

bench-full: venv native bench-lib
	$(VPY) -m uxbench --full

# Flash, RAM and virtual cycles of the firmware on the QEMU boards → benchmarks/results/firmware.md
bench-firmware: deps venv
	$(VPY) -m uxbench firmware_costs

# The fuzz campaign (not part of `make test`): libFuzzer harnesses of the link and of the core, a bounded
# run per harness, figures → benchmarks/results/fuzz.md, findings → build/fuzz/findings/ (a scratch folder).
# The campaign never writes to tests/fuzz/findings/, the set `make test` replays: a human moves a finding
# there by hand once its fault is understood. The harnesses' oracles come from docs/protocol.toml (fuzz/oracle.h).
fuzz: venv generate
	@bash scripts/install-deps.sh fuzz
	$(VPY) fuzz/run.py

# PlatformIO, offline: every env of platformio.ini and the example application (platformio/README.md).
pio: deps venv generate
	scripts/pio run
	scripts/pio run -d examples/sensor-loop

clean:
	rm -rf $(BUILD) .pio examples/*/.pio
