# QEMU mps2-an500: Cortex-M7 with a double-precision FPU — the double build, the project's default.
BOARD_NAME   := mps2-an500
QEMU_MACHINE := mps2-an500
# SysTick's clock under QEMU (hw/arm/mps2.c, SYSCLK_FRQ) and the board's Ethernet controller, which the
# firmware does not use but QEMU wants a peer for.
QEMU_CPU_HZ  := 25000000
QEMU_ONBOARD_NIC := lan9118
BOARD_CPU    := -mthumb -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard
BOARD_DEFS   :=
BOARD_SRCS   := common/cortex-m/startup.c common/cortex-m/systick_cycles.c common/cmsdk/uart.c common/mps2/board.c
BOARD_INCS   := common/cmsdk
BOARD_LDDIRS := common/cortex-m
# Largest η the board's RAM holds the workspace for (4 MiB of SSRAM: every η the core supports).
BOARD_MAX_ETA := 64
