/*
 * iwdg.c — the IWDG's registers (RM0090 and RM0410, "IWDG register map") and its freeze while the core
 * is halted (DBGMCU_APB1_FZ, chapter "Debug support").
 */
#include "iwdg.h"

#include <stdint.h>

#define IWDG_BASE 0x40003000u
#define REG(off) (*(volatile uint32_t *)(IWDG_BASE + (off)))
#define IWDG_KR 0x00u
#define IWDG_PR 0x04u
#define IWDG_RLR 0x08u
#define IWDG_SR 0x0Cu

#define KEY_START 0xCCCCu
#define KEY_RELOAD 0xAAAAu
#define KEY_UNLOCK 0x5555u /* write access to PR and RLR */
#define PR_DIV64 4u
#define RLR_MAX 0xFFFu
#define SR_PVU (1u << 0) /* a prescaler update is still crossing into the LSI domain */
#define SR_RVU (1u << 1) /* a reload value update is */

#define DBGMCU_APB1_FZ (*(volatile uint32_t *)0xE0042008u)
#define DBG_IWDG_STOP (1u << 12)

void stm32_iwdg_start(void)
{
    DBGMCU_APB1_FZ |= DBG_IWDG_STOP;
    REG(IWDG_KR) = KEY_START; /* starts the LSI too, if it is not running */
    REG(IWDG_KR) = KEY_UNLOCK;
    REG(IWDG_PR) = PR_DIV64;
    REG(IWDG_RLR) = RLR_MAX;
    /* The new values take effect once both updates have crossed (a few LSI periods). QEMU's IWDG is an
     * unimplemented device that reads 0: the wait ends at once there. */
    while (REG(IWDG_SR) & (SR_PVU | SR_RVU)) {
    }
    REG(IWDG_KR) = KEY_RELOAD;
}

void stm32_iwdg_refresh(void) { REG(IWDG_KR) = KEY_RELOAD; }
