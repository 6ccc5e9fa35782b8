# Netduino Plus 2 (QEMU netduinoplus2): STM32F405RG, Cortex-M4F with a single-precision FPU — the float
# build, like mps2-an386. Host link on USART1; cycles from DWT CYCCNT where it counts, else SysTick.
BOARD_NAME   := netduinoplus2
QEMU_MACHINE := netduinoplus2
# SysTick's clock under QEMU: the machine's fixed SYSCLK (hw/arm/netduinoplus2.c, SYSCLK_FRQ).
QEMU_CPU_HZ  := 168000000
# The reset cause INFO reports under QEMU, whose RCC is an unimplemented device: RCC_CSR reads 0, no flag.
QEMU_RESET_CAUSE := unknown
# The core's clock on the part, the F405's rated 168 MHz, which the clock set-up (common/stm32/clock.c,
# stm32_board.h) reaches from the 25 MHz crystal through the PLL; INFO's core_hz reports the clock it
# reached. Under QEMU 7.2, whose RCC reads 0, it falls back to the 16 MHz HSI after its bounded waits and
# INFO says 16 MHz (QEMU's SysTick still counts at QEMU_CPU_HZ). `uxhost check` takes this number when a
# firmware's INFO reports no clock.
BOARD_CORE_HZ := 168000000
# The core clock INFO reports under QEMU 7.2: the set-up's fallback, the HSI (tests/firmware/test_fw_clock.py).
QEMU_CORE_HZ := 16000000
BOARD_CPU    := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
BOARD_DEFS   := -DUX_REAL_FLOAT
# The clock, once: the C side (clock set-up, INFO, watchdog) reads it as BOARD_CORE_HZ.
override BOARD_DEFS += -DBOARD_CORE_HZ=$(BOARD_CORE_HZ)u
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cortex-m/dwt_cycles.c \
                common/stm32/rcc.c common/stm32/clock.c common/stm32/iwdg.c common/stm32/usart.c common/stm32/board.c
BOARD_INCS   := netduinoplus2 common/stm32 common/cortex-m
BOARD_LDDIRS := common/cortex-m
# Largest η the 128 KiB of SRAM1+SRAM2 holds the workspace for (float build; see memory.ld).
BOARD_MAX_ETA := 64
# Watchdog timeout, about twice the longest request: a STEP of the cubic system at η = 64 with the sampler
# likelihood, 6.75·10^9 instructions (benchmarks/results/firmware.md): 40 s at 168 MHz, but 422 s on the
# 16 MHz HSI a failed clock set-up leaves, at one instruction a cycle (QEMU: 432 s of virtual time at
# -icount shift=6).
BOARD_WATCHDOG_MS := 900000
