/* test_end_clip.c -- the end clip of a fixed-step run (lib/td/end_clip.c):
 * a horizon that is not a whole number of macro steps ends with one short
 * step, against an independent route: the same FOH run built by hand on
 * the master with given input polynomials (46 steps of H, the inputs the
 * line through ybar_n and ybar_{n-1}, then one step of the rest with the
 * same line), not through the rescaled extrapolation tables. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"
#include "td/end_clip.h"
#include "td/master_impl.h" /* cosa_master_set_inputs: the given inputs of the hand-built run */

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

Test(end_clip, steps)
{
    double h;
    /* 0.3 / 1e-4 = 2999.9999999999995 in double: 3000 steps, no rest */
    cr_assert_eq(cosa_end_clip_steps(0.3, 1e-4, &h), 3000);
    cr_assert_eq(h, 0.0);
    cr_assert_eq(cosa_end_clip_steps(1.0, 0.1, &h), 10);
    cr_assert_eq(h, 0.0);
    /* 3 / 0.064 = 46.875: 46 steps and 3 - 46 * 0.064 = 0.056 (to the
     * rounding of 46 * 0.064 and of 0.056: a few eps of 3) */
    cr_assert_eq(cosa_end_clip_steps(3.0, 0.064, &h), 46);
    cr_assert(fabs(h - 0.056) <= 8.0 * DBL_EPSILON * 3.0, "h = %.17g", h);
    /* the rest is exact: 46 H + h is 3 bitwise (Sterbenz: T - nH is exact
     * for nH >= T / 2) */
    cr_assert_eq(46.0 * 0.064 + h, 3.0);
    cr_assert_eq(cosa_end_clip_steps(0.05, 0.064, &h), 0.0); /* shorter than one step */
    cr_assert_eq(h, 0.0);
    cr_assert(cosa_end_clip_steps(0.3, 1e-300, &h) > 1e299); /* the caller checks the range */
}

/* The run of the library and the hand-built one, on twomass with its exact
 * units. */
#define H 6.4e-5
#define T 3e-3 /* 46.875 H */
#define N 46

