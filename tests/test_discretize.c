/* test_discretize.c -- Van Loan integrals Q_m = int_0^h e^{A(h-t)} B (t/h)^m dt
 * against Gauss-Legendre quadrature of the closed-form 2x2 exponential, and
 * the per-subsystem cache. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Gauss-Legendre nodes/weights on [-1, 1] by Newton on P_n. */
static void gauss_legendre(int n, double *x, double *w)
{
    for (int i = 0; i < n; i++) {
        double z = cos(M_PI * (i + 0.75) / (n + 0.5)), pp = 0;
        for (int it = 0; it < 100; it++) {
            double p1 = 1, p2 = 0;
            for (int j = 1; j <= n; j++) {
                double p3 = p2;
                p2 = p1;
                p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
            }
            pp = n * (z * p1 - p2) / (z * z - 1);
            double dz = p1 / pp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        x[i] = z;
        w[i] = 2 / ((1 - z * z) * pp * pp);
    }
}

/* e^{At} for A = [[0,1],[-k,-d]] (underdamped), column-major. */
static void osc_exp(double k, double d, double t, double E[4])
{
    double sig = d / 2, wd = sqrt(k - sig * sig);
    double c = cos(wd * t), sn = sin(wd * t) / wd, f = exp(-sig * t);
    E[0] = f * (c + sn * sig);
    E[1] = f * (-k * sn);
    E[2] = f * sn;
    E[3] = f * (c + sn * (sig - d));
}

/* Q_m of a 2-state subsystem with A = [[0,1],[-k,-d]], B (2 x nu) by composite
 * 20-point Gauss-Legendre on `panels` panels. */
static void quad_Q(double k, double d, const double *B, size_t nu, double h, int m,
                   double *Q /* 2 x nu */)
{
    double x[20], w[20];
    gauss_legendre(20, x, w);
    memset(Q, 0, 2 * nu * sizeof(double));
    const int panels = 16;
    for (int pnl = 0; pnl < panels; pnl++) {
        double a = h * pnl / panels, b = h * (pnl + 1) / panels;
        for (int i = 0; i < 20; i++) {
            double t = 0.5 * (a + b) + 0.5 * (b - a) * x[i], wt = 0.5 * (b - a) * w[i];
            double E[4];
            osc_exp(k, d, h - t, E);
            double s = pow(t / h, m);
            for (size_t c = 0; c < nu; c++)
                for (int r = 0; r < 2; r++)
                    Q[r + 2 * c] += wt * s * (E[r] * B[2 * c] + E[r + 2] * B[1 + 2 * c]);
        }
    }
}

Test(discretize, van_loan_equals_quadrature)
{
    const double hs[] = {1e-5, 1e-4, 1e-3, 3e-3};
    for (size_t ih = 0; ih < 4; ih++) {
        double h = hs[ih];
        cosa_system *sys = tu_twomass(2e5, 5e2);
        int p = 4;
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, p);
        double Ad[16], Q[5 * 12];
        cr_assert_eq(cosa_discretize(sys, p, h, Ad, Q, w), COSA_OK);
        /* subsystem I: k = c1/m1, d = d1/m1, B = [0; 1/m1], input column 0 */
        double B1[2] = {0, 0.1}, B2[4] = {0, 2e5 / 10, 0, 5e2 / 10};
        for (int m = 0; m <= p; m++) {
            double q1[2], q2[4];
            quad_Q(1e6 / 10, 1.0 / 10, B1, 1, h, m, q1);
            quad_Q((2e5 + 1e7) / 10, (5e2 + 2) / 10, B2, 2, h, m, q2);
            const double *Qm = Q + m * 12;
            /* GL with 320 nodes integrates the smooth integrand to rounding;
             * the closed form has a few ulps: 1e-12 relative to the block max. */
            double s1 = fmax(fabs(q1[0]), fabs(q1[1]));
            for (int r = 0; r < 2; r++)
                cr_expect_leq(fabs(Qm[r + 0 * 4] - q1[r]), 1e-12 * s1, "h=%g m=%d I row %d: %.17g vs %.17g",
                              h, m, r, Qm[r], q1[r]);
            double s2 = tu_maxabs(2, 2, q2, 2);
            for (int c = 0; c < 2; c++)
                for (int r = 0; r < 2; r++)
                    cr_expect_leq(fabs(Qm[2 + r + (1 + c) * 4] - q2[r + 2 * c]), 1e-12 * s2,
                                  "h=%g m=%d II (%d,%d)", h, m, r, c);
            /* block-diagonal: coupling blocks are exactly zero */
            cr_expect_eq(Qm[2 + 0 * 4], 0.0);
            cr_expect_eq(Qm[0 + 1 * 4], 0.0);
        }
        cosa_phi_workspace_free(w);
        cosa_system_free(sys);
    }
}

/* Limit h -> 0: Q_m ~ h B / (m + 1) (the integrand is ~B (t/h)^m). */
Test(discretize, small_step_limit)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 3);
    double h = 1e-9, Ad[16], Q[4 * 12];
    cr_assert_eq(cosa_discretize(sys, 3, h, Ad, Q, w), COSA_OK);
    const double *B = cosa_system_B(sys);
    double anorm = 0, bmax = 0;
    for (int j = 0; j < 4; j++) {
        double cs = 0;
        for (int i = 0; i < 4; i++)
            cs += fabs(cosa_system_A(sys)[i + 4 * j]);
        anorm = fmax(anorm, cs);
    }
    for (int k = 0; k < 12; k++)
        bmax = fmax(bmax, fabs(B[k]));
    for (int m = 0; m <= 3; m++)
        for (int k = 0; k < 12; k++) {
            double expect = h * B[k] / (m + 1);
            /* remainder of the Taylor expansion: |Q_m - h B/(m+1)| <= h^2 ||A|| max|B|
             * (plus rounding of the leading term) */
            double tol = h * h * anorm * bmax + 64 * DBL_EPSILON * h * bmax;
            cr_expect_leq(fabs(Q[m * 12 + k] - expect), tol, "m=%d k=%d: %.17g vs %.17g", m, k,
                          Q[m * 12 + k], expect);
        }
    cosa_phi_workspace_free(w);
    cosa_system_free(sys);
}

/* The cache reuses a subsystem that did not change, and only that. */
Test(discretize, cache_is_exact)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    cosa_system *other = tu_twomass(1e7, 1e3);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 2);
    cosa_phi_workspace *fresh = cosa_phi_workspace_alloc(sys, 2);
    double Ad[16], Q[36], Ad2[16], Q2[36];
    /* warm the cache with another system, then the real one */
    cr_assert_eq(cosa_discretize(other, 2, 1e-4, Ad, Q, w), COSA_OK);
    cr_assert_eq(cosa_discretize(sys, 2, 1e-4, Ad, Q, w), COSA_OK);
    cr_assert_eq(cosa_discretize(sys, 2, 1e-4, Ad2, Q2, fresh), COSA_OK);
    cr_expect(memcmp(Ad, Ad2, sizeof Ad) == 0, "cached Ad differs from a fresh computation");
    cr_expect(memcmp(Q, Q2, sizeof Q) == 0, "cached Q differs from a fresh computation");
    /* a different dt must not hit the cache */
    cr_assert_eq(cosa_discretize(sys, 2, 2e-4, Ad, Q, w), COSA_OK);
    cr_expect(memcmp(Ad, Ad2, sizeof Ad) != 0);
    cosa_phi_workspace_free(w);
    cosa_phi_workspace_free(fresh);
    cosa_system_free(sys);
    cosa_system_free(other);
}
