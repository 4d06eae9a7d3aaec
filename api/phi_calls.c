/* phi_calls.c -- the one-call API's Phi questions: `cosa point`, `cosa
 * phi`, `cosa limit`, `cosa map`, `cosa advise` as calls on a case.  Each
 * builds the system once and calls the engine routine the command calls
 * (cosa_evaluate, cosa_phi_build, cosa_dt_limit, cosa_sweep_run,
 * cosa_advise_iter) with the command's defaults, so the numbers are the
 * command's, bit for bit. */
#include "api_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The note of point where the NRMSE is undefined (cosa point's 'note'). */
static void point_note(const cosa_system *sys, double nst, char *note, size_t size)
{
    if (nst == 1.0)
        snprintf(note, size, "1 macro step in the horizon: NRMSE undefined (it needs the spread "
                             "of the reference over at least 2 macro points)");
    else if (nst > 1e15)
        snprintf(note, size, "%.3g macro steps in the horizon: more than the error sums take (1e15)",
                 nst);
    else if (cosa_system_ny(sys) == 0)
        snprintf(note, size, "model has no outputs: accuracy (NRMSE) undefined");
    else
        snprintf(note, size, "all outputs constant over the horizon: NRMSE undefined");
}

/* st, or the workspace of sys for scheme order p into *ew (NULL if st is
 * not COSA_OK). */
static cosa_status eval_workspace(cosa_status st, const cosa_case *c, const cosa_system *sys,
                                  int order, cosa_eval_workspace **ew, char *err,
                                  size_t errsize)
{
    *ew = st == COSA_OK ? cosa_eval_workspace_alloc(sys, order) : NULL;
    if (st == COSA_OK && !*ew)
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    cosa_eval_workspace_set_cancel(*ew, c->cancel);
    return st;
}

/* A call's workspace, initial state and system freed; returns st. */
static cosa_status release(cosa_status st, cosa_eval_workspace *ew, double *x0, cosa_system *sys)
{
    cosa_eval_workspace_free(ew);
    free(x0);
    cosa_system_free(sys);
    return st;
}

cosa_status cosa_case_point(const cosa_case *c, const char *scheme, double dt, double tend,
                            cosa_point_result *out, char *note, size_t notesize, char *err,
                            size_t errsize)
{
    api_clear(err, errsize);
    cosa_scheme s;
    cosa_system *sys = NULL;
    double *x0 = NULL;
    char b1[32], b2[32];
    if (note && notesize)
        note[0] = '\0';
    if (!out)
        return api_fail(err, errsize, COSA_EINVAL, "no result pointer");
    cosa_status st = api_system(c, scheme, &s, &sys, &x0, err, errsize);
    if (st == COSA_OK)
        st = api_dt("dt", dt, sys, err, errsize);
    if (st == COSA_OK && (isnan(tend) || isinf(tend)))
        st = api_fail(err, errsize, COSA_ERANGE, "tend must be finite, got %s",
                      cosa_number_text(b1, sizeof b1, tend));
    if (st == COSA_OK && tend <= 0.0)
        tend = c->model->tend;
    if (st == COSA_OK && nearbyint(tend / dt) < 1)
        st = api_fail(err, errsize, COSA_ERANGE,
                      "dt %s is longer than the horizon tend %s: no macro step to evaluate",
                      cosa_number_text(b1, sizeof b1, dt), cosa_number_text(b2, sizeof b2, tend));
    cosa_eval_workspace *ew = NULL;
    st = eval_workspace(st, c, sys, s.order, &ew, err, errsize);
    if (st == COSA_OK) {
        /* the errors of the run even where rho > 1 (README, "Accuracy"), as
         * cosa point; where the sums are undefined: rho, rho_ref and NaN */
        const unsigned iter = s.implicit ? COSA_WANT_ITER : 0u;
        const double nst = nearbyint(tend / dt);
        st = cosa_evaluate(sys, &s, dt, x0, tend,
                           COSA_WANT_RHO | COSA_WANT_ERRORS | COSA_WANT_RUN | iter, out, ew);
        if (st == COSA_ERANGE) {
            st = cosa_evaluate(sys, &s, dt, x0, tend, COSA_WANT_RHO | COSA_WANT_RHO_REF | iter,
                               out, ew);
            if (st == COSA_OK) {
                out->err = (cosa_errors){NAN, NAN, NAN, 0};
                out->nsteps = nst <= 1e15 ? (size_t)nst : 0;
                if (note && notesize)
                    point_note(sys, nst, note, notesize);
            }
        }
        if (st == COSA_EUNSTABLEREF)
            api_fail(err, errsize, st, "the monolithic reference is unstable (rho_ref = %.17g > "
                                       "1): accuracy is undefined", out->rho_ref);
        else if (st != COSA_OK)
            api_fail(err, errsize, st, "%s", cosa_strerror(st));
    }
    return release(st, ew, x0, sys);
}

