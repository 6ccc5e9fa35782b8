# Nucleo-F767ZI (hardware, not emulated): STM32F767ZI, Cortex-M7 with a double-precision FPU — the double
# build, the reference real target. Host link on USART3 (PD8/PD9), wired to the ST-LINK/V2-1's virtual
# COM port (UM1974 §6.9); cycles from DWT CYCCNT. Flash with `uxhost flash --probe pyocd --target
# stm32f767zi` or any GDB server.
BOARD_NAME   := nucleo-f767zi
# The core's clock on the part, its rated 216 MHz, which the clock set-up (common/stm32/clock.c,
# stm32_board.h) reaches from the ST-LINK's 8 MHz MCO (else the HSI) through the PLL with over-drive;
# INFO's core_hz reports the clock it reached (16 MHz, the HSI, if a wait for a ready flag ran out).
# `uxhost check` takes this number when a firmware's INFO reports no clock.
BOARD_CORE_HZ := 216000000
BOARD_CPU    := -mthumb -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard
BOARD_DEFS   :=
# The clock, once: the C side (clock set-up, INFO, watchdog) reads it as BOARD_CORE_HZ.
override BOARD_DEFS += -DBOARD_CORE_HZ=$(BOARD_CORE_HZ)u
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cortex-m/dwt_cycles.c \
                common/stm32/rcc.c common/stm32/clock.c common/stm32/iwdg.c common/stm32/gpio.c common/stm32/usart_v2.c common/stm32/board.c
BOARD_INCS   := nucleo-f767zi common/stm32 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# The double workspace at η = 64 (224 KiB) and the rest fit the 512 KiB of RAM.
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.85·10^9 instructions (benchmarks/results/firmware.md): 32 s at 216 MHz, but 428 s on the
# 16 MHz HSI a failed clock set-up leaves, at one instruction a cycle.
BOARD_WATCHDOG_MS := 900000
