/*
 * Prints the RAM the filter needs per η for this build's real type: the compile-time bound
 * UX_WORKSPACE_BYTES(η) that firmware sizes its static workspace with, the exact need of the worst
 * built-in configuration per likelihood path, and the filter state itself. `make sizes` runs it for the
 * double and the float build; firmware/README.md quotes the table.
 */
#include <stdio.h>

#include "ux/ux.h"

static size_t worst(unsigned eta, ux_likelihood lik)
{
    size_t w = 0;
    unsigned i, mode;
    for (i = 0; i < ux_model_count(); ++i)
        for (mode = 0; mode < 2; ++mode) {
            size_t b = ux_filter_workspace_bytes(ux_model_at(i), eta, (ux_mode)mode, lik);
            w = b > w ? b : w;
        }
    return w;
}

int main(void)
{
    unsigned eta;
    printf("%s build (ux_real = %u bytes), sizeof(ux_filter) = %zu bytes\n", sizeof(ux_real) == 8 ? "double" : "float",
           (unsigned)sizeof(ux_real), sizeof(ux_filter));
    printf("%4s %22s %14s %14s\n", "eta", "UX_WORKSPACE_BYTES(eta)", "kernel need", "sampler need");
    for (eta = 1; eta <= UX_MAX_ETA; eta *= 2)
        printf("%4u %22zu %14zu %14zu\n", eta, (size_t)UX_WORKSPACE_BYTES(eta), worst(eta, UX_LIK_KERNEL),
               worst(eta, UX_LIK_SAMPLER));
    return 0;
}
