/* advise.c -- which coupling scheme and which macro step: for every
 * candidate, the largest stable and the largest accurate macro step
 * (cosa_dt_limit), the smaller of the two, the macro steps it takes over the
 * horizon and a cost that charges corrected schemes a relative overhead per
 * step. */
#include "cosa/phi.h"

#include <math.h>
#include <string.h>

cosa_status cosa_advise(const cosa_system *sys, const double *x0, double tend,
                        cosa_criterion crit, double tol, const cosa_scheme *schemes,
                        size_t nschemes, double dt_min, double dt_max, unsigned per_decade,
                        double cost_corr, cosa_advice *out, cosa_eval_workspace *w)
{
    if (!sys || !x0 || !schemes || nschemes == 0 || !out || !w)
        return COSA_EINVAL;
    if (crit != COSA_CRIT_ACCURATE && crit != COSA_CRIT_LOCAL)
        return COSA_EINVAL;
    if (!(tol > 0.0) || !isfinite(tol) || !(dt_min > 0.0) || !(dt_min < dt_max) ||
        !isfinite(dt_max) || !(cost_corr >= 0.0) || !isfinite(cost_corr) || !(tend > 0.0) ||
        !isfinite(tend))
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
        a->status = cosa_dt_limit(sys, &schemes[i], x0, tend, COSA_CRIT_STABLE, tol, dt_min,
                                  dt_max, per_decade, a->cross_stable, COSA_ADVICE_CROSSINGS,
                                  &a->stable, w);
        if (a->status == COSA_OK)
            a->status = cosa_dt_limit(sys, &schemes[i], x0, tend, crit, tol, dt_min, dt_max,
                                      per_decade, a->cross_accurate, COSA_ADVICE_CROSSINGS,
                                      &a->accurate, w);
        if (a->status != COSA_OK)
            continue;
        a->usable = a->stable.good_at_min && a->accurate.good_at_min;
        if (!a->usable)
            continue;
        a->dt = fmin(a->stable.dt_max, a->accurate.dt_max);
        const double steps = nearbyint(tend / a->dt);
        if (!(steps <= 1e15)) { /* compared as a double: tend / dt may be 1e300 */
            a->status = COSA_ERANGE;
            a->usable = 0;
            a->dt = 0.0;
            continue;
        }
        a->steps = steps < 1.0 ? 1 : (size_t)steps;
        a->cost = (double)a->steps * (schemes[i].corr ? 1.0 + cost_corr : 1.0);
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
    return (int)a->scheme.exec - (int)b->scheme.exec;
}
