/*
 * stm32_board.h — the Nucleo-F767ZI's STM32F767ZI as boards/common/stm32/board.c needs it.
 *
 * USART3 (0x40004800, RM0410 §2.2.2) on PD8 (TX) and PD9 (RX), alternate function 7 (datasheet DS11532
 * table 13), is the ST-LINK's virtual COM port (UM1974 §6.9). USART3 sits on APB1, and USART3SEL = 00
 * clocks it from PCLK1 (RM0410 §5.3.28), which the clock set-up gives it (clock.c): 54 MHz at 216 MHz, or
 * the 16 MHz HSI of the reset (§5.2). Its USART has the later register layout: BOARD_SRCS takes
 * common/stm32/usart_v2.c.
 *
 * Clock (clock.h): the ST-LINK's 8 MHz MCO on OSC_IN as an HSE in bypass (UM1974, "HSE clock", the
 * board's default), the PLL at 1 MHz · 432 / 2 = 216 MHz, the part's rated clock (RM0410, RCC_PLLCFGR;
 * Q = 9: 48 MHz). Above 180 MHz the part needs scale 1 (PWR_CR1 VOS = 11) and over-drive (RM0410,
 * "Entering Over-drive mode"); at 216 MHz and 2.7–3.6 V the flash needs 7 wait states (RM0410, "Relation
 * between CPU clock frequency and Flash memory read time"), with the ART and prefetch on (FLASH_ACR ARTEN,
 * PRFTEN); APB1 at /4 = 54 MHz and APB2 at /2 = 108 MHz, their limits. The Cortex-M7's L1 instruction and
 * data caches are turned on through the SCB (Cortex-M7 TRM, "Initializing and enabling the L1 cache").
 */
#ifndef NUCLEO_F767ZI_STM32_BOARD_H
#define NUCLEO_F767ZI_STM32_BOARD_H

#include "rcc.h"

#define HOST_USART_BASE 0x40004800u
#define HOST_USART_RCC_ENR STM32_RCC_APB1ENR
#define HOST_USART_RCC_BIT 18u /* RCC_APB1ENR.USART3EN, RM0410 §5.3.13 */
#define HOST_USART_IRQ 39u /* USART3's interrupt on the NVIC (the STM32F7 vector table's USART3_IRQn) */
#define HOST_USART_APB 1u
#define HOST_BAUD 115200u

#define CLOCK_HSE_HZ 8000000u
#define CLOCK_HSE_BYPASS 1
#define CLOCK_PLLP 2u
#define CLOCK_PLLQ 9u
#define CLOCK_VOS (3u << 14)
#define CLOCK_OVERDRIVE 1
#define CLOCK_FLASH_WS 7u
#define CLOCK_FLASH_ACR_ON ((1u << 8) | (1u << 9)) /* PRFTEN, ARTEN */
#define CLOCK_APB1_DIV 4u
#define CLOCK_APB2_DIV 2u
#define CLOCK_APB1_MAX_HZ 54000000u
#define CLOCK_APB2_MAX_HZ 108000000u
#define CLOCK_L1_CACHES 1

#define HOST_PINS_GPIO_BASE 0x40020C00u /* GPIOD */
#define HOST_PINS_GPIO_RCC_BIT 3u /* RCC_AHB1ENR.GPIODEN, RM0410 §5.3.10 */
#define HOST_TX_PIN 8u
#define HOST_RX_PIN 9u
#define HOST_PINS_AF 7u

#endif /* NUCLEO_F767ZI_STM32_BOARD_H */
