/*
 * clock.c — the STM32 F4/F7 clock set-up (clock.h), in the order the reference manuals give for a PLL
 * clock with over-drive (RM0390 and RM0410, "Entering Over-drive mode"; RM0090, without it):
 *
 *   1. the voltage regulator's scale 1 (PWR_CR VOS, written while the PLL is off);
 *   2. HSE on (bypassed or not), bounded wait for HSERDY; without it the PLL takes the HSI;
 *   3. the PLL's dividers: M makes the VCO input 1 MHz (its range is 1–2 MHz), N = BOARD_CORE_HZ · P / 1 MHz,
 *      P and Q from the board; PLLON;
 *   4. over-drive where the board needs it: ODEN, wait ODRDY, ODSWEN, wait ODSWRDY;
 *   5. flash wait states and the accelerator (read back: the latency must hold before the clock rises);
 *      the AHB at /1 and the APB prescalers;
 *   6. bounded wait for PLLRDY, switch SW to the PLL, bounded wait for SWS to say so.
 *
 * Any wait that runs out undoes what was switched on, leaves the core on the HSI with every prescaler at
 * /1, and the set-up returns 16 MHz. Each wait polls at most CLOCK_WAIT_POLLS times, at least 4 HSI cycles
 * a poll (a load from the peripheral bus, a compare, a branch): ≥ 100 ms, ST's HSE start-up bound.
 */
#include "clock.h"

#include "rcc.h"
#include "stm32_board.h"

#ifndef BOARD_CORE_HZ
#error "board.mk adds -DBOARD_CORE_HZ=… to BOARD_DEFS"
#endif

#define CLOCK_WAIT_POLLS 400000u

#define RCC_REG(off) (*(volatile uint32_t *)(STM32_RCC_BASE + (off)))
#define RCC_CR 0x00u
#define RCC_PLLCFGR 0x04u
#define RCC_CFGR 0x08u
#define CR_HSEON (1u << 16)
#define CR_HSERDY (1u << 17)
#define CR_HSEBYP (1u << 18)
#define CR_PLLON (1u << 24)
#define CR_PLLRDY (1u << 25)
#define PLLCFGR_FIELDS 0x0F43FFFFu /* PLLM 5:0, PLLN 14:6, PLLP 17:16, PLLSRC 22, PLLQ 27:24 */
#define PLLCFGR_SRC_HSE (1u << 22)
#define CFGR_SW_MASK 0x3u
#define CFGR_SW_PLL 0x2u
#define CFGR_SWS_MASK 0xCu
#define CFGR_SWS_PLL 0x8u
#define CFGR_PRESCALERS 0xFCF0u /* HPRE 7:4, PPRE1 12:10, PPRE2 15:13 */
#define RCC_APB1ENR_PWREN 28u

#define PWR_CR (*(volatile uint32_t *)0x40007000u)
#define PWR_CSR (*(volatile uint32_t *)0x40007004u)
#define PWR_CR_ODEN (1u << 16)
#define PWR_CR_ODSWEN (1u << 17)
#define PWR_CSR_ODRDY (1u << 16)
#define PWR_CSR_ODSWRDY (1u << 17)

#define FLASH_ACR (*(volatile uint32_t *)0x40023C00u)
#define FLASH_ACR_LATENCY 0xFu

/* The PLL's numbers, from the board's. */
#define PLL_IN_HZ 1000000u
#define PLLN (BOARD_CORE_HZ / PLL_IN_HZ * CLOCK_PLLP)
#define VCO_HZ (PLL_IN_HZ * PLLN)

