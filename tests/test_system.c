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
        cr_assert_eq(cosa_system_monolithic(sys, As, Cs), COSA_OK);
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

/* Two subsystems with feedthrough gains g1, g2 in a loop: y1 = x1 + g1 u1,
 * y2 = x2 + g2 u2, u1 = y2, u2 = y1, so det(I - D L) = 1 - g1 g2. */
static const char loop2_text[] =
    "model loop2\n"
    "param g1 = 2\nparam g2 = 0.25\n"
    "subsystem P\n  states x1\n  inputs u1\n  outputs y1\n"
    "  A = [ -1 ]\n  B = [ 1 ]\n  C = [ 1 ]\n  D = [ g1 ]\nend\n"
    "subsystem Q\n  states x2\n  inputs u2\n  outputs y2\n"
    "  A = [ -2 ]\n  B = [ 1 ]\n  C = [ 1 ]\n  D = [ g2 ]\nend\n"
    "connect P.y1 -> Q.u2\nconnect Q.y2 -> P.u1\n";

/* The model of loop2_text (*m) and its system at par. */
static cosa_system *loop2(cosa_model **m, const double *par)
{
    char err[256];
    cr_assert_eq(cosa_model_file_parse(loop2_text, sizeof loop2_text - 1, "loop2", m, err,
                                       sizeof err),
                 COSA_OK, "%s", err);
    cosa_system *sys = NULL;
    cr_assert_eq((*m)->create(*m, par, &sys), COSA_OK);
    return sys;
}

/* A model update that changes both gains must be checked once, after both
 * are stored: (2, 0.25) -> (4, 0.5) passes through (4, 0.25), where
 * g1 g2 = 1, but the end point is valid. */
Test(system, update_validates_after_all_stores)
{
    cosa_model *m = NULL;
    double par[2] = {2, 0.25};
    cosa_system *sys = loop2(&m, par);
    par[0] = 4;
    par[1] = 0.5;
    cr_expect_eq(m->update(m, par, sys), COSA_OK, "valid end point rejected");
    cr_expect(cosa_system_is_valid(sys));
    /* a genuinely singular point is rejected, and the next valid one accepted */
    par[1] = 0.25;
    cr_expect_eq(m->update(m, par, sys), COSA_EALGLOOP);
    cr_expect(!cosa_system_is_valid(sys));
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 0);
    cosa_scheme s = {.order = 0, .alpha = 1};
    cosa_point_result r;
    cr_expect_eq(cosa_evaluate(sys, &s, 1e-2, NULL, 1.0, COSA_WANT_RHO, &r, w), COSA_EALGLOOP,
                 "rho of a system with a singular loop must not be computed");
    par[0] = 2;
    cr_expect_eq(m->update(m, par, sys), COSA_OK);
    cr_expect_eq(cosa_evaluate(sys, &s, 1e-2, NULL, 1.0, COSA_WANT_RHO, &r, w), COSA_OK);
    /* the result does not depend on the history of updates */
    cosa_system *fresh = NULL;
    cr_assert_eq(m->create(m, par, &fresh), COSA_OK);
    cosa_point_result r2;
    cr_expect_eq(cosa_evaluate(fresh, &s, 1e-2, NULL, 1.0, COSA_WANT_RHO, &r2, w), COSA_OK);
    cr_expect_eq(r.rho, r2.rho, "rho after updates %.17g, fresh %.17g", r.rho, r2.rho);
    cosa_eval_workspace_free(w);
    cosa_system_free(fresh);
    cosa_system_free(sys);
    cosa_model_free(m);
}

