/* modelfile_energy.c -- the energy paper's statements of model files:
 *   energy = [ ... ]            E(x) = x' sym(W) x over the stacked states
 *                               (nx x nx, entries expressions of parameters)
 *   bond SUB.F[, ...] -> SUB.V[, ...]
 *                               force outputs acting on the body whose
 *                               velocity outputs pair with them; the energy
 *                               correction goes into the inputs of the
 *                               velocity's subsystem that the first bond's
 *                               forces feed (connect).
 * Bonds share one velocity (one power port); both statements together give
 * the model its energy and energy_port (cosa simulate --energy, cosa point
 * --energy, energy maps). */
#include "modelfile_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mf_bonds_free(mf_t *mf)
{
    for (size_t b = 0; b < mf->nbond; b++) {
        for (size_t c = 0; c < mf->bonds[b].dim; c++) {
            free(mf->bonds[b].force[c]);
            free(mf->bonds[b].vel[c]);
        }
        free(mf->bonds[b].force);
        free(mf->bonds[b].vel);
    }
    free(mf->bonds);
    free(mf->W);
    free(mf->port_idx);
}

/* Stacked output index of "SUB.OUT" (and its subsystem), or -1. */
static long output_index(const mf_t *mf, const char *q, const struct mf_sub **sub)
{
    const char *dot = strchr(q, '.');
    for (size_t i = 0; dot && i < mf->nsub; i++) {
        const struct mf_sub *s = &mf->subs[i];
        if (strlen(s->name) != (size_t)(dot - q) || strncmp(s->name, q, (size_t)(dot - q)))
            continue;
        long o = mf_find_name(s->names[DECL_Y], s->n[DECL_Y], dot + 1);
        if (sub)
            *sub = s;
        return o < 0 ? -1 : (long)s->oy + o;
    }
    return -1;
}

void mf_resolve_energy(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    if (!mf->W && !mf->nbond)
        return;
    if (!mf->W || !mf->nbond) {
        mf_perr(p, COSA_ESYNTAX, mf->W ? mf->W_line : mf->bonds[0].line,
                "%s without %s: the energy paper's indicators need both", mf->W ? "energy" : "bond",
                mf->W ? "a bond" : "'energy = [...]'");
        return;
    }
    if (mf->W_r != mf->nx || mf->W_c != mf->nx) {
        mf_perr(p, COSA_ESYNTAX, mf->W_line, "energy is %zux%zu, expected %zux%zu (all states)",
                mf->W_r, mf->W_c, mf->nx, mf->nx);
        return;
    }
    const size_t d = mf->bonds[0].dim, nb = mf->nbond;
    if (!(mf->port_idx = malloc((nb * d + 2 * d) * sizeof *mf->port_idx)))
        return mf_nomem(p);
    size_t *force = mf->port_idx, *vel = force + nb * d, *in = vel + d;
    const struct mf_sub *vs = NULL;
    for (size_t b = 0; b < nb; b++) {
        const struct mf_bond *bd = &mf->bonds[b];
        if (bd->dim != d) {
            mf_perr(p, COSA_ESYNTAX, bd->line, "bond: %zu components, the first bond has %zu",
                    bd->dim, d);
            return;
        }
        for (size_t c = 0; c < d; c++) {
            const struct mf_sub *s = NULL;
            long f = output_index(mf, bd->force[c], NULL), v = output_index(mf, bd->vel[c], &s);
            if (f < 0 || v < 0) {
                mf_perr(p, COSA_ESYNTAX, bd->line, "bond: no output '%s'",
                        f < 0 ? bd->force[c] : bd->vel[c]);
                return;
            }
            if (b > 0 && (size_t)v != vel[c]) {
                mf_perr(p, COSA_ESYNTAX, bd->line, "bond: every bond acts on the same velocity "
                        "(%s), this one on %s", mf->bonds[0].vel[c], bd->vel[c]);
                return;
            }
            force[b * d + c] = (size_t)f;
            vel[c] = (size_t)v;
            vs = s;
        }
    }
    /* the correction inputs: those of the velocity's subsystem that the first
     * bond's forces feed */
    for (size_t c = 0; c < d; c++) {
        long found = -1;
        for (size_t k = 0; k < vs->n[DECL_U] && found < 0; k++)
            if (mf->L[vs->ou + k + force[c] * mf->nu] != 0.0)
                found = (long)(vs->ou + k);
        if (found < 0) {
            mf_perr(p, COSA_ESYNTAX, mf->bonds[0].line, "bond: '%s' feeds no input of subsystem "
                    "'%s' (connect it to the input the force acts through)", mf->bonds[0].force[c],
                    vs->name);
            return;
        }
        in[c] = (size_t)found;
    }
    mf->port_dim = d;
}

static cosa_status mf_energy(const cosa_model *m, const double *par, const double *x, double *E)
{
    const mf_t *mf = m->data;
    const size_t nv = mf->nparam + mf->nlet, n = mf->nx;
    double *vals = malloc((nv + 1) * sizeof *vals);
    if (!vals)
        return COSA_ENOMEM;
    mf_eval_vals(mf, par, vals);
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            s += x[i] * mf_expr_eval(mf->pool, &mf->W[i * n + j], vals) * x[j];
    free(vals);
    *E = s; /* x' W x = x' sym(W) x */
    return isfinite(s) ? COSA_OK : COSA_ENONFINITE;
}

static cosa_status mf_energy_port(const cosa_model *m, const double *par, cosa_energy_port *port,
                                  size_t *idx, size_t nidx)
{
    (void)par;
    const mf_t *mf = m->data;
    const size_t d = mf->port_dim, n = mf->nbond * d + 2 * d;
    if (nidx < n)
        return COSA_ERANGE;
    memcpy(idx, mf->port_idx, n * sizeof *idx);
    *port = (cosa_energy_port){d, mf->nbond, idx, idx + mf->nbond * d, idx + mf->nbond * d + d};
    return COSA_OK;
}

void mf_energy_init(mf_t *mf)
{
    if (mf->port_dim) {
        mf->model.energy = mf_energy;
        mf->model.energy_port = mf_energy_port;
    }
}
