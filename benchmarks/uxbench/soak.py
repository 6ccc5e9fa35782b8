"""The soak: a long stream to the firmware in QEMU through a link that damages its frames.

Streams a simulated trace (default: 10⁵ steps of the Gordon–Salmond–Smith system at η = 4, refined,
kernel likelihood) to mps2-an500 with `uxhost stream`'s own code (uxhost.streaming.stream_trace), through
uxhost.damaging_proxy flipping a byte of, dropping or duplicating 10 % of the frames in each direction.
Every posterior is compared, as it arrives, with the host build of the same C core running the trace on
its own (uxemu.native), by uxhost.validate's measure: a step lost or applied twice moves that posterior's
mean and law, and the later ones', far outside the double build's 1e-9. Both builds use the core's own
elementary functions (ux/uxm.h), so every step should also be bit-identical: those steps are counted,
and so are the steps whose atoms differ while the law does not. Every
`--block` steps it samples the host's RSS, the link's resends, the proxy's counts, the wall time and
the block's virtual cycles per step (predict + update, from the POSTERIOR answers), and rewrites the
results, so a run cut short leaves what it measured. At the end the dump is also checked by
`uxhost validate --exact` (the Python reference, every bit).

Why this configuration: GSS's posterior is bimodal and its update the most sensitive to a lost or doubled
step. Under QEMU a step is wire-bound — the UART sends its answer a byte at a time, ~0.1 ms each on this
machine — so what decides the wall time is the answer's size and the resend timeout. η = 4 (a 122-byte
POSTERIOR; η = 8's is 186) is what fits 10⁵ steps into the time on a busy shared machine: at η = 8 the
run measured 89 ms a step under load (16,358 steps in 24 min). Every dropped frame costs a timeout:
0.1 s is four times the median clean round trip (measured first, without the proxy, and reported); an
answer later than that costs only a resend answered from memory. 300 retries give 30 s of patience:
the clean round trip's tail on this shared machine reaches 0.5–1.1 s, and two runs with less patience
(1.1 s and 4.1 s) were ended at steps 2,845 and 16,358 by a silence that long, QEMU still running — a
run of damaged attempts (each ~13 % likely at 10 % damage both ways) is far rarer.

    .venv/bin/python -m uxbench soak                 # the full soak (20 min idle, over 1 h busy); results → benchmarks/results/soak.*
    .venv/bin/python -m uxbench soak --steps 300 --out /tmp/soak   # a quick look
"""

from __future__ import annotations

import csv
import math
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from uxemu import systems, traces
from uxhost import link, qemu
from uxhost.config import ModelConfig
from uxhost.damaging_proxy import DamagingProxy
from uxhost.dump import StepRecord
from uxhost.elf import check_board
from uxhost.errors import InputError
from uxhost.protocol import PriorKind
from uxhost.streaming import stream_trace
from uxhost.validate import DOUBLE_RTOL, NativeReference, step_differences

from . import environment
from .report import RESULTS, read_json_gz, write_json_gz

DUMP = environment.REPO / "build" / "soak" / "soak.jsonl"


@dataclass
class Sample:
    """The state of the run after `steps` steps, and the block of steps that ended there."""

    steps: int
    wall_s: float
    rss_kib: int  # the host process's resident set now
    resends: int  # the link's resends so far
    mismatched: int  # steps so far whose mean, law or status is not the reference's (within 1e-9)
    damaged_to_device: int  # frames the proxy damaged so far, host → device
    damaged_to_host: int
    cycles_median: float  # virtual cycles per step (predict + update) over this block
    cycles_max: int


@dataclass
class Soak:
    """What the run measures, kept small: per-block aggregates only, never the steps themselves."""

    settings: dict
    samples: list[Sample] = field(default_factory=list)
    status: str = "running"
    steps: int = 0
    # Steps whose status, mean, law (W1) or log evidence is not the reference's within 1e-9: what a lost or
    # doubled step does. The atoms are counted apart: atoms of negligible weight that one build keeps and
    # the other does not change the atom count and the variance's last digits, not the law.
    mismatched: int = 0
    first_mismatch: int | None = None  # k of the first of them
    largest_difference: float = 0.0  # the largest relative difference of mean and law (uxhost.validate's measure)
    atoms_differ: int = 0  # steps whose atoms (count, positions, weights) or variance are outside 1e-9
    first_atoms_differ: int | None = None
    bit_identical: int = 0  # steps whose posterior has the reference's very bits
    proxy: dict = field(default_factory=dict)
    resends: int = 0
    requests: int | None = None  # requests the host sent once each (HELLO, DESCRIBE…, CONFIGURE, STEPs)
    wall_s: float = 0.0
    validate: str | None = None  # `uxhost validate`'s verdict line
    validate_ok: bool | None = None
    clean_round_trip_ms: dict = field(default_factory=dict)


