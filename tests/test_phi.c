/* test_phi.c -- propagation matrices Phi and Phi* against independent routes:
 * the paper's derivative-form formulas (eqs 16, 18, 19, 24, 25, 38-42) with
 * B_{d_k} from their defining power series, the ZOH+MBCorr exact-model
 * property (eq 42 remark), zero coupling, rho(Phi*) from eig(A*), z0 from
 * direct exponentials, and bad-input statuses. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* ---- a benign coupled system where power series converge fast ------------- */
/* Two-mass oscillator with O(1) parameters (same structure as eq 27). */
static cosa_system *benign(double m1, double m2, double c1, double c2, double d1, double d2,
                           double ck, double dk)
{
    double A1[4] = {0, -c1 / m1, 1, -d1 / m1}, B1[2] = {0, 1 / m1}, C1[4] = {1, 0, 0, 1},
           D1[2] = {0, 0};
    double A2[4] = {0, -(ck + c2) / m2, 1, -(dk + d2) / m2}, B2[4] = {0, ck / m2, 0, dk / m2},
           C2[2] = {ck, dk}, D2[2] = {-ck, -dk};
    cosa_subsystem s[2] = {{2, 1, 2, A1, B1, C1, D1}, {2, 2, 1, A2, B2, C2, D2}};
    static const double L[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, s, L), COSA_OK);
    return sys;
}

/* B_{d_k} = sum_{j>=0} A^j h^{j+k+1}/(j+k+1)! B  (eq 13 without A^{-1});
 * also Ad = sum_j (Ah)^j/j!.  Converges to rounding for ||Ah|| <= 1. */
static void series(size_t nx, size_t nu, const double *A, const double *B, double h, int k,
                   double *Bdk, double *Ad)
{
    double T[64], T2[64]; /* T = A^j h^j / (j+k+1)! * h^{k+1} applied to identity */
    memset(Bdk, 0, nx * nu * sizeof(double));
    if (Ad)
        memset(Ad, 0, nx * nx * sizeof(double));
    /* Pj = (Ah)^j / j! (nx x nx) */
    double P[64];
    memset(P, 0, sizeof P);
    for (size_t i = 0; i < nx; i++)
        P[i + i * nx] = 1.0;
    for (int j = 0; j < 60; j++) {
        /* coefficient h^{k+1} j! / (j+k+1)! */
        double c = pow(h, k + 1);
        for (int q = j + 1; q <= j + k + 1; q++)
            c /= q;
        for (size_t r = 0; r < nx; r++)
            for (size_t col = 0; col < nu; col++) {
                double s = 0;
                for (size_t q = 0; q < nx; q++)
                    s += P[r + q * nx] * B[q + col * nx];
                Bdk[r + col * nx] += c * s;
            }
        if (Ad)
            for (size_t q = 0; q < nx * nx; q++)
                Ad[q] += P[q];
        /* P <- P * A h / (j+1) */
        for (size_t r = 0; r < nx; r++)
            for (size_t col = 0; col < nx; col++) {
                double s = 0;
                for (size_t q = 0; q < nx; q++)
                    s += P[r + q * nx] * A[q + col * nx];
                T[r + col * nx] = s * h / (j + 1);
            }
        memcpy(P, T, nx * nx * sizeof(double));
    }
    (void)T2;
}

