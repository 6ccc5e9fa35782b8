/* Prints the workspace the filter needs per η (the table in firmware/README.md comes from here). */
#include <stdio.h>

#include "ux/workspace.h"

int main(void)
{
    unsigned eta;
    printf("%-4s %14s %14s\n", "eta", "double bytes", "float bytes");
    for (eta = 1; eta <= UX_MAX_ETA; eta *= 2) {
        /* The float build's reals are 4 bytes; every block is still rounded to 8. */
        size_t p = (size_t)eta * eta;
        size_t fl = 2 * (((p * 4) + 7) / 8 * 8) * 3 + ((p * 4) + 7) / 8 * 8;
        printf("%-4u %14zu %14zu\n", eta, (size_t)UX_WORKSPACE_BYTES(eta), fl);
    }
    return 0;
}
