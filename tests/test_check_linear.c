/* test_check_linear.c -- the independent time-domain co-simulation (lib/check/linear_run.c)
 * against closed forms, hand-worked steps, the MBCorr identity M_y = M_du = 0,
 * and, as its main purpose, against Phi^n z0 from lib/phi.c.
 *
 * Error measures are scale-free: max over steps of ||difference||_inf divided
 * by max over steps of ||reference||_inf, so one tolerance covers states in
 * metres and forces in newtons alike. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* Deterministic uniform numbers in [-1, 1] (64-bit LCG, Knuth's MMIX constants). */
static double urand(uint64_t *st)
{
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*st >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static double vnorm_inf(size_t n, const double *v)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* max_k ||a_k - b_k||_inf / max_k ||b_k||_inf over ncol columns of length n
 * (only rows [r0, r0 + nr) are compared). */
static double rel_traj_diff(size_t n, size_t ncol, size_t r0, size_t nr, const double *a,
                            const double *b)
{
    double dmax = 0.0, bmax = 0.0;
    for (size_t k = 0; k < ncol; k++)
        for (size_t i = r0; i < r0 + nr; i++) {
            dmax = fmax(dmax, fabs(a[i + k * n] - b[i + k * n]));
            bmax = fmax(bmax, fabs(b[i + k * n]));
        }
    return bmax > 0.0 ? dmax / bmax : dmax;
}

static cosa_scheme scheme(int p, unsigned corr, double alpha)
{
    cosa_scheme s = {.order = p, .corr = corr, .alpha = alpha, .exec = COSA_JACOBI,
                     .seq = NULL};
    return s;
}

static double *run(const cosa_system *sys, const cosa_scheme *s, double dt, const double *z0,
                   size_t nsteps, size_t *dim)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    double *traj = malloc((nsteps + 1) * lay.dim * sizeof *traj);
    cr_assert_not_null(traj);
    cosa_status st = cosa_check_linear_run(sys, s, dt, z0, nsteps, traj);
    cr_assert_eq(st, COSA_OK, "cosim run: status %d", (int)st);
    *dim = lay.dim;
    return traj;
}

/* Two-mass oscillator of eq 27: x = [s1, v1, s2, v2], u = [F_k -> I, s1 -> II,
 * v1 -> II], y = [s1, v1, F_k]; m1 = m2 = 10, c1 = 1e6, c2 = 1e7, d1 = 1, d2 = 2. */
static cosa_system *twomass(double ck, double dk)
{
    const double m1 = 10, m2 = 10, c1 = 1e6, c2 = 1e7, d1 = 1, d2 = 2;
    double A1[4] = {0, -c1 / m1, 1, -d1 / m1};
    double B1[2] = {0, 1 / m1};
    double C1[4] = {1, 0, 0, 1};
    double D1[2] = {0, 0};
    double A2[4] = {0, -(ck + c2) / m2, 1, -(dk + d2) / m2};
    double B2[4] = {0, ck / m2, 0, dk / m2};
    double C2[2] = {ck, dk};
    double D2[2] = {-ck, -dk};
    cosa_subsystem subs[2] = {{2, 1, 2, A1, B1, C1, D1}, {2, 2, 1, A2, B2, C2, D2}};
    /* L (3 x 3, column-major): u1 = y3, u2 = y1, u3 = y2 */
    double L[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, subs, L), COSA_OK);
    return sys;
}

/* Random stable 3-subsystem system with direct feedthrough in every subsystem
 * and cross coupling only: (nx, nu, ny) = (2,1,2), (3,2,1), (1,1,1). */
static cosa_system *random3(uint64_t seed)
{
    static const size_t dims[3][3] = {{2, 1, 2}, {3, 2, 1}, {1, 1, 1}};
    double buf[3][4][9];
    cosa_subsystem subs[3];
    uint64_t st = seed;
    size_t oy[3], ou[3], nu = 0, ny = 0;
    for (int i = 0; i < 3; i++) {
        size_t nx = dims[i][0], nui = dims[i][1], nyi = dims[i][2];
        double *A = buf[i][0], *B = buf[i][1], *C = buf[i][2], *D = buf[i][3];
        double norm1 = 0.0;
        for (size_t j = 0; j < nx; j++) {
            double col = 0.0;
            for (size_t r = 0; r < nx; r++) {
                A[r + j * nx] = urand(&st);
                col += fabs(A[r + j * nx]);
            }
            norm1 = fmax(norm1, col);
        }
        /* shift: every eigenvalue has real part <= -0.2 */
        for (size_t r = 0; r < nx; r++)
            A[r + r * nx] -= norm1 + 0.2;
        for (size_t k = 0; k < nx * nui; k++)
            B[k] = urand(&st);
        for (size_t k = 0; k < nyi * nx; k++)
            C[k] = urand(&st);
        for (size_t k = 0; k < nyi * nui; k++)
            D[k] = 0.5 * urand(&st);
        subs[i] = (cosa_subsystem){nx, nui, nyi, A, B, C, D};
        ou[i] = nu;
        oy[i] = ny;
        nu += nui;
        ny += nyi;
    }
    double L[16];
    for (int i = 0; i < 3; i++)         /* input subsystem  */
        for (int k = 0; k < 3; k++)     /* output subsystem */
            for (size_t r = 0; r < dims[i][1]; r++)
                for (size_t c = 0; c < dims[k][2]; c++)
                    L[ou[i] + r + (oy[k] + c) * nu] = i == k ? 0.0 : urand(&st);
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 3, subs, L), COSA_OK);
    return sys;
}

/* z0 = [x0 | ybar_0 | ... | ybar_{-p} | du_0]: every history slot and du
 * random (all columns of Phi excited), scaled per component by yscale (ny)
 * and duscale (nu). */
static void z0_random(const cosa_layout *lay, const double *x0, const double *yscale,
                      const double *duscale, uint64_t seed, double *z0)
{
    uint64_t st = seed;
    memcpy(z0, x0, lay->nx * sizeof *z0);
    for (size_t j = 0; j < lay->nhist; j++)
        for (size_t l = 0; l < lay->ny; l++)
            z0[lay->off_y + j * lay->ny + l] = yscale[l] * urand(&st);
    if (lay->has_du)
        for (size_t k = 0; k < lay->nu; k++)
            z0[lay->off_du + k] = duscale[k] * urand(&st);
}

