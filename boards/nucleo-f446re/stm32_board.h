/*
 * stm32_board.h — the Nucleo-F446RE's STM32F446RE as boards/common/stm32/board.c needs it.
 *
 * USART2 (0x40004400, RM0390 §2.2.2) on PA2 (TX) and PA3 (RX), alternate function 7 (datasheet DS10693
 * table 11), is the ST-LINK's virtual COM port (UM1724 §6.8). USART2 sits on APB1, whose clock the clock
 * set-up gives it (clock.c): 45 MHz at 180 MHz, or the 16 MHz HSI of the reset (RM0390 §6.2).
 *
 * Clock (clock.h): the ST-LINK's 8 MHz MCO on OSC_IN as an HSE in bypass (UM1724, "OSC clock", where the
 * board's solder bridges route it; else the PLL takes the HSI), the PLL at 1 MHz · 360 / 2 = 180 MHz, the
 * part's rated clock (RM0390, RCC_PLLCFGR; Q = 8: 45 MHz, no USB here). Above 168 MHz the part needs
 * scale 1 (PWR_CR VOS = 11) and over-drive (RM0390, "Entering Over-drive mode"); at 180 MHz and
 * 2.7–3.6 V the flash needs 5 wait states (RM0390, "Relation between CPU clock frequency and Flash memory
 * read time"), with prefetch and the ART's caches on (FLASH_ACR PRFTEN, ICEN, DCEN); APB1 at /4 = 45 MHz
 * and APB2 at /2 = 90 MHz, their limits.
 */
#ifndef NUCLEO_F446RE_STM32_BOARD_H
#define NUCLEO_F446RE_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40004400u
#define HOST_USART_RCC_ENR STM32_RCC_APB1ENR
#define HOST_USART_RCC_BIT 17u /* RCC_APB1ENR.USART2EN, RM0390 §6.3.13 */
#define HOST_USART_IRQ 38u /* USART2's interrupt on the NVIC (the STM32F4 vector table's USART2_IRQn) */
#define HOST_USART_APB 1u
#define HOST_BAUD 115200u

#define CLOCK_HSE_HZ 8000000u
#define CLOCK_HSE_BYPASS 1
#define CLOCK_PLLP 2u
#define CLOCK_PLLQ 8u
#define CLOCK_VOS (3u << 14)
#define CLOCK_OVERDRIVE 1
#define CLOCK_FLASH_WS 5u
#define CLOCK_FLASH_ACR_ON ((1u << 8) | (1u << 9) | (1u << 10)) /* PRFTEN, ICEN, DCEN */
#define CLOCK_APB1_DIV 4u
#define CLOCK_APB2_DIV 2u
#define CLOCK_APB1_MAX_HZ 45000000u
#define CLOCK_APB2_MAX_HZ 90000000u
#define CLOCK_L1_CACHES 0

#define HOST_PINS_GPIO_BASE 0x40020000u /* GPIOA */
#define HOST_PINS_GPIO_RCC_BIT 0u /* RCC_AHB1ENR.GPIOAEN, RM0390 §6.3.10 */
#define HOST_TX_PIN 2u
#define HOST_RX_PIN 3u
#define HOST_PINS_AF 7u

#endif /* NUCLEO_F446RE_STM32_BOARD_H */
