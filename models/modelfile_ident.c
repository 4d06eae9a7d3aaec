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
    if (id->x0_resid <= 1e-6)
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
                                        .silent_out = id->silent_out};
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