/* ------------------------------------------------------------------------ */
/* argument validation                                                      */
/* ------------------------------------------------------------------------ */

Test(check_linear, rejects_bad_arguments)
{
    cosa_system *sys = twomass(2e5, 5e2);
    cosa_scheme s = scheme(1, COSA_CORR_MBCORR, 1.0);
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, &s, &lay), COSA_OK);
    double *z0 = calloc(lay.dim, sizeof *z0), *traj = calloc(3 * lay.dim, sizeof *traj);
    cr_assert_eq(cosa_check_linear_run(NULL, &s, 1e-4, z0, 2, traj), COSA_EINVAL);
    cr_assert_eq(cosa_check_linear_run(sys, NULL, 1e-4, z0, 2, traj), COSA_EINVAL);
    cr_assert_eq(cosa_check_linear_run(sys, &s, 1e-4, NULL, 2, traj), COSA_EINVAL);
    cr_assert_eq(cosa_check_linear_run(sys, &s, 1e-4, z0, 2, NULL), COSA_EINVAL);
    cr_assert_eq(cosa_check_linear_run(sys, &s, 0.0, z0, 2, traj), COSA_ERANGE);
    cr_assert_eq(cosa_check_linear_run(sys, &s, -1e-4, z0, 2, traj), COSA_ERANGE);
    cr_assert_eq(cosa_check_linear_run(sys, &s, INFINITY, z0, 2, traj), COSA_ERANGE);
    cr_assert_eq(cosa_check_linear_run(sys, &s, NAN, z0, 2, traj), COSA_ERANGE);
    cr_assert_eq(cosa_check_linear_run(sys, &s, 1e-4, z0, SIZE_MAX, traj), COSA_ERANGE);
    cosa_scheme bad = scheme(COSA_ORDER_MAX + 1, 0, 1.0);
    cr_assert_eq(cosa_check_linear_run(sys, &bad, 1e-4, z0, 2, traj), COSA_ESCHEME);
    bad = scheme(0, 0, NAN);
    cr_assert_neq(cosa_check_linear_run(sys, &bad, 1e-4, z0, 2, traj), COSA_OK);
    bad = scheme(0, COSA_CORR_OUTPUT, 1.0);
    bad.exec = COSA_GAUSS_SEIDEL;
    cr_assert_eq(cosa_check_linear_run(sys, &bad, 1e-4, z0, 2, traj), COSA_EUNSUPPORTED);
    z0[lay.off_y + 1] = NAN;
    cr_assert_eq(cosa_check_linear_run(sys, &s, 1e-4, z0, 2, traj), COSA_ENONFINITE);
    z0[lay.off_y + 1] = 0.0;
    /* nsteps = 0: the trajectory is z0 */
    z0[0] = 3.0;
    cr_assert_eq(cosa_check_linear_run(sys, &s, 1e-4, z0, 0, traj), COSA_OK);
    cr_assert_eq(traj[0], 3.0);
    free(z0);
    free(traj);
    cosa_system_free(sys);
}

/* Numerical failures come back as statuses (and leave nothing allocated:
 * run under valgrind / ASan).  x' = u, y = x, u = 2 y, dt = 0.5: for ZOH
 * G = C B_d0 + D = dt = 0.5 exactly, so I - G L = 1 - 0.5 * 2 = 0 while
 * I - D L = 1 is fine.  With u = 1e3 y the plain scheme grows by ~1e3 per
 * step of dt = 1 and overflows within 150 steps. */
Test(check_linear, reports_numerical_failures)
{
    double A[1] = {0}, B[1] = {1}, C[1] = {1}, D[1] = {0}, L[1] = {2.0};
    cosa_subsystem sub = {1, 1, 1, A, B, C, D};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 1, &sub, L), COSA_OK);
    double z0[3] = {1.0, 1.0, 0.0}, traj[3 * 151];
    cosa_scheme s = scheme(0, COSA_CORR_OUTPUT, 1.0);
    cr_expect_eq(cosa_check_linear_run(sys, &s, 0.5, z0, 3, traj), COSA_ECORRSINGULAR);
    s = scheme(0, COSA_CORR_MBCORR, 1.0);
    cr_expect_eq(cosa_check_linear_run(sys, &s, 0.5, z0, 3, traj), COSA_ECORRSINGULAR);
    L[0] = 1e3;
    cr_assert_eq(cosa_system_set_coupling(sys, L), COSA_OK);
    s = scheme(0, COSA_CORR_NONE, 1.0);
    cr_expect_eq(cosa_check_linear_run(sys, &s, 1.0, z0, 150, traj), COSA_ENONFINITE);
    cosa_system_free(sys);
}

/* ------------------------------------------------------------------------ */
/* (a) zero coupling: x_n = exp(A n dt) x0 per subsystem                    */
/* ------------------------------------------------------------------------ */

/* Two subsystems, L = 0: a damped oscillator x'' + 2 zeta w x' + w^2 x = 0 and
 * a random stable 3x3 block.  Every scheme must reproduce the uncoupled flow.
 * Tolerance 8 n eps (relative to max ||x||): each step multiplies by the
 * computed exp(A dt), accurate to a few ulps for these well-conditioned
 * blocks (||A dt|| <= 1), and the errors add up linearly over n steps. */
