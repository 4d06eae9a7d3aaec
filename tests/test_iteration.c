/* test_iteration.c -- the iteration entries of the coupling descriptor
 * (lib/core/iteration.c): the table (none, one-sweep, fixed-point, newton),
 * the entry of each kind of coupling (fixed-step schemes and the
 * variable-order engine's couplings), and the two convergence tests against
 * hand-computed measures: the fixed point's relative 2-norm and the
 * corrector's componentwise measure with its floor at 1e-3 of the largest
 * component. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/vo.h"

#include <float.h>
#include <math.h>
#include <string.h>

Test(iteration, the_table_lists_four_entries)
{
    static const char *const names[] = {"none", "one-sweep", "fixed-point", "newton"};
    size_t n = 0;
    while (cosa_iteration_types[n])
        n++;
    cr_assert_eq(n, 4, "%zu entries", n);
    for (size_t k = 0; k < n; k++)
        cr_expect_str_eq(cosa_iteration_types[k]->name, names[k]);
    cr_expect_eq(cosa_iteration_types[0], &cosa_iteration_none);
    cr_expect_eq(cosa_iteration_types[3], &cosa_iteration_newton);
    /* iterates / repeats: none runs once, one-sweep once more, the others
     * until converged */
    cr_expect(!cosa_iteration_none.iterates && !cosa_iteration_none.repeats);
    cr_expect(cosa_iteration_one_sweep.iterates && !cosa_iteration_one_sweep.repeats);
    cr_expect(cosa_iteration_fixed_point.iterates && cosa_iteration_fixed_point.repeats);
    cr_expect(cosa_iteration_newton.iterates && cosa_iteration_newton.repeats);
    cr_expect_null(cosa_iteration_none.converged);
    for (size_t k = 1; k < n; k++) { /* a test and a positive tolerance and limit */
        cr_expect_not_null(cosa_iteration_types[k]->converged, "%s", names[k]);
        cr_expect(cosa_iteration_types[k]->tol > 0.0 && cosa_iteration_types[k]->max >= 1);
    }
    cr_expect_eq(cosa_iteration_one_sweep.max, 1);
    cr_expect_eq(cosa_iteration_fixed_point.max, COSA_ITER_MAX_DEFAULT);
}

static const cosa_iteration_type *of(const char *text)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(text, &s), COSA_OK, "%s", text);
    return cosa_iteration_of(&s);
}

Test(iteration, entry_of_each_coupling)
{
    cr_expect_eq(cosa_iteration_of(NULL), &cosa_iteration_none);
    cr_expect_eq(of("foh"), &cosa_iteration_none);
    cr_expect_eq(of("gs:foh"), &cosa_iteration_none);
    cr_expect_eq(of("foh+ocorr"), &cosa_iteration_none);
    cr_expect_eq(of("gs:foh/2"), &cosa_iteration_one_sweep);
    cr_expect_eq(of("imp:foh"), &cosa_iteration_fixed_point);
    cr_expect_eq(of("gs-imp:zoh"), &cosa_iteration_fixed_point);
    /* the variable-order engine: explicit none, implicit its corrector */
    cosa_vo_opts o;
    cosa_vo_opts_default(&o);
    cr_expect_eq(cosa_iteration_of_vo(&o), &cosa_iteration_none);
    o.coupling = COSA_VO_IMPLICIT;
    cr_expect_eq(cosa_iteration_of_vo(&o), &cosa_iteration_newton);
    cr_expect_eq(cosa_iteration_of_vo(NULL), &cosa_iteration_none);
    /* the corrector's default limits are the entry's */
    cr_expect_eq(o.corr_tol, cosa_iteration_newton.tol);
    cr_expect_eq((unsigned)o.corr_max, cosa_iteration_newton.max);
}

/* |dx|_2 <= tol |x|_2: dx = (3, 4) 1e-9 has norm 5e-9 and x = (0.6, 0.8)
 * norm 1 (each a 3-4-5 triangle; sqrt of a sum of two squares is within a
 * few ulps, so 8 eps relative bounds the measure). */
Test(iteration, fixed_point_measure)
{
    const double dx[] = {3e-9, 4e-9}, x[] = {0.6, 0.8};
    double change = 0.0, size = 0.0;
    cr_expect(cosa_iteration_fixed_point.converged(2, dx, x, 1e-8, &change, &size));
    cr_expect(fabs(change - 5e-9) <= 8 * DBL_EPSILON * 5e-9, "change %.17g", change);
    cr_expect(fabs(size - 1.0) <= 8 * DBL_EPSILON, "size %.17g", size);
    cr_expect(!cosa_iteration_fixed_point.converged(2, dx, x, 4e-9, &change, &size));
    /* the same measure in one-sweep (its statistics) */
    cr_expect(cosa_iteration_one_sweep.converged == cosa_iteration_fixed_point.converged);
    /* a zero iterate: converged only with a zero update */
    const double z[] = {0.0, 0.0};
    cr_expect(cosa_iteration_fixed_point.converged(2, z, z, 1e-8, &change, &size));
    cr_expect(!cosa_iteration_fixed_point.converged(2, dx, z, 1e-8, &change, &size));
}

/* max_i |dx_i| / max(|x_i|, 1e-3 max|x|): with x = (2, 1e-6) the second
 * component is measured against 2e-3, so dx = (2e-12, 2e-12) measures
 * 1e-9 (the first only 1e-12); divisions of exactly representable ratios
 * up to one rounding each, so 4 eps relative. */
Test(iteration, newton_measure)
{
    const double dx[] = {2e-12, 2e-12}, x[] = {2.0, 1e-6};
    double change = 0.0, size = 0.0;
    cr_expect(cosa_iteration_newton.converged(2, dx, x, 1e-8, &change, &size));
    cr_expect(fabs(change - 1e-9) <= 4 * DBL_EPSILON * 1e-9, "change %.17g", change);
    cr_expect_eq(size, 2.0);
    cr_expect(!cosa_iteration_newton.converged(2, dx, x, 1e-10, &change, &size));
    /* a relative 2-norm would call this converged at 1e-10 (|dx|/|x| ~
     * 1.4e-12): the corrector's test is componentwise */
    double c2, s2;
    cr_expect(cosa_iteration_fixed_point.converged(2, dx, x, 1e-10, &c2, &s2));
    /* zero components: a zero update converges, a nonzero one is infinite */
    const double z[] = {0.0, 0.0}, one[] = {1e-20, 0.0};
    cr_expect(cosa_iteration_newton.converged(2, z, z, 1e-10, &change, &size));
    cr_expect_eq(change, 0.0);
    cr_expect(!cosa_iteration_newton.converged(2, one, z, 1e-10, &change, &size));
    cr_expect(isinf(change));
}
