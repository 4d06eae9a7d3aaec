/* test_fmu_hidden.c -- the black-box test FMUs (issue 31 item 4): the
 * two-mass subsystems with their states hidden (no states, derivatives or
 * directional derivatives declared; same binaries) and subsystem II as a
 * fixed-step forward-Euler FMU (tests/fmu/twomass_fmu.c -DEULER_STEP=1e-5).
 *
 * - every hidden variant opens with 0 states and its twin's inputs and
 *   outputs, and the capabilities its description gives;
 * - under the same held inputs a hidden FMU's outputs equal its declared
 *   twin's bit for bit (the same binary doing the same arithmetic: equality
 *   is the only right tolerance);
 * - the Euler FMU's output is the closed form of forward Euler at h = 1e-5,
 *   x_k = (I + h A2)^k x0, Fk = ck s2 + dk v2 (inputs 0), computed here by an
 *   eigen-decomposition-free route (2x2 powers by repeated squaring), and a
 *   communication step that is not a multiple of h leaves the state where
 *   the last whole internal step put it. */
#include "testutil.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct variant {
    const char *hidden, *twin;
    size_t nu, ny;
    int version, fmu_state;
} variants[] = {
    {"twomass1_hid_fmi3.fmu", "twomass1_fmi3.fmu", 1, 2, 3, 1},
    {"twomass1_hid_fmi2.fmu", "twomass1_fmi2.fmu", 1, 2, 2, 1},
    {"twomass2_hid_fmi3.fmu", "twomass2_fmi3.fmu", 2, 1, 3, 1},
    {"twomass2_hid_fmi2.fmu", "twomass2_fmi2.fmu", 2, 1, 2, 1},
    {"twomass1_hidnofs_fmi3.fmu", "twomass1_fmi3.fmu", 1, 2, 3, 0},
    {"twomass1_hidnofs_fmi2.fmu", "twomass1_fmi2.fmu", 1, 2, 2, 0},
    {"twomass2_hidnofs_fmi3.fmu", "twomass2_fmi3.fmu", 2, 1, 3, 0},
    {"twomass2_hidnofs_fmi2.fmu", "twomass2_fmi2.fmu", 2, 1, 2, 0},
};

Test(fmu_hidden, descriptions)
{
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const struct variant *v = &variants[i];
        cosa_fmu *f = tu_fmu_open_ok(v->hidden);
        cr_expect_eq(cosa_fmu_version(f), v->version, "%s", v->hidden);
        cr_expect_eq(cosa_fmu_nstate(f), 0, "%s", v->hidden);
        cr_expect_eq(cosa_fmu_ninput(f), v->nu, "%s", v->hidden);
        cr_expect_eq(cosa_fmu_noutput(f), v->ny, "%s", v->hidden);
        const unsigned caps = cosa_fmu_caps(f);
        cr_expect_eq((caps & COSA_FMU_CAP_GET_SET_STATE) != 0, v->fmu_state, "%s", v->hidden);
        cr_expect_eq(caps & (COSA_FMU_CAP_DIRECTIONAL | COSA_FMU_CAP_INTERPOLATE_INPUTS |
                             COSA_FMU_CAP_INTERMEDIATE_UPDATE),
                     0, "%s", v->hidden);
        cosa_fmu_close(f);
    }
}

/* 200 steps of 1e-4 under a held input that changes every step: the hidden
 * FMU's outputs are its twin's, bitwise. */
Test(fmu_hidden, same_outputs_as_twin)
{
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        const struct variant *v = &variants[i];
        cosa_fmu *fh = tu_fmu_open_ok(v->hidden), *ft = tu_fmu_open_ok(v->twin);
        cosa_unit *uh = NULL, *ut = NULL;
        cr_assert_eq(cosa_unit_fmu_create(fh, "H", &uh), COSA_OK, "%s", v->hidden);
        cr_assert_eq(cosa_unit_fmu_create(ft, "T", &ut), COSA_OK, "%s", v->twin);
        cr_assert_eq(cosa_unit_nx(uh), 0);
        double yh[2], yt[2];
        for (int n = 0; n < 200; n++) {
            const double u[2] = {1e3 * sin(0.1 * n), 5.0 * cos(0.07 * n)};
            cr_assert_eq(cosa_unit_set_input(uh, 0, u), COSA_OK);
            cr_assert_eq(cosa_unit_set_input(ut, 0, u), COSA_OK);
            cr_assert_eq(cosa_unit_do_step(uh, 1e-4), COSA_OK, "%s: %s", v->hidden,
                         cosa_unit_message(uh));
            cr_assert_eq(cosa_unit_do_step(ut, 1e-4), COSA_OK);
            cr_assert_eq(cosa_unit_get_output(uh, yh), COSA_OK);
            cr_assert_eq(cosa_unit_get_output(ut, yt), COSA_OK);
            for (size_t k = 0; k < v->ny; k++)
                cr_assert_eq(yh[k], yt[k], "%s step %d output %zu: %.17g vs %.17g", v->hidden,
                             n, k, yh[k], yt[k]);
        }
        cosa_unit_free(uh);
        cosa_unit_free(ut);
        cosa_fmu_close(fh);
        cosa_fmu_close(ft);
    }
}