Test(check_linear, zero_coupling_is_uncoupled_flow)
{
    const double w = 3.0, zeta = 0.1, dt = 0.05;
    const size_t nsteps = 100;
    double A1[4] = {0, -w * w, 1, -2 * zeta * w}, B1[2] = {0, 1}, C1[2] = {1, 0}, D1[1] = {0};
    double A2[9], B2[3], C2[3], D2[1] = {0.3};
    uint64_t rs = 42;
    for (int k = 0; k < 9; k++)
        A2[k] = urand(&rs);
    for (int k = 0; k < 3; k++)
        A2[k + 3 * k] -= 3.5;
    for (int k = 0; k < 3; k++) {
        B2[k] = urand(&rs);
        C2[k] = urand(&rs);
    }
    cosa_subsystem subs[2] = {{2, 1, 1, A1, B1, C1, D1}, {3, 1, 1, A2, B2, C2, D2}};
    double L[4] = {0, 0, 0, 0};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, subs, L), COSA_OK);
    const double x0[5] = {1.0, -2.0, 0.5, 0.25, -1.0};

    /* reference: exp(A n dt) x0 with the stacked (block-diagonal) A */
    const double *A = cosa_system_A(sys);
    cosa_expm_workspace *ew = cosa_expm_workspace_alloc(5);
    double M[25], E[25], xref[5 * 101];
    for (size_t n = 0; n <= nsteps; n++) {
        for (int k = 0; k < 25; k++)
            M[k] = A[k] * (double)n * dt;
        cr_assert_eq(cosa_expm(5, M, 5, E, 5, ew), COSA_OK);
        for (int r = 0; r < 5; r++) {
            double s = 0.0;
            for (int c = 0; c < 5; c++)
                s += E[r + 5 * c] * x0[c];
            xref[r + 5 * n] = s;
        }
    }
    cosa_expm_workspace_free(ew);

    /* closed form of the oscillator: x = e^{-zeta w t} (x0 cos wd t + (v0 + zeta w x0)/wd sin wd t),
     * v = e^{-zeta w t} (v0 cos wd t - (w^2 x0 + zeta w v0)/wd sin wd t) */
    const double wd = w * sqrt(1 - zeta * zeta);
    double xosc[2 * 101];
    for (size_t n = 0; n <= nsteps; n++) {
        double t = (double)n * dt, e = exp(-zeta * w * t), cs = cos(wd * t), sn = sin(wd * t);
        xosc[2 * n] = e * (x0[0] * cs + (x0[1] + zeta * w * x0[0]) / wd * sn);
        xosc[2 * n + 1] = e * (x0[1] * cs - (w * w * x0[0] + zeta * w * x0[1]) / wd * sn);
    }

    static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                      COSA_CORR_MBCORR};
    double worst = 0.0;
    for (int p = 0; p <= 4; p++)
        for (int ic = 0; ic < 4; ic++) {
            cosa_scheme s = scheme(p, corrs[ic], 1.0);
            cosa_layout lay;
            cosa_layout_get(sys, &s, &lay);
            double *z0 = calloc(lay.dim, sizeof *z0);
            uint64_t hs = 7;
            memcpy(z0, x0, sizeof x0);
            for (size_t k = lay.off_y; k < lay.off_du; k++)
                z0[k] = urand(&hs); /* history must not matter */
            size_t dim;
            double *traj = run(sys, &s, dt, z0, nsteps, &dim);
            double dmax = 0.0, xmax = 0.0, dosc = 0.0, omax = 0.0;
            for (size_t n = 0; n <= nsteps; n++) {
                for (int r = 0; r < 5; r++) {
                    dmax = fmax(dmax, fabs(traj[r + n * dim] - xref[r + 5 * n]));
                    xmax = fmax(xmax, fabs(xref[r + 5 * n]));
                }
                for (int r = 0; r < 2; r++) {
                    dosc = fmax(dosc, fabs(traj[r + n * dim] - xosc[r + 2 * n]));
                    omax = fmax(omax, fabs(xosc[r + 2 * n]));
                }
            }
            double tol = 8.0 * (double)nsteps * EPS;
            cr_expect_leq(dmax / xmax, tol, "p=%d corr=%u: vs expm(A n dt): %g > %g", p,
                          corrs[ic], dmax / xmax, tol);
            cr_expect_leq(dosc / omax, tol, "p=%d corr=%u: vs closed form: %g > %g", p,
                          corrs[ic], dosc / omax, tol);
            worst = fmax(worst, fmax(dmax / xmax, dosc / omax) / EPS);
            free(traj);
            free(z0);
        }
    cr_log_info("zero coupling: worst relative error %.3g eps over %zu steps", worst, nsteps);
    cosa_system_free(sys);
}

/* ------------------------------------------------------------------------ */
/* (b) an integrator fed by a polynomial of degree <= p is integrated exactly */
/* ------------------------------------------------------------------------ */

/* Subsystem 1: x' = u, y = x.  Subsystem 2 (no inputs): a chain of m+1
 * integrators q_j' = q_{j+1}, output q_0(t) = sum_j c_j t^j / j!, a polynomial
 * of degree m.  L feeds q_0 into the integrator.  For m <= p the extrapolation
 * through exact samples is exact, so x(t_n) = x(0) + int_0^{t_n} q_0; the
 * corrections see ubar = utilde and change nothing.  History slots hold exact
 * past samples of q_0 (the integrator's own history is unused).
 * Tolerance 2^(p+1) n eps relative to max |x|: the extrapolation sums p+1
 * samples with weights of total size 2^(p+1) - 1 per step. */
