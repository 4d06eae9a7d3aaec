/* model.c -- the helpers every model descriptor (cosa_model) shares:
 * parameters by name, defaults, linearity, destroy. */
#include "cosa/core.h"

#include <math.h>
#include <string.h>

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
