/* modelfile_model.c -- the cosa_model of a file model: create, update,
 * initial_state and names evaluate the compiled expressions (expr.c) at the
 * parameter values; destroy frees the description. */
#include "modelfile_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parameter values followed by the let values (vals: nparam + nlet). */
void mf_eval_vals(const mf_t *mf, const double *par, double *vals)
{
    memcpy(vals, par, mf->nparam * sizeof *vals);
    for (size_t k = 0; k < mf->nlet; k++)
        vals[mf->nparam + k] = mf_expr_eval(mf->pool, &mf->lets[k].e, vals);
}

static int par_finite(const mf_t *mf, const double *par)
{
    for (size_t i = 0; i < mf->nparam; i++)
        if (!isfinite(par[i]))
            return 0;
    return 1;
}

/* Evaluate block k of subsystem s into v (column-major, ld = rows). */
static void eval_block(const mf_t *mf, const struct mf_sub *s, int k, const double *vals,
                       double *v)
{
    size_t r, c;
    mf_block_dims(s, k, &r, &c);
    for (size_t j = 0; j < r * c; j++)
        v[j] = mf_expr_eval(mf->pool, &s->b[k].e[j], vals);
}

/* A, B, C, D of subsystem s into buf (consecutive), as a cosa_subsystem. */
static cosa_subsystem eval_sub(const mf_t *mf, const struct mf_sub *s, const double *vals,
                               double *buf)
{
    size_t nx = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    double *A = buf, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx;
    eval_block(mf, s, BA, vals, A);
    eval_block(mf, s, BB, vals, B);
    eval_block(mf, s, BC, vals, C);
    eval_block(mf, s, BD, vals, D);
    return (cosa_subsystem){nx, nu, ny, A, B, C, D};
}

#define MF_STACKBUF 512 /* doubles of scratch kept on the stack */

static cosa_status mf_create(const cosa_model *m, const double *par, cosa_system **out)
{
    if (!m || !par || !out)
        return COSA_EINVAL;
    *out = NULL;
    const mf_t *mf = m->data;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet, total = nv;
    for (size_t i = 0; i < mf->nsub; i++) {
        size_t r, c, t = 0;
        for (int k = 0; k < BX0; k++) {
            mf_block_dims(&mf->subs[i], k, &r, &c);
            t += r * c;
        }
        total += t;
    }
    double *buf = malloc((total + 1) * sizeof *buf);
    cosa_subsystem *subs = malloc(mf->nsub * sizeof *subs);
    if (!buf || !subs) {
        free(buf);
        free(subs);
        return COSA_ENOMEM;
    }
    mf_eval_vals(mf, par, buf);
    double *w = buf + nv;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < mf->nsub && st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        subs[i] = eval_sub(mf, s, buf, w);
        if (s->fh && mf_fmu_moved(mf, s, par)) /* an FMU at other parameter values */
            st = mf_fmu_linearize(mf, s, par, (double *)subs[i].A, (double *)subs[i].B,
                                  (double *)subs[i].C, (double *)subs[i].D, NULL);
        w += s->n[DECL_X] * (s->n[DECL_X] + s->n[DECL_U]) + s->n[DECL_Y] * (s->n[DECL_X] + s->n[DECL_U]);
    }
    if (st == COSA_OK)
        st = cosa_system_create(out, mf->nsub, subs, mf->L);
    free(buf);
    free(subs);
    return st;
}

int mf_same_bits(const double *a, size_t lda, const double *b, size_t m, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (m && memcmp(a + j * lda, b + j * m, m * sizeof *a) != 0)
            return 0;
    return 1;
}

/* Only subsystems whose evaluated matrices differ from the stored ones are
 * replaced, so a sweep over a parameter used by one subsystem keeps the
 * other subsystems' cached discretisations (lib/phi.c). */