Test(check_linear, integrator_is_exact_for_polynomials)
{
    const double dt = 0.25;
    const size_t nsteps = 12;
    static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                      COSA_CORR_MBCORR};
    double worst = 0.0;
    for (int p = 0; p <= 4; p++)
        for (int m = 0; m <= p; m++) {
            const size_t nq = (size_t)m + 1;
            double A1[1] = {0}, B1[1] = {1}, C1[1] = {1}, D1[1] = {0};
            double A2[25] = {0}, C2[5] = {0};
            for (size_t j = 0; j + 1 < nq; j++)
                A2[j + (j + 1) * nq] = 1.0;
            C2[0] = 1.0;
            const double cj[5] = {1.0, -0.5, 0.75, -0.3, 0.2};
            cosa_subsystem subs[2] = {{1, 1, 1, A1, B1, C1, D1}, {nq, 0, 1, A2, NULL, C2, NULL}};
            double L[2] = {0.0, 1.0};
            cosa_system *sys = NULL;
            cr_assert_eq(cosa_system_create(&sys, 2, subs, L), COSA_OK);
            /* q_0(t) and its antiderivative Q(t) = sum_j c_j t^{j+1}/(j+1)! */
            double q0[16], Q[16];
            for (int n = -4; n <= (int)nsteps; n++) {
                double t = n * dt, f = 1.0, s = 0.0, S = 0.0, tp = 1.0;
                for (int j = 0; j <= m; j++) {
                    s += cj[j] * tp / f;
                    tp *= t;
                    f *= j + 1;
                    S += cj[j] * tp / f;
                }
                if (n < 0)
                    q0[-n] = s;
                else {
                    Q[n] = S;
                    if (n == 0)
                        q0[0] = s;
                }
            }
            /* ic = 4, 5: Gauss-Seidel, source first (the integrator then sees the
             * interpolant through the source's new output) and source last */
            static const size_t seqs[2][2] = {{1, 0}, {0, 1}};
            for (int ic = 0; ic < 6; ic++) {
                cosa_scheme s = scheme(p, ic < 4 ? corrs[ic] : COSA_CORR_NONE, 1.0);
                if (ic >= 4) {
                    s.exec = COSA_GAUSS_SEIDEL;
                    s.seq = seqs[ic - 4];
                }
                cosa_layout lay;
                cosa_layout_get(sys, &s, &lay);
                double z0[32] = {0};
                z0[0] = 2.0; /* integrator state */
                for (size_t j = 0; j < nq; j++)
                    z0[1 + j] = cj[j];
                for (size_t j = 0; j < lay.nhist; j++) {
                    z0[lay.off_y + j * 2] = 0.123 * (double)(j + 1); /* unused */
                    z0[lay.off_y + j * 2 + 1] = q0[j];
                }
                size_t dim;
                double *traj = run(sys, &s, dt, z0, nsteps, &dim);
                double dmax = 0.0, xmax = 0.0;
                for (size_t n = 0; n <= nsteps; n++) {
                    double ex = 2.0 + Q[n];
                    dmax = fmax(dmax, fabs(traj[n * dim] - ex));
                    xmax = fmax(xmax, fabs(ex));
                }
                double tol = ldexp(1.0, p + 1) * (double)nsteps * EPS;
                cr_expect_leq(dmax / xmax, tol, "p=%d m=%d case=%d: %g > %g", p, m, ic,
                              dmax / xmax, tol);
                worst = fmax(worst, dmax / xmax / tol);
                if (lay.has_du)
                    cr_expect_leq(fabs(traj[lay.off_du + nsteps * dim]), tol * xmax,
                                  "p=%d m=%d: du should stay 0, is %g", p, m,
                                  traj[lay.off_du + nsteps * dim]);
                free(traj);
            }
            cosa_system_free(sys);
        }
    cr_log_info("integrator: worst error / tolerance = %.3g", worst);
}

/* ------------------------------------------------------------------------ */
/* (c) scalar two-subsystem loop, worked by hand                             */
/* ------------------------------------------------------------------------ */

/* x1' = a1 x1 + b1 u1, y1 = x1;  x2' = a2 x2 + b2 u2, y2 = c2 x2 + d2 u2;
 * u1 = y2, u2 = y1.  Over a step with constant input u:
 * x+ = e^{a h} x + phi b u, phi = (e^{a h} - 1)/a = expm1(a h)/a.
 * Tolerance 16 eps relative: three steps of scalar arithmetic on both sides,
 * libm exp/expm1 against the Pade exponential (both within ~1 ulp). */
#define LOOP_A1 (-1.0)
#define LOOP_B1 1.0
#define LOOP_A2 (-2.0)
#define LOOP_B2 0.5
#define LOOP_C2 2.0
#define LOOP_D2 0.3

static cosa_system *scalar_loop(void)
{
    double A1[1] = {LOOP_A1}, B1[1] = {LOOP_B1}, C1[1] = {1}, D1[1] = {0};
    double A2[1] = {LOOP_A2}, B2[1] = {LOOP_B2}, C2[1] = {LOOP_C2}, D2[1] = {LOOP_D2};
    cosa_subsystem subs[2] = {{1, 1, 1, A1, B1, C1, D1}, {1, 1, 1, A2, B2, C2, D2}};
    double L[4] = {0, 1, 1, 0};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, subs, L), COSA_OK);
    return sys;
}

static void expect_close(const double *got, const double *want, size_t n, double tol,
                         const char *what)
{
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs(got[i] - want[i]));
        m = fmax(m, fabs(want[i]));
    }
    cr_expect_leq(d, tol * m, "%s: max diff %g, scale %g", what, d, m);
}

/* Three steps of s from z0 (run) against want, its first n values, to tol */
static void expect_run(const cosa_system *sys, const cosa_scheme *s, double h, const double *z0,
                       const double *want, size_t n, double tol, const char *what)
{
    size_t dim;
    double *traj = run(sys, s, h, z0, 3, &dim);
    expect_close(traj, want, n, tol, what);
    free(traj);
}