/* small dense helpers for the reference route */
static void mv(size_t m, size_t n, const double *A, const double *x, double *y)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++)
            s += A[i + j * m] * x[j];
        y[i] = s;
    }
}
/* solve M x = b for small n by Gaussian elimination with partial pivoting */
static void solve(size_t n, const double *M0, double *b)
{
    double M[64];
    memcpy(M, M0, n * n * sizeof(double));
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(M[r + c * n]) > fabs(M[p + c * n]))
                p = r;
        for (size_t j = 0; j < n; j++) {
            double t = M[c + j * n];
            M[c + j * n] = M[p + j * n];
            M[p + j * n] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (size_t r = c + 1; r < n; r++) {
            double f = M[r + c * n] / M[c + c * n];
            for (size_t j = c; j < n; j++)
                M[r + j * n] -= f * M[c + j * n];
            b[r] -= f * b[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        for (size_t j = c + 1; j < n; j++)
            b[c] -= M[c + j * n] * b[j];
        b[c] /= M[c + c * n];
    }
}

/* One macro step written literally from the paper (derivative form, eq 38),
 * for p = 0, 1, 2, on z = [x | ybar_n .. ybar_{n-p} | du]. */
static void paper_step(const cosa_system *sys, int p, unsigned corr, double alpha, double h,
                       const double *z, double *znew)
{
    enum { NX = 4, NU = 3, NY = 3 };
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys), *C = cosa_system_C(sys),
                 *D = cosa_system_D(sys), *L = cosa_system_L(sys);
    double Ad[16], Bd[3][12];
    for (int k = 0; k <= 2; k++)
        series(NX, NU, A, B, h, k, Bd[k], k == 0 ? Ad : NULL);
    const double *x = z, *y0 = z + NX, *y1 = z + NX + NY, *y2 = z + NX + 2 * NY;
    double du[NU] = {0, 0, 0};
    int has_du = (corr & COSA_CORR_STATE) != 0;
    if (has_du)
        memcpy(du, z + NX + (p + 1) * NY, sizeof du);
    /* extrapolated input and its derivatives at T_n (eqs 12, 17) */
    double v0[NY], v1[NY] = {0}, v2[NY] = {0}, E[NY];
    for (int i = 0; i < NY; i++) {
        v0[i] = y0[i];
        E[i] = y0[i]; /* polynomial at s = 1 (scaled by L below) */
        if (p == 1) {
            v1[i] = (y0[i] - y1[i]) / h;
            E[i] = 2 * y0[i] - y1[i];
        } else if (p == 2) {
            v1[i] = (3 * y0[i] - 4 * y1[i] + y2[i]) / (2 * h);
            v2[i] = (y0[i] - 2 * y1[i] + y2[i]) / (h * h);
            E[i] = 3 * y0[i] - 3 * y1[i] + y2[i];
        }
    }
    double u0[NU], u1[NU], u2[NU], LE[NU];
    mv(NU, NY, L, v0, u0);
    mv(NU, NY, L, v1, u1);
    mv(NU, NY, L, v2, u2);
    mv(NU, NY, L, E, LE);
    for (int i = 0; i < NU; i++)
        u0[i] += du[i];
    /* eq 38 */
    double x1[NX], t[NX], y[NY], ut[NU];
    mv(NX, NX, Ad, x, x1);
    mv(NX, NU, Bd[0], u0, t);
    for (int i = 0; i < NX; i++) x1[i] += t[i];
    mv(NX, NU, Bd[1], u1, t);
    for (int i = 0; i < NX; i++) x1[i] += t[i];
    mv(NX, NU, Bd[2], u2, t);
    for (int i = 0; i < NX; i++) x1[i] += t[i];
    for (int i = 0; i < NU; i++)
        ut[i] = u0[i] + u1[i] * h + u2[i] * h * h / 2;
    mv(NY, NX, C, x1, y);
    mv(NY, NU, D, ut, t);
    for (int i = 0; i < NY; i++) y[i] += t[i];
    double yb[NY];
    memcpy(yb, y, sizeof yb);
    if (corr & COSA_CORR_OUTPUT) {
        /* G_ZOH = C B_d0 + D (eq 16), G_FOH = C B_d1/h + D (eq 18),
         * G_SOH = C B_d1/(2h) + C B_d2/h^2 + D (eq 19) */
        double G0[NY * NU], G[NY * NU], CB[NY * NU];
        tu_matmul(NY, NU, NX, C, Bd[0], G0);
        for (int i = 0; i < NY * NU; i++) G0[i] += D[i];
        if (p == 0)
            memcpy(G, G0, sizeof G);
        else {
            tu_matmul(NY, NU, NX, C, Bd[1], G);
            for (int i = 0; i < NY * NU; i++) G[i] = G[i] / (p == 1 ? h : 2 * h) + D[i];
            if (p == 2) {
                tu_matmul(NY, NU, NX, C, Bd[2], CB);
                for (int i = 0; i < NY * NU; i++) G[i] += CB[i] / (h * h);
            }
        }
        double GL[NY * NY], IGL[NY * NY], rhs[NY], a[NY], b[NY];
        tu_matmul(NY, NY, NU, G, L, GL);
        for (int i = 0; i < NY * NY; i++) IGL[i] = -GL[i];
        for (int i = 0; i < NY; i++) IGL[i + i * NY] += 1;
        mv(NY, NY, GL, E, a);
        mv(NY, NU, G0, du, b);
        for (int i = 0; i < NY; i++) rhs[i] = y[i] - a[i] - b[i];
        solve(NY, IGL, rhs);
        memcpy(yb, rhs, sizeof yb);
    }
    memcpy(znew, x1, sizeof x1);
    memcpy(znew + NX, yb, sizeof yb);
    for (int j = 1; j <= p; j++)
        memcpy(znew + NX + j * NY, z + NX + (j - 1) * NY, NY * sizeof(double));
    if (has_du) {
        /* eq 24 (p = 0), eq 25 (p = 1); p = 2 with kappa_2 = 3/8 (doc/method.md) */
        double d[NY], Ld[NU];
        for (int i = 0; i < NY; i++) {
            if (p == 0)
                d[i] = (yb[i] - y0[i]) / 2;
            else if (p == 1)
                d[i] = (5 * yb[i] - 10 * y0[i] + 5 * y1[i]) / 12;
            else
                d[i] = 3.0 / 8.0 * (yb[i] - E[i]);
        }
        mv(NU, NY, L, d, Ld);
        for (int i = 0; i < NU; i++)
            znew[NX + (p + 1) * NY + i] = du[i] + alpha * (Ld[i] - du[i]);
    }
}

