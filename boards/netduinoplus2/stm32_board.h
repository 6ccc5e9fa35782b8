/*
 * stm32_board.h — the Netduino Plus 2's STM32F405RG as boards/common/stm32/board.c needs it.
 *
 * The host link is USART1 (0x40011000, RM0090 §2.3), the USART QEMU's netduinoplus2 machine connects to
 * its first -serial (hw/arm/stm32f405_soc.c, usart_addr[0]). USART1 sits on APB2; at reset the core and
 * both APB buses run from the 16 MHz HSI (RM0090 §6.2, RCC_CFGR = 0), which is the USART's clock.
 */
#ifndef NETDUINOPLUS2_STM32_BOARD_H
#define NETDUINOPLUS2_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40011000u
#define HOST_USART_RCC_ENR STM32_RCC_APB2ENR
#define HOST_USART_RCC_BIT 4u /* RCC_APB2ENR.USART1EN, RM0090 §6.3.14 */
#define HOST_USART_IRQ 37u /* USART1's interrupt on the NVIC (the STM32F4 vector table's USART1_IRQn) */
#define HOST_USART_CLOCK_HZ 16000000u
#define HOST_BAUD 115200u

#endif /* NETDUINOPLUS2_STM32_BOARD_H */