Test(check_linear, scalar_loop_zoh_by_hand)
{
    const double h = 0.1;
    const double e1 = exp(LOOP_A1 * h), e2 = exp(LOOP_A2 * h);
    const double p1 = expm1(LOOP_A1 * h) / LOOP_A1, p2 = expm1(LOOP_A2 * h) / LOOP_A2;
    cosa_system *sys = scalar_loop();

    /* plain ZOH, Jacobi: z = [x1 x2 | y1 y2] */
    double z0[4] = {1.0, -0.5, 0.8, -0.4}, want[16];
    memcpy(want, z0, sizeof z0);
    for (int n = 0; n < 3; n++) {
        const double *z = want + 4 * n;
        double *zn = want + 4 * (n + 1);
        double u1 = z[3], u2 = z[2];
        zn[0] = e1 * z[0] + p1 * LOOP_B1 * u1;
        zn[1] = e2 * z[1] + p2 * LOOP_B2 * u2;
        zn[2] = zn[0];
        zn[3] = LOOP_C2 * zn[1] + LOOP_D2 * u2;
    }
    cosa_scheme s = scheme(0, COSA_CORR_NONE, 1.0);
    expect_run(sys, &s, h, z0, want, 16, 16 * EPS, "ZOH");

    /* Gauss-Seidel, order (0, 1): subsystem 2 sees u2 = y1_{n+1} */
    memcpy(want, z0, sizeof z0);
    for (int n = 0; n < 3; n++) {
        const double *z = want + 4 * n;
        double *zn = want + 4 * (n + 1);
        zn[0] = e1 * z[0] + p1 * LOOP_B1 * z[3];
        zn[2] = zn[0];
        zn[1] = e2 * z[1] + p2 * LOOP_B2 * zn[2];
        zn[3] = LOOP_C2 * zn[1] + LOOP_D2 * zn[2];
    }
    s.exec = COSA_GAUSS_SEIDEL;
    expect_run(sys, &s, h, z0, want, 16, 16 * EPS, "gs:ZOH (0,1)");

    /* Gauss-Seidel, order (1, 0): subsystem 1 sees u1 = y2_{n+1} */
    const size_t seq[2] = {1, 0};
    memcpy(want, z0, sizeof z0);
    for (int n = 0; n < 3; n++) {
        const double *z = want + 4 * n;
        double *zn = want + 4 * (n + 1);
        zn[1] = e2 * z[1] + p2 * LOOP_B2 * z[2];
        zn[3] = LOOP_C2 * zn[1] + LOOP_D2 * z[2];
        zn[0] = e1 * z[0] + p1 * LOOP_B1 * zn[3];
        zn[2] = zn[0];
    }
    s.seq = seq;
    expect_run(sys, &s, h, z0, want, 16, 16 * EPS, "gs:ZOH (1,0)");
    cosa_system_free(sys);
}

/* ZOH+MBCorr by hand with the paper's own ZOH formulas: eq 16 with
 * G_ZOH = C B_d0 + D (here diag(p1 b1, c2 p2 b2 + d2)), then eq 24.
 * z = [x1 x2 | ybar1 ybar2 | du1 du2].  Tolerance 64 eps: the 2x2 solve adds
 * a condition number of I - G L (about 1.3 here) to the scalar steps. */
Test(check_linear, scalar_loop_zoh_mbcorr_by_hand)
{
    const double h = 0.1, alpha = 0.7;
    const double e1 = exp(LOOP_A1 * h), e2 = exp(LOOP_A2 * h);
    const double p1 = expm1(LOOP_A1 * h) / LOOP_A1, p2 = expm1(LOOP_A2 * h) / LOOP_A2;
    const double g1 = p1 * LOOP_B1, g2 = LOOP_C2 * p2 * LOOP_B2 + LOOP_D2;
    cosa_system *sys = scalar_loop();
    double z0[6] = {1.0, -0.5, 0.8, -0.4, 0.05, -0.02}, want[24];
    memcpy(want, z0, sizeof z0);
    for (int n = 0; n < 3; n++) {
        const double *z = want + 6 * n;
        double *zn = want + 6 * (n + 1);
        double u1 = z[3] + z[4], u2 = z[2] + z[5];
        zn[0] = e1 * z[0] + p1 * LOOP_B1 * u1;
        zn[1] = e2 * z[1] + p2 * LOOP_B2 * u2;
        double y1 = zn[0], y2 = LOOP_C2 * zn[1] + LOOP_D2 * u2;
        /* eq 16: [1, -g1; -g2, 1] ybar = y - G (L ybar_n + du) */
        double r1 = y1 - g1 * u1, r2 = y2 - g2 * u2;
        double det = 1.0 - g1 * g2;
        zn[2] = (r1 + g1 * r2) / det;
        zn[3] = (r2 + g2 * r1) / det;
        /* eq 24: du+ = du + alpha (L (ybar_{n+1} - ybar_n)/2 - du) */
        zn[4] = z[4] + alpha * ((zn[3] - z[3]) / 2 - z[4]);
        zn[5] = z[5] + alpha * ((zn[2] - z[2]) / 2 - z[5]);
    }
    cosa_scheme s = scheme(0, COSA_CORR_MBCORR, alpha);
    expect_run(sys, &s, h, z0, want, 24, 64 * EPS, "ZOH+MBCorr");
    cosa_system_free(sys);
}

/* FOH+ecorr by hand (eq 25 with the FOH extrapolation 2 ybar_n - ybar_{n-1}
 * inside the step): exercises the degree-1 input polynomial and the degree-2
 * interpolant of the state correction.  Over a step with u(s) = u0 + u1 s:
 * x+ = e^{a h} x + b (phi0 u0 + phi1 u1), phi0 = (e^{ah}-1)/a,
 * phi1 = int_0^h e^{a(h-t)} t/h dt = (e^{ah} - 1 - a h)/(a^2 h).
 * Tolerance 1e3 eps: phi1 by this formula loses about log10(1/(a h)) ~ 1-2
 * digits to cancellation (that is why the library avoids it). */
Test(check_linear, scalar_loop_foh_ecorr_by_hand)
{
    const double h = 0.1, alpha = 1.0;
    const double a1 = LOOP_A1, a2 = LOOP_A2;
    const double e1 = exp(a1 * h), e2 = exp(a2 * h);
    const double p10 = expm1(a1 * h) / a1, p20 = expm1(a2 * h) / a2;
    const double p11 = (expm1(a1 * h) - a1 * h) / (a1 * a1 * h);
    const double p21 = (expm1(a2 * h) - a2 * h) / (a2 * a2 * h);
    cosa_system *sys = scalar_loop();
    /* z = [x1 x2 | y1_n y2_n | y1_{n-1} y2_{n-1} | du1 du2] */
    double z0[8] = {1.0, -0.5, 0.8, -0.4, 0.7, -0.3, 0.01, 0.02}, want[32];
    memcpy(want, z0, sizeof z0);
    for (int n = 0; n < 3; n++) {
        const double *z = want + 8 * n;
        double *zn = want + 8 * (n + 1);
        /* u1 = y2 extrapolated, u2 = y1 extrapolated: u(s) = y_n + (y_n - y_{n-1}) s + du */
        double u10 = z[3] + z[6], u11 = z[3] - z[5];
        double u20 = z[2] + z[7], u21 = z[2] - z[4];
        zn[0] = e1 * z[0] + LOOP_B1 * (p10 * u10 + p11 * u11);
        zn[1] = e2 * z[1] + LOOP_B2 * (p20 * u20 + p21 * u21);
        zn[2] = zn[0];
        zn[3] = LOOP_C2 * zn[1] + LOOP_D2 * (u20 + u21);
        zn[4] = z[2];
        zn[5] = z[3];
        /* eq 25 */
        zn[6] = z[6] + alpha * ((5 * zn[3] - 10 * z[3] + 5 * z[5]) / 12 - z[6]);
        zn[7] = z[7] + alpha * ((5 * zn[2] - 10 * z[2] + 5 * z[4]) / 12 - z[7]);
    }
    cosa_scheme s = scheme(1, COSA_CORR_STATE, alpha);
    expect_run(sys, &s, h, z0, want, 32, 1e3 * EPS, "FOH+ecorr");
    cosa_system_free(sys);
}

