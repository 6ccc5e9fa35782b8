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

/* `bytes` bytes rounded up to 8, or NULL when the block is too small. */
static void *carve(ux_arena *a, size_t bytes)
{
    void *p;
    if (bytes > SIZE_MAX - 7u)
        return NULL;
    bytes = UX_WS_ROUND(bytes);
    if (bytes > a->left)
        return NULL;
    p = a->next;
    a->next += bytes;
    a->left -= bytes;
    return p;
}

ux_real *ux_arena_reals(ux_arena *a, size_t count)
{
    if (count > (SIZE_MAX - 7u) / sizeof(ux_real))
        return NULL;
    return (ux_real *)carve(a, count * sizeof(ux_real));
}

uint8_t *ux_arena_bytes(ux_arena *a, size_t count) { return (uint8_t *)carve(a, count); }

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
