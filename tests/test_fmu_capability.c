/* test_fmu_capability.c -- what cosa knows of an FMU before running it
 * (lib/td/fmu_capability.c) and how far a unit is from its linearisation
 * (lib/td/linearity.c), on the test FMUs of make check (COSA_FMUDIR) and
 * on linear units whose answer is known in closed form. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static cosa_scheme scheme(const char *text)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(text, &s), COSA_OK);
    return s;
}

Test(fmu_capability, summaries_follow_the_descriptions)
{
    static const struct {
        const char *fmu;
        int version, degree, dd, state;
        double fixed, dflt;
    } c[] = {{"twomass1_fmi3.fmu", 3, COSA_UNIT_DEGMAX, 1, 1, 0.0, 0.0},
             {"twomass2_fmi2.fmu", 2, COSA_UNIT_DEGMAX, 1, 1, 0.0, 0.0},
             {"twomass1_noiu_fmi3.fmu", 3, 0, 1, 1, 0.0, 0.0},
             {"twomass1_nointerp_fmi2.fmu", 2, 0, 1, 1, 0.0, 1e-4},
             {"twomass1_nostate_fmi3.fmu", 3, 0, 0, 0, 0.0, 0.0},
             {"twomass1_fixed_fmi3.fmu", 3, COSA_UNIT_DEGMAX, 1, 1, 1e-6, 0.0}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        cosa_fmu *f = tu_fmu_open_ok(c[k].fmu);
        cosa_fmu_capability cap;
        cosa_fmu_capability_get(f, &cap);
        cr_expect_eq(cap.fmi_version, c[k].version, "%s", c[k].fmu);
        cr_expect_eq(cap.input_degree_max, c[k].degree, "%s", c[k].fmu);
        cr_expect_eq(cap.directional, c[k].dd, "%s", c[k].fmu);
        cr_expect_eq(cap.fmu_state, c[k].state, "%s", c[k].fmu);
        cr_expect_eq(cap.fixed_step, c[k].fixed, "%s", c[k].fmu);
        cr_expect_eq(cap.default_step, c[k].dflt, "%s", c[k].fmu);
        cr_expect_eq(cap.degree_why[0] != '\0', c[k].degree == 0, "%s", c[k].fmu);
        cosa_fmu_close(f);
    }
}

Test(fmu_capability, which_schemes_run)
{
    cosa_fmu *f[3] = {tu_fmu_open_ok("twomass1_fmi3.fmu"), tu_fmu_open_ok("twomass1_noiu_fmi3.fmu"),
                      tu_fmu_open_ok("twomass1_nostate_fmi3.fmu")};
    cosa_fmu_capability cap[3];
    for (int k = 0; k < 3; k++)
        cosa_fmu_capability_get(f[k], &cap[k]);
    /* rows: full, no intermediate update, neither Jacobians nor state;
     * columns: zoh, foh, p4, zoh+mbcorr, soh+mbcorr, gs:foh */
    const char *s[6] = {"zoh", "foh", "p4", "zoh+mbcorr", "soh+mbcorr", "gs:foh"};
    const int runs[3][6] = {{1, 1, 1, 1, 1, 1}, {1, 0, 0, 1, 0, 0}, {1, 0, 0, 0, 0, 0}};
    char why[256];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 6; j++) {
            cosa_scheme sc = scheme(s[j]);
            cosa_status st = cosa_fmu_capability_check(&cap[k], 1, &sc, why, sizeof why);
            cr_expect_eq(st, runs[k][j] ? COSA_OK : COSA_EUNSUPPORTED, "%d %s: %s", k, s[j], why);
            cr_expect_eq(why[0] != '\0', !runs[k][j], "%d %s", k, s[j]);
        }
    cosa_scheme foh = scheme("foh");
    cr_expect_eq(cosa_fmu_capability_check(&cap[1], 0, &foh, why, sizeof why), COSA_OK,
                 "no inputs: any degree");
    cosa_fmu_capability_check(&cap[1], 1, &foh, why, sizeof why);
    cr_expect(strstr(why, "providesIntermediateUpdate") != NULL, "%s", why);
    cr_expect_eq(cosa_fmu_capability_check(NULL, 1, &foh, why, sizeof why), COSA_EINVAL);
    for (int k = 0; k < 3; k++)
        cosa_fmu_close(f[k]);
}

