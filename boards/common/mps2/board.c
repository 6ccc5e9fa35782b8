/*
 * board.c — the MPS2 FPGA images under QEMU (AN386 Cortex-M4F, AN500 Cortex-M7, …): UART0 is the host
 * link; cycles come from SysTick because QEMU does not implement DWT CYCCNT (it reads 0).
 */
#include "board.h"
#include "proto.h"
#include "uart.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif

#define UART0_BASE 0x40004000u
#define UART_BAUDDIV 16u /* the fastest the CMSDK UART allows; QEMU does not pace it anyway */

const char board_name[] = BOARD_NAME;
uint8_t board_cycle_source = CYCLES_SYSTICK_ICOUNT;

void board_init(void)
{
    cmsdk_uart_init(UART0_BASE, UART_BAUDDIV);
    board_cycles_restart();
}

uint8_t board_getc(void)
{
    return cmsdk_uart_getc(UART0_BASE);
}

void board_write(const uint8_t *data, size_t len)
{
    cmsdk_uart_write(UART0_BASE, data, len);
}
