/* test_reftraj_loop.c -- the fine reference (cosa_reftraj_cosim) of unit sets
 * whose feedthrough closes an algebraic loop (lib/td/reftraj_cosim.c):
 *  - the stability rule it rests on, checked on the master itself: a pure
 *    loop y = D L y with eigenvalues mu = +-g under extrapolation of order p
 *    decays for g below 1/(2^(p+1) - 1) and grows above it;
 *  - with a loop the reference solves it at every fine point and matches
 *    the closed form, where the plain fine co-simulation blows up;
 *  - without a loop it is the plain fine co-simulation, bitwise (the
 *    master stepped directly, sampled every factor steps). */
#include <criterion/criterion.h>

#include "cosa.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* u_F = y_G, u_G = y_F: L (2 x 2, column-major) */
static const double L_swap[4] = {0.0, 1.0, 1.0, 0.0};

/* A linear unit x' = a x + b u, y = c x + d u (nx = 0 when c == 0 and a == 0). */
static cosa_unit *unit1(double a, double b, double c, double d, int nx)
{
    const cosa_subsystem sub = {(size_t)nx, 1, 1, &a, &b, &c, &d};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    return u;
}

/* Largest |y| after n plain steps of scheme name on the pure loop y_i = g u_i
 * (no states), started off its fixed point 0 with the history y = (1, 1)
 * at every slot but the newest, (1, -1) there: both eigenvectors excited. */
static double pure_loop_growth(const char *scheme, double g, size_t n)
{
    cosa_unit *u[2] = {unit1(0.0, 0.0, 0.0, g, 0), unit1(0.0, 0.0, 0.0, g, 0)};
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, L_swap, NULL, &set), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, &s, 0.01, NULL, &m), COSA_OK);
    double hist[2 * (COSA_ORDER_MAX + 1)];
    for (int j = 0; j <= s.order; j++)
        hist[2 * j] = hist[2 * j + 1] = 1.0;
    hist[1] = -1.0;
    cr_assert_eq(cosa_master_init(m, 0.0, NULL, hist, NULL), COSA_OK);
    double ymax = 0.0, y[2];
    for (size_t k = 0; k < n && ymax < INFINITY; k++) {
        if (cosa_master_step(m) != COSA_OK) { /* overflowed: grown */
            ymax = INFINITY;
            break;
        }
        cosa_master_get(m, NULL, NULL, NULL, NULL, y, NULL);
        if (k + 100 >= n || !isfinite(y[0]) || !isfinite(y[1])) /* the last 100 steps */
            ymax = fmax(ymax, fmax(fabs(y[0]), fabs(y[1])));
    }
    cosa_master_free(m);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    return ymax;
}

/* (1 - mu) lambda^(p+1) + mu (lambda - 1)^(p+1) = 0: for mu = -g the root
 * lambda = 1 / (1 - w), w = (1 + 1/g)^(1/(p+1)) > 0, crosses |lambda| = 1
 * at w = 2, g = 1/(2^(p+1) - 1); a factor 1.25 either side makes |lambda|
 * differ from 1 by a few per cent, and 3000 steps turn that into a factor
 * beyond 1e10 either way (the start has |y| = 1). */
Test(reftraj_loop, extrapolation_stability_boundary)
{
    static const char *const names[] = {"zoh", "foh", "soh"};
    for (int p = 0; p <= 2; p++) {
        const double gb = 1.0 / (double)((2 << p) - 1);
        const double lo = pure_loop_growth(names[p], 0.8 * gb, 3000);
        const double hi = pure_loop_growth(names[p], 1.25 * gb, 3000);
        cr_expect(lo < 1e-10, "%s at g = 0.8/(2^(p+1)-1): |y| = %g, should decay", names[p], lo);
        cr_expect(!(hi < 1e10), "%s at g = 1.25/(2^(p+1)-1): |y| = %g, should grow", names[p],
                  hi);
    }
}

/* F: y = a u (no state), G: x' = -x + beta u, y = x + k u; u_F = y_G,
 * u_G = y_F.  y_F = a x / (1 - a k), x' = lam x, lam = -1 + beta a / (1 - a k).
 * a = k = 0.8: mu = +-0.8, beyond SOH's 1/7. */
#define LA 0.8
#define LK 0.8
#define LBETA 0.4

static cosa_unitset *loop_set(cosa_unit **u)
{
    u[0] = unit1(0.0, 0.0, 0.0, LA, 0);
    u[1] = unit1(-1.0, LBETA, 1.0, LK, 1);
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, L_swap, NULL, &set), COSA_OK);
    return set;
}

