# Nucleo-F446RE (hardware, not emulated): STM32F446RE, Cortex-M4F with a single-precision FPU — the float
# build. Host link on USART2 (PA2/PA3), wired to the ST-LINK/V2-1's virtual COM port (UM1724 §6.8);
# cycles from DWT CYCCNT. Flash with `uxhost flash --probe pyocd --target stm32f446re` or any GDB server.
BOARD_NAME   := nucleo-f446re
# The core's clock on the part, its rated 180 MHz, which the clock set-up (common/stm32/clock.c,
# stm32_board.h) reaches from the ST-LINK's 8 MHz MCO (else the HSI) through the PLL with over-drive;
# INFO's core_hz reports the clock it reached (16 MHz, the HSI, if a wait for a ready flag ran out).
# `uxhost check` takes this number when a firmware's INFO reports no clock.
BOARD_CORE_HZ := 180000000
BOARD_CPU    := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
BOARD_DEFS   := -DUX_REAL_FLOAT
# The clock, once: the C side (clock set-up, INFO, watchdog) reads it as BOARD_CORE_HZ.
override BOARD_DEFS += -DBOARD_CORE_HZ=$(BOARD_CORE_HZ)u
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cortex-m/dwt_cycles.c \
                common/stm32/rcc.c common/stm32/clock.c common/stm32/iwdg.c common/stm32/gpio.c common/stm32/usart.c common/stm32/board.c
BOARD_INCS   := nucleo-f446re common/stm32 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# The float workspace at η = 64 (≈ 112 KiB) and the rest fit the 128 KiB of SRAM, as on netduinoplus2.
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.75·10^9 instructions (benchmarks/results/firmware.md): 38 s at 180 MHz, but 422 s on the
# 16 MHz HSI a failed clock set-up leaves, at one instruction a cycle.
BOARD_WATCHDOG_MS := 900000
