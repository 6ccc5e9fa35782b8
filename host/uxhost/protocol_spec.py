# GENERATED from docs/protocol.toml by scripts/codegen — do not edit by hand.
# Change the source and run `make generate`; tests fail when this file and its source drift apart.
"""The link protocol's numbers and payload layouts (docs/protocol.md), for uxhost.protocol.

A layout is a tuple of fields in payload order: (name, scalar type) or (name, 'str') or, for a
counted array, (name, element, count field) where element is a scalar type or a layout.
"""

import enum
import struct

PROTOCOL_VERSION = 13
MAX_PAYLOAD = 1200
MAX_EVIDENCE = 64
HEADER = struct.Struct("<BBHH")  # version type seq length
CRC = struct.Struct("<I")
SCALARS = {'u8': 'B', 'u16': 'H', 'u32': 'I', 'u64': 'Q', 'f64': 'd'}  # struct codes


class MsgType(enum.IntEnum):
    HELLO = 0x01
    INFO = 0x81
    CONFIGURE = 0x02
    CONFIGURED = 0x82
    STEP = 0x03
    POSTERIOR = 0x83
    DESCRIBE = 0x05
    SYSTEM = 0x85
    RESET = 0x04
    RESET_DONE = 0x84
    ERROR = 0x7F


class ErrorCode(enum.IntEnum):
    CRC = 1  # CRC mismatch
    LENGTH = 2  # frame shorter than header + CRC, or `length` ≠ bytes received, or payload size wrong for its type
    TOO_LONG = 3  # frame longer than the largest allowed
    TYPE = 4  # unknown message type
    VERSION = 5  # header version ≠ the protocol's version
    NOT_CONFIGURED = 6  # STEP before CONFIGURE
    CONFIG = 7  # unknown system, η not a power of two ≤ max (nor so large that POSTERIOR outgrows `MAX_PAYLOAD`), bad mode/likelihood/prior (mixture mode and the sampler: systems of `dim` 1 only; cells mode: `dim` > 1 only), wrong `n_params` or `dim`, non-finite or out-of-domain parameter
    EVIDENCE = 8  # non-finite `u` or observation, weight ω not finite and > 0, `m = 0` with evidence or `m ≠ 0` without, `n_evidence` > max, bad flags, `dim_obs` ≠ the system's, `n_evidence`·(`dim_obs` + 1) > 2·`MAX_EVIDENCE`
    COBS = 9  # COBS decoding failed
    INTERNAL = 10  # the core returned an error (workspace, domain); a system whose description does not fit one frame


class CycleSource(enum.IntEnum):
    SYSTICK_ICOUNT = 0  # SysTick counting under QEMU `-icount` (virtual cycles)
    DWT = 1  # DWT CYCCNT (real cycles)
    HOST_NS = 2  # host clock in nanoseconds (native build)


class ResetCause(enum.IntEnum):
    UNKNOWN = 0  # the board cannot tell: it has no reset-reason register, or the register names no cause
    POWER_ON = 1  # power-on or brown-out
    PIN = 2  # the reset pin: a button or a debug probe
    WATCHDOG = 3  # the watchdog expired: the firmware stopped kicking it
    SOFTWARE = 4  # a software reset request (SYSRESETREQ)
    LOCKUP = 5  # the core locked up (a fault while handling a fault)


class Mode(enum.IntEnum):
    REFINED = 0  # refined (default)
    PAPER = 1  # paper
    MIXTURE = 2  # mixture (systems of `dim` 1 only; version 6)
    CELLS = 3  # cells: the cell filter (systems of `dim` > 1 only; POSTERIOR's atoms are the cells' means and weights; version 12)


class Likelihood(enum.IntEnum):
    KERNEL = 0  # kernel
    SAMPLER = 1  # sampler


class PriorKind(enum.IntEnum):
    GAUSSIAN = 0  # Gaussian(mean `prior_a`, std `prior_b`)
    LAPLACE = 1  # Laplace(μ `prior_a`, scale `prior_b`)


class ParamDomain(enum.IntEnum):
    REAL = 0  # any finite value
    POSITIVE = 1  # > 0
    NONNEGATIVE = 2  # ≥ 0