def rss_kib() -> int:
    """This process's resident set size now (VmRSS), KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # pragma: no cover - not Linux


def _bits(values) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


class Checked:
    """The device as stream_trace drives it; each POSTERIOR is compared with the reference's step and
    counted into the run's blocks on its way back."""

    def __init__(self, device: link.Device, reference: NativeReference, trace, soak: Soak, on_block):
        self._device, self._reference, self._trace, self._soak = device, reference, trace, soak
        self._on_block = on_block
        self._cycles: list[int] = []
        self.n_systems = 0  # what the device's INFO says: one DESCRIBE each

    def __getattr__(self, name):
        return getattr(self._device, name)

    def hello(self, *args, **kwargs):
        info = self._device.hello(*args, **kwargs)
        self.n_systems = info.n_systems
        return info

    def step(self, k, predict, u, evidence_z, *args, **kwargs):
        post = self._device.step(k, predict, u, evidence_z, *args, **kwargs)
        compare(
            self._soak,
            self._reference,
            k,
            predict,
            u,
            evidence_z,
            post.status,
            post.mean[0],
            post.cov[0],
            post.log_evidence,
            post.x,
            post.w,
        )
        soak = self._soak
        self._cycles.append(post.cycles_predict + post.cycles_update)
        if soak.steps % soak.settings["block"] == 0 or soak.steps == len(self._trace):
            self._on_block(self._cycles)
            self._cycles = []
        return post


def compare(soak: Soak, ref: NativeReference, k, predict, u, evidence_z, status, mean, var, log_evidence, x, w):
    """One device step against the reference's, counted into `soak`."""
    ref_status = ref.step(k, evidence_z, u, predict)
    nat, atoms = ref.filter, ref.filter.posterior()
    record = StepRecord(k, u, math.nan, None, status, mean, var, tuple(x), tuple(w), log_evidence=log_evidence)
    diffs = step_differences(record, ref_status, ref.posterior, ref.log_evidence, ref.variance())
    worst = max(diffs["status"], diffs["mean"], diffs["law"], diffs["log_evidence"])
    soak.steps += 1
    soak.largest_difference = max(soak.largest_difference, worst)
    if not worst <= DOUBLE_RTOL:
        soak.mismatched += 1
        if soak.first_mismatch is None:
            soak.first_mismatch = k
    if not max(diffs.values()) <= DOUBLE_RTOL:
        soak.atoms_differ += 1
        if soak.first_atoms_differ is None:
            soak.first_atoms_differ = k
    soak.bit_identical += (
        status == ref_status
        and _bits([mean, var, log_evidence]) == _bits([nat.mean(), nat.var(), nat.log_evidence()])
        and _bits(x) == _bits(atoms.x)
        and _bits(w) == _bits(atoms.w)
    )


def recheck(out: Path, dump_path: Path) -> Soak:
    """The results in `out` compared again, step by step, from the run's dump (a run cut short included)
    with this file's comparison, and written again: for a run made before the comparison changed, or
    ended before its end (then its status says so, and its dump goes through `uxhost validate`)."""
    from uxemu.filter import observation
    from uxhost.dump import load_unfinished

    record = read_json_gz(out / "soak.json.gz")
    samples = [Sample(**x) for x in record.pop("samples")]
    soak = Soak(**{key: v for key, v in record.items() if key in Soak.__dataclass_fields__})
    dump = load_unfinished(dump_path)
    counted = {x.steps: x for x in samples}
    steps_before = soak.steps
    soak.steps = soak.mismatched = soak.atoms_differ = soak.bit_identical = 0
    soak.first_mismatch = soak.first_atoms_differ = None
    soak.largest_difference = 0.0
    reference = NativeReference(dump.header.config)
    for i, rec in enumerate(dump.steps):
        compare(
            soak,
            reference,
            rec.k,
            i > 0,
            rec.u,
            observation(rec.z),
            rec.status,
            rec.mean,
            rec.var,
            rec.log_evidence,
            rec.atoms_x,
            rec.atoms_w,
        )
        if soak.steps in counted:
            counted[soak.steps].mismatched = soak.mismatched
    soak.samples = [x for x in samples if x.steps <= soak.steps]
    if soak.status == "running":  # the process was ended: the dump has what it received
        soak.status = f"stopped after {soak.steps:,} steps (the process was ended before the run finished)"
    elif soak.steps != steps_before:
        raise SystemExit(f"soak: the dump {dump_path} has {soak.steps} steps, the results {steps_before}")
    if soak.validate is None:  # `uxhost validate` does not depend on this file's comparison: run once
        soak.validate_ok, soak.validate = validate(dump_path)
    write(soak, out)
    return soak


