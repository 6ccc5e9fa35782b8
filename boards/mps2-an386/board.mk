# QEMU mps2-an386: Cortex-M4F, single-precision FPU only — the float build (double would be emulated).
BOARD_NAME   := mps2-an386
QEMU_MACHINE := mps2-an386
# SysTick's clock under QEMU (hw/arm/mps2.c, SYSCLK_FRQ) and the board's Ethernet controller, which the
# firmware does not use but QEMU wants a peer for.
QEMU_CPU_HZ  := 25000000
# The core's clock, the FPGA image's fixed 25 MHz SYSCLK (no clock set-up): INFO's core_hz, the watchdog's.
BOARD_CORE_HZ := 25000000
QEMU_CORE_HZ := 25000000
QEMU_ONBOARD_NIC := lan9118
# The watchdog QEMU models on this machine (hw/arm/mps2.c), which the tests make fire; and the reset
# cause INFO reports after QEMU starts (no record of a reset in the zeroed RAM: power-on).
QEMU_WATCHDOG := cmsdk-apb-watchdog
QEMU_RESET_CAUSE := power_on
BOARD_CPU    := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
BOARD_DEFS   := -DUX_REAL_FLOAT
# The clock, once: the C side (clock set-up, INFO, watchdog) reads it as BOARD_CORE_HZ.
override BOARD_DEFS += -DBOARD_CORE_HZ=$(BOARD_CORE_HZ)u
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cmsdk/uart.c common/cmsdk/watchdog.c common/mps2/board.c
BOARD_INCS   := common/cmsdk common/cortex-m
BOARD_LDDIRS := common/cortex-m
# Largest η the board's RAM holds the workspace for (4 MiB of SSRAM: every η the core supports).
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.75·10^9 instructions (benchmarks/results/firmware.md), 432 s of QEMU's virtual time at
# -icount shift=6 (64 ns an instruction; a 25 MHz core runs them faster). A larger shift stretches
# virtual time: such a step at shift ≥ 7 outlasts the timeout (the suite's shift=10 runs stop at η = 32).
BOARD_WATCHDOG_MS := 900000
