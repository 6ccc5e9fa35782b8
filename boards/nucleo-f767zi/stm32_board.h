/*
 * stm32_board.h — the Nucleo-F767ZI's STM32F767ZI as boards/common/stm32/board.c needs it.
 *
 * USART3 (0x40004800, RM0410 §2.2.2) on PD8 (TX) and PD9 (RX), alternate function 7 (datasheet DS11532
 * table 13), is the ST-LINK's virtual COM port (UM1974 §6.9). USART3 sits on APB1; at reset the core and
 * the buses run from the 16 MHz HSI (RM0410 §5.2), and USART3SEL = 00 clocks it from PCLK1 (§5.3.28).
 * Its USART has the later register layout: BOARD_SRCS takes common/stm32/usart_v2.c.
 */
#ifndef NUCLEO_F767ZI_STM32_BOARD_H
#define NUCLEO_F767ZI_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40004800u
#define HOST_USART_RCC_ENR STM32_RCC_APB1ENR
#define HOST_USART_RCC_BIT 18u /* RCC_APB1ENR.USART3EN, RM0410 §5.3.13 */
#define HOST_USART_IRQ 39u /* USART3's interrupt on the NVIC (the STM32F7 vector table's USART3_IRQn) */
#define HOST_USART_CLOCK_HZ 16000000u
#define HOST_BAUD 115200u

#define HOST_PINS_GPIO_BASE 0x40020C00u /* GPIOD */
#define HOST_PINS_GPIO_RCC_BIT 3u       /* RCC_AHB1ENR.GPIODEN, RM0410 §5.3.10 */
#define HOST_TX_PIN 8u
#define HOST_RX_PIN 9u
#define HOST_PINS_AF 7u

#endif /* NUCLEO_F767ZI_STM32_BOARD_H */