class Status(enum.IntEnum):
    OK = 0  # OK
    FALLBACK = 1  # every likelihood was zero; the posterior is the prior
    NO_EVIDENCE = 2  # a step without observation (`n_evidence = 0`): the posterior is the prediction
    REFOCUSED = 3  # the first update's likelihood was narrower than the prior atoms' spacing: the prior was re-quantized over the likelihood's region
    OUTLIER = 4  # the observation failed the innovation gate (ν²/S > 5², docs/semantics.md; a joint system's νᵀS⁻¹ν, "Cell filter" and "Joint filter"): the update ran, but the observation is improbable under the prediction (version 8)
    DEPARTED = 5  # the posterior is more than half its sd from where the model's own would be, by the filter's estimate of what an earlier outlier it could not follow left (docs/semantics.md, "Departure"; version 9; the cell filter's: "Cell filter")
    INCONSISTENT = 6  # the innovations of the recent updates are larger than the filter's predictions allow: the running mean of the test ratio per observation component is above 3, where a calibrated filter's is 1 (docs/semantics.md, "Consistency"; version 13): the model does not fit the data, or the filter's predictive is too narrow


STATUS_SAYS = {
    Status.FALLBACK: 'update(s) fell back',
    Status.NO_EVIDENCE: 'step(s) without observation',
    Status.REFOCUSED: "update(s) refocused onto the likelihood's region",
    Status.OUTLIER: 'observation(s) failed the innovation gate',
    Status.DEPARTED: "posterior(s) departed from the model's own after an outlier",
    Status.INCONSISTENT: "update(s) after innovations larger than the filter's predictions allow",
}


STATUS_WHY = {
    Status.FALLBACK: 'every likelihood was zero, so the posterior is the prior',
    Status.NO_EVIDENCE: 'predict only',
    Status.REFOCUSED: "the likelihood was narrower than the prior atoms' spacing, so the prior was re-quantized over its region",
    Status.OUTLIER: 'improbable under the prediction, a fault or a model that does not fit the data',
    Status.DEPARTED: 'the filter could not follow that outlier',
    Status.INCONSISTENT: "the model does not fit these data, or the filter's predictive is too narrow",
}


STATUS_LEGEND = {
    Status.FALLBACK: 'fallback (prior kept)',
    Status.NO_EVIDENCE: 'no observation (predicted)',
    Status.REFOCUSED: 'refocused (prior re-quantized)',
    Status.OUTLIER: 'outlier (failed the innovation gate)',
    Status.DEPARTED: 'departed (after an outlier)',
    Status.INCONSISTENT: 'inconsistent (innovations too large)',
}


class StepFlags(enum.IntFlag):
    PREDICT = 1  # run predict before the update (set for every step but the first of a trace); other bits must be 0


LAYOUTS = {
    MsgType.HELLO: (),
    MsgType.INFO: (('protocol', 'u16'), ('max_eta', 'u8'), ('real_bytes', 'u8'), ('cycle_source', 'u8'), ('reset_cause', 'u8'), ('core_hz', 'u32'), ('board', 'str'), ('fw_version', 'str'), ('n_systems', 'u8')),
    MsgType.CONFIGURE: (('system', 'u8'), ('eta', 'u8'), ('mode', 'u8'), ('likelihood', 'u8'), ('n_params', 'u8'), ('params', 'f64', 'n_params'), ('dim', 'u8'), ('priors', (('kind', 'u8'), ('a', 'f64'), ('b', 'f64')), 'dim')),
    MsgType.CONFIGURED: (('count', 'u8'), ('workspace_bytes', 'u32')),
    MsgType.STEP: (('k', 'u32'), ('flags', 'u8'), ('u', 'f64'), ('m', 'u16'), ('n_evidence', 'u8'), ('dim_obs', 'u8'), ('omega', 'f64', 'n_evidence'), ('z', 'f64', 'n_evidence*dim_obs')),
    MsgType.POSTERIOR: (('k', 'u32'), ('status', 'u8'), ('log_evidence', 'f64'), ('cycles_predict', 'u64'), ('cycles_update', 'u64'), ('dim', 'u8'), ('mean', 'f64', 'dim'), ('cov', 'f64', 'dim*dim'), ('count', 'u8'), ('w', 'f64', 'count'), ('x', 'f64', 'count*dim')),
    MsgType.DESCRIBE: (('index', 'u8'),),
    MsgType.SYSTEM: (('id', 'u8'), ('name', 'str'), ('title', 'str'), ('dim', 'u8'), ('dim_obs', 'u8'), ('n_params', 'u8'), ('params', (('name', 'str'), ('default', 'f64'), ('domain', 'u8')), 'n_params'), ('priors', (('kind', 'u8'), ('a', 'f64'), ('b', 'f64')), 'dim')),
    MsgType.RESET: (),
    MsgType.RESET_DONE: (),
    MsgType.ERROR: (('code', 'u8'), ('detail', 'u16')),
}
