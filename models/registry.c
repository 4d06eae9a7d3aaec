/* registry.c -- the table of built-in models and the helpers every model
 * descriptor shares (parameters, linearity, destroy). */
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

int cosa_model_is_linear(const cosa_model *m) { return m && m->create; }

int cosa_model_param_index(const cosa_model *m, const char *name)
{
    if (!m || !name)
        return -1;
    for (size_t i = 0; i < m->nparam; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

void cosa_model_defaults(const cosa_model *m, double *par)
{
    if (!m || !par)
        return;
    for (size_t i = 0; i < m->nparam; i++)
        par[i] = m->params[i].value;
}

cosa_status cosa_model_set(const cosa_model *m, double *par, const char *name, double value)
{
    if (!m || !par || !name)
        return COSA_EINVAL;
    int k = cosa_model_param_index(m, name);
    if (k < 0)
        return COSA_EPARAM;
    if (!isfinite(value))
        return COSA_ENONFINITE;
    par[k] = value;
    return COSA_OK;
}

void cosa_model_free(cosa_model *m)
{
    if (m && m->destroy)
        m->destroy(m);
}
