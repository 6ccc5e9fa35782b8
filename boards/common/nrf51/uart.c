/*
 * uart.c — nRF51 UART, polled through its events (nRF51 Series Reference Manual v3.0, §29.10). The
 * protocol is strictly request/answer, so the firmware never computes while bytes arrive.
 */
#include "uart.h"

#include "sleep.h"

#define UART0_BASE 0x40002000u /* RM §29.10, instance UART0 */
#define REG(off) (*(volatile uint32_t *)(UART0_BASE + (off)))

#define TASKS_STARTRX 0x000u
#define TASKS_STARTTX 0x008u
#define EVENTS_RXDRDY 0x108u /* a byte is in RXD */
#define EVENTS_TXDRDY 0x11Cu /* the byte written to TXD has left */
#define EVENTS_ERROR 0x124u
#define ERRORSRC 0x480u /* write-one-to-clear */
#define ENABLE 0x500u
#define PSELRTS 0x508u
#define PSELTXD 0x50Cu
#define PSELCTS 0x510u
#define PSELRXD 0x514u
#define RXD 0x518u
#define TXD 0x51Cu
#define BAUDRATE 0x524u
#define CONFIG 0x56Cu

#define INTENSET 0x304u
#define INTEN_RXDRDY (1u << 2)
#define UART0_IRQ 2u /* UART0's interrupt on the NVIC (the nRF51's vector table: POWER_CLOCK, RADIO, UART0) */

#define ENABLE_UART 4u
#define PIN_DISCONNECTED 0xFFFFFFFFu

void nrf51_uart_init(uint32_t txd_pin, uint32_t rxd_pin, uint32_t baudrate)
{
    REG(ENABLE) = 0u;
    REG(PSELTXD) = txd_pin;
    REG(PSELRXD) = rxd_pin;
    REG(PSELRTS) = PIN_DISCONNECTED;
    REG(PSELCTS) = PIN_DISCONNECTED;
    REG(CONFIG) = 0u; /* no parity, no hardware flow control (§29.10.11) */
    REG(BAUDRATE) = baudrate;
    REG(ENABLE) = ENABLE_UART;
    REG(EVENTS_RXDRDY) = 0u;
    REG(EVENTS_TXDRDY) = 0u;
    REG(TASKS_STARTRX) = 1u;
    REG(TASKS_STARTTX) = 1u;
    /* RXDRDY raises UART0's interrupt, never taken: nrf51_uart_wait_rx sleeps on it. */
    REG(INTENSET) = INTEN_RXDRDY;
}

void nrf51_uart_wait_rx(void) { cortexm_sleep_unless(UART0_IRQ, &REG(EVENTS_RXDRDY), 1u); }

int nrf51_uart_try_getc(uint8_t *byte)
{
    if (REG(EVENTS_RXDRDY) == 0u) {
        /* An overrun or framing error cannot be undone here; clearing it keeps the receiver running and
         * the frame's CRC or COBS check reports the damage to the host. */
        if (REG(EVENTS_ERROR) != 0u) {
            REG(EVENTS_ERROR) = 0u;
            REG(ERRORSRC) = REG(ERRORSRC);
        }
        return 0;
    }
    /* Clear the event before reading RXD: reading it lets the next byte of the receive FIFO into RXD
     * and raises RXDRDY again (§29.6, "UART reception"). */
    REG(EVENTS_RXDRDY) = 0u;
    *byte = (uint8_t)REG(RXD);
    return 1;
}

void nrf51_uart_write(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        REG(TXD) = data[i];
        while (REG(EVENTS_TXDRDY) == 0u) {
        }
        REG(EVENTS_TXDRDY) = 0u;
    }
}
