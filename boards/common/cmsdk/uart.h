/*
 * uart.h — polled driver for the Arm CMSDK APB UART (MPS2 FPGA images and many Cortex-M SoCs).
 */
#ifndef CMSDK_UART_H
#define CMSDK_UART_H

#include <stddef.h>
#include <stdint.h>

void cmsdk_uart_init(uintptr_t base, uint32_t bauddiv);
uint8_t cmsdk_uart_getc(uintptr_t base);
void cmsdk_uart_write(uintptr_t base, const uint8_t *data, size_t len);

#endif /* CMSDK_UART_H */
