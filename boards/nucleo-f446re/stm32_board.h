/*
 * stm32_board.h — the Nucleo-F446RE's STM32F446RE as boards/common/stm32/board.c needs it.
 *
 * USART2 (0x40004400, RM0390 §2.2.2) on PA2 (TX) and PA3 (RX), alternate function 7 (datasheet DS10693
 * table 11), is the ST-LINK's virtual COM port (UM1724 §6.8). USART2 sits on APB1; at reset the core and
 * the buses run from the 16 MHz HSI (RM0390 §6.2), the USART's clock.
 */
#ifndef NUCLEO_F446RE_STM32_BOARD_H
#define NUCLEO_F446RE_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40004400u
#define HOST_USART_RCC_ENR STM32_RCC_APB1ENR
#define HOST_USART_RCC_BIT 17u /* RCC_APB1ENR.USART2EN, RM0390 §6.3.13 */
#define HOST_USART_IRQ 38u /* USART2's interrupt on the NVIC (the STM32F4 vector table's USART2_IRQn) */
#define HOST_USART_CLOCK_HZ 16000000u
#define HOST_BAUD 115200u

#define HOST_PINS_GPIO_BASE 0x40020000u /* GPIOA */
#define HOST_PINS_GPIO_RCC_BIT 0u       /* RCC_AHB1ENR.GPIOAEN, RM0390 §6.3.10 */
#define HOST_TX_PIN 2u
#define HOST_RX_PIN 3u
#define HOST_PINS_AF 7u

#endif /* NUCLEO_F446RE_STM32_BOARD_H */
