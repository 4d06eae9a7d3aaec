/* ssp_open.c -- SSP import (ssp_impl.h): Model Exchange components and open
 * systems.
 *
 * A component's implementation="ModelExchange" opens its FMU as Model
 * Exchange (cosa integrates it, doc/model-exchange.md), "CoSimulation" as
 * co-simulation, "any" or none the default way (co-simulation when the FMU
 * has it, else Model Exchange), as a model file's `fmu NAME me|cs = PATH`.
 *
 * An FMU input that no connection feeds keeps its start value for the whole
 * run (the FMI standard on unconnected inputs); one whose value a parameter
 * binding gives (bound to the input itself, or to the input connector of a
 * system that feeds it along connections with linear transformations:
 * target = gain * value + offset) is held at that value.  Either is a held
 * input of the model (modelfile_hold.c): a row of u = L y + c with no L
 * entry and c = the value, which the run keeps and Phi does not see. */
#include "ssp_impl.h"

#include <stdlib.h>
#include <string.h>

int ssp_component_iface(const xmlNode *c)
{
    const char *impl = ssp_attr(c, "implementation");
    if (impl && strcmp(impl, "ModelExchange") == 0)
        return COSA_FMU_IFACE_ME;
    if (impl && strcmp(impl, "CoSimulation") == 0)
        return COSA_FMU_IFACE_CS;
    return COSA_FMU_IFACE_AUTO;
}

/* The start value of input in of FMU subsystem sub (0 without one). */
static double input_start(const struct mf_sub *sub, const char *in)
{
    const long j = mf_find_name(sub->names[DECL_U], sub->n[DECL_U], in);
    if (j < 0 || !sub->fh || (size_t)j >= cosa_fmu_ninput(sub->fh))
        return 0.0;
    const cosa_fmu_var *v = cosa_fmu_var_at(sub->fh, cosa_fmu_input(sub->fh, (size_t)j));
    return v && v->has_start ? v->start : 0.0;
}

void ssp_hold_open(struct ssp *s, const struct mf_sub *sub, const char *in, size_t line,
                   const xmlNode *sys, const char *conn, double gain, double offset)
{
    mf_t *mf = s->p->mf;
    if (mf_hold_find(mf, sub->name, in) >= 0)
        return;
    struct ssp_hold *r = realloc(s->holds, (s->nholds + 1) * sizeof *r);
    if (!r)
        return mf_nomem(s->p);
    s->holds = r;
    char *dst = mf_dup0(sub->name), *id = mf_dup0(in);
    if (!dst || !id || mf_hold_add(mf, dst, id, line, input_start(sub, in), MF_HOLD_START)) {
        if (!dst || !id)
            free(dst), free(id);
        return mf_nomem(s->p);
    }
    s->holds[s->nholds++] = (struct ssp_hold){mf->nhold - 1, sys, conn, gain, offset};
}

void ssp_hold_rest(struct ssp *s)
{
    mf_t *mf = s->p->mf;
    for (size_t i = 0; i < mf->nsub && s->p->st == COSA_OK; i++) {
        const struct mf_sub *sub = &mf->subs[i];
        for (size_t j = 0; j < sub->n[DECL_U] && s->p->st == COSA_OK; j++) {
            const char *in = sub->names[DECL_U][j];
            int fed = 0;
            for (size_t k = 0; k < mf->nconn && !fed; k++)
                fed = strcmp(mf->conns[k].dst, sub->name) == 0 && strcmp(mf->conns[k].in, in) == 0;
            if (!fed && !mf_discrete_feeds(mf, i, in)) /* a discrete Float64 feeds none */
                ssp_hold_open(s, sub, in, sub->line, NULL, NULL, 1.0, 0.0);
        }
    }
}

long ssp_hold_input(struct ssp *s, xmlNode *comp, const char *var, const char *full,
                    size_t line)
{
    const struct mf_sub *sub = ssp_component_sub(s, comp);
    char *id = sub ? mf_ident_of(var) : NULL;
    const long j = id ? mf_find_name(sub->names[DECL_U], sub->n[DECL_U], id) : -1;
    const long h = j >= 0 ? mf_hold_find(s->p->mf, sub->name, id) : -1;
    free(id);
    if (j < 0 || h >= 0)
        return h;
    for (size_t k = 0; k < s->p->mf->nconn; k++) {
        const struct mf_conn *c = &s->p->mf->conns[k];
        if (strcmp(c->dst, sub->name) == 0 && strcmp(c->in, sub->names[DECL_U][j]) == 0) {
            mf_perr(s->p, COSA_EPARAM, line, "parameter '%.120s': input '%.80s' of component "
                    "'%.80s' is fed by a connection (line %zu): not supported (a bound value "
                    "holds an input that nothing feeds)", full, var, ssp_attr(comp, "name"),
                    c->line);
            return -2;
        }
    }
    return -1;
}

void ssp_hold_bind(struct ssp *s, long h, double x)
{
    s->p->mf->holds[h].value = x;
    s->p->mf->holds[h].how = MF_HOLD_BOUND;
}

void ssp_hold_bind_connector(struct ssp *s, const xmlNode *sys, const char *conn, double x)
{
    for (size_t k = 0; k < s->nholds; k++) {
        const struct ssp_hold *r = &s->holds[k];
        if (r->sys == sys && r->conn && strcmp(r->conn, conn) == 0)
            ssp_hold_bind(s, (long)r->h, r->gain * x + r->offset);
    }
}
