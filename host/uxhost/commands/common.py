"""What several subcommands share: the one-line error, trace loading, and the model configuration
(system, parameter vector, prior) as the user types it and as the link and the dump carry it."""
from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

from ..dump import ModelConfig


class CommandError(Exception):
    """A failure the user can fix; the CLI prints its message as one line and exits 2."""


SYSTEMS = ("sv", "gss", "cubic")
MODES = ("refined", "paper")
LIKELIHOODS = ("kernel", "sampler")
PRIOR_KINDS = ("gaussian", "laplace")  # index = prior_kind on the link
ETAS = (1, 2, 4, 8, 16, 32, 64)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


# --------------------------------------------------------------------------------------------------
# Model configuration


def add_model_arguments(parser: argparse.ArgumentParser, filter_options: bool = True) -> None:
    parser.add_argument("--system", choices=SYSTEMS, default="gss",
                        help="benchmark system: stochastic volatility, Gordon-Salmond-Smith, cubic/Beer-Lambert "
                             "(default: %(default)s)")
    parser.add_argument("--params", metavar="P1,P2,…|NAME=V,…",
                        help="model parameters, either the whole vector in the order of docs/semantics.md or "
                             "name=value overrides (e.g. sigma_v=2); default: the paper's values")
    if not filter_options:
        return
    parser.add_argument("--eta", type=int, choices=ETAS, default=16, help="atoms per value (default: %(default)s)")
    parser.add_argument("--mode", choices=MODES, default="refined",
                        help="refined: weight all η² predictive atoms; paper: reduce to η first (default: %(default)s)")
    parser.add_argument("--likelihood", choices=LIKELIHOODS, default="kernel",
                        help="kernel: exact marginalisation; sampler: TTR-binned density of the lifted "
                             "observation model (default: %(default)s)")
    parser.add_argument("--prior", metavar="KIND:A,B",
                        help="prior override, gaussian:MEAN,STD or laplace:MU,SCALE; default: the model's prior")


def build_model(system: str, params_text: str | None):
    """The uxemu model for a system name and the --params text (None: the paper's values)."""
    from uxemu import systems

    if not params_text:
        return systems.get(system)
    items = [item.strip() for item in params_text.split(",") if item.strip()]
    try:
        if all("=" in item for item in items):
            overrides = {}
            for item in items:
                name, _, value = item.partition("=")
                overrides[name.strip()] = float(value)
            return systems.get(system, **overrides)
        if any("=" in item for item in items):
            raise CommandError("--params: give either the whole vector or name=value pairs, not a mix")
        values = [float(item) for item in items]
        return systems.from_param_vector(systems.get(system).system_id, values)
    except TypeError as exc:  # an unknown keyword of the system's factory
        raise CommandError(f"--params: {exc}") from None
    except ValueError as exc:
        raise CommandError(f"--params: {exc}") from None


def model_prior(model) -> tuple[str, float, float]:
    """The model's prior as (kind, a, b) in the link's terms."""
    from uxemu.laws import Laplace, Normal

    if isinstance(model.prior, Normal):
        return "gaussian", float(model.prior.mu), float(model.prior.sigma)
    if isinstance(model.prior, Laplace):
        return "laplace", float(model.prior.mu), float(model.prior.b)
    raise CommandError(f"the prior {model.prior!r} of {model.name} cannot be sent over the link")


def parse_prior(text: str) -> tuple[str, float, float]:
    kind, sep, rest = text.partition(":")
    kind = kind.strip().lower()
    parts = rest.split(",")
    if not sep or kind not in PRIOR_KINDS or len(parts) != 2:
        raise CommandError(f"--prior {text!r}: expected gaussian:MEAN,STD or laplace:MU,SCALE")
    try:
        a, b = float(parts[0]), float(parts[1])
    except ValueError:
        raise CommandError(f"--prior {text!r}: not numbers") from None
    if not (math.isfinite(a) and math.isfinite(b) and b > 0):
        raise CommandError(f"--prior {text!r}: the location must be finite and the scale positive")
    return kind, a, b


def model_config(args) -> ModelConfig:
    """The configuration the command-line options ask for."""
    model = build_model(args.system, args.params)
    kind, a, b = parse_prior(args.prior) if args.prior else model_prior(model)
    return ModelConfig(args.system, tuple(float(v) for v in model.params), args.eta, args.mode,
                       args.likelihood, kind, a, b)


# --------------------------------------------------------------------------------------------------
# Traces

_U32 = 1 << 32


def load_trace(path):
    """A trace CSV (k,u,z[,x]) checked for what the link and the filter need; errors name the line."""
    from uxemu import Trace

    path = Path(path)
    try:
        trace = Trace.from_csv(path)
    except FileNotFoundError:
        raise CommandError(f"trace file {path} does not exist") from None
    except UnicodeDecodeError:
        raise CommandError(f"{path}: not a text CSV file") from None
    except (ValueError, csv.Error) as exc:
        raise CommandError(f"malformed trace: {exc}") from None
    if len(trace) == 0:
        raise CommandError(f"{path}: the trace has no rows")
    lines = _data_line_numbers(path)
    for name in ("z", "u", "x"):
        column = getattr(trace, name)
        if column is None:
            continue
        bad = [i for i, v in enumerate(column) if not math.isfinite(v)]
        if bad:
            i = bad[0]
            raise CommandError(f"{path}:{lines[i]}: column {name!r} is not finite ({column[i]!r})")
    for i, k in enumerate(trace.k):
        if not 0 <= k < _U32:
            raise CommandError(f"{path}:{lines[i]}: step index k={k} is outside 0 .. 2^32-1")
    return trace


def _data_line_numbers(path: Path) -> list[int]:
    """The file line of each data row, counted as the CSV reader counts them (blank rows skipped)."""
    with path.open(newline="") as fh:
        reader = csv.reader(fh)
        next(reader, None)
        return [reader.line_num for row in reader if row]


# --------------------------------------------------------------------------------------------------
# Firmware images

BOARDS = ("mps2-an500", "mps2-an386")


def find_firmware(board: str, elf: Path | None = None, build_dirs=None) -> Path:
    """The firmware image to boot: --elf as given, else <build>/<board>/firmware.elf from the first of
    `build_dirs` that has it (default: ./build, then the build folder of the checkout uxhost runs from)."""
    from ..qemu import BUILD_DIR

    if elf is not None:
        if not elf.is_file():
            raise CommandError(f"firmware image {elf} does not exist")
        return elf
    dirs = [Path.cwd() / "build", BUILD_DIR] if build_dirs is None else [Path(d) for d in build_dirs]
    for build in dirs:
        candidate = build / board / "firmware.elf"
        if candidate.is_file():
            return candidate
    raise CommandError(f"no firmware image for {board} (build/{board}/firmware.elf not found): "
                       f"run `make firmware` first, or pass --elf")
