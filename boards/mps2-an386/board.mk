# QEMU mps2-an386: Cortex-M4F, single-precision FPU only — the float build (double would be emulated).
BOARD_NAME   := mps2-an386
QEMU_MACHINE := mps2-an386
# SysTick's clock under QEMU (hw/arm/mps2.c, SYSCLK_FRQ) and the board's Ethernet controller, which the
# firmware does not use but QEMU wants a peer for.
QEMU_CPU_HZ  := 25000000
QEMU_ONBOARD_NIC := lan9118
BOARD_CPU    := -mthumb -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard
BOARD_DEFS   := -DUX_REAL_FLOAT
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cmsdk/uart.c common/mps2/board.c
BOARD_INCS   := common/cmsdk
BOARD_LDDIRS := common/cortex-m
# Largest η the board's RAM holds the workspace for (4 MiB of SSRAM: every η the core supports).
BOARD_MAX_ETA := 64