static cosa_status mf_update(const cosa_model *m, const double *par, cosa_system *sys)
{
    if (!m || !par || !sys)
        return COSA_EINVAL;
    const mf_t *mf = m->data;
    if (cosa_system_nsub(sys) != mf->nsub || cosa_system_nx(sys) != mf->nx ||
        cosa_system_nu(sys) != mf->nu || cosa_system_ny(sys) != mf->ny)
        return COSA_EINVAL;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet, need = nv + mf->blkmax;
    double stackbuf[MF_STACKBUF], *buf = stackbuf;
    if (need > MF_STACKBUF && !(buf = malloc(need * sizeof *buf)))
        return COSA_ENOMEM;
    mf_eval_vals(mf, par, buf);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys), *C = cosa_system_C(sys),
                 *D = cosa_system_D(sys);
    size_t NX = mf->nx, NY = mf->ny;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < mf->nsub && st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        cosa_subsystem sub = eval_sub(mf, s, buf, buf + nv);
        if (s->fh && mf_fmu_moved(mf, s, par) &&
            (st = mf_fmu_linearize(mf, s, par, (double *)sub.A, (double *)sub.B, (double *)sub.C,
                                   (double *)sub.D, NULL)) != COSA_OK)
            break;
        int same = mf_same_bits(A + s->ox + s->ox * NX, NX, sub.A, sub.nx, sub.nx) &&
                   mf_same_bits(B + s->ox + s->ou * NX, NX, sub.B, sub.nx, sub.nu) &&
                   mf_same_bits(C + s->oy + s->ox * NY, NY, sub.C, sub.ny, sub.nx) &&
                   mf_same_bits(D + s->oy + s->ou * NY, NY, sub.D, sub.ny, sub.nu);
        if (!same)
            st = cosa_system_store_subsystem(sys, i, &sub);
    }
    if (buf != stackbuf)
        free(buf);
    /* validate once, after every changed subsystem is stored */
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

/* The initial state x0 (n) of the identified FMU subsystem s at parameter
 * values par other than the defaults: the x0 fitted by the identification
 * at par (cached with its A, B, C, D), not the one fitted at the defaults,
 * which belongs to another free response. */
static cosa_status ident_x0_at(const mf_t *mf, const struct mf_sub *s, const double *par,
                               double *x0)
{
    const size_t n = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    double *M = malloc((n * n + n * nu + ny * n + ny * nu + 1) * sizeof *M);
    if (!M)
        return COSA_ENOMEM;
    double *A = M, *B = A + n * n, *C = B + n * nu, *D = C + ny * n;
    cosa_status st = mf_fmu_linearize(mf, s, par, A, B, C, D, x0);
    free(M);
    return st;
}

static cosa_status mf_initial_state(const cosa_model *m, const double *par, double *x0)
{
    if (!m || !par || !x0)
        return COSA_EINVAL;
    const mf_t *mf = m->data;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet;
    double stackbuf[MF_STACKBUF], *vals = stackbuf;
    if (nv > MF_STACKBUF && !(vals = malloc(nv * sizeof *vals)))
        return COSA_ENOMEM;
    mf_eval_vals(mf, par, vals);
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < mf->nsub && st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        if (s->fh && s->identified && mf_fmu_moved(mf, s, par))
            st = ident_x0_at(mf, s, par, x0 + s->ox);
        else if (s->fh && s->identified) /* identified: the fitted x0 (defaults) */
            for (size_t j = 0; j < s->n[DECL_X]; j++)
                x0[s->ox + j] = s->b[BX0].e[j].value;
        else if (s->fh) /* an FMU: its state start values */
            memcpy(x0 + s->ox, par + s->fpar0 + s->nfpar - s->n[DECL_X],
                   s->n[DECL_X] * sizeof *x0);
        else
            eval_block(mf, s, BX0, vals, x0 + s->ox);
    }
    if (vals != stackbuf)
        free(vals);
    for (size_t i = 0; st == COSA_OK && i < mf->nx; i++)
        if (!isfinite(x0[i]))
            return COSA_ENONFINITE;
    return st;
}

static const char *mf_state_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nx ? mf->xg[k] : NULL;
}

static const char *mf_input_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nu ? mf->uq[k] : NULL;
}

static const char *mf_output_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->ny ? mf->yg[k] : NULL;
}

static const char *mf_sub_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nsub ? mf->subs[k].name : NULL;
}

/* The destroy slot of a file model. */
static void mf_destroy(cosa_model *m) { mf_free((mf_t *)m->data); }

void mf_model_init(mf_t *mf)
{
    mf->model = (cosa_model){
        .name = mf->name,
        .doc = mf->doc,
        .nparam = mf->nparam,
        .params = mf->params,
        .tend = mf->tend,
        .create = mf_create,
        .update = mf_update,
        .initial_state = mf_initial_state,
        .state_name = mf_state_name,
        .input_name = mf_input_name,
        .output_name = mf_output_name,
        .data = mf,
        .sub_name = mf_sub_name,
        .destroy = mf_destroy,
    };
}

const mf_t *mf_of(const cosa_model *m)
{
    return m && m->create == mf_create ? m->data : NULL;
}