/* store + validate: the low-level form of the same rule. */
Test(system, store_then_validate)
{
    cosa_model *m = NULL;
    double par[2] = {2, 0.25};
    cosa_system *sys = loop2(&m, par);
    double A1 = -1, B1 = 1, C1 = 1, D1 = 4, A2 = -2, B2 = 1, C2 = 1, D2 = 0.5;
    cosa_subsystem p = {1, 1, 1, &A1, &B1, &C1, &D1}, q = {1, 1, 1, &A2, &B2, &C2, &D2};
    cr_expect_eq(cosa_system_store_subsystem(sys, 0, &p), COSA_OK);
    cr_expect(!cosa_system_is_valid(sys), "a stored but unchecked loop is not valid");
    double As[4], Cs[4];
    cr_expect_eq(cosa_system_monolithic(sys, As, Cs), COSA_EALGLOOP);
    cr_expect_eq(cosa_system_store_subsystem(sys, 1, &q), COSA_OK);
    cr_expect_eq(cosa_system_validate(sys), COSA_OK);
    cr_expect_eq(cosa_system_monolithic(sys, As, Cs), COSA_OK);
    /* C* = (I - D L)^{-1} C with D L = [[0, 4], [0.5, 0]]: det = -1 */
    cr_expect_leq(fabs(Cs[0] - (-1.0)), 4 * DBL_EPSILON, "C*[0] = %.17g", Cs[0]);
    cr_expect_leq(fabs(Cs[2] - (-4.0)), 16 * DBL_EPSILON, "C*[2] = %.17g", Cs[2]);
    cosa_system_free(sys);
    cosa_model_free(m);
}

/* A Phi workspace sized for one split must not be used with another split
 * of the same totals (twomass: 2+2 states, 1+2 inputs; twomass-fd: 2+2, 2+1). */
Test(system, workspace_split_checked)
{
    const cosa_model *a = cosa_model_find("twomass"), *b = cosa_model_find("twomass-fd");
    double pa[32], pb[32];
    cosa_model_defaults(a, pa);
    cosa_model_defaults(b, pb);
    cosa_system *sa = NULL, *sb = NULL;
    cr_assert_eq(a->create(a, pa, &sa), COSA_OK);
    cr_assert_eq(b->create(b, pb, &sb), COSA_OK);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sa, 2);
    cosa_scheme s = {.order = 2, .corr = COSA_CORR_MBCORR, .alpha = 1};
    double Phi[32 * 32], Ad[16], Q[48];
    cr_expect_eq(cosa_phi_build(sb, &s, 1e-3, Phi, 32, w), COSA_EWORKSPACE);
    cr_expect_eq(cosa_discretize(sb, 2, 1e-3, Ad, Q, w), COSA_EWORKSPACE);
    cr_expect_eq(cosa_phi_build(sa, &s, 1e-3, Phi, 32, w), COSA_OK);
    cosa_phi_workspace_free(w);
    cosa_system_free(sa);
    cosa_system_free(sb);
}

/* cosa_dt_limit returns what invalidates a scan instead of hiding it. */
Test(system, limit_reports_fatal_statuses)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[32], x0[4] = {0, 100, 0, -100};
    cosa_model_defaults(m, par);
    cosa_model_set(m, par, "d1", -5000); /* negative damping: unstable reference */
    cosa_model_set(m, par, "d2", -5000);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 2);
    cosa_scheme zoh = {.order = 0, .alpha = 1}, soh = {.order = 2, .alpha = 1};
    cosa_limit lim;
    cr_expect_eq(cosa_dt_limit(sys, &zoh, x0, 0.3, COSA_CRIT_STABLE, 0, 1e-6, 1e-3, 0, NULL, 0,
                               &lim, w),
                 COSA_EUNSTABLEREF);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
    cosa_model_defaults(m, par);
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    w = cosa_eval_workspace_alloc(sys, 0); /* too small for SOH */
    cr_expect_eq(cosa_dt_limit(sys, &soh, x0, 0.3, COSA_CRIT_STABLE, 0, 1e-6, 1e-3, 0, NULL, 0,
                               &lim, w),
                 COSA_EWORKSPACE);
    x0[1] = NAN;
    cr_expect_eq(cosa_dt_limit(sys, &zoh, x0, 0.3, COSA_CRIT_ACCURATE, 0.01, 1e-6, 1e-3, 0, NULL,
                               0, &lim, w),
                 COSA_ENONFINITE);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}
