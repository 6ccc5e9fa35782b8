"""The log-likelihood a device computes, for `uxhost fit --port/--board`: each evaluation is one CONFIGURE
with the parameters and one STEP per trace row, the answers' log evidence summed in step order as the C
filter sums it. The device's own arithmetic (single precision on an M4F board); on a double-precision board
the same bits as the native build, so the same search lands on the same estimate. A system only the device
has (its firmware's own) fits this way too. uxemu.fit.maximise does the search, as on the host."""

from __future__ import annotations

import dataclasses
import math

from uxemu.filter import sum_in_order
from uxemu.fit import Evaluated

from .streaming import configure_device, greet, step_row


class DeviceLogLikelihood(Evaluated):
    """θ ↦ log p(z_0..T−1 | θ) on `device` for the system and options of `config` — a ModelConfig whose
    parameters are the fixed ones (each call replaces them), or a function (the device's specs by name,
    where) -> ModelConfig for a system the host may only learn from the device. Has what
    uxemu.fit.maximise asks of a log-likelihood: `spec`, `trace`, `engine`, `evidence`, and Evaluated's
    `calls` and `refusal`."""

    evidence = "update"  # the device reports its updates' evidence, not the density's
    source = "the device"

    def __init__(self, device, trace, config, qemu=None, expect_board: str | None = None):
        self.info, specs, self.where = greet(device, expect_board)
        if callable(config):
            config = config(specs, self.where)
        self.device, self.trace, self.config, self.qemu = device, trace, config, qemu
        self.spec = configure_device(device, self.info, specs, config, self.where)  # checks it once, up front
        self._specs = specs
        self.engine = f"{self.info.board} device"

    def _value(self, params) -> float:
        from .link import DeviceError

        try:
            configure_device(
                self.device, self.info, self._specs, dataclasses.replace(self.config, params=params), self.where
            )
        except DeviceError as exc:  # the firmware refuses these parameters: no likelihood there
            self.refusal = str(exc)
            return -math.inf
        kept = f"the fit stopped at its filter run {self.calls}"
        return sum_in_order(
            step_row(self.device, self.trace, i, self.qemu, kept).log_evidence  # a fallback's: −∞
            for i in range(len(self.trace))
        )

    def flags(self, params):
        """The influential outliers (uxemu.fit.influential_outliers) of the device's run at `params` — the steps it
        marks OUTLIER (its innovation gate) whose log evidence is far below the others' — and the steps it marks
        INCONSISTENT (uxemu.fit.OptimumFlags)."""
        from uxemu.fit import OptimumFlags, inconsistent_steps, influential_outliers

        from .protocol import Status

        configure_device(
            self.device, self.info, self._specs, dataclasses.replace(self.config, params=tuple(params)), self.where
        )
        kept = "the fit stopped at its check of the optimum's outliers"
        posts = [step_row(self.device, self.trace, i, self.qemu, kept) for i in range(len(self.trace))]
        outliers = influential_outliers(
            self.trace, [p.status == Status.OUTLIER for p in posts], [p.log_evidence for p in posts]
        )
        return OptimumFlags(outliers, inconsistent_steps(self.trace, [p.status for p in posts]))