def run(args) -> Soak:
    """The soak the options ask for, or (--recheck) the last one compared again from its dump."""
    if args.steps < 1 or args.block < 1:
        raise SystemExit("uxbench soak: --steps and --block must be at least 1")
    if args.recheck:
        return recheck(args.out, args.dump)
    model = systems.get(args.system)
    spec = systems.spec(args.system)
    trace = traces.simulate(model, args.steps, np.random.default_rng(args.seed))
    config = ModelConfig(
        spec.name, tuple(model.params), args.eta, "refined", "kernel", "gaussian", model.prior.mu, model.prior.sigma
    )
    settings = dict(
        board=args.board,
        system=args.system,
        eta=args.eta,
        mode=config.mode,
        likelihood=config.likelihood,
        steps=args.steps,
        trace_seed=args.seed,
        rate=args.rate,
        proxy_seed=args.proxy_seed,
        timeout_s=args.timeout,
        retries=args.retries,
        block=args.block,
        icount_shift=qemu.DEFAULT_ICOUNT_SHIFT,
        environment=environment.block({"steps": args.steps, "eta": args.eta, "rate": args.rate}),
    )
    soak = Soak(settings)
    image = qemu.find_firmware(args.board, args.elf)
    check_board(image, args.board)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    soak.clean_round_trip_ms = clean_round_trips(args.board, image, config, trace, args.calibrate)
    write(soak, out)

    t0 = time.monotonic()
    with (
        qemu.boot(args.board, image) as instance,
        DamagingProxy(instance.url, rate=args.rate, seed=args.proxy_seed) as proxy,
        link.Device.open(proxy.url, timeout=args.timeout, retries=args.retries) as device,
    ):

        def on_block(cycles):
            soak.wall_s = time.monotonic() - t0
            soak.resends = device.resends
            soak.proxy = {d: c.as_dict() for d, c in proxy.counts.items()}
            soak.samples.append(
                Sample(
                    soak.steps,
                    round(soak.wall_s, 3),
                    rss_kib(),
                    device.resends,
                    soak.mismatched,
                    proxy.counts["to_device"].damaged,
                    proxy.counts["to_host"].damaged,
                    float(statistics.median(cycles)),
                    int(max(cycles)),
                )
            )
            write(soak, out)
            if args.progress:
                print(
                    f"soak: {soak.steps:,} steps, {soak.wall_s:.0f} s, {device.resends} resends, "
                    f"{soak.mismatched} mismatched, RSS {soak.samples[-1].rss_kib:,} KiB",
                    flush=True,
                )

        checked = Checked(device, NativeReference(config), trace, soak, on_block)
        args.dump.parent.mkdir(parents=True, exist_ok=True)
        try:
            stream_trace(checked, trace, config, args.dump, progress=False, qemu=instance)
        except (InputError, KeyboardInterrupt) as exc:
            soak.status = f"stopped after {soak.steps:,} steps: {exc or type(exc).__name__}"
            soak.wall_s = time.monotonic() - t0
            write(soak, out)
            raise
        soak.wall_s = time.monotonic() - t0
        soak.resends = device.resends
        soak.proxy = {d: c.as_dict() for d, c in proxy.counts.items()}
    # Requests sent once each: HELLO, one DESCRIBE per system the device has, CONFIGURE, the STEPs.
    soak.requests = 2 + checked.n_systems + soak.steps
    soak.status = "done"
    soak.validate_ok, soak.validate = validate(args.dump)
    write(soak, out)
    return soak


