/*
 * stm32_board.h — the Netduino Plus 2's STM32F405RG as boards/common/stm32/board.c needs it.
 *
 * The host link is USART1 (0x40011000, RM0090 §2.3), the USART QEMU's netduinoplus2 machine connects to
 * its first -serial (hw/arm/stm32f405_soc.c, usart_addr[0]). USART1 sits on APB2, whose clock the clock
 * set-up gives it (clock.c): 84 MHz at 168 MHz, or the 16 MHz HSI of the reset (RM0090 §6.2, RCC_CFGR = 0).
 *
 * Clock (clock.h): the board's 25 MHz crystal on the HSE (the Netduino 2 family's), the PLL at
 * 1 MHz · 336 / 2 = 168 MHz, the part's rated clock (RM0090, RCC_PLLCFGR; Q = 7: 48 MHz). At 168 MHz and
 * 2.7–3.6 V the flash needs 5 wait states (RM0090, "Relation between CPU clock frequency and Flash memory
 * read time"), with prefetch and the ART's instruction and data caches on (FLASH_ACR PRFTEN, ICEN, DCEN);
 * APB1 at /4 = 42 MHz and APB2 at /2 = 84 MHz, their limits (RCC_CFGR). The F405's regulator scale is
 * PWR_CR bit 14 (VOS = 1, scale 1, its reset value). QEMU 7.2's RCC and flash interface read 0: the set-up falls back to the HSI.
 */
#ifndef NETDUINOPLUS2_STM32_BOARD_H
#define NETDUINOPLUS2_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40011000u
#define HOST_USART_RCC_ENR STM32_RCC_APB2ENR
#define HOST_USART_RCC_BIT 4u /* RCC_APB2ENR.USART1EN, RM0090 §6.3.14 */
#define HOST_USART_IRQ 37u /* USART1's interrupt on the NVIC (the STM32F4 vector table's USART1_IRQn) */
#define HOST_USART_APB 2u
#define HOST_BAUD 115200u

#define CLOCK_HSE_HZ 25000000u
#define CLOCK_HSE_BYPASS 0
#define CLOCK_PLLP 2u
#define CLOCK_PLLQ 7u
#define CLOCK_VOS (1u << 14)
#define CLOCK_OVERDRIVE 0
#define CLOCK_FLASH_WS 5u
#define CLOCK_FLASH_ACR_ON ((1u << 8) | (1u << 9) | (1u << 10)) /* PRFTEN, ICEN, DCEN */
#define CLOCK_APB1_DIV 4u
#define CLOCK_APB2_DIV 2u
#define CLOCK_APB1_MAX_HZ 42000000u
#define CLOCK_APB2_MAX_HZ 84000000u
#define CLOCK_L1_CACHES 0

#endif /* NETDUINOPLUS2_STM32_BOARD_H */