static void check_against_paper(double ck, double dk, double h, double alpha)
{
    cosa_system *sys = benign(1.0, 2.0, 3.0, 1.5, 0.2, 0.1, ck, dk);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 2);
    static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                      COSA_CORR_MBCORR};
    for (int p = 0; p <= 2; p++)
        for (int c = 0; c < 4; c++) {
            cosa_scheme s = {.order = p, .corr = corrs[c], .alpha = alpha};
            cosa_layout lay;
            cr_assert_eq(cosa_layout_get(sys, &s, &lay), COSA_OK);
            size_t n = lay.dim;
            double Phi[32 * 32], Ref[32 * 32], e[32];
            cr_assert_eq(cosa_phi_build(sys, &s, h, Phi, n, w), COSA_OK);
            for (size_t k = 0; k < n; k++) {
                memset(e, 0, sizeof e);
                e[k] = 1.0;
                paper_step(sys, p, corrs[c], alpha, h, e, Ref + k * n);
            }
            /* Tolerance: both routes are backward stable to a few ulps of
             * max|Phi| (O(1) here); 1e-12 leaves room for the 60-term series
             * and the different summation orders, and is far below any
             * formula error (which would be O(h) ~ 1e-1). */
            double scale = tu_maxabs(n, n, Ref, n);
            double diff = tu_maxdiff(n, n, Phi, n, Ref, n);
            cr_expect_leq(diff, 1e-12 * scale, "p=%d corr=%u ck=%g: |Phi - paper| = %g (scale %g)",
                          p, corrs[c], ck, diff, scale);
        }
    cosa_phi_workspace_free(w);
    cosa_system_free(sys);
}

Test(phi, paper_closed_forms_p012)
{
    check_against_paper(2.0, 0.5, 0.1, 1.0);
    check_against_paper(5.0, 1.5, 0.3, 1.0);
    check_against_paper(2.0, 0.5, 0.2, 0.6); /* alpha != 1 */
}

/* eq 42 remark: with an exact linear model, ZOH+MBCorr has M_y = M_du = 0. */
Test(phi, zoh_mbcorr_exact_model_My_Mdu_zero)
{
    double cases[][3] = {{2e5, 5e2, 1e-4}, {1e3, 10, 1e-3}, {1e9, 3.6e5, 3.16e-4}, {1e10, 1, 1e-3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cosa_system *sys = tu_twomass(cases[c][0], cases[c][1]);
        cr_assert_not_null(sys);
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 0);
        cosa_scheme s = {.order = 0, .corr = COSA_CORR_MBCORR, .alpha = 1.0};
        cosa_layout lay;
        cosa_layout_get(sys, &s, &lay);
        double Phi[10 * 10];
        cr_assert_eq(cosa_phi_build(sys, &s, cases[c][2], Phi, lay.dim, w), COSA_OK);
        for (size_t i = lay.off_y; i < lay.off_y + lay.ny; i++) {
            double rowmax = 0;
            for (size_t j = 0; j < lay.dim; j++)
                rowmax = fmax(rowmax, fabs(Phi[i + j * lay.dim]));
            /* M_y and M_du are differences of two computations of the same
             * G_0 = C B_d0 + D: zero up to rounding relative to the row. */
            for (size_t j = lay.off_y; j < lay.dim; j++)
                cr_expect_leq(fabs(Phi[i + j * lay.dim]), 1e-12 * rowmax,
                              "case %zu: Phi[%zu][%zu] = %g (row max %g)", c, i, j,
                              Phi[i + j * lay.dim], rowmax);
        }
        cosa_phi_workspace_free(w);
        cosa_system_free(sys);
    }
}

