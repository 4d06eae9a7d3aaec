/* iteration.c -- the iteration of a coupling scheme, one half of its
 * descriptor (the other: the master's input builder, lib/td/input_builder.h):
 *   none         the master's proposal is the step (explicit Jacobi and
 *                Gauss-Seidel, corrections; lib/td/master.c);
 *   one-sweep    one Gauss-Seidel sweep whose inputs are the degree-q
 *                interpolants through the end values (gs:P/Q;
 *                lib/td/iterate.c);
 *   fixed-point  the step is iterated: sweeps over the units from T_n with
 *                given input polynomials, relaxed by the scheme's relax or
 *                Aitken's factor, until the window-end values converge
 *                (imp:, gs-imp:; lib/td/iterate.c);
 *   newton       the variable-order engine's implicit corrector (variable-
 *                order paper, sect. 3.2, eq 11): Newton on
 *                g(u*) = u* - phi(y(u*)) with the interface Jacobian of the
 *                predictor, every iterate an integration from T_N
 *                (lib/td/vo_run.c).
 * "Does this scheme iterate" is the entry's field iterates, which the
 * fixed-step run (lib/td/coupling.c), the command, the master, the sweeps
 * and the combination rules (combination.c) read; the two repeating entries
 * carry their convergence tests and default limits side by side. */
#include "cosa/core.h"

#include <math.h>
#include <stddef.h>

/* preCICE's relative convergence measure on the window-end values:
 * |dx|_2 <= tol |x|_2 (README "Iterative coupling"). */
static int fixed_point_converged(size_t n, const double *dx, const double *x, double tol,
                                 double *change, double *size)
{
    double dd = 0.0, xx = 0.0;
    for (size_t k = 0; k < n; k++) {
        dd += dx[k] * dx[k];
        xx += x[k] * x[k];
    }
    *change = sqrt(dd);
    *size = sqrt(xx);
    return *change <= tol * *size;
}

/* The corrector's componentwise measure: max_i |dx_i| / max(|x_i|, 1e-3
 * max_j |x_j|) <= tol (a component near zero is measured against the
 * largest one; an exact zero update of a zero component is converged). */
static int newton_converged(size_t n, const double *dx, const double *x, double tol,
                            double *change, double *size)
{
    double xmax = 0.0;
    for (size_t i = 0; i < n; i++)
        xmax = fmax(xmax, fabs(x[i]));
    double conv = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double sc = fmax(fabs(x[i]), 1e-3 * xmax);
        conv = fmax(conv, sc > 0.0 ? fabs(dx[i]) / sc : (dx[i] != 0.0 ? INFINITY : 0.0));
    }
    *change = conv;
    *size = xmax;
    return conv <= tol;
}

const cosa_iteration_type cosa_iteration_none = {"none", 0, 0, NULL, 0.0, 1};
/* one sweep: its update measured as the fixed point's (the statistics'
 * not-converged count) */
const cosa_iteration_type cosa_iteration_one_sweep = {"one-sweep", 1, 0, fixed_point_converged,
                                                       1e-8, 1};
/* tol: the fixed-step run's default (cosa_run_opts); max: COSA_ITER_MAX_DEFAULT
 * of cosa/stepping.h, a layer above (tests/test_iteration.c checks they agree) */
const cosa_iteration_type cosa_iteration_fixed_point = {"fixed-point", 1, 1,
                                                         fixed_point_converged, 1e-8, 100};
/* tol, max: cosa_vo_opts_default's corr_tol and corr_max */
const cosa_iteration_type cosa_iteration_newton = {"newton", 1, 1, newton_converged, 1e-10, 10};

const cosa_iteration_type *const cosa_iteration_types[] = {
    &cosa_iteration_none, &cosa_iteration_one_sweep, &cosa_iteration_fixed_point,
    &cosa_iteration_newton, NULL};

const cosa_iteration_type *cosa_iteration_of(const cosa_scheme *s)
{
    if (s && s->implicit) /* imp:, gs-imp: */
        return &cosa_iteration_fixed_point;
    if (s && s->q_extra) /* gs:P/Q */
        return &cosa_iteration_one_sweep;
    return &cosa_iteration_none;
}
