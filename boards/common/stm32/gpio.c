/*
 * gpio.c — alternate-function pins (RM0090 §8.4.1–§8.4.10, RM0410 §6.4.1–§6.4.10: same registers).
 */
#include "gpio.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define GPIO_MODER 0x00u /* 2 bits a pin: 10 = alternate function */
#define GPIO_OSPEEDR 0x08u /* 2 bits a pin: 10 = high speed */
#define GPIO_AFRL 0x20u /* 4 bits a pin, pins 0–7 */
#define GPIO_AFRH 0x24u /* pins 8–15 */

void stm32_gpio_alternate(uintptr_t base, unsigned pin, unsigned af)
{
    uint32_t afr = pin < 8u ? GPIO_AFRL : GPIO_AFRH;
    unsigned shift4 = 4u * (pin & 7u), shift2 = 2u * pin;
    REG(base, afr) = (REG(base, afr) & ~(0xFu << shift4)) | ((uint32_t)af << shift4);
    REG(base, GPIO_OSPEEDR) = (REG(base, GPIO_OSPEEDR) & ~(3u << shift2)) | (2u << shift2);
    REG(base, GPIO_MODER) = (REG(base, GPIO_MODER) & ~(3u << shift2)) | (2u << shift2);
}