/* Damped 2x2 oscillator exp(A t), A = [[0,1],[-k,-d]], underdamped:
 * e^{At} = e^{-sig t} [cos(wd t) I + sin(wd t)/wd (A + sig I)]. */
static void osc_exp(double k, double d, double t, double E[4])
{
    double sig = d / 2, wd = sqrt(k - sig * sig);
    double c = cos(wd * t), sn = sin(wd * t) / wd, f = exp(-sig * t);
    E[0] = f * (c + sn * sig);
    E[1] = f * (sn * -k);
    E[2] = f * sn;
    E[3] = f * (c + sn * (-d + sig));
}

/* Zero coupling: Phi's state block is block-diagonal exp(A_i dt) and the
 * outputs are C exp(A dt) x. */
Test(phi, zero_coupling_block_diagonal_exp)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    double L0[9] = {0};
    cr_assert_eq(cosa_system_set_coupling(sys, L0), COSA_OK);
    const double dt = 3e-4;
    for (int p = 0; p <= 4; p++) {
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, p);
        cosa_scheme s = {.order = p, .corr = COSA_CORR_NONE, .alpha = 1};
        cosa_layout lay;
        cosa_layout_get(sys, &s, &lay);
        double Phi[40 * 40];
        cr_assert_eq(cosa_phi_build(sys, &s, dt, Phi, lay.dim, w), COSA_OK);
        double E1[4], E2[4];
        osc_exp(1e6 / 10, 1.0 / 10, dt, E1);
        osc_exp((2e5 + 1e7) / 10, (5e2 + 2) / 10, dt, E2);
        double Ad[16] = {0};
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                Ad[i + j * 4] = E1[i + j * 2];
                Ad[2 + i + (2 + j) * 4] = E2[i + j * 2];
            }
        /* entrywise, relative to each row's largest entry: the closed form is
         * accurate to a few ulps times wd*dt <= 0.3; 1e-13 is generous. */
        for (size_t i = 0; i < 4; i++) {
            double rm = fmax(fabs(Ad[i]), fmax(fabs(Ad[i + 4]), fmax(fabs(Ad[i + 8]), fabs(Ad[i + 12]))));
            for (size_t j = 0; j < lay.dim; j++) {
                double ref = j < 4 ? Ad[i + j * 4] : 0.0;
                cr_expect_leq(fabs(Phi[i + j * lay.dim] - ref), 1e-13 * rm, "p=%d (%zu,%zu): %.17g vs %.17g",
                              p, i, j, Phi[i + j * lay.dim], ref);
            }
        }
        cosa_phi_workspace_free(w);
    }
    cosa_system_free(sys);
}

/* rho(Phi*) = exp(max Re lambda(A*) dt) (eq 37 remark). */
Test(phi, rho_ref_from_eig_Astar)
{
    double cases[][3] = {{2e5, 5e2, 1e-4}, {1e3, 10, 1e-3}, {1e9, 3.6e5, 3.16e-4}, {1, 1e7, 1e-6}, {1e10, 1, 1e-2}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cosa_system *sys = tu_twomass(cases[c][0], cases[c][1]);
        double As[16], Cs[12], wr[4], wi[4];
        cr_assert_eq(cosa_system_monolithic(sys, As, Cs), COSA_OK);
        cosa_eig_workspace *ew = cosa_eig_workspace_alloc(32);
        cr_assert_eq(cosa_eigenvalues(4, As, 4, wr, wi, ew), COSA_OK);
        double mr = -INFINITY;
        for (int i = 0; i < 4; i++)
            mr = fmax(mr, wr[i]);
        double expect = exp(mr * cases[c][2]);
        double anorm = 0;
        cosa_system_monolithic(sys, As, Cs); /* eigenvalues destroyed As */
        for (int j = 0; j < 4; j++) {
            double cs = 0;
            for (int i = 0; i < 4; i++)
                cs += fabs(As[i + 4 * j]);
            anorm = fmax(anorm, cs);
        }
        for (int p = 0; p <= 4; p += 2) {
            cosa_scheme s = {.order = p, .corr = COSA_CORR_MBCORR, .alpha = 1};
            cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, p);
            cosa_layout lay;
            cosa_layout_get(sys, &s, &lay);
            double Phi[32 * 32], rho;
            cr_assert_eq(cosa_phi_ref_build(sys, &s, cases[c][2], Phi, lay.dim, w), COSA_OK);
            cr_assert_eq(cosa_spectral_radius(lay.dim, Phi, lay.dim, &rho, ew), COSA_OK);
            /* Both sides carry eigenvalue round-off ~ eps ||A*|| dt (absolute
             * error of lambda times dt); 64x that, plus a floor of 1e-13. */
            double tol = 64 * DBL_EPSILON * (anorm * cases[c][2]) + 1e-13;
            cr_expect_leq(fabs(rho - expect), tol * expect, "case %zu p=%d: rho %.17g expect %.17g", c, p, rho, expect);
            cr_expect_leq(rho, 1.0, "reference must be stable");
            cosa_phi_workspace_free(w);
        }
        cosa_eig_workspace_free(ew);
        cosa_system_free(sys);
    }
}