cosa_status cosa_case_phi_dim(const cosa_case *c, const char *scheme, size_t *dim,
                              cosa_layout *lay, char *err, size_t errsize)
{
    api_clear(err, errsize);
    cosa_scheme s;
    cosa_system *sys = NULL;
    cosa_layout l;
    if (!dim)
        return api_fail(err, errsize, COSA_EINVAL, "no result pointer");
    cosa_status st = api_system(c, scheme, &s, &sys, NULL, err, errsize);
    if (st == COSA_OK && (st = cosa_layout_get(sys, &s, &l)) != COSA_OK)
        api_fail(err, errsize, st, "scheme '%s': %s", scheme, cosa_strerror(st));
    if (st == COSA_OK) {
        *dim = l.dim;
        if (lay)
            *lay = l;
    }
    cosa_system_free(sys);
    return st;
}

cosa_status cosa_case_phi(const cosa_case *c, const char *scheme, double dt, int exact,
                          double *phi, size_t ld, char *err, size_t errsize)
{
    api_clear(err, errsize);
    cosa_scheme s;
    cosa_system *sys = NULL;
    cosa_layout l;
    if (!phi)
        return api_fail(err, errsize, COSA_EINVAL, "no result array");
    cosa_status st = api_system(c, scheme, &s, &sys, NULL, err, errsize);
    if (st == COSA_OK)
        st = api_dt("dt", dt, sys, err, errsize);
    if (st == COSA_OK && (st = cosa_layout_get(sys, &s, &l)) != COSA_OK)
        api_fail(err, errsize, st, "scheme '%s': %s", scheme, cosa_strerror(st));
    if (st == COSA_OK && ld < l.dim)
        st = api_fail(err, errsize, COSA_EINVAL, "leading dimension %zu < dim %zu", ld, l.dim);
    cosa_phi_workspace *pw = st == COSA_OK ? cosa_phi_workspace_alloc(sys, s.order) : NULL;
    if (st == COSA_OK && !pw)
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    if (st == COSA_OK) {
        st = exact ? cosa_phi_ref_build(sys, &s, dt, phi, ld, pw)
                   : cosa_phi_build(sys, &s, dt, phi, ld, pw);
        if (st != COSA_OK)
            api_fail(err, errsize, st, "%s", cosa_strerror(st));
    }
    cosa_phi_workspace_free(pw);
    cosa_system_free(sys);
    return st;
}

cosa_status cosa_case_limit(const cosa_case *c, const char *scheme, cosa_criterion crit,
                            double tol, double dt_min, double dt_max, unsigned per_decade,
                            double tend, cosa_limit *out, cosa_crossing *cross,
                            size_t cross_cap, char *err, size_t errsize)
{
    api_clear(err, errsize);
    cosa_scheme s;
    cosa_system *sys = NULL;
    double *x0 = NULL;
    const int errors = crit == COSA_CRIT_ACCURATE || crit == COSA_CRIT_LOCAL;
    if (!out)
        return api_fail(err, errsize, COSA_EINVAL, "no result pointer");
    if ((unsigned)crit > COSA_CRIT_ITERATION)
        return api_fail(err, errsize, COSA_EINVAL, "unknown criterion %d", (int)crit);
    if (!(dt_min > 0.0) || !(dt_min < dt_max) || !isfinite(dt_max))
        return api_fail(err, errsize, COSA_ERANGE,
                        "dt_min (%g) must be positive and smaller than dt_max (%g)", dt_min,
                        dt_max);
    if (errors && !(tol > 0.0 && isfinite(tol)))
        return api_fail(err, errsize, COSA_ERANGE, "tol must be a positive finite number, got %g",
                        tol);
    if (per_decade > 1000)
        return api_fail(err, errsize, COSA_ERANGE, "per_decade must be 1..1000, got %u",
                        per_decade);
    if (isnan(tend) || isinf(tend))
        return api_fail(err, errsize, COSA_ERANGE, "tend must be finite");
    cosa_status st = api_system(c, scheme, &s, &sys, &x0, err, errsize);
    if (st == COSA_OK && crit == COSA_CRIT_ITERATION && !s.implicit)
        st = api_fail(err, errsize, COSA_EUNSUPPORTED,
                      "criterion iteration needs an iterative scheme (imp:, gs-imp:)");
    if (st == COSA_OK && errors && cosa_system_ny(sys) == 0)
        st = api_fail(err, errsize, COSA_EUNSUPPORTED,
                      "model '%s' has no outputs: accuracy (NRMSE) and time-domain runs are "
                      "undefined (stability: cosa point, limit --criterion stable, map, curve)",
                      c->model->name);
    if (st == COSA_OK)
        st = api_dt("dt_max", dt_max, sys, err, errsize);
    cosa_eval_workspace *ew = NULL;
    st = eval_workspace(st, c, sys, s.order, &ew, err, errsize);
    if (st == COSA_OK) {
        st = cosa_dt_limit(sys, &s, x0, tend > 0.0 ? tend : c->model->tend, crit, tol, dt_min,
                           dt_max, per_decade ? per_decade : COSA_LIMIT_PER_DECADE, cross,
                           cross_cap, out, ew);
        if (st == COSA_EUNSTABLEREF)
            api_fail(err, errsize, st, "the monolithic reference is unstable: %s limits are "
                                       "undefined", crit == COSA_CRIT_STABLE ? "stability"
                                                                              : "accuracy");
        else if (st != COSA_OK)
            api_fail(err, errsize, st, "%s", cosa_strerror(st));
    }
    return release(st, ew, x0, sys);
}
