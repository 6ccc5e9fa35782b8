/*
 * uart.c — CMSDK APB UART, polled. The protocol is strictly request/answer, so the firmware is never
 * computing while bytes arrive and needs no receive interrupt handler or ring buffer. The receive
 * interrupt is raised all the same (never taken: see cmsdk_uart_wait_rx), so that a board waiting for
 * the host can sleep until a byte comes instead of polling.
 */
#include "uart.h"

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

#define NVIC_ISER0 (*(volatile uint32_t *)0xE000E100u)
#define NVIC_ICER0 (*(volatile uint32_t *)0xE000E180u)
#define NVIC_ICPR0 (*(volatile uint32_t *)0xE000E280u)

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
    /*
     * With interrupts masked (PRIMASK) WFI still returns on a pending interrupt that is enabled in the
     * NVIC, and the handler never runs: the receive interrupt is enabled for the WFI alone and its pending
     * state cleared before the state is read, so a byte that arrives after that read wakes the WFI, and
     * one that arrived before is seen by the read. Any other interrupt (SysTick's wrap, every 2^24
     * cycles) also ends the wait, and runs once PRIMASK is cleared; the watchdog's NMI ignores PRIMASK.
     * Outside this wait the receive interrupt stays disabled in the NVIC, so a byte arriving while the
     * firmware computes costs no cycle.
     */
    uint32_t bit = 1u << irq;
    __asm volatile("cpsid i" ::: "memory");
    REG(base, UART_INTCLEAR) = INT_RX;
    NVIC_ICPR0 = bit;
    if ((REG(base, UART_STATE) & STATE_RX_FULL) == 0u) {
        NVIC_ISER0 = bit;
        __asm volatile("dsb\n\twfi" ::: "memory");
        NVIC_ICER0 = bit;
        REG(base, UART_INTCLEAR) = INT_RX;
        NVIC_ICPR0 = bit;
    }
    __asm volatile("cpsie i\n\tisb" ::: "memory");
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