_Static_assert(BOARD_CORE_HZ % PLL_IN_HZ == 0u, "the core clock is a whole number of MHz");
_Static_assert(CLOCK_PLLP == 2u || CLOCK_PLLP == 4u || CLOCK_PLLP == 6u || CLOCK_PLLP == 8u, "PLLP is 2, 4, 6 or 8");
_Static_assert(PLLN >= 50u && PLLN <= 432u, "PLLN is 50…432");
_Static_assert(VCO_HZ >= 100000000u && VCO_HZ <= 432000000u, "the VCO runs at 100…432 MHz");
_Static_assert(CLOCK_PLLQ >= 2u && CLOCK_PLLQ <= 15u && VCO_HZ / CLOCK_PLLQ <= 48000000u, "PLLQ: 48 MHz at most");
_Static_assert(STM32_HSI_HZ % PLL_IN_HZ == 0u && CLOCK_HSE_HZ % PLL_IN_HZ == 0u, "the PLL input divides to 1 MHz");
_Static_assert(BOARD_CORE_HZ / CLOCK_APB1_DIV <= CLOCK_APB1_MAX_HZ, "APB1 above its limit");
_Static_assert(BOARD_CORE_HZ / CLOCK_APB2_DIV <= CLOCK_APB2_MAX_HZ, "APB2 above its limit");

static uint32_t core_hz = STM32_HSI_HZ;
static uint32_t apb_div[2] = {1u, 1u};

static int wait_for(volatile uint32_t *reg, uint32_t mask, uint32_t value)
{
    for (uint32_t n = 0u; n < CLOCK_WAIT_POLLS; n++) {
        if ((*reg & mask) == value) {
            return 1;
        }
    }
    return 0;
}

/* RCC_CFGR's PPREx code for a divider: /1 is 0b000, /2…/16 are 0b100…0b111. */
static uint32_t ppre(uint32_t div)
{
    uint32_t code = 0u;
    if (div > 1u) {
        code = 4u;
        for (uint32_t d = div; d > 2u; d >>= 1) {
            code++;
        }
    }
    return code;
}

#if defined(__arm__)
#define BARRIER(instructions) __asm volatile(instructions ::: "memory")
#else /* a host build of this file (tests/firmware/test_stm32_clock.py): the order of the writes only */
#define BARRIER(instructions) __asm volatile("" ::: "memory")
#endif

#if CLOCK_L1_CACHES
#define SCB_CCR (*(volatile uint32_t *)0xE000ED14u)
#define SCB_CCSIDR (*(volatile uint32_t *)0xE000ED80u)
#define SCB_CSSELR (*(volatile uint32_t *)0xE000ED84u)
#define SCB_ICIALLU (*(volatile uint32_t *)0xE000EF50u)
#define SCB_DCISW (*(volatile uint32_t *)0xE000EF60u)
#define CCR_DC (1u << 16)
#define CCR_IC (1u << 17)

/* The Cortex-M7's L1 caches (ARMv7-M ARM, "Cache maintenance operations"; Cortex-M7 TRM): invalidate, then enable. */
static void l1_caches_enable(void)
{
    BARRIER("dsb\n\tisb");
    SCB_ICIALLU = 0u;
    BARRIER("dsb\n\tisb");
    SCB_CCR |= CCR_IC;
    BARRIER("dsb\n\tisb");

    SCB_CSSELR = 0u; /* level 1, data */
    BARRIER("dsb");
    uint32_t ccsidr = SCB_CCSIDR;
    uint32_t sets = ((ccsidr >> 13) & 0x7FFFu) + 1u;
    uint32_t ways = ((ccsidr >> 3) & 0x3FFu) + 1u;
    uint32_t set_shift = (ccsidr & 0x7u) + 4u; /* log2 of the line's bytes */
    uint32_t way_shift = ways > 1u ? (uint32_t)__builtin_clz(ways - 1u) : 0u;
    for (uint32_t set = 0u; set < sets; set++) {
        for (uint32_t way = 0u; way < ways; way++) {
            SCB_DCISW = (set << set_shift) | (ways > 1u ? way << way_shift : 0u);
        }
    }
    BARRIER("dsb");
    SCB_CCR |= CCR_DC;
    BARRIER("dsb\n\tisb");
}
#endif

