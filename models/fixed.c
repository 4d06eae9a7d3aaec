/* fixed.c -- callbacks shared by the fixed-structure built-in models. */
#include "fixed.h"

#include <string.h>

static const model_fixed_desc *desc(const cosa_model *m)
{
    return m ? (const model_fixed_desc *)m->data : NULL;
}

cosa_status model_fixed_create(const cosa_model *m, const double *par, cosa_system **out)
{
    const model_fixed_desc *d = desc(m);
    if (!d || !par || !out)
        return COSA_EINVAL;
    double store[MODEL_FIXED_STORE];
    cosa_subsystem sub[MODEL_FIXED_MAXSUB];
    cosa_status st = d->fill(par, store, sub);
    if (st != COSA_OK)
        return st;
    return cosa_system_create(out, d->nsub, sub, d->L);
}

cosa_status model_fixed_update(const cosa_model *m, const double *par, cosa_system *sys)
{
    const model_fixed_desc *d = desc(m);
    if (!d || !par || !sys)
        return COSA_EINVAL;
    double store[MODEL_FIXED_STORE];
    cosa_subsystem sub[MODEL_FIXED_MAXSUB];
    cosa_status st = d->fill(par, store, sub);
    for (size_t i = 0; i < d->nsub && st == COSA_OK; i++)
        st = cosa_system_store_subsystem(sys, i, &sub[i]);
    /* validate once, after every subsystem is stored */
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

cosa_status model_fixed_initial_state(const cosa_model *m, const double *par, double *x0)
{
    const model_fixed_desc *d = desc(m);
    if (!d || !par || !x0)
        return COSA_EINVAL;
    for (size_t k = 0; k < d->nx; k++)
        x0[k] = par[d->x0_param[k]];
    return COSA_OK;
}

static const char *pick(const char *const *names, size_t n, size_t k)
{
    return names && k < n ? names[k] : NULL;
}

const char *model_fixed_state_name(const cosa_model *m, const double *par, size_t k)
{
    const model_fixed_desc *d = desc(m);
    return d ? pick(d->state_names, d->nx, k) : NULL;
}

const char *model_fixed_input_name(const cosa_model *m, const double *par, size_t k)
{
    const model_fixed_desc *d = desc(m);
    return d ? pick(d->input_names, d->nu, k) : NULL;
}

const char *model_fixed_output_name(const cosa_model *m, const double *par, size_t k)
{
    const model_fixed_desc *d = desc(m);
    return d ? pick(d->output_names, d->ny, k) : NULL;
}

const char *model_fixed_sub_name(const cosa_model *m, const double *par, size_t k)
{
    const model_fixed_desc *d = desc(m);
    return d ? pick(d->sub_names, d->nsub, k) : NULL;
}

cosa_status model_fixed_energy_port(const cosa_model *m, const double *par,
                                    cosa_energy_port *port, size_t *idx, size_t nidx)
{
    (void)par;
    const model_fixed_desc *d = desc(m);
    if (!d || !d->port || !port || !idx)
        return COSA_EINVAL;
    const cosa_energy_port *p = d->port;
    const size_t dim = p->dim, nf = p->nbond * dim;
    if (nidx < nf + 2 * dim)
        return COSA_ERANGE;
    memcpy(idx, p->force, nf * sizeof *idx);
    memcpy(idx + nf, p->velocity, dim * sizeof *idx);
    memcpy(idx + nf + dim, p->input, dim * sizeof *idx);
    *port = (cosa_energy_port){dim, p->nbond, idx, idx + nf, idx + nf + dim};
    return COSA_OK;
}
