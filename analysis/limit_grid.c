/* limit_grid.c -- the limit on the grid m h of a fixed-step network
 * (limit_grid.h; doc/fixed-step-fmus.md "Scanning the macro step"): good(m)
 * is cosa_dt_limit's criterion at dt = m h, searched over whole m. */
#include "limit_grid.h"

#include <math.h>

struct grid_ctx {
    const cosa_system *sys;
    const cosa_scheme *s;
    const double *x0;
    double tend, h, threshold;
    cosa_criterion crit;
    cosa_eval_workspace *w;
    size_t nev;
    cosa_status fatal; /* the first status that makes the search meaningless */
};

/* good(m h): the criterion's value at or below the threshold (for the
 * iteration: below); a numerical failure at this step (as cosa_dt_limit:
 * singular correction, no convergence, LAPACK, range) is not good, any
 * other failure is kept in fatal. */
static int good(struct grid_ctx *c, double m)
{
    const unsigned want = c->crit == COSA_CRIT_STABLE      ? COSA_WANT_RHO | COSA_WANT_RHO_REF
                          : c->crit == COSA_CRIT_ITERATION ? COSA_WANT_ITER
                                                           : COSA_WANT_ERRORS;
    cosa_point_result r;
    c->nev++;
    const cosa_status st = cosa_evaluate(c->sys, c->s, m * c->h, c->x0, c->tend, want, &r, c->w);
    if (st != COSA_OK) {
        const int local = st == COSA_ECORRSINGULAR || st == COSA_ENOTCONVERGED ||
                          st == COSA_ELAPACK || st == COSA_ERANGE || st == COSA_EITERSINGULAR;
        if (!local && c->fatal == COSA_OK)
            c->fatal = st;
        return 0;
    }
    /* stable: rho within its rounding bound of 1 counts as 1 (r.rho_tol) */
    const double v = c->crit == COSA_CRIT_STABLE ? (r.rho <= 1.0 + r.rho_tol ? fmin(r.rho, 1.0) : r.rho)
                     : c->crit == COSA_CRIT_ITERATION ? r.iter.rho_iter_opt
                     : c->crit == COSA_CRIT_ACCURATE  ? r.err.e_global
                                                      : r.err.e_local;
    return v <= c->threshold; /* NaN: not good */
}

cosa_status limit_grid(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                       double tend, cosa_criterion crit, double tol, double h,
                       const cosa_limit *cont, double m_max, double *m, size_t *nevals,
                       cosa_eval_workspace *w)
{
    const int errors = crit == COSA_CRIT_ACCURATE || crit == COSA_CRIT_LOCAL;
    if (!sys || !s || !cont || !m || !nevals || !w || (errors && !x0) || !(h > 0.0) ||
        !isfinite(h) || !(m_max >= 1.0) || !isfinite(m_max))
        return COSA_EINVAL;
    struct grid_ctx c = {sys, s, x0, tend, h,
                         crit == COSA_CRIT_STABLE      ? 1.0 + COSA_RHO_TOL
                         : crit == COSA_CRIT_ITERATION ? 1.0 - COSA_RHO_TOL
                                                       : tol,
                         crit, w, 0, COSA_OK};
    /* the start: the multiple at or below the continuous first loss */
    double m0 = isfinite(cont->dt_max) ? floor(cont->dt_max / h * (1.0 + 1e-9)) : 1.0;
    m0 = fmin(fmax(m0, 1.0), m_max);
    double lo, hi; /* good(lo) (lo = 0: none), !good(hi) (hi = m_max + 1: none up to m_max) */
    if (good(&c, m0)) {
        lo = m0;
        hi = m_max + 1.0;
        for (double step = 1.0; lo < m_max; step *= 2.0) {
            const double t = fmin(lo + step, m_max);
            if (!good(&c, t)) {
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
            if (good(&c, t)) {
                lo = t;
                break;
            }
            hi = t;
        }
    }
    /* integer bisection with good(lo) and !good(hi) */
    while (lo > 0.0 && hi <= m_max && hi - lo > 1.0) {
        const double mid = floor(lo + (hi - lo) / 2.0);
        if (good(&c, mid))
            lo = mid;
        else
            hi = mid;
    }
    *m = lo;
    *nevals = c.nev;
    return c.fatal;
}
