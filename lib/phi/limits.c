/* limits.c -- largest stable or accurate macro step of a scheme: the limit
 * finder of convergence.c applied to rho(dt) or e(dt) from cosa_evaluate. */
#include "cosa/phi.h"
#include "limits_grid.h"

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
    case COSA_CRIT_STABLE:
        return r.rho;
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

/* good(m h): the metric at or below the threshold (NaN is not good). */
static int grid_good(struct limit_ctx *c, double threshold, double h, double m, size_t *nev)
{
    ++*nev;
    return metric(m * h, c) <= threshold;
}

cosa_status cosa_dt_limit_grid(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                               double tend, cosa_criterion crit, double tol, double h,
                               const cosa_limit *cont, double m_max, double *m, size_t *nevals,
                               cosa_eval_workspace *w)
{
    const int errors = crit == COSA_CRIT_ACCURATE || crit == COSA_CRIT_LOCAL;
    if (!sys || !s || !cont || !m || !nevals || !w || (errors && !x0) || !(h > 0.0) ||
        !isfinite(h) || !(m_max >= 1.0) || !isfinite(m_max))
        return COSA_EINVAL;
    struct limit_ctx c = {sys, s, x0, tend, crit, w, COSA_OK};
    const double threshold = crit == COSA_CRIT_STABLE      ? 1.0 + COSA_RHO_TOL
                             : crit == COSA_CRIT_ITERATION ? 1.0 - COSA_RHO_TOL
                                                           : tol;
    *nevals = 0;
    /* the start: the multiple at or below the continuous first loss */
    double m0 = isfinite(cont->dt_max) ? floor(cont->dt_max / h * (1.0 + 1e-9)) : 1.0;
    m0 = fmin(fmax(m0, 1.0), m_max);
    double lo, hi; /* good(lo) (lo = 0: none known), !good(hi) (hi = m_max + 1: none) */
    if (grid_good(&c, threshold, h, m0, nevals)) {
        lo = m0;
        hi = m_max + 1.0;
        for (double step = 1.0; lo < m_max; step *= 2.0) {
            const double t = fmin(lo + step, m_max);
            if (!grid_good(&c, threshold, h, t, nevals)) {
                hi = t;
                break;
            }
            lo = t;
        }
    } else {
        hi = m0;
        lo = 0.0;
        for (double step = 1.0; hi > 1.0; step *= 2.0) {
            const double t = fmax(hi - step, 1.0);
            if (grid_good(&c, threshold, h, t, nevals)) {
                lo = t;
                break;
            }
            hi = t;
        }
    }
    /* integer bisection: good(lo), !good(hi) */
    while (lo > 0.0 && hi <= m_max && hi - lo > 1.0) {
        const double mid = floor(lo + (hi - lo) / 2.0);
        if (grid_good(&c, threshold, h, mid, nevals))
            lo = mid;
        else
            hi = mid;
    }
    *m = lo;
    return c.fatal;
}
