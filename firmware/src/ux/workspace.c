/* Workspace carving and small integer helpers. */
#include "internal.h"

#include <stdint.h>

ux_status ux_arena_open(ux_arena *a, const ux_workspace *ws)
{
    a->next = NULL;
    a->left = 0;
    if (ws == NULL || (ws->mem == NULL && ws->bytes != 0))
        return UX_ERR_WORKSPACE;
    /* Alignment is checked rather than fixed up so that the bytes a caller declared are the bytes the
     * documented macros promise. */
    if (((uintptr_t)ws->mem & 7u) != 0)
        return UX_ERR_WORKSPACE;
    a->next = (unsigned char *)ws->mem;
    a->left = ws->bytes;
    return UX_OK;
}

ux_real *ux_arena_reals(ux_arena *a, size_t count)
{
    size_t bytes;
    ux_real *p;
    if (count > (SIZE_MAX - 7u) / sizeof(ux_real))
        return NULL;
    bytes = UX_WS_REALS(count);
    if (bytes > a->left)
        return NULL;
    p = (ux_real *)(void *)a->next;
    a->next += bytes;
    a->left -= bytes;
    return p;
}

ux_workspace ux_arena_rest(const ux_arena *a)
{
    ux_workspace w;
    w.mem = a->next;
    w.bytes = a->left;
    return w;
}

int ux_log2_eta(unsigned eta)
{
    int n;
    if (eta == 0 || eta > UX_MAX_ETA || (eta & (eta - 1u)) != 0)
        return -1;
    for (n = 0; (1u << n) != eta; ++n) {
    }
    return n;
}