/* ------------------------------------------------------------------------ */
/* (d) ZOH + output correction on an exact model: M_y = M_du = 0 (eq 40)      */
/* ------------------------------------------------------------------------ */

/* |M^-1| of the n x n matrix M (n <= 8) by Gauss-Jordan with partial
 * pivoting in long double: a scale for the tolerance below, independent of
 * the BLAS under test.  Returns 0 if M is singular. */
static int abs_inverse(size_t n, const double *M, double *Mi)
{
    long double a[8][16];
    cr_assert(n <= 8);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 2 * n; j++)
            a[i][j] = j < n ? (long double)M[i + j * n] : (j - n == i ? 1.0L : 0.0L);
    for (size_t k = 0; k < n; k++) {
        size_t piv = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabsl(a[i][k]) > fabsl(a[piv][k]))
                piv = i;
        if (a[piv][k] == 0.0L)
            return 0;
        for (size_t j = 0; j < 2 * n; j++) {
            long double t = a[k][j];
            a[k][j] = a[piv][j];
            a[piv][j] = t;
        }
        for (size_t i = 0; i < n; i++) {
            if (i == k)
                continue;
            long double f = a[i][k] / a[k][k];
            for (size_t j = 0; j < 2 * n; j++)
                a[i][j] -= f * a[k][j];
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            Mi[i + j * n] = (double)fabsl(a[i][n + j] / a[i][i]);
    return 1;
}

/* Perturbing ybar_n and du_n in z0 must leave ybar_{n+1} unchanged.  With the
 * constant ZOH input u = L ybar_n + du_n of a run,
 *   x_1 = A_d x_0 + B_d0 u,  y_1 = C x_1 + D u,
 *   ybar_1 = M^-1 (y_1 - G u),  M = I - G L,  G = G_ZOH = C B_d0 + D,
 * so ybar_1 = M^-1 C A_d x_0 in exact arithmetic, whatever ybar_n and du_n.
 * The runs differ only by rounding.  First-order error model, entrywise
 * (|.| entrywise, u = EPS/2, n = dim of z):
 *   - each step's exponential (input inside the Van Loan matrix, lib/
 *     cosim_linear.c) and the probes' behind G are accurate to n u kappa_i,
 *     kappa_i = max(1, rho(dt A_i)), normwise in the balanced basis of the
 *     subsystem (D_i^-1 A_i D_i a scaled normal matrix; for a mass-spring
 *     block d_v / d_s is the natural frequency): the accuracy test_expm
 *     establishes.  Per state q of subsystem i that is
 *     n u kappa_i d_q max_q' (|A_d| |x_0| + |B_d0| v)_q' / d_q'
 *     (a position carries the rounding of the velocity / omega);
 *   - the sums C x_1 + D u, y_1 - G u and the LU solve with M add n u times
 *     the sizes of their terms (backward stability), the solve also
 *     |dG| |L| |ybar_1|;
 *   - M^-1 carries all of it into ybar_1 componentwise (Skeel).
 * Hence, per output component i, with w the largest over both runs of
 *   w = |C| (x_err + |x_1|) + (|D| + |G|) v,   v = |u| + |L| |ybar_1|,
 *   |ybar_1^a - ybar_1^b|_i <= K n u (|M^-1| w)_i.
 * K = 10 (a factor 2 for two runs, small constants of the sums); measured
 * ratios <= 0.78 over OpenBLAS Prescott/Haswell/Zen/SkylakeX and the
 * reference BLAS (the former bound, 512 EPS against |C||x_1| + |D||u| +
 * |ybar_1|, saw up to 271 EPS: kappa = 10.4 of the stiff set and the
 * velocity-to-position rounding were not in its scale).  An actual
 * dependence on ybar_n moves ybar_1 by O(1) relative, ~1e13 times the bound
 * (checked below without the output correction). */
