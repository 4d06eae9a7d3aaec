/* modelfile_ident.c -- an `fmu` subsystem identified from the FMU's
 * input/output behaviour (doc/black-box.md): the FMU at its operating point
 * (t = 0, start values, inputs at their start values), cosa_ident_run at
 * the probe step (the FMU's fixedInternalStepSize, else its
 * DefaultExperiment stepSize, else MF_IDENT_STEP), and the continuous
 * model whose zero-order-hold discretisation at that step is the
 * identified one (cosa_zoh_log), so that every Phi command uses it as an
 * ordinary linear subsystem: exact at macro steps that are multiples of the
 * probe step for held inputs. */
#include "modelfile_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double mf_ident_step(const cosa_fmu_capability *cap)
{
    if (cap->fixed_step > 0.0)
        return cap->fixed_step;
    if (cap->default_step > 0.0)
        return cap->default_step;
    return MF_IDENT_STEP;
}

cosa_status mf_ident_unit(const cosa_fmu *fmu, const cosa_fmu_capability *cap, cosa_unit *u,
                          int order, double h, cosa_ident *id, double **M, char *why,
                          size_t size)
{
    const size_t nu = cosa_fmu_ninput(fmu), ny = cosa_fmu_noutput(fmu);
    double *u0 = calloc(nu + 1, sizeof *u0);
    *M = NULL;
    why[0] = '\0';
    if (!u0)
        return COSA_ENOMEM;
    /* the operating point of cosa_unit_fmu_linearize: inputs at their start
     * values (0 without one) */
    for (size_t j = 0; j < nu; j++) {
        const cosa_fmu_var *v = cosa_fmu_var_at(fmu, cosa_fmu_input(fmu, j));
        u0[j] = v && v->has_start ? v->start : 0.0;
    }
    cosa_ident_opts o;
    cosa_ident_opts_default(&o);
    o.h = h > 0.0 && !(cap->fixed_step > 0.0) ? h : mf_ident_step(cap);
    o.order = order;
    cosa_status st = cosa_ident_run(u, u0, &o, id);
    free(u0);
    if (st != COSA_OK) {
        snprintf(why, size, "identification failed: %s",
                 id->why[0] ? id->why : cosa_strerror(st));
        return st;
    }
    const size_t n = id->n;
    double *b = calloc(n * n + n * nu + ny * n + ny * nu + n + 1, sizeof *b);
    if (!b)
        return COSA_ENOMEM;
    double *A = b, *B = A + n * n, *C = B + n * nu, *D = C + ny * n, *x0 = D + ny * nu;
    char lw[200];
    st = cosa_zoh_log(n, nu, id->h, id->Ad, id->Bd, A, B, lw, sizeof lw);
    if (st != COSA_OK) {
        snprintf(why, size, "identified order %zu at the probe step %g, but no continuous "
                 "model: %s", n, id->h, lw[0] ? lw : cosa_strerror(st));
        free(b);
        return st;
    }
    memcpy(C, id->C, ny * n * sizeof *C);
    memcpy(D, id->D, ny * nu * sizeof *D);
    /* x0 only where it explains the free response (a linear FMU without an
     * offset at its start values); else the model is about deviations */
    if (id->x0_resid <= COSA_IDENT_X0_RESID)
        memcpy(x0, id->x0, n * sizeof *x0);
    *M = b;
    return COSA_OK;
}

void mf_ident_info(struct mf_sub *s, const cosa_ident *id)
{
    s->identified = 1;
    s->idinfo = (cosa_model_file_ident){.name = s->name, .order = id->n, .h = id->h,
                                        .fixed_step = s->cap.fixed_step, .fit = id->fit,
                                        .nonlin = id->nonlin, .tvar = id->tvar, .nonlinear = id->nonlinear,
                                        .x0_resid = id->x0_resid, .steps = id->steps,
                                        .silent_out = id->silent_out,
                                        .step_outputs = id->step_outputs,
                                        .y_offset = id->y_offset};
}

/* s's port names and blocks released (before mf_fmu_fill anew). */
static void sub_blocks_free(struct mf_sub *s)
{
    for (int d = 0; d < 3; d++) {
        for (size_t j = 0; j < s->n[d] && s->names[d]; j++)
            free(s->names[d][j]);
        free(s->names[d]);
        s->names[d] = NULL;
    }
    for (int k = 0; k < NBLK; k++) {
        free(s->b[k].e);
        free(s->b[k].set);
        memset(&s->b[k], 0, sizeof s->b[k]);
    }
}

