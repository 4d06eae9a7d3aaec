/* limits.c -- largest stable or accurate macro step of a scheme: the limit
 * finder of convergence.c applied to rho(dt) or e(dt) from cosa_evaluate. */
#include "cosa/phi.h"

#include <math.h>

static int finite_vec(size_t n, const double *v)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

struct limit_ctx {
    const cosa_system *sys;
    const cosa_scheme *s;
    const double *x0;
    double tend;
    cosa_criterion crit;
    cosa_eval_workspace *w;
    cosa_status fatal; /* first status that makes the whole scan meaningless */
};

static double metric(double dt, void *ud)
{
    struct limit_ctx *c = ud;
    cosa_point_result r;
    unsigned want = c->crit == COSA_CRIT_STABLE      ? COSA_WANT_RHO | COSA_WANT_RHO_REF
                    : c->crit == COSA_CRIT_ITERATION ? COSA_WANT_ITER
                                                     : COSA_WANT_ERRORS;
    cosa_status st = cosa_evaluate(c->sys, c->s, dt, c->x0, c->tend, want, &r, c->w);
    /* A numerical failure at this dt (singular correction, overflow, QR not
     * converged, too few steps) makes the point "not good"; anything else
     * (unstable reference, bad arguments, workspace, memory) invalidates the
     * whole scan and is returned. */
    int local = st == COSA_ECORRSINGULAR || st == COSA_ENOTCONVERGED || st == COSA_ELAPACK ||
                st == COSA_ERANGE || st == COSA_EITERSINGULAR;
    if (st != COSA_OK && !local && c->fatal == COSA_OK)
        c->fatal = st;
    if (st != COSA_OK)
        return NAN;
    switch (c->crit) {
    case COSA_CRIT_STABLE: /* within the rounding bound of 1: 1 (cosa_point_result) */
        return r.rho <= 1.0 + r.rho_tol ? fmin(r.rho, 1.0) : r.rho;
    case COSA_CRIT_ACCURATE:
        return r.err.e_global;
    case COSA_CRIT_ITERATION:
        return r.iter.rho_iter_opt; /* NaN (none): not good */
    default:
        return r.err.e_local;
    }
}

cosa_status cosa_dt_limit(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                          double tend, cosa_criterion crit, double tol, double dt_min,
                          double dt_max, unsigned per_decade, cosa_crossing *cross,
                          size_t cross_cap, cosa_limit *out, cosa_eval_workspace *w)
{
    const int errors = crit == COSA_CRIT_ACCURATE || crit == COSA_CRIT_LOCAL;
    if (!sys || !s || !out || !w || (errors && !x0))
        return COSA_EINVAL;
    if (!errors && crit != COSA_CRIT_STABLE && crit != COSA_CRIT_ITERATION)
        return COSA_EINVAL;
    if (crit == COSA_CRIT_ITERATION && !s->implicit)
        return COSA_EUNSUPPORTED;
    if (errors && !(tol > 0.0 && isfinite(tol)))
        return COSA_ERANGE;
    cosa_status st = cosa_scheme_check(s, sys);
    if (st != COSA_OK)
        return st;
    if (errors && !finite_vec(cosa_system_nx(sys), x0))
        return COSA_ENONFINITE;
    struct limit_ctx c = {sys, s, x0, tend, crit, w, COSA_OK};
    double threshold = crit == COSA_CRIT_STABLE      ? 1.0 + COSA_RHO_TOL
                       : crit == COSA_CRIT_ITERATION ? 1.0 - COSA_RHO_TOL
                                                     : tol;
    st = cosa_limit_find(metric, &c, threshold, dt_min, dt_max, per_decade, cross, cross_cap,
                         out);
    if (st != COSA_OK)
        return st;
    return c.fatal;
}