/* z0 (doc/method.md): x = exp(A* p dt) x0, slot j = C* exp(A* (p-j) dt) x0, du = 0;
 * checked with exponentials of A* k dt taken directly (not powers). */
Test(phi, z0_on_reference_trajectory)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    double x0[4] = {0, 100, 0, -100}, As[16], Cs[12], M[16], E[16];
    cosa_system_monolithic(sys, As, Cs);
    cosa_expm_workspace *xw = cosa_expm_workspace_alloc(4);
    const double dt = 2e-4;
    for (int p = 0; p <= 4; p++) {
        cosa_scheme s = {.order = p, .corr = COSA_CORR_MBCORR, .alpha = 1};
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, p);
        cosa_layout lay;
        cosa_layout_get(sys, &s, &lay);
        double z0[40];
        cr_assert_eq(cosa_z0_build(sys, &s, dt, x0, z0, w), COSA_OK);
        for (int j = 0; j <= p; j++) {
            for (int i = 0; i < 16; i++)
                M[i] = As[i] * dt * (p - j);
            cosa_expm(4, M, 4, E, 4, xw);
            double xk[4], yk[3];
            for (int i = 0; i < 4; i++)
                xk[i] = E[i] * x0[0] + E[i + 4] * x0[1] + E[i + 8] * x0[2] + E[i + 12] * x0[3];
            for (int i = 0; i < 3; i++)
                yk[i] = Cs[i] * xk[0] + Cs[i + 3] * xk[1] + Cs[i + 6] * xk[2] + Cs[i + 9] * xk[3];
            /* Powers of exp(A* dt) vs one exponential of A* k dt: rounding
             * grows ~ k eps cond; scale each output by sum_k |C*_ik x_k|. */
            for (int i = 0; i < 3; i++) {
                double sc = 0;
                for (int k = 0; k < 4; k++)
                    sc += fabs(Cs[i + 3 * k] * xk[k]);
                cr_expect_leq(fabs(z0[lay.off_y + j * 3 + i] - yk[i]), 1e-11 * sc,
                              "p=%d slot %d out %d: %.17g vs %.17g", p, j, i,
                              z0[lay.off_y + j * 3 + i], yk[i]);
            }
            if (j == 0)
                for (int i = 0; i < 4; i++)
                    cr_expect_leq(fabs(z0[i] - xk[i]), 1e-11 * 100, "x[%d]", i);
        }
        for (size_t i = lay.off_du; i < lay.dim; i++)
            cr_expect_eq(z0[i], 0.0);
        cosa_phi_workspace_free(w);
    }
    cosa_expm_workspace_free(xw);
    cosa_system_free(sys);
}