/* Back to the reset clock: the HSI, every prescaler /1, the PLL and over-drive off. */
static uint32_t fall_back(int hse_on)
{
    RCC_REG(RCC_CFGR) &= ~(CFGR_SW_MASK | CFGR_PRESCALERS);
    (void)wait_for(&RCC_REG(RCC_CFGR), CFGR_SWS_MASK, 0u);
    RCC_REG(RCC_CR) &= ~CR_PLLON;
    PWR_CR &= ~(PWR_CR_ODSWEN | PWR_CR_ODEN);
    if (!hse_on) {
        RCC_REG(RCC_CR) &= ~(CR_HSEON | CR_HSEBYP);
    }
    apb_div[0] = apb_div[1] = 1u;
    core_hz = STM32_HSI_HZ;
    return core_hz;
}

uint32_t stm32_clock_init(void)
{
#if CLOCK_L1_CACHES
    l1_caches_enable();
#endif
    stm32_rcc_enable(STM32_RCC_APB1ENR, RCC_APB1ENR_PWREN);
    PWR_CR |= CLOCK_VOS;

    uint32_t in_hz = STM32_HSI_HZ;
    uint32_t src = 0u;
    int hse = 0;
    if (CLOCK_HSE_HZ != 0u) {
        RCC_REG(RCC_CR) |= CLOCK_HSE_BYPASS ? CR_HSEBYP : 0u;
        RCC_REG(RCC_CR) |= CR_HSEON;
        hse = wait_for(&RCC_REG(RCC_CR), CR_HSERDY, CR_HSERDY);
        if (hse) {
            in_hz = CLOCK_HSE_HZ;
            src = PLLCFGR_SRC_HSE;
        } else {
            RCC_REG(RCC_CR) &= ~(CR_HSEON | CR_HSEBYP);
        }
    }

    uint32_t pllcfgr = RCC_REG(RCC_PLLCFGR) & ~PLLCFGR_FIELDS;
    pllcfgr |= (in_hz / PLL_IN_HZ) | (PLLN << 6) | ((CLOCK_PLLP / 2u - 1u) << 16) | src | (CLOCK_PLLQ << 24);
    RCC_REG(RCC_PLLCFGR) = pllcfgr;
    RCC_REG(RCC_CR) |= CR_PLLON;

    if (CLOCK_OVERDRIVE) {
        PWR_CR |= PWR_CR_ODEN;
        if (!wait_for(&PWR_CSR, PWR_CSR_ODRDY, PWR_CSR_ODRDY)) {
            return fall_back(hse);
        }
        PWR_CR |= PWR_CR_ODSWEN;
        if (!wait_for(&PWR_CSR, PWR_CSR_ODSWRDY, PWR_CSR_ODSWRDY)) {
            return fall_back(hse);
        }
    }

    /* More wait states than the HSI needs cost nothing but speed: set before the clock rises, kept if
     * the switch fails. */
    FLASH_ACR = (FLASH_ACR & ~FLASH_ACR_LATENCY) | CLOCK_FLASH_WS | CLOCK_FLASH_ACR_ON;
    if ((FLASH_ACR & FLASH_ACR_LATENCY) != CLOCK_FLASH_WS) {
        return fall_back(hse);
    }
    if (!wait_for(&RCC_REG(RCC_CR), CR_PLLRDY, CR_PLLRDY)) {
        return fall_back(hse);
    }
    uint32_t cfgr = RCC_REG(RCC_CFGR) & ~(CFGR_SW_MASK | CFGR_PRESCALERS);
    cfgr |= (ppre(CLOCK_APB1_DIV) << 10) | (ppre(CLOCK_APB2_DIV) << 13);
    RCC_REG(RCC_CFGR) = cfgr;
    RCC_REG(RCC_CFGR) = cfgr | CFGR_SW_PLL;
    if (!wait_for(&RCC_REG(RCC_CFGR), CFGR_SWS_MASK, CFGR_SWS_PLL)) {
        return fall_back(hse);
    }
    apb_div[0] = CLOCK_APB1_DIV;
    apb_div[1] = CLOCK_APB2_DIV;
    core_hz = BOARD_CORE_HZ;
    return core_hz;
}

uint32_t stm32_clock_core_hz(void) { return core_hz; }

uint32_t stm32_clock_apb_hz(unsigned apb) { return core_hz / apb_div[apb == 2u ? 1 : 0]; }