const double *cosa_model_file_input_offset(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    for (size_t k = 0; mf && mf->c && k < mf->nu; k++)
        if (mf->c[k] != 0.0)
            return mf->c;
    return NULL;
}

const char *cosa_model_file_fmu(const cosa_model *m, size_t i)
{
    const mf_t *mf = mf_of(m);
    return mf && i < mf->nsub ? mf->subs[i].fmu : NULL;
}

int cosa_model_file_fmu_iface(const cosa_model *m, size_t i)
{
    const mf_t *mf = mf_of(m);
    return mf && i < mf->nsub ? mf->subs[i].iface : 0;
}

const cosa_fmu_capability *cosa_model_file_fmu_capability(const cosa_model *m, size_t i)
{
    const mf_t *mf = mf_of(m);
    return mf && i < mf->nsub && mf->subs[i].fh ? &mf->subs[i].cap : NULL;
}

cosa_status cosa_model_file_fmu_linearity(const cosa_model *m, const double *par, size_t i,
                                          cosa_linearity *out)
{
    const mf_t *mf = mf_of(m);
    if (!mf || i >= mf->nsub || !mf->subs[i].fh || !par || !out)
        return COSA_EINVAL;
    return mf_fmu_linearity(mf, &mf->subs[i], par, out);
}

const char *cosa_model_file_fmu_param(const cosa_model *m, size_t i, size_t k, size_t *index)
{
    const mf_t *mf = mf_of(m);
    if (!mf || i >= mf->nsub || !mf->subs[i].fh)
        return NULL;
    const struct mf_sub *s = &mf->subs[i];
    if (k + s->fnx >= s->nfpar)
        return NULL;
    if (index)
        *index = s->fpar0 + k;
    return s->fvar[k];
}

double cosa_model_file_fmu_param_own(const cosa_model *m, size_t i, size_t k)
{
    const mf_t *mf = mf_of(m);
    if (!mf || i >= mf->nsub || !mf->subs[i].fh)
        return NAN;
    const struct mf_sub *s = &mf->subs[i];
    return k + s->fnx < s->nfpar ? s->fown[k] : NAN;
}

int cosa_model_file_is_let(const cosa_model *m, const char *name)
{
    const mf_t *mf = mf_of(m);
    for (size_t k = 0; mf && name && k < mf->nlet; k++)
        if (strcmp(mf->lets[k].name, name) == 0)
            return 1;
    return 0;
}

/* The first non-finite entry of subsystem s (blocks A..x0) into msg; 1 if
 * one was found. */
static int sub_nonfinite(const mf_t *mf, const struct mf_sub *s, const double *vals, char *msg,
                         size_t size)
{
    for (int k = 0; k < NBLK; k++) {
        size_t r, c;
        mf_block_dims(s, k, &r, &c);
        for (size_t j = 0; j < r * c; j++) {
            const double v = mf_expr_eval(mf->pool, &s->b[k].e[j], vals);
            if (isfinite(v))
                continue;
            if (k == BX0)
                snprintf(msg, size, "x0[%zu] of subsystem '%s' is not finite (%g)", j + 1,
                         s->name, v);
            else
                snprintf(msg, size, "%s[%zu,%zu] of subsystem '%s' is not finite (%g)",
                         mf_blk_name[k], j % r + 1, j / r + 1, s->name, v);
            return 1;
        }
    }
    return 0;
}

cosa_status cosa_model_file_nonfinite(const cosa_model *m, const double *par, char *msg,
                                      size_t size)
{
    const mf_t *mf = mf_of(m);
    if (!mf || !par || !msg || size == 0 || !par_finite(mf, par))
        return COSA_EINVAL;
    msg[0] = '\0';
    double *vals = malloc((mf->nparam + mf->nlet + 1) * sizeof *vals);
    if (!vals)
        return COSA_ENOMEM;
    mf_eval_vals(mf, par, vals);
    cosa_status st = COSA_OK;
    for (size_t k = 0; k < mf->nlet && st == COSA_OK; k++)
        if (!isfinite(vals[mf->nparam + k])) {
            snprintf(msg, size, "let '%s' is not finite (%g)", mf->lets[k].name,
                     vals[mf->nparam + k]);
            st = COSA_ENONFINITE;
        }
    /* FMU subsystems have no expressions to blame (their blocks come from
     * the FMU's linearisation) */
    for (size_t i = 0; i < mf->nsub && st == COSA_OK; i++)
        if (!mf->subs[i].fh && sub_nonfinite(mf, &mf->subs[i], vals, msg, size))
            st = COSA_ENONFINITE;
    free(vals);
    return st;
}