void mf_ident_refresh(struct mf_parser *p, struct mf_sub *s)
{
    mf_t *mf = p->mf;
    if (p->st != COSA_OK || (!s->identified && !s->ident_error))
        return;
    double *par = calloc(mf->nparam + 1, sizeof *par), *M = NULL;
    cosa_unit *u = NULL;
    cosa_status st = par ? COSA_OK : COSA_ENOMEM;
    for (size_t k = 0; par && k < mf->nparam; k++)
        par[k] = mf->params[k].value;
    if (st == COSA_OK)
        st = mf_fmu_unit_at(mf, s, par, &u);
    cosa_ident id = {0};
    char why[480] = "";
    if (st != COSA_OK && st != COSA_ENOMEM) {
        /* the FMU refuses a start value: reported by the Phi commands (and
         * by cosa simulate, which sets them again) */
        size_t len = strlen(p->fname) + strlen(s->name) + strlen(s->fmu) + 600;
        free(s->ident_error);
        if ((s->ident_error = malloc(len)))
            snprintf(s->ident_error, len, "%s:%zu: fmu %s: %s: %s", p->fname, s->line, s->name,
                     s->fmu, u && cosa_unit_message(u)[0] ? cosa_unit_message(u)
                                                          : cosa_strerror(st));
        st = s->ident_error ? COSA_OK : COSA_ENOMEM;
        goto done;
    }
    if (st == COSA_OK)
        st = mf_ident_unit(s->fh, &s->cap, u, -1, p->probe, &id, &M, why, sizeof why);
    const size_t nu = s->n[DECL_U], ny = s->n[DECL_Y];
    if (st == COSA_OK) {
        sub_blocks_free(s);
        const double *A = M, *B = A + id.n * id.n, *C = B + id.n * nu, *D = C + ny * id.n;
        st = mf_fmu_fill(s, s->fh, 1, id.n, A, B, C, D, D + ny * nu);
        free(s->ident_error);
        s->ident_error = NULL;
        mf_ident_info(s, &id);
    } else if (st != COSA_ENOMEM && (p->flags & COSA_MODEL_FILE_FMU_IDENTIFY)) {
        mf_perr(p, COSA_EFMU, s->line, "fmu %s: %s: %s", s->name, s->fmu,
                why[0] ? why : cosa_strerror(st));
        st = COSA_OK; /* reported */
    } else if (st != COSA_ENOMEM) {
        /* the declared reading (its gain D, or its declared states) meanwhile */
        size_t n = s->fnx, len = strlen(p->fname) + strlen(s->name) + strlen(s->fmu) + 600;
        free(M);
        M = calloc(n * n + n * nu + ny * n + ny * nu + n + 1, sizeof *M);
        char *e = malloc(len);
        free(s->ident_error);
        s->ident_error = e;
        if (e)
            snprintf(e, len, "%s:%zu: fmu %s: %s: %s", p->fname, s->line, s->name, s->fmu,
                     why[0] ? why : cosa_strerror(st));
        st = M && e ? cosa_unit_fmu_linearize(u, s->ffd, M, M + n * n, M + n * n + n * nu,
                                              M + n * n + n * nu + ny * n)
                    : COSA_ENOMEM;
        if (st == COSA_OK) {
            memcpy(M + n * n + n * nu + ny * n + ny * nu, cosa_unit_state(u), n * sizeof *M);
            sub_blocks_free(s);
            const double *A = M, *B = A + n * n, *C = B + n * nu, *D = C + ny * n;
            st = mf_fmu_fill(s, s->fh, 0, 0, A, B, C, D, D + ny * nu);
            s->identified = 0;
        }
    }
done:
    if (st != COSA_OK)
        mf_perr(p, st == COSA_ENOMEM ? COSA_ENOMEM : COSA_EFMU, s->line, "fmu %s: %s: %s",
                s->name, s->fmu, u && cosa_unit_message(u)[0] ? cosa_unit_message(u)
                                                             : cosa_strerror(st));
    cosa_ident_free(&id);
    cosa_unit_free(u);
    free(M);
    free(par);
}

size_t cosa_model_file_nsub(const cosa_model *m)
{
    const mf_t *mf = mf_of(m);
    return mf ? mf->nsub : 0;
}

const char *cosa_model_file_ident_error(const cosa_model *m, size_t i)
{
    const mf_t *mf = mf_of(m);
    return mf && i < mf->nsub ? mf->subs[i].ident_error : NULL;
}

int cosa_model_file_identified(const cosa_model *m, size_t i, cosa_model_file_ident *info)
{
    const mf_t *mf = mf_of(m);
    if (!mf || i >= mf->nsub || !mf->subs[i].identified)
        return 0;
    if (info)
        *info = mf->subs[i].idinfo;
    return 1;
}
