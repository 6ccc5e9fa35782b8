/*
 * uart.c — CMSDK APB UART, polled. The protocol is strictly request/answer, so the firmware is never
 * computing while bytes arrive and needs no receive interrupt handler or ring buffer. The receive
 * interrupt is raised all the same (never taken: cortex-m/sleep.h), so that a board waiting for
 * the host can sleep until a byte comes instead of polling.
 */
#include "uart.h"

#include "sleep.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define UART_DATA 0x00u
#define UART_STATE 0x04u
#define UART_CTRL 0x08u
#define UART_INTCLEAR 0x0Cu /* INTSTATUS when read */
#define UART_BAUDDIV 0x10u

#define STATE_TX_FULL (1u << 0)
#define STATE_RX_FULL (1u << 1)
#define STATE_TX_OVERRUN (1u << 2)
#define STATE_RX_OVERRUN (1u << 3)
#define CTRL_TX_EN (1u << 0)
#define CTRL_RX_EN (1u << 1)
#define CTRL_RX_INTEN (1u << 3)
#define INT_RX (1u << 1)

void cmsdk_uart_init(uintptr_t base, uint32_t bauddiv)
{
    REG(base, UART_CTRL) = 0u;
    REG(base, UART_BAUDDIV) = bauddiv; /* the UART requires ≥ 16 */
    REG(base, UART_STATE) = STATE_TX_OVERRUN | STATE_RX_OVERRUN; /* write-one-to-clear */
    REG(base, UART_INTCLEAR) = INT_RX;
    REG(base, UART_CTRL) = CTRL_TX_EN | CTRL_RX_EN | CTRL_RX_INTEN;
}

void cmsdk_uart_wait_rx(uintptr_t base, unsigned irq)
{
    /* The UART latches its receive interrupt in INTSTATUS until cleared: cleared here, a byte that comes
     * later raises it again. */
    REG(base, UART_INTCLEAR) = INT_RX;
    cortexm_sleep_unless(irq, &REG(base, UART_STATE), STATE_RX_FULL);
}

int cmsdk_uart_try_getc(uintptr_t base, uint8_t *byte)
{
    uint32_t state = REG(base, UART_STATE);
    if ((state & STATE_RX_FULL) == 0u) {
        /* A lost byte cannot be recovered here; clearing the flag keeps the receiver running and the
         * frame's CRC or COBS check reports the damage to the host. */
        if (state & STATE_RX_OVERRUN) {
            REG(base, UART_STATE) = STATE_RX_OVERRUN;
        }
        return 0;
    }
    *byte = (uint8_t)REG(base, UART_DATA);
    return 1;
}

void cmsdk_uart_write(uintptr_t base, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while (REG(base, UART_STATE) & STATE_TX_FULL) {
        }
        REG(base, UART_DATA) = data[i];
    }
}
