/*
 * White-noise-acceleration process noise of the 2-D joint systems (docs/semantics.md, "Joint systems"):
 * the Cholesky factor L of Q = q·[[dt³/3, dt²/2], [dt²/2, dt]], so that two independent standard normal
 * noises w enter as L·w. Computed once per step by the models' prepare into ctx->step[0..2].
 */
#ifndef UX_MODELS_WNA_H
#define UX_MODELS_WNA_H

#include "ux/model.h"
#include "ux/rmath.h"

/* step[0] = L_00, step[1] = L_10, step[2] = L_11 from dt and q. */
static inline void ux_wna_cholesky(ux_real dt, ux_real q, ux_real *step)
{
    ux_real l00 = ux_rsqrt(q * dt * dt * dt / (ux_real)3.0);
    ux_real l10 = q * dt * dt / (ux_real)2.0 / l00;
    step[0] = l00;
    step[1] = l10;
    step[2] = ux_rsqrt(q * dt - l10 * l10);
}

/* Two independent standard normal process-noise components. */
static inline void ux_wna_noises(const ux_real *params, ux_law *process)
{
    (void)params;
    process[0] = (ux_law){UX_LAW_GAUSSIAN, 0, 1, 0};
    process[1] = (ux_law){UX_LAW_GAUSSIAN, 0, 1, 0};
}

#endif /* UX_MODELS_WNA_H */