Test(reftraj_loop, loop_solved_matches_closed_form)
{
    cosa_unit *u[2];
    cosa_unitset *set = loop_set(u);
    cosa_scheme soh;
    cosa_scheme_parse("soh", &soh);
    const double x0 = 2.0, H = 0.01, T = 0.5;
    const unsigned factor = 64;
    const size_t ns = 51;
    cosa_reftraj *r = NULL;
    cr_assert_eq(cosa_reftraj_cosim(set, &soh, &x0, H, ns, factor, &r), COSA_OK);
    cr_expect_eq(r->loop, 1);
    /* the reference's error bounds (tests/test_fmu_loops.sh, b = 0): start-up
     * 28 |beta| h^2 max|u'|, SOH extrapolation T |beta| h^3 max|u'''|,
     * rounding 4 eps |x0| per fine step; u = y_F = a x / g */
    const double g = 1.0 - LA * LK, lam = -1.0 + LBETA * LA / g, h = H / factor;
    const double l = fabs(lam), up = LA / g * l * x0, u3 = up * l * l;
    const double dx = 28.0 * LBETA * h * h * up + T * LBETA * h * h * h * u3 +
                      4.0 * (T / h) * DBL_EPSILON * x0;
    for (size_t k = 0; k < ns; k++) {
        const double t = (double)k * H, x = x0 * exp(lam * t), yF = LA * x / g;
        const double yG = x + LK * yF;
        cr_expect(fabs(r->x[k] - x) <= dx, "x at t = %g: %.17g vs %.17g", t, r->x[k], x);
        cr_expect(fabs(r->y[2 * k] - yF) <= LA / g * dx, "y_F at t = %g: %.17g vs %.17g", t,
                  r->y[2 * k], yF);
        cr_expect(fabs(r->y[2 * k + 1] - yG) <= dx / g, "y_G at t = %g: %.17g vs %.17g", t,
                  r->y[2 * k + 1], yG);
    }
    cosa_reftraj_free(r);
    /* the plain fine co-simulation of the same loop (the previous reference):
     * it blows up, as the stability rule says for mu = -0.8 */
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, &soh, h, NULL, &m), COSA_OK);
    cr_assert_eq(cosa_master_init_loop(m, 0.0, &x0), COSA_OK);
    double y[2] = {0.0, 0.0};
    cosa_status st = COSA_OK;
    for (size_t k = 0; k < (ns - 1) * factor && st == COSA_OK && isfinite(y[0]) &&
                       fabs(y[0]) < 1e6; k++)
        if ((st = cosa_master_step(m)) == COSA_OK)
            cosa_master_get(m, NULL, NULL, NULL, NULL, y, NULL);
    cr_expect(st != COSA_OK || !(fabs(y[0]) < 1e6), "the plain SOH loop stayed bounded: %g", y[0]);
    cosa_master_free(m);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
}

/* Without a loop: G1 x' = -x + u, y = x (no feedthrough), G2 x' = -2 x + u,
 * y = x + 0.5 u; the reference is the master's SOH run at H/factor from
 * cosa_master_init_loop, sampled every factor steps, bitwise. */
Test(reftraj_loop, no_loop_is_the_plain_run_bitwise)
{
    cosa_unit *u[2] = {unit1(-1.0, 1.0, 1.0, 0.0, 1), unit1(-2.0, 1.0, 1.0, 0.5, 1)};
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, L_swap, NULL, &set), COSA_OK);
    cosa_scheme soh;
    cosa_scheme_parse("soh", &soh);
    const double x0[2] = {1.0, -0.5}, H = 0.01;
    const unsigned factor = 16;
    const size_t ns = 21;
    cosa_reftraj *r = NULL;
    cr_assert_eq(cosa_reftraj_cosim(set, &soh, x0, H, ns, factor, &r), COSA_OK);
    cr_expect_eq(r->loop, 0);
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, &soh, H / factor, NULL, &m), COSA_OK);
    cr_assert_eq(cosa_master_init_loop(m, 0.0, x0), COSA_OK);
    double x[2], y[2];
    for (size_t k = 0; k < ns; k++) {
        if (k > 0)
            for (unsigned j = 0; j < factor; j++)
                cr_assert_eq(cosa_master_step(m), COSA_OK);
        cosa_master_get(m, NULL, x, NULL, y, NULL, NULL);
        cr_expect(memcmp(x, r->x + 2 * k, sizeof x) == 0 && memcmp(y, r->y + 2 * k, sizeof y) == 0,
                  "sample %zu differs from the plain run", k);
    }
    cosa_master_free(m);
    cosa_reftraj_free(r);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
}
