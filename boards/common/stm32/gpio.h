/*
 * gpio.h — putting a pin in its alternate function (the USART's TX/RX on a real board; QEMU's STM32
 * machines route the USART without it). STM32F4 RM0090 §8.4 and STM32F7 RM0410 §6.4 share the layout.
 */
#ifndef STM32_GPIO_H
#define STM32_GPIO_H

#include <stdint.h>

/* Pin `pin` (0–15) of the port at `base` in alternate function `af` (0–15), push-pull, high speed. */
void stm32_gpio_alternate(uintptr_t base, unsigned pin, unsigned af);

#endif /* STM32_GPIO_H */
