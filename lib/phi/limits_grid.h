/* limits_grid.h -- the stability or accuracy limit on a grid of macro steps
 * m h (lib/phi/limits.c): for networks whose FMUs take fixed internal
 * steps, where only multiples of their common step h can run. */
#ifndef COSA_LIMITS_GRID_H
#define COSA_LIMITS_GRID_H

#include "cosa/phi.h"

/* The largest whole m with m h good for criterion crit (the threshold of
 * cosa_dt_limit) below the first loss: an integer search started at
 * floor(cont->dt_max / h) (cont: cosa_dt_limit's result over a continuous
 * dt), bracketed upward or downward by doubling steps, refined by integer
 * bisection; on return m h is good and (m + 1) h is not (both evaluated),
 * or m = m_max when every multiple up to m_max is good, or m = 0 when h
 * itself is not good.  nevals: the evaluations spent.  m_max >= 1.
 * COSA_OK, or the first status that invalidates the search (as
 * cosa_dt_limit). */
cosa_status cosa_dt_limit_grid(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                               double tend, cosa_criterion crit, double tol, double h,
                               const cosa_limit *cont, double m_max, double *m, size_t *nevals,
                               cosa_eval_workspace *w);

#endif