/* 2x2 column-major products: C = A B */
static void mul2(const double *A, const double *B, double *C)
{
    double r[4];
    r[0] = A[0] * B[0] + A[2] * B[1];
    r[1] = A[1] * B[0] + A[3] * B[1];
    r[2] = A[0] * B[2] + A[2] * B[3];
    r[3] = A[1] * B[2] + A[3] * B[3];
    memcpy(C, r, sizeof r);
}

/* M^k by repeated squaring (a different order of operations from the FMU's
 * k single Euler steps: an independent route). */
static void pow2(const double *M, unsigned long k, double *P)
{
    double S[4];
    memcpy(S, M, sizeof S);
    P[0] = P[3] = 1.0;
    P[1] = P[2] = 0.0;
    while (k) {
        if (k & 1u)
            mul2(P, S, P);
        mul2(S, S, S);
        k >>= 1;
    }
}

Test(fmu_hidden, euler_closed_form)
{
    const double m2 = 10.0, c2 = 1e7, d2 = 2.0, ck = 2e5, dk = 500.0, h = 1e-5;
    /* I + h A2 (column-major), A2 = [[0, 1], [-(c2+ck)/m2, -(d2+dk)/m2]] */
    const double M[4] = {1.0, -h * (c2 + ck) / m2, h, 1.0 - h * (d2 + dk) / m2};
    const double x0[2] = {0.0, -100.0};
    cosa_fmu *f = tu_fmu_open_ok("twomass2_euler_fmi3.fmu");
    cr_expect_eq(cosa_fmu_nstate(f), 0);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f, "E", &u), COSA_OK);
    const double zero[2] = {0.0, 0.0};
    cr_assert_eq(cosa_unit_set_input(u, 0, zero), COSA_OK);
    /* Rounding: each of the k steps adds O(eps) relative to |x| in the
     * eigenbasis of M, amplified by the eigenvector condition number
     * kappa <= 1 + |lambda| (eigenvectors (1, lambda), |lambda| ~ 1010), and
     * the modes are bounded (|mu| < 1); so |dy| <= 8 k kappa eps |y|max. */
    const double lam = sqrt((c2 + ck) / m2), kappa = 1.0 + lam;
    const double ymax = dk * 100.0; /* |Fk| <= ck |s2| + dk |v2| and |v2| <= 100 */
    unsigned long k = 0;
    for (int n = 1; n <= 300; n++) {
        cr_assert_eq(cosa_unit_do_step(u, 1e-4), COSA_OK, "%s", cosa_unit_message(u));
        k += 10;
        double P[4], y;
        pow2(M, k, P);
        const double x[2] = {P[0] * x0[0] + P[2] * x0[1], P[1] * x0[0] + P[3] * x0[1]};
        cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
        const double tol = 8.0 * (double)k * kappa * 2.220446049250313e-16 * (ymax + ck * 100.0 / lam);
        cr_assert(fabs(y - (ck * x[0] + dk * x[1])) <= tol, "step %d: %.17g vs %.17g (tol %g)",
                  n, y, ck * x[0] + dk * x[1], tol);
    }
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* A communication step of 1.5 h takes one internal step: the output is the
 * one-Euler-step value; a second of 0.5 h completes the second. */
Test(fmu_hidden, euler_lags_between_internal_steps)
{
    const double m2 = 10.0, c2 = 1e7, d2 = 2.0, ck = 2e5, dk = 500.0, h = 1e-5;
    cosa_fmu *f = tu_fmu_open_ok("twomass2_euler_fmi3.fmu");
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f, "E", &u), COSA_OK);
    const double zero[2] = {0.0, 0.0};
    cr_assert_eq(cosa_unit_set_input(u, 0, zero), COSA_OK);
    double y;
    cr_assert_eq(cosa_unit_do_step(u, 1.5 * h), COSA_OK, "%s", cosa_unit_message(u));
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
    /* one step from (0, -100): s = -100 h, v = -100 (1 - h (d2+dk)/m2) */
    double s = -100.0 * h, v = -100.0 * (1.0 - h * (d2 + dk) / m2);
    cr_expect(fabs(y - (ck * s + dk * v)) <= 1e-12 * dk * 100.0, "%.17g vs %.17g", y,
              ck * s + dk * v);
    cr_assert_eq(cosa_unit_do_step(u, 0.5 * h), COSA_OK, "%s", cosa_unit_message(u));
    cr_assert_eq(cosa_unit_get_output(u, &y), COSA_OK);
    const double s2 = s + h * v, v2 = v + h * (-(c2 + ck) * s - (d2 + dk) * v) / m2;
    cr_expect(fabs(y - (ck * s2 + dk * v2)) <= 1e-12 * dk * 100.0, "%.17g vs %.17g", y,
              ck * s2 + dk * v2);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}
