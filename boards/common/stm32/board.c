/*
 * board.c — an STM32 part whose host link is one USART (SR/DR layout). The part's numbers come from
 * stm32_board.h in the board's own folder: which USART, its RCC enable bit and its clock.
 */
#include "board.h"
#include "dwt_cycles.h"
#include "rcc.h"
#include "stm32_board.h"
#include "usart.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif

const char board_name[] = BOARD_NAME;

void board_init(void)
{
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