static void check_my_zero(cosa_system *sys, double dt, const double *x0, const double *ysc,
                          const double *dusc, unsigned corr, const char *what)
{
    cosa_scheme s = scheme(0, corr, 1.0);
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, &s, &lay), COSA_OK);
    const size_t nx = lay.nx, ny = lay.ny, nu = lay.nu;
    const double *C = cosa_system_C(sys), *D = cosa_system_D(sys), *L = cosa_system_L(sys);
    cr_assert(nx <= 8 && ny <= 8 && nu <= 8);

    /* A_d, B_d0, G = C B_d0 + D, |M^-1|, and kappa per state (of its subsystem) */
    double Ad[64], Bd[64], G[64], M[64], Mi[64], kap[8], bal[8], T[64], rho;
    size_t sub[8];
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(sys, 0);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(nx);
    cr_assert(pw && ew);
    cr_assert_eq(cosa_discretize(sys, 0, dt, Ad, Bd, pw), COSA_OK);
    const double *A = cosa_system_A(sys);
    for (size_t i = 0; i < cosa_system_nsub(sys); i++) {
        size_t nxi, ox;
        cosa_system_sub_dims(sys, i, &nxi, NULL, NULL, &ox, NULL, NULL);
        for (size_t c = 0; c < nxi; c++)
            for (size_t r = 0; r < nxi; r++)
                T[r + c * nxi] = dt * A[ox + r + (ox + c) * nx];
        rho = 0.0;
        if (nxi > 0)
            cr_assert_eq(cosa_spectral_radius(nxi, T, nxi, &rho, ew), COSA_OK);
        tu_balance(nxi, A + ox + ox * nx, nx, bal + ox);
        for (size_t r = 0; r < nxi; r++) {
            kap[ox + r] = fmax(1.0, rho);
            sub[ox + r] = i;
        }
    }
    cosa_phi_workspace_free(pw);
    cosa_eig_workspace_free(ew);
    for (size_t k = 0; k < nu; k++)
        for (size_t i = 0; i < ny; i++) {
            double g = D[i + k * ny];
            for (size_t r = 0; r < nx; r++)
                g += C[i + r * ny] * Bd[r + k * nx];
            G[i + k * ny] = g;
        }
    for (size_t l = 0; l < ny; l++)
        for (size_t i = 0; i < ny; i++) {
            double m = i == l ? 1.0 : 0.0;
            for (size_t k = 0; k < nu; k++)
                m -= G[i + k * ny] * L[k + l * nu];
            M[i + l * ny] = m;
        }
    cr_assert(abs_inverse(ny, M, Mi), "%s: I - G L singular", what);

    double *z[2], *t[2], w[8] = {0};
    size_t dim;
    for (int r = 0; r < 2; r++) {
        z[r] = calloc(lay.dim, sizeof *z[r]);
        z0_random(&lay, x0, ysc, dusc, 11 + (uint64_t)r, z[r]); /* same x, other ybar_n, du_n */
        t[r] = run(sys, &s, dt, z[r], 1, &dim);
        const double *yb0 = z[r] + lay.off_y, *yb1 = t[r] + dim + lay.off_y, *x1 = t[r] + dim;
        double v[8], xerr[8];
        for (size_t k = 0; k < nu; k++) {
            double uk = lay.has_du ? z[r][lay.off_du + k] : 0.0, lyk = 0.0;
            for (size_t l = 0; l < ny; l++) {
                uk += L[k + l * nu] * yb0[l];
                lyk += fabs(L[k + l * nu]) * fabs(yb1[l]);
            }
            v[k] = fabs(uk) + lyk;
        }
        double e[8] = {0}; /* per subsystem: max_q (|A_d| |x_0| + |B_d0| v)_q / bal_q */
        for (size_t q = 0; q < nx; q++) {
            double a = 0.0;
            for (size_t c = 0; c < nx; c++)
                a += fabs(Ad[q + c * nx]) * fabs(x0[c]);
            for (size_t k = 0; k < nu; k++)
                a += fabs(Bd[q + k * nx]) * v[k];
            e[sub[q]] = fmax(e[sub[q]], a / bal[q]);
        }
        for (size_t q = 0; q < nx; q++)
            xerr[q] = kap[q] * bal[q] * e[sub[q]];
        for (size_t i = 0; i < ny; i++) {
            double m = 0.0;
            for (size_t q = 0; q < nx; q++)
                m += fabs(C[i + q * ny]) * (xerr[q] + fabs(x1[q]));
            for (size_t k = 0; k < nu; k++)
                m += (fabs(D[i + k * ny]) + fabs(G[i + k * ny])) * v[k];
            w[i] = fmax(w[i], m);
        }
    }
    const double n = (double)lay.dim, K = 10.0, U = EPS / 2;
    double worst = 0.0;
    for (size_t l = 0; l < ny; l++) {
        double sc = 0.0;
        for (size_t i = 0; i < ny; i++)
            sc += Mi[l + i * ny] * w[i];
        double d = fabs(t[0][dim + lay.off_y + l] - t[1][dim + lay.off_y + l]);
        double ratio = d / (n * U * sc);
        cr_expect_leq(ratio, K, "%s: ybar_1[%zu] moved by %g, ratio %.3g > %g (scale %g)", what,
                      l, d, ratio, K, sc);
        worst = fmax(worst, ratio);
    }
    cr_log_info("M_y = 0 check %s: max ratio %.3g (bound %g)", what, worst, K);
    for (int r = 0; r < 2; r++) {
        free(z[r]);
        free(t[r]);
    }
}

Test(check_linear, zoh_mbcorr_forgets_previous_outputs)
{
    static const double par[3][3] = {{2e5, 5e2, 1e-4}, {1e3, 10, 1e-3}, {1e9, 3.6e5, 3.16e-4}};
    const double x0[4] = {0, 100, 0, -100};
    for (int k = 0; k < 3; k++) {
        cosa_system *sys = twomass(par[k][0], par[k][1]);
        double ysc[3] = {0.1, 100, 0.2 * par[k][0] + 200 * par[k][1]};
        double dusc[3] = {0.01 * ysc[2], 0.01 * ysc[0], 0.01 * ysc[1]};
        char what[64];
        snprintf(what, sizeof what, "two-mass set %d ZOH+MBCorr", k);
        check_my_zero(sys, par[k][2], x0, ysc, dusc, COSA_CORR_MBCORR, what);
        snprintf(what, sizeof what, "two-mass set %d ZOH+ocorr", k);
        check_my_zero(sys, par[k][2], x0, ysc, dusc, COSA_CORR_OUTPUT, what);
        /* sanity: without output correction ybar_1 depends on ybar_0 */
        cosa_scheme s = scheme(0, COSA_CORR_STATE, 1.0);
        cosa_layout lay;
        cosa_layout_get(sys, &s, &lay);
        double z0[16], z1[16];
        z0_random(&lay, x0, ysc, dusc, 11, z0);
        z0_random(&lay, x0, ysc, dusc, 12, z1);
        size_t dim;
        double *ta = run(sys, &s, par[k][2], z0, 1, &dim), *tb = run(sys, &s, par[k][2], z1, 1, &dim);
        double d = 0.0;
        for (size_t l = 0; l < lay.ny; l++)
            d = fmax(d, fabs(ta[dim + lay.off_y + l] - tb[dim + lay.off_y + l]));
        cr_expect_gt(d, 1e-6 * vnorm_inf(lay.ny, ta + dim + lay.off_y));
        free(ta);
        free(tb);
        cosa_system_free(sys);
    }
    cosa_system *sys = random3(2024);
    double x0r[6] = {1, -1, 0.5, 0.3, -0.7, 0.2}, ysc[4] = {1, 1, 1, 1},
           dusc[4] = {0.1, 0.1, 0.1, 0.1};
    check_my_zero(sys, 0.1, x0r, ysc, dusc, COSA_CORR_MBCORR, "random3 ZOH+MBCorr");
    check_my_zero(sys, 0.1, x0r, ysc, dusc, COSA_CORR_OUTPUT, "random3 ZOH+ocorr");
    cosa_system_free(sys);
}

