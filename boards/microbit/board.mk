# BBC micro:bit v1 (QEMU microbit): nRF51822, Cortex-M0 without an FPU, 16 KiB of RAM — the float build
# in software floating point.
BOARD_NAME   := microbit
QEMU_MACHINE := microbit
# SysTick's clock under QEMU: the SoC's fixed HCLK (hw/arm/nrf51_soc.c, HCLK_FRQ).
QEMU_CPU_HZ  := 16000000
# The reset cause INFO reports under QEMU, whose POWER/CLOCK stub reads 1 at every offset
# (hw/arm/nrf51_soc.c, clock_read): RESETREAS = RESETPIN.
QEMU_RESET_CAUSE := pin
BOARD_CPU    := -mthumb -mcpu=cortex-m0 -mfloat-abi=soft
BOARD_DEFS   := -DUX_REAL_FLOAT
# No joint (vector-state) systems: their deeper stack (the joint filter's set-up quantizes dim laws at
# once) does not fit beside the scalar filter in 16 KiB; DESCRIBE does not list them here.
BOARD_DEFS   += -DAPP_JOINT=0
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/nrf51/uart.c common/nrf51/wdt.c microbit/board.c
BOARD_INCS   := common/nrf51 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# Largest η the 16 KiB of RAM holds the workspace for (float build; see memory.ld).
BOARD_MAX_ETA := 8
# Watchdog timeout, a few times the longest request: a STEP of the cubic system at η = 8 with the sampler
# likelihood, 22.8·10^6 instructions (benchmarks/results/firmware.md), 1.46 s of QEMU's virtual time at
# -icount shift=6; under 3 s on the 16 MHz Cortex-M0 even at two cycles an instruction.
BOARD_WATCHDOG_MS := 8000
