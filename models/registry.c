/* registry.c -- the table of built-in models
 * (the descriptor's helpers are lib/core/model.c). */
#include "cosa.h"
#include "builtin.h"

#include <math.h>
#include <string.h>

/* Built-in models, in the order `cosa models` (linear) and
 * `cosa simulate --help` (nonlinear) list them. */
static const cosa_model *const builtin[] = {
    &model_twomass,
    &model_twomass_fd,
    &model_rotational,
    &model_rotational_defect,
    &model_chain,
    &model_multi_fd,
    &model_oscillator,
    &model_twomass_nl,
    &model_twomass_fd_nl,
    &model_pendula,
    &model_crane,
    &model_twomass_ff,
    &model_chain_ff,
};

size_t cosa_model_count(void) { return sizeof builtin / sizeof builtin[0]; }

const cosa_model *cosa_model_at(size_t i)
{
    return i < cosa_model_count() ? builtin[i] : NULL;
}

const cosa_model *cosa_model_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < cosa_model_count(); i++)
        if (strcmp(builtin[i]->name, name) == 0)
            return builtin[i];
    return NULL;
}
