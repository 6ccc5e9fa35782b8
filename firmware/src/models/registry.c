/*
 * The one table of systems. To add a system: write firmware/src/models/<name>.c defining
 * `const ux_model ux_model_<name>` and add one X(ux_model_<name>) line below.
 */
#include "ux/model.h"

#define UX_MODEL_TABLE(X)                                                                              \
    X(ux_model_sv)                                                                                     \
    X(ux_model_gss)                                                                                    \
    X(ux_model_cubic_bl)

#define DECLARE(m) extern const ux_model m;
#define ENTRY(m) &m,

UX_MODEL_TABLE(DECLARE)

static const ux_model *const table[] = {UX_MODEL_TABLE(ENTRY)};

unsigned ux_model_count(void) { return (unsigned)(sizeof table / sizeof table[0]); }

const ux_model *ux_model_at(unsigned i) { return i < ux_model_count() ? table[i] : NULL; }

const ux_model *ux_model_find(unsigned id)
{
    unsigned i;
    for (i = 0; i < ux_model_count(); ++i)
        if (table[i]->id == id)
            return table[i];
    return NULL;
}
