/* test_osp_fixed.c -- libcosim's fixedStep with decimation
 * (cosa_osp_fixed_run, lib/td/osp_fixed.c) against routes that do not use
 * it:
 *  - every k = 1: cosa_ecco_run at the same fixed step, to the bit;
 *  - every k = 2 at base H: at the even points the k = 1 run at base 2H, to
 *    the bit, and the odd points hold the previous even one;
 *  - k = (1, 2) and (2, 3) on two scalar integrators (x_a' = -y_b,
 *    x_b' = y_a, y = x): libcosim's schedule written out here as a
 *    closed-form recurrence in plain doubles (a unit steps at the base
 *    steps c with c % k == 0 by k H with the input it holds; a connection
 *    transfers after the base steps that are multiples of lcm(k_a, k_b)). */
#include "cosa.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* Two scalar integrators coupled u_a = -y_b, u_b = y_a. */
static cosa_unitset *integrators(cosa_unit *u[2])
{
    static const double A = 0.0, B = 1.0, C = 1.0, D = 0.0;
    const cosa_subsystem sub = {.nx = 1, .nu = 1, .ny = 1, .A = &A, .B = &B, .C = &C, .D = &D};
    /* L is nu x ny column-major: L[i + j nu] */
    static const double L[4] = {0.0, 1.0, -1.0, 0.0};
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u[0]), COSA_OK);
    cr_assert_eq(cosa_unit_linear_create(&sub, &u[1]), COSA_OK);
    cr_assert_eq(cosa_unitset_create(2, u, L, NULL, &set), COSA_OK);
    return set;
}

static cosa_ecco_result *run(const unsigned k[2], double H, double tend)
{
    cosa_unit *u[2];
    cosa_unitset *set = integrators(u);
    const double x0[2] = {1.0, 0.5};
    cosa_ecco_result *r = NULL;
    cr_assert_eq(cosa_osp_fixed_run(set, x0, H, k, tend, &r), COSA_OK);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    return r;
}

Test(osp_fixed, k1_is_the_fixed_step_run)
{
    const unsigned k[2] = {1, 1};
    cosa_ecco_result *r = run(k, 0.01, 1.0);
    cosa_unit *u[2];
    cosa_unitset *set = integrators(u);
    const double x0[2] = {1.0, 0.5};
    const cosa_ecco_params p = {.h0 = 0.01, .hmin = 0.01, .hmax = 0.01, .safety = 1.0,
                                .rate_min = 1.0, .rate_max = 1.0, .rtol = 0.0, .atol = 1.0};
    cosa_ecco_result *e = NULL;
    cr_assert_eq(cosa_ecco_run(set, x0, &p, NULL, 0, 1.0, &e), COSA_OK);
    cr_assert_eq(r->n, 100);
    cr_assert_eq(e->n, r->n);
    for (size_t n = 0; n <= r->n; n++) {
        cr_assert_eq(r->t[n], e->t[n]);
        for (size_t j = 0; j < 2; j++)
            cr_assert_eq(r->y[j + 2 * n], e->y[j + 2 * n], "n %zu j %zu", n, j);
    }
    cr_assert_eq(r->run.steps, e->run.steps);
    cosa_ecco_result_free(e);
    cosa_ecco_result_free(r);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
}

Test(osp_fixed, all_k2_is_the_run_at_2H_held)
{
    const unsigned k2[2] = {2, 2}, k1[2] = {1, 1};
    cosa_ecco_result *r = run(k2, 0.01, 1.0), *w = run(k1, 0.02, 1.0);
    cr_assert_eq(r->n, 100);
    cr_assert_eq(w->n, 50);
    for (size_t n = 0; n <= r->n; n++)
        for (size_t j = 0; j < 2; j++)
            cr_assert_eq(r->y[j + 2 * n], w->y[j + 2 * (n / 2)], "n %zu j %zu", n, j);
    cosa_ecco_result_free(r);
    cosa_ecco_result_free(w);
}

/* libcosim's schedule by hand; the largest deviation relative to the
 * largest |x| over the run. */
static double schedule(unsigned ka, unsigned kb, double H, size_t N)
{
    const unsigned k[2] = {ka, kb};
    cosa_ecco_result *r = run(k, H, (double)N * H);
    cr_assert_eq(r->n, N);
    unsigned l = ka;
    while (l % kb) /* lcm */
        l += ka;
    double xa = 1.0, xb = 0.5, ua = -xb, ub = xa, pa = xa, pb = xb, dev = 0.0, scale = 1.0;
    for (size_t c = 0; c < N; c++) {
        if (c % ka == 0)
            xa += (double)ka * H * ua;
        if (c % kb == 0)
            xb += (double)kb * H * ub;
        if ((c + 1) % l == 0) {
            ua = -xb;
            ub = xa;
        }
        if ((c + 1) % ka == 0)
            pa = xa;
        if ((c + 1) % kb == 0)
            pb = xb;
        scale = fmax(scale, fmax(fabs(pa), fabs(pb)));
        dev = fmax(dev, fmax(fabs(r->y[2 * (c + 1)] - pa), fabs(r->y[2 * (c + 1) + 1] - pb)));
    }
    cosa_ecco_result_free(r);
    return dev / scale;
}

Test(osp_fixed, decimated_schedules)
{
    /* The same recurrence in both; they differ only in rounding: the
     * unit's exact discretisation of x' = u (its e^{0 h} and integral of
     * it, ~ a few eps each) and the step as the difference of two times in
     * nanoseconds against k H.  Each step adds a few eps relative and the
     * recurrence's growth per step is at most 1 + 2 k H, so after N steps
     * the deviation is below 16 N eps (1 + 2 k H)^N relative. */
    const size_t N = 120;
    const double H = 0.01, tol = 16.0 * (double)N * DBL_EPSILON * pow(1.0 + 0.06, (double)N);
    const double d12 = schedule(1, 2, H, N), d23 = schedule(2, 3, H, N);
    cr_log_info("deviation k = (1, 2): %g, (2, 3): %g, tolerance %g", d12, d23, tol);
    cr_assert(d12 <= tol, "k = (1, 2): %g > %g", d12, tol);
    cr_assert(d23 <= tol, "k = (2, 3): %g > %g", d23, tol);
    /* decimation holds: unit b (k = 2) keeps its start value at point 1 */
    const unsigned k[2] = {1, 2};
    cosa_ecco_result *r = run(k, H, 2 * H);
    cr_assert_eq(r->y[1 + 2 * 1], 0.5);
    cr_assert_neq(r->y[1 + 2 * 2], 0.5);
    cosa_ecco_result_free(r);
}
