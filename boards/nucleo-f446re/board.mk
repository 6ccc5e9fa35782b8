# Nucleo-F446RE (hardware, not emulated): STM32F446RE, Cortex-M4F with a single-precision FPU — the float
# build. Host link on USART2 (PA2/PA3), wired to the ST-LINK/V2-1's virtual COM port (UM1724 §6.8);
# cycles from DWT CYCCNT. Flash with `uxhost flash --probe pyocd --target stm32f446re` or any GDB server.
BOARD_NAME   := nucleo-f446re
# The core's clock on the part: the 16 MHz HSI it keeps from reset (the RCC driver only enables peripheral
# clocks; boards/README.md). `uxhost check` turns DWT cycles into µs at it when INFO reports no clock.
BOARD_CORE_HZ := 16000000
BOARD_CPU    := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
BOARD_DEFS   := -DUX_REAL_FLOAT
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cortex-m/dwt_cycles.c \
                common/stm32/rcc.c common/stm32/iwdg.c common/stm32/gpio.c common/stm32/usart.c common/stm32/board.c
BOARD_INCS   := nucleo-f446re common/stm32 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# The float workspace at η = 64 (≈ 112 KiB) and the rest fit the 128 KiB of SRAM, as on netduinoplus2.
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.75·10^9 instructions (benchmarks/results/firmware.md), 422 s on the core's 16 MHz HSI at
# one instruction a cycle.
BOARD_WATCHDOG_MS := 900000
