/* nlregistry.c -- the table of built-in nonlinear models and their
 * parameter helpers. */
#include "cosa.h"
#include "nlmodels.h"

#include <math.h>
#include <string.h>

static const cosa_nlmodel *const builtin[] = {
    &model_twomass_nl,
};

size_t cosa_nlmodel_count(void) { return sizeof builtin / sizeof builtin[0]; }

const cosa_nlmodel *cosa_nlmodel_at(size_t i)
{
    return i < cosa_nlmodel_count() ? builtin[i] : NULL;
}

const cosa_nlmodel *cosa_nlmodel_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < cosa_nlmodel_count(); i++)
        if (strcmp(builtin[i]->name, name) == 0)
            return builtin[i];
    return NULL;
}

void cosa_nlmodel_defaults(const cosa_nlmodel *m, double *par)
{
    if (!m || !par)
        return;
    for (size_t i = 0; i < m->nparam; i++)
        par[i] = m->params[i].value;
}

int cosa_nlmodel_param_index(const cosa_nlmodel *m, const char *name)
{
    if (!m || !name)
        return -1;
    for (size_t i = 0; i < m->nparam; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

cosa_status cosa_nlmodel_set(const cosa_nlmodel *m, double *par, const char *name, double value)
{
    if (!m || !par || !name)
        return COSA_EINVAL;
    int k = cosa_nlmodel_param_index(m, name);
    if (k < 0)
        return COSA_EPARAM;
    if (!isfinite(value))
        return COSA_ENONFINITE;
    par[k] = value;
    return COSA_OK;
}