/* Order tables against the values listed in doc/method.md. */
double cosa_order_tables(int p, double *lag, double *e, double *w);
Test(phi, order_tables_match_method)
{
    const double kappa[5] = {1.0 / 2, 5.0 / 12, 3.0 / 8, 251.0 / 720, 95.0 / 288};
    const double evec[5][5] = {{1}, {2, -1}, {3, -3, 1}, {4, -6, 4, -1}, {5, -10, 10, -5, 1}};
    /* G_3 = C[B_d1/(3h) + B_d2/h^2 + B_d3/h^3] + D with B_dm/h^m = Q_m/m!:
     * w_3 = (1/3) s + (1/2) s^2 + (1/6) s^3;  p = 4: 1/4, 11/24, 1/4, 1/24. */
    const double w3[4] = {0, 1.0 / 3, 1.0 / 2, 1.0 / 6};
    const double w4[5] = {0, 1.0 / 4, 11.0 / 12 / 2, 3.0 / 2 / 6, 1.0 / 24};
    for (int p = 0; p <= 4; p++) {
        double lag[81], e[9], w[9];
        double k = cosa_order_tables(p, lag, e, w);
        cr_expect_leq(fabs(k - kappa[p]), 4 * DBL_EPSILON, "kappa_%d", p);
        for (int j = 0; j <= p; j++) {
            cr_expect_eq(e[j], evec[p][j], "e_%d[%d]", p, j);
            /* l_j(1) from the monomial coefficients equals e_j */
            double v = 0;
            for (int m = 0; m <= p; m++)
                v += lag[j * (p + 1) + m];
            cr_expect_leq(fabs(v - e[j]), 64 * DBL_EPSILON * fabs(e[j]), "sum lag p=%d j=%d", p, j);
        }
        if (p == 3)
            for (int m = 0; m <= 3; m++)
                cr_expect_leq(fabs(w[m] - w3[m]), 4 * DBL_EPSILON, "w3[%d]", m);
        if (p == 4)
            for (int m = 0; m <= 4; m++)
                cr_expect_leq(fabs(w[m] - w4[m]), 4 * DBL_EPSILON, "w4[%d]", m);
    }
}

Test(phi, bad_input_statuses)
{
    cosa_scheme s;
    cr_expect_eq(cosa_scheme_parse("zohh", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("p9", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("foh+xyz", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("SOH+MBCorr", &s), COSA_OK);
    cr_expect(s.order == 2 && s.corr == COSA_CORR_MBCORR);
    cr_expect_eq(cosa_scheme_parse("p4+ecorr", &s), COSA_OK);
    cr_expect(s.order == 4 && s.corr == COSA_CORR_STATE);
    cr_expect_eq(cosa_scheme_parse("Foh+OCORR", &s), COSA_OK);
    cr_expect(s.order == 1 && s.corr == COSA_CORR_OUTPUT);

    cosa_system *sys = tu_twomass(2e5, 5e2);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 1);
    double Phi[40 * 40], z0[40], x0[4] = {0, 1, 0, 0};
    cosa_scheme_parse("foh", &s);
    cr_expect_eq(cosa_phi_build(sys, &s, 0.0, Phi, 40, w), COSA_ERANGE);
    cr_expect_eq(cosa_phi_build(sys, &s, -1e-3, Phi, 40, w), COSA_ERANGE);
    cr_expect_eq(cosa_phi_build(sys, &s, NAN, Phi, 40, w), COSA_ENONFINITE);
    cr_expect_eq(cosa_phi_build(sys, &s, INFINITY, Phi, 40, w), COSA_ENONFINITE);
    cr_expect_eq(cosa_phi_build(sys, &s, 1e-3, Phi, 2, w), COSA_EINVAL);
    cr_expect_eq(cosa_phi_build(NULL, &s, 1e-3, Phi, 40, w), COSA_EINVAL);
    x0[1] = NAN;
    cr_expect_eq(cosa_z0_build(sys, &s, 1e-3, x0, z0, w), COSA_ENONFINITE);
    cosa_scheme_parse("soh", &s); /* workspace sized for p <= 1 */
    cr_expect_eq(cosa_phi_build(sys, &s, 1e-3, Phi, 40, w), COSA_EWORKSPACE);
    s.order = 1;
    s.alpha = NAN;
    cr_expect_eq(cosa_phi_build(sys, &s, 1e-3, Phi, 40, w), COSA_ENONFINITE);
    cosa_scheme_parse("gs:zoh+mbcorr", &s);
    cr_expect_eq(cosa_scheme_check(&s, sys), COSA_EUNSUPPORTED);
    cosa_phi_workspace_free(w);
    cosa_phi_workspace_free(NULL);
    cosa_system_free(sys);

    /* NaN model parameter */
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    cr_expect_eq(cosa_model_set(m, par, "ck", NAN), COSA_ENONFINITE);
    cr_expect_eq(cosa_model_set(m, par, "nosuch", 1.0), COSA_EPARAM);
    par[cosa_model_param_index(m, "dk")] = NAN; /* bypassing the setter */
    cosa_system *bad = NULL;
    cr_expect_eq(m->create(m, par, &bad), COSA_ENONFINITE);
    cr_expect_null(bad);
    cr_expect_null(cosa_model_find("nosuch"));
}
