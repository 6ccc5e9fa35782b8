# BBC micro:bit v1 (QEMU microbit): nRF51822, Cortex-M0 without an FPU, 16 KiB of RAM — the float build
# in software floating point.
BOARD_NAME   := microbit
QEMU_MACHINE := microbit
# SysTick's clock under QEMU: the SoC's fixed HCLK (hw/arm/nrf51_soc.c, HCLK_FRQ).
QEMU_CPU_HZ  := 16000000
BOARD_CPU    := -mthumb -mcpu=cortex-m0 -mfloat-abi=soft
BOARD_DEFS   := -DUX_REAL_FLOAT
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/nrf51/uart.c microbit/board.c
BOARD_INCS   := common/nrf51
BOARD_LDDIRS := common/cortex-m
# Largest η the 16 KiB of RAM holds the workspace for (float build; see memory.ld).
BOARD_MAX_ETA := 8
