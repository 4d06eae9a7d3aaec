/* limit_grid.h -- the stability or accuracy limit on a grid of macro steps
 * m h (analysis/limit_grid.c): for networks whose FMUs take fixed internal
 * steps, which run only at multiples of their common step h (step_grid.h).
 * Built on cosa_evaluate only (public API), so that the tests can link it. */
#ifndef COSA_LIMIT_GRID_H
#define COSA_LIMIT_GRID_H

#include "cosa.h"

/* The largest whole m with m h good for criterion crit (cosa_dt_limit's
 * thresholds: rho <= 1 + COSA_RHO_TOL, e <= tol, rho_iter_opt < 1 -
 * COSA_RHO_TOL; a failed evaluation is not good) below the first loss: an
 * integer search started at m0 = floor(cont->dt_max / h) (cont: cosa_dt_
 * limit's result over a continuous dt; m0 clamped to [1, m_max]), bracketed
 * upward or downward by doubling steps, refined by integer bisection.  On
 * return m h is good and (m + 1) h is not (both evaluated), or m = m_max
 * when every multiple tried up to m_max is good, or m = 0 when h itself is
 * not good.  *nevals: the evaluations spent.  m_max >= 1; x0 is needed by
 * the error criteria.  COSA_OK, or the first status that invalidates the
 * search (as cosa_dt_limit: an unstable reference, bad arguments, memory). */
cosa_status limit_grid(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                       double tend, cosa_criterion crit, double tol, double h,
                       const cosa_limit *cont, double m_max, double *m, size_t *nevals,
                       cosa_eval_workspace *w);

#endif