def clean_round_trips(board: str, image: Path, config: ModelConfig, trace, steps: int) -> dict:
    """Wall time of a STEP's round trip on an undamaged link (ms: median, 99.9th percentile, max over
    `steps` steps): what the resend timeout must stay above."""
    if steps <= 0:
        return {}
    from uxemu.filter import observation

    with qemu.boot(board, image) as instance, link.Device.open(instance.url, timeout=10) as device:
        device.configure(
            config.system_id,
            config.eta,
            params=config.params,
            priors=[(PriorKind.GAUSSIAN, config.prior_a, config.prior_b)],
        )
        took = []
        for i in range(min(steps, len(trace))):
            started = time.perf_counter()
            device.step(int(trace.k[i]), i > 0, float(trace.u[i]), observation(trace.z[i]))
            took.append((time.perf_counter() - started) * 1e3)
    return dict(
        steps=len(took),
        median=round(float(np.median(took)), 2),
        p999=round(float(np.quantile(took, 0.999)), 2),
        max=round(float(max(took)), 2),
    )


def validate(dump: Path) -> tuple[bool, str]:
    """`uxhost validate --exact` of the dump, in its own process (its memory is not the soak's): (ok, verdict)."""
    command = [sys.executable, "-m", "uxhost", "validate", "--exact", str(dump)]
    proc = subprocess.run(command, capture_output=True, text=True)
    lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    verdict = next(
        (line for line in lines if "bit for bit" in line or "FAILED" in line), lines[-1] if lines else "no output"
    )
    return proc.returncode == 0, verdict


# --------------------------------------------------------------------------------------------------
# Results


