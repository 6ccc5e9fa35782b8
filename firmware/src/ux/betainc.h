/* Regularised incomplete beta I_x(a, b) with y = 1 − x given separately (internal to the core). */
#ifndef UX_BETAINC_H
#define UX_BETAINC_H

#include "ux/config.h"

ux_real ux_betainc(ux_real a, ux_real b, ux_real x, ux_real y);

#endif /* UX_BETAINC_H */
