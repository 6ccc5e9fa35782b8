/*
 * uart.h — polled driver for the Arm CMSDK APB UART (MPS2 FPGA images and many Cortex-M SoCs).
 */
#ifndef CMSDK_UART_H
#define CMSDK_UART_H

#include <stddef.h>
#include <stdint.h>

void cmsdk_uart_init(uintptr_t base, uint32_t bauddiv);
/* 1 and the next received byte in *byte, or 0 at once when none has arrived. */
int cmsdk_uart_try_getc(uintptr_t base, uint8_t *byte);
void cmsdk_uart_write(uintptr_t base, const uint8_t *data, size_t len);
/* Sleeps (WFI) until a byte has arrived or another interrupt comes; `irq` is the UART's receive
 * interrupt number on the board's NVIC. Returns at once when a byte is waiting. */
void cmsdk_uart_wait_rx(uintptr_t base, unsigned irq);

#endif /* CMSDK_UART_H */
