# BBC micro:bit v1 (QEMU microbit): nRF51822, Cortex-M0 without an FPU, 16 KiB of RAM — the float build
# in software floating point.
BOARD_NAME   := microbit
QEMU_MACHINE := microbit
# SysTick's clock under QEMU: the SoC's fixed HCLK (hw/arm/nrf51_soc.c, HCLK_FRQ).
QEMU_CPU_HZ  := 16000000
# The reset cause INFO reports under QEMU, whose POWER/CLOCK stub reads 1 at every offset
# (hw/arm/nrf51_soc.c, clock_read): RESETREAS = RESETPIN.
QEMU_RESET_CAUSE := pin
# The core's clock: the nRF51's 16 MHz HFCLK, from the crystal the clock set-up starts (common/nrf51/clock.c)
# or, if it does not start in time, the RC oscillator at the same rate; INFO's core_hz reports it.
BOARD_CORE_HZ := 16000000
# The core clock INFO reports under QEMU 7.2, whose CLOCK stub says the crystal started at once.
QEMU_CORE_HZ := 16000000
BOARD_CPU    := -mthumb -mcpu=cortex-m0 -mfloat-abi=soft
BOARD_DEFS   := -DUX_REAL_FLOAT
# No joint (vector-state) systems: their deeper stack (the joint filter's set-up quantizes dim laws at
# once) does not fit beside the scalar filter in 16 KiB; DESCRIBE does not list them here.
BOARD_DEFS   += -DAPP_JOINT=0
# The clock, once: the C side (clock set-up, INFO) reads it as BOARD_CORE_HZ. Last, after every plain
# assignment, since an override makes later ones ineffective.
override BOARD_DEFS += -DBOARD_CORE_HZ=$(BOARD_CORE_HZ)u
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/nrf51/clock.c common/nrf51/uart.c common/nrf51/wdt.c microbit/board.c
BOARD_INCS   := common/nrf51 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# Largest η the 16 KiB of RAM holds the workspace for (float build; see memory.ld).
BOARD_MAX_ETA := 8
# Watchdog timeout, a few times the longest request: a STEP of the cubic system at η = 8 with the sampler
# likelihood, 22.8·10^6 instructions (benchmarks/results/firmware.md), 1.46 s of QEMU's virtual time at
# -icount shift=6; under 3 s on the 16 MHz Cortex-M0 even at two cycles an instruction.
BOARD_WATCHDOG_MS := 8000