/* ------------------------------------------------------------------------ */
/* (e) the main cross-check: trajectory == Phi^n z0                          */
/* ------------------------------------------------------------------------ */

/* For every p = 0..4, correction in {none, ocorr, ecorr, MBCorr}, alpha in
 * {1, 0.5}: 50 steps from a z0 with x0 = [0, 100, 0, -100] and a random history
 * and du.  Measure max_n ||z_n - Phi^n z0||_inf / max_n ||z_n||_inf.
 * Tolerance 1e-10: both sides are accurate to ~1e-15 relative per step on
 * benign sets; the stiff set (||A dt|| ~ 3e4, non-normal) costs a few digits
 * in the exponentials of both sides (doc/method.md reports 3e-11 there), and for
 * unstable schemes the perturbations grow like the trajectory, so the ratio
 * stays bounded. */
struct xcase {
    const char *name;
    cosa_system *sys;
    double dt;
    double x0[8];
    double ysc[8], dusc[8];
};

static double cross_check(const struct xcase *xc, int p, unsigned corr, double alpha,
                          double *rho_growth)
{
    const size_t nsteps = 50;
    cosa_scheme s = scheme(p, corr, alpha);
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(xc->sys, &s, &lay), COSA_OK);
    const size_t dim = lay.dim;
    double *z0 = calloc(dim, sizeof *z0), *Phi = calloc(dim * dim, sizeof *Phi),
           *zp = calloc((nsteps + 1) * dim, sizeof *zp);
    z0_random(&lay, xc->x0, xc->ysc, xc->dusc, 1000 + (uint64_t)p, z0);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(xc->sys, p);
    cr_assert_not_null(w);
    cosa_status st = cosa_phi_build(xc->sys, &s, xc->dt, Phi, dim, w);
    cr_assert_eq(st, COSA_OK, "phi_build: %d", (int)st);
    memcpy(zp, z0, dim * sizeof *z0);
    for (size_t n = 0; n < nsteps; n++)
        tu_phi_matvec(Phi, dim, zp + n * dim, zp + (n + 1) * dim);
    size_t d2;
    double *traj = run(xc->sys, &s, xc->dt, z0, nsteps, &d2);
    double rel = rel_traj_diff(dim, nsteps + 1, 0, dim, zp, traj);
    *rho_growth = vnorm_inf(dim, traj + nsteps * dim) / vnorm_inf(dim, z0);
    free(traj);
    cosa_phi_workspace_free(w);
    free(zp);
    free(Phi);
    free(z0);
    return rel;
}

Test(check_linear, trajectory_equals_phi_power)
{
    static const double par[3][3] = {{2e5, 5e2, 1e-4}, {1e3, 10, 1e-3}, {1e9, 3.6e5, 3.16e-4}};
    struct xcase xc[4];
    for (int k = 0; k < 3; k++) {
        double ck = par[k][0], dk = par[k][1];
        xc[k] = (struct xcase){.name = NULL, .sys = twomass(ck, dk), .dt = par[k][2],
                               .x0 = {0, 100, 0, -100},
                               .ysc = {0.1, 100, 0.2 * ck + 200 * dk}};
        xc[k].dusc[0] = 0.01 * xc[k].ysc[2];
        xc[k].dusc[1] = 0.01 * xc[k].ysc[0];
        xc[k].dusc[2] = 0.01 * xc[k].ysc[1];
    }
    xc[0].name = "two-mass ck=2e5 dk=5e2 dt=1e-4";
    xc[1].name = "two-mass ck=1e3 dk=10 dt=1e-3";
    xc[2].name = "two-mass ck=1e9 dk=3.6e5 dt=3.16e-4 (stiff)";
    xc[3] = (struct xcase){.name = "random 3-subsystem, feedthrough, dt=0.1",
                           .sys = random3(2024), .dt = 0.1,
                           .x0 = {1, -1, 0.5, 0.3, -0.7, 0.2},
                           .ysc = {1, 1, 1, 1}, .dusc = {0.1, 0.1, 0.1, 0.1}};
    static const unsigned corrs[4] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                      COSA_CORR_MBCORR};
    static const char *const cname[4] = {"", "+ocorr", "+ecorr", "+mbcorr"};
    for (int k = 0; k < 4; k++) {
        double worst = 0.0;
        for (int p = 0; p <= 4; p++)
            for (int ic = 0; ic < 4; ic++)
                for (int ia = 0; ia < 2; ia++) {
                    double alpha = ia == 0 ? 1.0 : 0.5;
                    if (ia == 1 && !(corrs[ic] & COSA_CORR_STATE))
                        continue; /* alpha only enters the state correction */
                    double growth;
                    double rel = cross_check(&xc[k], p, corrs[ic], alpha, &growth);
                    cr_expect_leq(rel, 1e-10, "%s: p%d%s alpha=%g: rel diff %.3g (growth %.3g)",
                                  xc[k].name, p, cname[ic], alpha, rel, growth);
                    cr_log_info("%s p%d%s a=%g: rel %.3g growth %.3g", xc[k].name, p,
                                cname[ic], alpha, rel, growth);
                    worst = fmax(worst, rel);
                }
        cr_log_info("%s: worst relative difference to Phi^n z0: %.3g", xc[k].name, worst);
        cosa_system_free(xc[k].sys);
    }
}
