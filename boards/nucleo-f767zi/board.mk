# Nucleo-F767ZI (hardware, not emulated): STM32F767ZI, Cortex-M7 with a double-precision FPU — the double
# build, the reference real target. Host link on USART3 (PD8/PD9), wired to the ST-LINK/V2-1's virtual
# COM port (UM1974 §6.9); cycles from DWT CYCCNT. Flash with `uxhost flash --probe pyocd --target
# stm32f767zi` or any GDB server.
BOARD_NAME   := nucleo-f767zi
# The core's clock on the part: the 16 MHz HSI it keeps from reset (the RCC driver only enables peripheral
# clocks; boards/README.md). `uxhost check` turns DWT cycles into µs at it when INFO reports no clock.
BOARD_CORE_HZ := 16000000
BOARD_CPU    := -mthumb -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard
BOARD_DEFS   :=
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cortex-m/dwt_cycles.c \
                common/stm32/rcc.c common/stm32/iwdg.c common/stm32/gpio.c common/stm32/usart_v2.c common/stm32/board.c
BOARD_INCS   := nucleo-f767zi common/stm32 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# The double workspace at η = 64 (224 KiB) and the rest fit the 512 KiB of RAM.
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.85·10^9 instructions (benchmarks/results/firmware.md), 428 s on the core's 16 MHz HSI at
# one instruction a cycle.
BOARD_WATCHDOG_MS := 900000