/* A linear unit against its own matrices: only rounding (a few eps of the
 * row's terms; 1e-12 leaves three decades); against matrices 1 % too large,
 * every change is off by exactly 0.01 / 1.01 of the larger one. */
Test(fmu_capability, linear_unit)
{
    const double A[4] = {-3.0, 2.0, 1.0, -5.0}, B[2] = {0.5, -1.5}, C[2] = {1.0, 4.0},
                 D[1] = {0.25};
    const cosa_subsystem sub = {2, 1, 1, A, B, C, D};
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_linear_create(&sub, &u), COSA_OK);
    const double x0[2] = {1.0, -2.0}, u0[1] = {0.5};
    cosa_linearity l;
    cr_assert_eq(cosa_unit_linearity(u, 0.0, x0, u0, A, B, C, D, &l), COSA_OK);
    cr_expect_leq(l.nonlinear, 1e-12);
    cr_expect_leq(l.affine, 1e-12);
    cr_expect(!l.is_nonlinear && !l.is_affine);
    double A2[4], B2[2], C2[2], D2[1];
    for (int i = 0; i < 4; i++)
        A2[i] = 1.01 * A[i];
    for (int i = 0; i < 2; i++) {
        B2[i] = 1.01 * B[i];
        C2[i] = 1.01 * C[i];
    }
    D2[0] = 1.01 * D[0];
    cr_assert_eq(cosa_unit_linearity(u, 0.0, x0, u0, A2, B2, C2, D2, &l), COSA_OK);
    cr_expect_float_eq(l.nonlinear, 0.01 / 1.01, 1e-12, "%.17g", l.nonlinear);
    cr_expect(l.is_nonlinear);
    cr_expect_eq(cosa_unit_linearity(u, 0.0, NULL, u0, A, B, C, D, &l), COSA_EINVAL);
    cosa_unit_free(u);
}

/* The FMUs at their start point, linearised as a model file does. */
static cosa_linearity fmu_linearity(const char *name, const char *par, double value)
{
    cosa_fmu *f = tu_fmu_open_ok(name);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f, "t", &u), COSA_OK);
    if (par)
        cr_assert_eq(cosa_unit_fmu_set_start(u, par, value), COSA_OK);
    double M[4 + 4 + 4 + 4] = {0}, u0[2] = {0.0, 0.0}; /* the inputs start at 0 */
    const size_t nx = cosa_unit_nx(u), nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
    cr_assert(nx <= 2 && nu <= 2 && ny <= 2);
    double *A = M, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx;
    cr_assert_eq(cosa_unit_fmu_linearize(u, 0, A, B, C, D), COSA_OK, "%s", cosa_unit_message(u));
    cosa_linearity l;
    cr_assert_eq(cosa_unit_linearity(u, 0.0, cosa_unit_state(u), u0, A, B, C, D, &l), COSA_OK);
    cosa_unit_free(u);
    cosa_fmu_close(f);
    return l;
}

Test(fmu_capability, fmus_linear_affine_nonlinear)
{
    cosa_linearity l = fmu_linearity("twomass2_fmi3.fmu", NULL, 0.0);
    cr_expect(!l.is_nonlinear && !l.is_affine, "%g %g", l.nonlinear, l.affine);
    /* F0 / m1 = -98.1 / 10 in der(v), against terms of size 20 (rounding) */
    l = fmu_linearity("twomass1g_fmi3.fmu", NULL, 0.0);
    cr_expect(l.is_affine && !l.is_nonlinear, "%g %g", l.nonlinear, l.affine);
    cr_expect_float_eq(l.affine_abs, 9.81, 1e-12, "%.17g", l.affine_abs);
    /* eq 43 at n_d = 1.5: perturbing v alone by -10 % changes the damper
     * force dk |w|^0.5 w by 0.9^1.5 - 1 = -0.1462 of itself against the
     * tangent's -0.15: off by 0.0254 of the larger change, at least */
    l = fmu_linearity("twomass2nl_fmi3.fmu", NULL, 0.0);
    cr_expect(l.is_nonlinear, "%g", l.nonlinear);
    cr_expect_geq(l.nonlinear, 0.025);
    /* ... and linear at n_d = 1 (central differences: ~1e-9) */
    l = fmu_linearity("twomass2nl_fmi3.fmu", "nd", 1.0);
    cr_expect(!l.is_nonlinear && !l.is_affine, "%g %g", l.nonlinear, l.affine);
}