def write(soak: Soak, out: Path) -> None:
    """soak.json.gz (everything), soak.csv (one row per sample) and soak.md, rewritten at every sample."""
    write_json_gz(out / "soak.json.gz", asdict(soak))
    with (out / "soak.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(Sample.__dataclass_fields__))
        writer.writeheader()
        writer.writerows(asdict(s) for s in soak.samples)
    (out / "soak.md").write_text(render(soak))


def render(soak: Soak) -> str:
    s = soak.settings
    lines = [
        "# Soak: a long stream through a damaging link (`python -m uxbench soak`)",
        "",
        f"{s['steps']:,} steps of {s['system']} (η = {s['eta']}, {s['mode']}, {s['likelihood']} likelihood, "
        f"trace seed {s['trace_seed']}) streamed to {s['board']} in QEMU (-icount shift={s['icount_shift']}) "
        f"by `uxhost stream`'s code, through uxhost.damaging_proxy damaging {s['rate']:.0%} of the frames in "
        f"each direction (byte flip, drop or duplicate, equally likely; proxy seed {s['proxy_seed']}). "
        f"Link: resend timeout {s['timeout_s']:g} s, {s['retries']} retries. {environment.line(s['environment'])} "
        f"Samples every {s['block']:,} steps in soak.csv.",
        "",
    ]
    done = soak.status == "done"
    if not done:
        lines += [f"**Run not finished: {soak.status}** (of {s['steps']:,} steps).", ""]
    rt = soak.clean_round_trip_ms
    if rt:
        lines += [
            f"Clean link (no proxy), {rt['steps']:,} steps: a STEP's round trip takes {rt['median']} ms "
            f"(median), {rt['p999']} ms (99.9th percentile), {rt['max']} ms (max); the resend timeout is "
            f"{s['timeout_s'] * 1e3:g} ms.",
            "",
        ]
    lines += [
        "| measure | value |",
        "|---|---|",
        f"| steps streamed | {soak.steps:,} |",
        f"| steps whose status, mean, law (W1) or log evidence are outside 1e-9 of the native C core's run of "
        f"the trace (as a lost or doubled step's would be; benchmarks/README.md says what the run's are) | "
        f"{soak.mismatched:,}"
        + (f" (first at k = {soak.first_mismatch})" if soak.first_mismatch is not None else "")
        + " |",
        f"| largest relative difference of those to the native C core (uxhost.validate's measure) | "
        f"{soak.largest_difference:.2e} |",
        f"| steps whose atoms or variance are outside 1e-9 of the native C core's | {soak.atoms_differ:,}"
        + (f" (first at k = {soak.first_atoms_differ})" if soak.first_atoms_differ is not None else "")
        + " |",
        f"| steps bit-identical to the native C core | {soak.bit_identical:,} |",
    ]
    if soak.validate is not None:
        lines.append(f"| `uxhost validate --exact` of the dump | {soak.validate} |")
    lines.append(f"| resends by the host | {soak.resends:,} |")
    for d, what in (("to_device", "host → device"), ("to_host", "device → host")):
        c = soak.proxy.get(d)
        if c:
            lines.append(
                f"| frames {what}: seen / flipped / dropped / duplicated | {c['frames']:,} / "
                f"{c['flipped']:,} / {c['dropped']:,} / {c['duplicated']:,} |"
            )
    if soak.requests is not None and soak.proxy:
        lines.append(
            f"| requests (once each) + resends = frames host → device | {soak.requests:,} + "
            f"{soak.resends:,} = {soak.requests + soak.resends:,} "
            f"(proxy: {soak.proxy['to_device']['frames']:,}) |"
        )
    if soak.samples:
        rss = [x.rss_kib for x in soak.samples]
        lines.append(
            f"| host RSS (KiB): first sample / last / min / max | {rss[0]:,} / {rss[-1]:,} / {min(rss):,} / "
            f"{max(rss):,} |"
        )
        first, last = soak.samples[0], soak.samples[-1]
        lines.append(
            f"| virtual cycles per step, first {s['block']:,} steps: median / max | "
            f"{first.cycles_median:,.0f} / {first.cycles_max:,} |"
        )
        lines.append(
            f"| virtual cycles per step, last {s['block']:,} steps: median / max | "
            f"{last.cycles_median:,.0f} / {last.cycles_max:,} |"
        )
    timed = soak.steps if done or not soak.samples else soak.samples[-1].steps  # wall_s is at the last sample
    lines.append(f"| wall time | {soak.wall_s:,.0f} s ({soak.wall_s / max(timed, 1) * 1e3:.1f} ms a step) |")
    if len(soak.samples) > 1:
        lines += [
            "",
            "Every tenth sample (all in soak.csv):",
            "",
            "| steps | wall (s) | RSS (KiB) | resends | damaged → device | damaged → host | mismatched | "
            "cycles median | cycles max |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        shown = soak.samples[::10] + ([soak.samples[-1]] if (len(soak.samples) - 1) % 10 else [])
        for x in shown:
            lines.append(
                f"| {x.steps:,} | {x.wall_s:,.0f} | {x.rss_kib:,} | {x.resends:,} | {x.damaged_to_device:,} | "
                f"{x.damaged_to_host:,} | {x.mismatched:,} | {x.cycles_median:,.0f} | {x.cycles_max:,} |"
            )
    return "\n".join(lines) + "\n"


def arguments(ap) -> None:
    ap.add_argument("--steps", type=int, default=100_000, help="steps to stream (default: %(default)s)")
    ap.add_argument("--board", default=qemu.DEFAULT_BOARD, choices=qemu.boards())
    ap.add_argument("--elf", type=Path, help="firmware image (default: build/BOARD/firmware.elf)")
    ap.add_argument("--system", default="gss", choices=systems.with_twin())
    ap.add_argument("--eta", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1, help="seed of the simulated trace")
    ap.add_argument("--rate", type=float, default=0.1, help="fraction of frames damaged in each direction")
    ap.add_argument("--proxy-seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=0.1, help="seconds before a request is resent")
    ap.add_argument("--retries", type=int, default=300, help="resends of a request before the device is given up")
    ap.add_argument("--block", type=int, default=1000, help="steps per sample (default: %(default)s)")
    ap.add_argument(
        "--calibrate", type=int, default=1000, help="steps of the clean round-trip measurement first (0: none)"
    )
    ap.add_argument("--dump", type=Path, default=DUMP, help="where the posteriors go (default: build/soak/)")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder of soak.md, soak.csv, soak.json.gz")
    ap.add_argument("--progress", action="store_true", help="a line per sample on stdout")
    ap.add_argument(
        "--recheck",
        action="store_true",
        help="run nothing: compare the dump of the run in --out again and write its results again",
    )


def report(soak: Soak, args) -> int:
    """The run's results are written as it goes (write): a line to say how it went, 1 if it failed."""
    print(
        f"soak: {soak.steps:,} steps, {soak.mismatched} mismatched, {soak.resends} resends, "
        f"validate {'OK' if soak.validate_ok else 'FAILED'}; wrote {args.out / 'soak.md'}"
    )
    return 0 if soak.mismatched == 0 and soak.validate_ok else 1
