/* advise.c -- which coupling scheme and which macro step: for every
 * candidate, the largest stable and the largest accurate macro step
 * (cosa_dt_limit), the smaller of the two, the macro steps it takes over the
 * horizon and a cost that charges corrected schemes a relative overhead per
 * step. */
#include "cosa/phi.h"

#include <math.h>
#include <string.h>

/* An implicit candidate at its usable step: rho_iter_opt there and the
 * sweeps k: the accepted step of sweep k uses the iterate of sweep k - 1,
 * whose error is rho^(k-1) times the predictor's, so k = 1 + the least
 * j >= 1 with rho^j <= iter_tol (2 for rho = 0); k = 1 where no output is
 * read as an iterate (one sweep is exact). */
static cosa_status iteration_cost(const cosa_system *sys, const cosa_scheme *s, double iter_tol,
                                  cosa_advice *a, cosa_eval_workspace *w)
{
    cosa_point_result r;
    cosa_status st = cosa_evaluate(sys, s, a->dt, NULL, 1.0, COSA_WANT_ITER, &r, w);
    if (st != COSA_OK)
        return st;
    const double rho = r.iter.rho_iter_opt;
    a->rho_iter_opt = rho;
    if (!(rho < 1.0))
        return COSA_ENOTCONVERGED;
    double j = rho > 0.0 ? ceil(log(iter_tol) / log(rho)) : 1.0;
    j = j < 1.0 ? 1.0 : j;
    const double k = r.iter.nr == 0 ? 1.0 : 1.0 + j;
    a->iterations = k > 1e9 ? 1000000000u : (unsigned)k;
    return COSA_OK;
}

cosa_status cosa_advise(const cosa_system *sys, const double *x0, double tend,
                        cosa_criterion crit, double tol, const cosa_scheme *schemes,
                        size_t nschemes, double dt_min, double dt_max, unsigned per_decade,
                        double cost_corr, cosa_advice *out, cosa_eval_workspace *w)
{
    return cosa_advise_iter(sys, x0, tend, crit, tol, schemes, nschemes, dt_min, dt_max,
                            per_decade, cost_corr, COSA_ADVISE_ITER_TOL,
                            COSA_ADVISE_COST_ROLLBACK, out, w);
}

cosa_status cosa_advise_iter(const cosa_system *sys, const double *x0, double tend,
                             cosa_criterion crit, double tol, const cosa_scheme *schemes,
                             size_t nschemes, double dt_min, double dt_max, unsigned per_decade,
                             double cost_corr, double iter_tol, double cost_rollback,
                             cosa_advice *out, cosa_eval_workspace *w)
{
    if (!sys || !x0 || !schemes || nschemes == 0 || !out || !w)
        return COSA_EINVAL;
    if (crit != COSA_CRIT_ACCURATE && crit != COSA_CRIT_LOCAL)
        return COSA_EINVAL;
    if (!(tol > 0.0) || !isfinite(tol) || !(dt_min > 0.0) || !(dt_min < dt_max) ||
        !isfinite(dt_max) || !(cost_corr >= 0.0) || !isfinite(cost_corr) || !(tend > 0.0) ||
        !isfinite(tend) || !(iter_tol > 0.0 && iter_tol < 1.0) || !(cost_rollback >= 0.0) ||
        !isfinite(cost_rollback))
        return COSA_ERANGE;
    for (size_t i = 0; i < nschemes; i++) {
        cosa_status st = cosa_scheme_check(&schemes[i], sys);
        if (st != COSA_OK)
            return st;
    }
    for (size_t i = 0; i < nschemes; i++) {
        cosa_advice *a = &out[i];
        memset(a, 0, sizeof *a);
        a->scheme = schemes[i];
        a->cost = INFINITY;
        a->rho_iter_opt = NAN;
        a->iterations = 1;
        const int imp = schemes[i].implicit;
        a->status = cosa_dt_limit(sys, &schemes[i], x0, tend, COSA_CRIT_STABLE, tol, dt_min,
                                  dt_max, per_decade, a->cross_stable, COSA_ADVICE_CROSSINGS,
                                  &a->stable, w);
        if (a->status == COSA_OK)
            a->status = cosa_dt_limit(sys, &schemes[i], x0, tend, crit, tol, dt_min, dt_max,
                                      per_decade, a->cross_accurate, COSA_ADVICE_CROSSINGS,
                                      &a->accurate, w);
        if (a->status == COSA_OK && imp)
            a->status = cosa_dt_limit(sys, &schemes[i], x0, tend, COSA_CRIT_ITERATION, tol,
                                      dt_min, dt_max, per_decade, a->cross_converge,
                                      COSA_ADVICE_CROSSINGS, &a->converge, w);
        if (a->status == COSA_ECANCELLED) /* the caller's (cosa_eval_workspace_set_cancel) */
            return COSA_ECANCELLED;
        if (a->status != COSA_OK)
            continue;
        a->usable = a->stable.good_at_min && a->accurate.good_at_min &&
                    (!imp || a->converge.good_at_min);
        if (!a->usable)
            continue;
        a->dt = fmin(a->stable.dt_max, a->accurate.dt_max);
        if (imp)
            a->dt = fmin(a->dt, a->converge.dt_max);
        const double steps = nearbyint(tend / a->dt);
        if (!(steps <= 1e15)) { /* compared as a double: tend / dt may be 1e300 */
            a->status = COSA_ERANGE;
            a->usable = 0;
            a->dt = 0.0;
            continue;
        }
        a->steps = steps < 1.0 ? 1 : (size_t)steps;
        a->cost = (double)a->steps * (schemes[i].corr ? 1.0 + cost_corr : 1.0);
        if (imp) {
            /* k sweeps, each with a save or a restore of the units (rollback) */
            cosa_status st = iteration_cost(sys, &schemes[i], iter_tol, a, w);
            if (st == COSA_ECANCELLED)
                return st;
            if (st != COSA_OK) {
                a->status = st;
                a->usable = 0;
                a->dt = 0.0;
                a->cost = INFINITY;
                continue;
            }
            a->cost = (double)a->steps * (double)a->iterations * (1.0 + cost_rollback);
        }
    }
    return COSA_OK;
}

int cosa_advice_compare(const void *pa, const void *pb)
{
    const cosa_advice *a = pa, *b = pb;
    if (a->cost != b->cost)
        return a->cost < b->cost ? -1 : 1;
    if (a->dt != b->dt)
        return a->dt > b->dt ? -1 : 1;
    /* the same cost and step: fewer corrections, then lower order first */
    if (a->scheme.corr != b->scheme.corr)
        return a->scheme.corr < b->scheme.corr ? -1 : 1;
    if (a->scheme.order != b->scheme.order)
        return a->scheme.order < b->scheme.order ? -1 : 1;
    if (a->scheme.implicit != b->scheme.implicit)
        return a->scheme.implicit < b->scheme.implicit ? -1 : 1;
    return (int)a->scheme.exec - (int)b->scheme.exec;
}
