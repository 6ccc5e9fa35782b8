/*
 * uart.h — polled driver for the nRF51 UART (nRF51 Series Reference Manual v3.0, chapter 29).
 */
#ifndef NRF51_UART_H
#define NRF51_UART_H

#include <stddef.h>
#include <stdint.h>

/* 8N1, no flow control, on GPIO pins `txd_pin` and `rxd_pin`; `baudrate` is a BAUDRATE register value
 * (RM §29.10.10, e.g. NRF51_BAUD_115200). */
void nrf51_uart_init(uint32_t txd_pin, uint32_t rxd_pin, uint32_t baudrate);
/* 1 and the next received byte in *byte, or 0 at once when none has arrived. */
int nrf51_uart_try_getc(uint8_t *byte);
void nrf51_uart_write(const uint8_t *data, size_t len);
/* Sleeps (WFI) until a byte has arrived or another interrupt comes; returns at once when a byte waits. */
void nrf51_uart_wait_rx(void);

#define NRF51_BAUD_115200 0x01D7E000u

#endif /* NRF51_UART_H */
