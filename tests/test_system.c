/* test_system.c -- coupled linear system: construction, validation, and the
 * monolithic reference (eq 35) against the hand-assembled equations of motion. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

/* Two-mass oscillator written directly as one ODE (Newton's law for both
 * masses with the coupling force F = ck (s2 - s1) + dk (v2 - v1)). */
static void twomass_monolithic(double m1, double m2, double c1, double c2, double d1, double d2,
                               double ck, double dk, double A[16])
{
    double r[4][4] = {
        {0, 1, 0, 0},
        {-(c1 + ck) / m1, -(d1 + dk) / m1, ck / m1, dk / m1},
        {0, 0, 0, 1},
        {ck / m2, dk / m2, -(c2 + ck) / m2, -(d2 + dk) / m2},
    };
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            A[i + 4 * j] = r[i][j];
}

Test(system, reference_equals_monolithic_equations)
{
    double pairs[][2] = {{2e5, 5e2}, {1, 1}, {1e10, 1e7}, {1e9, 3.6e5}, {37, 0}};
    for (size_t c = 0; c < sizeof pairs / sizeof pairs[0]; c++) {
        cosa_system *sys = tu_twomass(pairs[c][0], pairs[c][1]);
        cr_assert_not_null(sys);
        cr_expect_eq(cosa_system_nx(sys), 4);
        cr_expect_eq(cosa_system_nu(sys), 3);
        cr_expect_eq(cosa_system_ny(sys), 3);
        cr_expect_eq(cosa_system_nsub(sys), 2);
        double As[16], Cs[12], Am[16];
        cr_assert_eq(cosa_system_reference(sys, As, Cs), COSA_OK);
        twomass_monolithic(10, 10, 1e6, 1e7, 1, 2, pairs[c][0], pairs[c][1], Am);
        /* Entries are sums of at most 3 terms of the same magnitude as the
         * result's row: a few ulps of the row maximum. */
        for (int i = 0; i < 4; i++) {
            double rm = 0;
            for (int j = 0; j < 4; j++)
                rm = fmax(rm, fabs(Am[i + 4 * j]));
            for (int j = 0; j < 4; j++)
                cr_expect_leq(fabs(As[i + 4 * j] - Am[i + 4 * j]), 8 * DBL_EPSILON * rm,
                              "pair %zu A*(%d,%d) = %.17g, expected %.17g", c, i, j,
                              As[i + 4 * j], Am[i + 4 * j]);
        }
        /* C*: y = [s1, v1, F_k] as functions of the state. */
        double ck = pairs[c][0], dk = pairs[c][1];
        double Ce[12] = {1, 0, -ck, 0, 1, -dk, 0, 0, ck, 0, 0, dk};
        for (int k = 0; k < 12; k++)
            cr_expect_leq(fabs(Cs[k] - Ce[k]), 8 * DBL_EPSILON * fmax(ck, dk), "C*[%d]", k);
        cosa_system_free(sys);
    }
}

Test(system, stacking_and_offsets)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    size_t nx, nu, ny, ox, ou, oy;
    cr_assert_eq(cosa_system_sub_dims(sys, 1, &nx, &nu, &ny, &ox, &ou, &oy), COSA_OK);
    cr_expect(nx == 2 && nu == 2 && ny == 1 && ox == 2 && ou == 1 && oy == 2);
    cr_expect_eq(cosa_system_sub_dims(sys, 2, &nx, &nu, &ny, &ox, &ou, &oy), COSA_EINVAL);
    /* off-diagonal blocks of the stacked A are zero */
    const double *A = cosa_system_A(sys);
    cr_expect(A[2 + 0 * 4] == 0 && A[0 + 2 * 4] == 0 && A[3 + 1 * 4] == 0);
    cosa_system_free(sys);
    cosa_system_free(NULL);
}

Test(system, singular_algebraic_loop_rejected)
{
    /* y1 = u1 (D = 1), u1 = y1 (L = 1): I - D L = 0. */
    double A[1] = {-1}, B[1] = {1}, C[1] = {1}, D[1] = {1}, L[1] = {1};
    cosa_subsystem s = {1, 1, 1, A, B, C, D};
    cosa_system *sys = (cosa_system *)0x1;
    cr_expect_eq(cosa_system_create(&sys, 1, &s, L), COSA_EALGLOOP);
    cr_expect_null(sys);
    /* D = 0.5: solvable */
    D[0] = 0.5;
    cr_assert_eq(cosa_system_create(&sys, 1, &s, L), COSA_OK);
    /* updating to a singular loop is rejected */
    D[0] = 1.0;
    cr_expect_eq(cosa_system_set_subsystem(sys, 0, &s), COSA_EALGLOOP);
    cosa_system_free(sys);
}

Test(system, badly_scaled_loop_accepted)
{
    /* eq 27 with c_k = 1e10, d_k = 1: I - D L = [[1,0,0],[0,1,0],[1e10,1,1]]
     * is exactly invertible although its raw condition number is ~1e20. */
    cosa_system *sys = tu_twomass(1e10, 1.0);
    cr_expect_not_null(sys);
    cosa_system_free(sys);
}

Test(system, invalid_input)
{
    double A[4] = {0, -1, 1, 0}, B[2] = {0, 1}, C[2] = {1, 0}, D[1] = {0}, L[1] = {0};
    cosa_subsystem s = {2, 1, 1, A, B, C, D};
    cosa_system *sys = NULL;
    cr_expect_eq(cosa_system_create(NULL, 1, &s, L), COSA_EINVAL);
    cr_expect_eq(cosa_system_create(&sys, 0, &s, L), COSA_EINVAL);
    cr_expect_eq(cosa_system_create(&sys, 1, NULL, L), COSA_EINVAL);
    cr_expect_eq(cosa_system_create(&sys, 1, &s, NULL), COSA_EINVAL);
    cosa_subsystem bad = s;
    bad.B = NULL;
    cr_expect_eq(cosa_system_create(&sys, 1, &bad, L), COSA_EINVAL);
    A[1] = NAN;
    cr_expect_eq(cosa_system_create(&sys, 1, &s, L), COSA_ENONFINITE);
    A[1] = -1;
    L[0] = INFINITY;
    cr_expect_eq(cosa_system_create(&sys, 1, &s, L), COSA_ENONFINITE);
    L[0] = 0;
    cr_assert_eq(cosa_system_create(&sys, 1, &s, L), COSA_OK);
    cosa_subsystem wrong = {1, 1, 1, A, B, C, D};
    cr_expect_eq(cosa_system_set_subsystem(sys, 0, &wrong), COSA_EINVAL);
    cr_expect_eq(cosa_system_set_subsystem(sys, 1, &s), COSA_EINVAL);
    cosa_system_free(sys);
    cr_expect_str_eq(cosa_strerror(COSA_EALGLOOP),
                     "algebraic loop not solvable: I - D L is singular");
    cr_expect_str_eq(cosa_strerror((cosa_status)999), "unknown status");
}
