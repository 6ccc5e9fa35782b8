/*
 * board.c — an STM32 part whose host link is one USART (SR/DR layout). The part's numbers come from
 * stm32_board.h in the board's own folder: which USART, its RCC enable bit and its clock.
 */
#include "board.h"
#include "dwt_cycles.h"
#include "gpio.h"
#include "rcc.h"
#include "stm32_board.h"
#include "usart.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif

const char board_name[] = BOARD_NAME;

void board_init(void)
{
#ifdef HOST_PINS_GPIO_BASE
    /* Real silicon: the USART reaches the ST-LINK's virtual COM port through two alternate-function
     * pins (QEMU's machines route the USART without them, so their boards leave this out). */
    stm32_rcc_enable(STM32_RCC_AHB1ENR, HOST_PINS_GPIO_RCC_BIT);
    stm32_gpio_alternate(HOST_PINS_GPIO_BASE, HOST_TX_PIN, HOST_PINS_AF);
    stm32_gpio_alternate(HOST_PINS_GPIO_BASE, HOST_RX_PIN, HOST_PINS_AF);
#endif
    stm32_rcc_enable(HOST_USART_RCC_ENR, HOST_USART_RCC_BIT);
    stm32_usart_init(HOST_USART_BASE, HOST_USART_CLOCK_HZ, HOST_BAUD);
    cycles_select();
    board_cycles_restart();
}

uint8_t board_getc(void)
{
    return stm32_usart_getc(HOST_USART_BASE);
}

void board_write(const uint8_t *data, size_t len)
{
    stm32_usart_write(HOST_USART_BASE, data, len);
}