Test(end_clip, foh_against_given_inputs)
{
    tu_units f, g;
    tu_units_init(&f, "twomass", "exact");
    tu_units_init(&g, "twomass", "exact");
    const size_t nx = cosa_unitset_nx(f.set), ny = cosa_unitset_ny(f.set),
                 nu = cosa_unitset_nu(f.set);
    double hl;
    cr_assert_eq(cosa_end_clip_steps(T, H, &hl), N);
    cr_assert(hl > 0.0);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("foh", &s), COSA_OK);
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, H, N + 2, &ref), COSA_OK);
    cosa_cosim_opts o = {.nsteps = N, .h_last = hl};
    cosa_cosim_result *r = NULL;
    cr_assert_eq(cosa_cosim_run(f.set, &s, ref, &o, &r), COSA_OK);
    cr_assert_eq(r->nsteps, N + 1);
    cr_assert_eq(r->ndone, N + 1);
    cr_assert(r->clipped);
    cr_assert(!r->diverged);
    /* the run starts at p H = H and ends at H + T: 47 H + hl bitwise */
    cr_assert_eq(r->t[N + 1], (double)(N + 1) * H + hl);
    cr_assert(isnan(r->yref[(N + 1) * ny])); /* no reference sample there */
    cr_assert(isfinite(r->e_global));

    /* the hand-built run: given inputs u(t) = L (ybar_n + (t - T_n) (ybar_n
     * - ybar_{n-1}) / H) on the same units, 46 steps of H and one of hl */
    cosa_scheme z;
    cr_assert_eq(cosa_scheme_parse("zoh", &z), COSA_OK);
    cosa_master_opts mo = {.extrapolation = COSA_EXTRAP_GIVEN};
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(g.set, &z, H, &mo, &m), COSA_OK);
    double yb[2 * 16], uder[2 * 16], ynew[16], x[16];
    cr_assert_leq(ny, 16);
    cr_assert_leq(nu, 16);
    memcpy(yb, ref->y + ny, ny * sizeof *yb);       /* ybar_n: y_ref(H) */
    memcpy(yb + ny, ref->y, ny * sizeof *yb);       /* ybar_{n-1}: y_ref(0) */
    cr_assert_eq(cosa_master_init(m, H, ref->x + nx, yb, NULL), COSA_OK);
    const double *L = cosa_unitset_L(g.set);
    double ymax = 0.0, dmax = 0.0;
    for (size_t n = 0; n <= N; n++) {
        double dy[16];
        for (size_t l = 0; l < ny; l++)
            dy[l] = (yb[l] - yb[l + ny]) / H;
        for (size_t i = 0; i < nu; i++) {
            double a = 0.0, b = 0.0;
            for (size_t l = 0; l < ny; l++) {
                a += L[i + l * nu] * yb[l];
                b += L[i + l * nu] * dy[l];
            }
            uder[i] = a;
            uder[i + nu] = b;
        }
        if (n == N)
            cr_assert_eq(cosa_master_set_step(m, hl), COSA_OK);
        cr_assert_eq(cosa_master_set_inputs(m, 1, uder), COSA_OK);
        cr_assert_eq(cosa_master_step(m), COSA_OK);
        double t;
        cr_assert_eq(cosa_master_get(m, &t, x, NULL, ynew, NULL, NULL), COSA_OK);
        memcpy(yb + ny, yb, ny * sizeof *yb);
        memcpy(yb, ynew, ny * sizeof *yb);
        for (size_t l = 0; l < ny; l++) {
            ymax = fmax(ymax, fabs(ynew[l]));
            dmax = fmax(dmax, fabs(ynew[l] - r->ybar[l + (n + 1) * ny]));
        }
        if (n == N)
            cr_assert(fabs(t - r->t[N + 1]) <= 4.0 * DBL_EPSILON * t, "t %.17g", t);
    }
    /* the two routes differ in the rounding of the input polynomial's
     * coefficients only (a few eps per step: the library's line through
     * nodes 0, -H/h in units of h against the hand's divided difference);
     * FOH at omega H ~ 0.07 is stable, so the differences add up at most
     * linearly over the N + 1 steps: 64 (N + 1) eps of the largest output */
    const double tol = 64.0 * (N + 1) * DBL_EPSILON * ymax;
    cr_assert(dmax <= tol, "max |ybar - hand| = %.3g > %.3g (max |y| %.3g)", dmax, tol, ymax);
    cr_log_info("end clip: max |ybar - hand| = %.3g, tol %.3g, max |y| %.3g", dmax, tol, ymax);
    /* without the clip the run ends at (p + N) H, as before */
    cosa_cosim_result *r0 = NULL;
    o.h_last = 0.0;
    cr_assert_eq(cosa_cosim_run(f.set, &s, ref, &o, &r0), COSA_OK);
    cr_assert_eq(r0->nsteps, N);
    cr_assert(!r0->clipped);
    /* the grid columns are the same run, bitwise */
    cr_assert_eq(memcmp(r0->ybar, r->ybar, (N + 1) * ny * sizeof(double)), 0);
    cosa_cosim_result_free(r0);
    cosa_master_free(m);
    cosa_cosim_result_free(r);
    cosa_reftraj_free(ref);
    tu_units_free(&g);
    tu_units_free(&f);
}

Test(end_clip, refusals)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("foh+mbcorr", &s), COSA_OK);
    cosa_cosim_opts o = {.nsteps = N, .h_last = 0.5 * H};
    cr_assert_not_null(cosa_end_clip_refusal(&s, &o));
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, H, N + 2, &ref), COSA_OK);
    cosa_cosim_result *r = NULL;
    cr_assert_eq(cosa_cosim_run(f.set, &s, ref, &o, &r), COSA_EUNSUPPORTED);
    cr_assert_eq(cosa_scheme_parse("foh", &s), COSA_OK);
    cr_assert_null(cosa_end_clip_refusal(&s, &o));
    o.h_last = H; /* not shorter than a step */
    cr_assert_eq(cosa_cosim_run(f.set, &s, ref, &o, &r), COSA_ERANGE);
    o.h_last = NAN;
    cr_assert_eq(cosa_cosim_run(f.set, &s, ref, &o, &r), COSA_ERANGE);
    cosa_reftraj_free(ref);
    tu_units_free(&f);
}
