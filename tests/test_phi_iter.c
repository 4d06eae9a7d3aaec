/* test_phi_iter.c -- Phi of the iterative coupling schemes (imp:, gs-imp:,
 * gs:P/Q) against a direct implementation of the step procedure of README
 * "Iterative coupling" (explicit loops over the sweeps and the units, the
 * input polynomials from Vandermonde solves, not from cosa's Lagrange
 * tables), and the identities of the conventions: k = 1 is the explicit
 * scheme, the converged step does not depend on omega or on Jacobi versus
 * Gauss-Seidel, large k approaches it at the rate rho_iter, relax_max and
 * relax_opt against a brute-force scan, convergence orders q + 1. */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMAX 32 /* room for the small test systems */

/* Monomial coefficients c[0..d] of the degree-d polynomial through
 * (node[i], val[i]), i = 0..d: a Vandermonde solve (dgesv). */
static void poly_fit(int d, const double *node, const double *val, double *c)
{
    double V[(COSA_ORDER_MAX + 2) * (COSA_ORDER_MAX + 2)];
    lapack_int ipiv[COSA_ORDER_MAX + 2], n = d + 1;
    for (int i = 0; i <= d; i++) {
        double pw = 1.0;
        for (int m = 0; m <= d; m++, pw *= node[i])
            V[i + m * n] = pw;
        c[i] = val[i];
    }
    cr_assert_eq(LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, V, n, ipiv, c, n), 0);
}

/* The test's view of a system: stacked matrices, owners, Ad and Q_m. */
typedef struct {
    const cosa_system *sys;
    size_t nsub, nx, nu, ny;
    size_t ox[8], ou[8], oy[8], nxi[8], nui[8], nyi[8], owner[NMAX];
    const double *C, *D, *L;
    double Ad[NMAX * NMAX], Q[(COSA_ORDER_MAX + 1) * NMAX * NMAX];
} tsys;

static void tsys_init(tsys *t, const cosa_system *sys, int q, double dt)
{
    t->sys = sys;
    t->nsub = cosa_system_nsub(sys);
    t->nx = cosa_system_nx(sys);
    t->nu = cosa_system_nu(sys);
    t->ny = cosa_system_ny(sys);
    for (size_t i = 0; i < t->nsub; i++) {
        cosa_system_sub_dims(sys, i, &t->nxi[i], &t->nui[i], &t->nyi[i], &t->ox[i], &t->ou[i],
                             &t->oy[i]);
        for (size_t k = 0; k < t->nyi[i]; k++)
            t->owner[t->oy[i] + k] = i;
    }
    t->C = cosa_system_C(sys);
    t->D = cosa_system_D(sys);
    t->L = cosa_system_L(sys);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, q);
    cr_assert_not_null(w);
    cr_assert_eq(cosa_discretize(sys, q, dt, t->Ad, t->Q, w), COSA_OK);
    cosa_phi_workspace_free(w);
}

/* One sweep of the procedure: from x_n (x), the history hist[j] (ybar_{n-j},
 * j = 0..q-1) and the iterate yhat, the new states xn and outputs y. */
static void direct_sweep(const tsys *t, const cosa_scheme *s, const double *x,
                         const double *hist, const double *yhat, double *xn, double *y)
{
    const int q = s->order + s->q_extra;
    const size_t nx = t->nx, nu = t->nu, ny = t->ny;
    int advanced[8] = {0};
    double node[COSA_ORDER_MAX + 2], val[COSA_ORDER_MAX + 2], coef[NMAX][COSA_ORDER_MAX + 2];
    for (int i = 0; i <= q; i++)
        node[i] = 1.0 - i; /* s = 1, 0, ..., 1 - q */
    for (size_t k = 0; k < t->nsub; k++) {
        const size_t i = s->exec == COSA_GAUSS_SEIDEL && s->seq ? s->seq[k] : k;
        /* each output's polynomial: end value fresh or the iterate */
        for (size_t o = 0; o < ny; o++) {
            val[0] = advanced[t->owner[o]] ? y[o] : yhat[o];
            for (int j = 1; j <= q; j++)
                val[j] = hist[(size_t)(j - 1) * ny + o];
            poly_fit(q, node, val, coef[o]);
        }
        /* unit i's input polynomial coefficients u_m = L_i coef_m */
        double um[COSA_ORDER_MAX + 2][NMAX] = {{0}}, u1[NMAX] = {0};
        for (size_t r = 0; r < t->nui[i]; r++)
            for (int m = 0; m <= q; m++) {
                for (size_t o = 0; o < ny; o++)
                    um[m][r] += t->L[t->ou[i] + r + o * nu] * coef[o][m];
                u1[r] += um[m][r]; /* u(s = 1) */
            }
        for (size_t a = 0; a < t->nxi[i]; a++) {
            const size_t ra = t->ox[i] + a;
            double acc = 0.0;
            for (size_t b = 0; b < t->nxi[i]; b++)
                acc += t->Ad[ra + (t->ox[i] + b) * nx] * x[t->ox[i] + b];
            for (int m = 0; m <= q; m++)
                for (size_t r = 0; r < t->nui[i]; r++)
                    acc += t->Q[(size_t)m * nx * nu + ra + (t->ou[i] + r) * nx] * um[m][r];
            xn[ra] = acc;
        }
        for (size_t a = 0; a < t->nyi[i]; a++) {
            const size_t ro = t->oy[i] + a;
            double acc = 0.0;
            for (size_t b = 0; b < t->nxi[i]; b++)
                acc += t->C[ro + (t->ox[i] + b) * ny] * xn[t->ox[i] + b];
            for (size_t r = 0; r < t->nui[i]; r++)
                acc += t->D[ro + (t->ou[i] + r) * ny] * u1[r];
            y[ro] = acc;
        }
        advanced[i] = s->exec == COSA_GAUSS_SEIDEL; /* Jacobi: every input from the iterate */
    }
}

/* The macro step of scheme s from z: k sweeps (kmax and "until the iterate
 * stops changing" for s->iterations = 0), relaxation s->relax; z' into zn. */
static void direct_step(const tsys *t, const cosa_scheme *s, const double *z, double *zn)
{
    const size_t nx = t->nx, ny = t->ny, np = (size_t)s->order + 1;
    const double *x = z, *hist = z + nx;
    double yhat[NMAX], y[NMAX], xn[NMAX], node[COSA_ORDER_MAX + 1], val[COSA_ORDER_MAX + 1],
        c[COSA_ORDER_MAX + 1];
    /* predictor: the degree-p extrapolation through ybar_n..ybar_{n-p} at s = 1 */
    for (size_t j = 0; j < np; j++)
        node[j] = -(double)j;
    for (size_t o = 0; o < ny; o++) {
        for (size_t j = 0; j < np; j++)
            val[j] = hist[j * ny + o];
        poly_fit(s->order, node, val, c);
        yhat[o] = 0.0;
        for (size_t m = 0; m < np; m++)
            yhat[o] += c[m];
    }
    const unsigned k = s->implicit ? s->iterations : 1u;
    const double om = s->implicit ? s->relax : 1.0;
    for (unsigned j = 1; k == 0 || j <= k; j++) {
        direct_sweep(t, s, x, hist, yhat, xn, y);
        double change = 0.0, scale = 0.0;
        for (size_t o = 0; o < ny; o++) {
            const double d = om * (y[o] - yhat[o]);
            change = fmax(change, fabs(d));
            scale = fmax(scale, fabs(y[o]));
            yhat[o] += d;
        }
        if (k == 0 && (change <= 1e-3 * DBL_EPSILON * scale || j >= 3000))
            break;
    }
    memcpy(zn, xn, nx * sizeof(double));
    memcpy(zn + nx, y, ny * sizeof(double));
    memcpy(zn + nx + ny, hist, (np - 1) * ny * sizeof(double));
}

/* Phi of the library and Phi column by column from direct_step; returns
 * max_ij |diff_ij| / (max_j |Phi_ij| + DBL_MIN): the worst row-relative
 * difference. */
static double phi_vs_direct(const cosa_system *sys, const cosa_scheme *s, double dt)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    const size_t n = lay.dim;
    tsys *t = calloc(1, sizeof *t);
    tsys_init(t, sys, s->order + s->q_extra, dt);
    double *Phi = calloc(n * n, sizeof(double)), *D = calloc(n * n, sizeof(double));
    double z[NMAX * 4] = {0};
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s->order);
    cr_assert_eq(cosa_phi_build(sys, s, dt, Phi, n, w), COSA_OK);
    for (size_t c = 0; c < n; c++) {
        memset(z, 0, sizeof z);
        z[c] = 1.0;
        direct_step(t, s, z, D + c * n);
    }
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double rmax = 0.0, dmax = 0.0;
        for (size_t j = 0; j < n; j++) {
            rmax = fmax(rmax, fabs(Phi[i + j * n]));
            dmax = fmax(dmax, fabs(Phi[i + j * n] - D[i + j * n]));
        }
        worst = fmax(worst, dmax / (rmax + DBL_MIN));
    }
    free(Phi);
    free(D);
    free(t);
    cosa_phi_workspace_free(w);
    return worst;
}

/* Three units with feedthrough, one of them reading its own output, and a
 * fixed seed: nx = 2 + 3 + 2, nu = 1 + 2 + 1, ny = 2 + 1 + 1. */
static cosa_system *random3(void)
{
    static const size_t dims[3][3] = {{2, 1, 2}, {3, 2, 1}, {2, 1, 1}};
    unsigned long long seed = 20261126;
    double store[3][4][16];
    cosa_subsystem sub[3];
    for (int i = 0; i < 3; i++) {
        const size_t nx = dims[i][0], nu = dims[i][1], ny = dims[i][2];
        for (size_t k = 0; k < nx * nx; k++)
            store[i][0][k] = 0.5 * tu_rand(&seed) - (k % (nx + 1) == 0 ? 2.0 : 0.0);
        for (size_t k = 0; k < nx * nu; k++)
            store[i][1][k] = tu_rand(&seed);
        for (size_t k = 0; k < ny * nx; k++)
            store[i][2][k] = tu_rand(&seed);
        for (size_t k = 0; k < ny * nu; k++)
            store[i][3][k] = 0.3 * tu_rand(&seed);
        sub[i] = (cosa_subsystem){nx, nu, ny, store[i][0], store[i][1], store[i][2],
                                  store[i][3]};
    }
    /* u = L y: u0 <- y2 (unit 1), u1 <- y0 + y3, u2 <- y1, u3 <- y3 (own) + y2 */
    double L[4 * 4] = {0};
    L[0 + 2 * 4] = 0.8;
    L[1 + 0 * 4] = 0.6;
    L[1 + 3 * 4] = -0.4;
    L[2 + 1 * 4] = 0.7;
    L[3 + 3 * 4] = 0.5;
    L[3 + 2 * 4] = -0.6;
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 3, sub, L), COSA_OK);
    return sys;
}

static const size_t seq_rev[3] = {2, 0, 1};

static cosa_scheme scheme(const char *text, unsigned k, double omega, const size_t *seq)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(text, &s), COSA_OK, "%s", text);
    s.iterations = k;
    s.relax = omega;
    s.seq = s.exec == COSA_GAUSS_SEIDEL ? seq : NULL;
    return s;
}

/* The two routes share A_d and Q_m and differ only in the order of the sums
 * (a Vandermonde solve against the Lagrange table, gemm against loops):
 * per sweep a few dim-term dot products, so ~k * dim * eps relative to the
 * row; 64 covers the Vandermonde condition (nodes 1..-8: <= 1e4 for q = 2 is
 * far less, but p <= 2 here) and the factor 2 of relaxation. */
Test(phi_iter, columns_equal_the_direct_step_procedure)
{
    cosa_system *sys[2] = {tu_twomass(2e5, 5e2), random3()};
    const double dts[2] = {1e-4, 0.05};
    const char *names[] = {"imp:zoh", "imp:foh", "imp:soh", "imp:zoh/1", "imp:foh/2",
                           "gs-imp:zoh", "gs-imp:foh", "gs-imp:zoh/1", "gs-imp:soh/3",
                           "gs:zoh/1", "gs:foh/2"};
    const unsigned ks[] = {1, 2, 5};
    const double oms[] = {1.0, 0.7, 1.3};
    for (int c = 0; c < 2; c++)
        for (size_t a = 0; a < sizeof names / sizeof names[0]; a++)
            for (size_t b = 0; b < 3; b++)
                for (size_t o = 0; o < 3; o++) {
                    cosa_scheme s = scheme(names[a], ks[b], oms[o], c ? seq_rev : NULL);
                    cosa_layout lay;
                    cosa_layout_get(sys[c], &s, &lay);
                    const double tol = 64.0 * ks[b] * (double)lay.dim * DBL_EPSILON;
                    const double r = phi_vs_direct(sys[c], &s, dts[c]);
                    cr_expect_leq(r, tol, "system %d %s k=%u omega=%g: %g > %g", c, names[a],
                                  ks[b], oms[o], r, tol);
                }
    cosa_system_free(sys[0]);
    cosa_system_free(sys[1]);
}

/* Phi of k = inf from the fixed-point solve against the direct iteration run
 * until the iterate stops changing.  The solve of (I - S) adds its condition
 * ~ 1 / (1 - rho_iter) <= 2 here (rho_iter < 0.5 asserted) and the direct
 * iteration sum_j T^j its rounding ~ eps / (1 - rho_iter): 256 dim eps. */
Test(phi_iter, converged_columns_equal_the_iterated_procedure)
{
    cosa_system *sys[2] = {tu_twomass(2e5, 5e2), random3()};
    const double dts[2] = {1e-4, 0.05};
    const char *names[] = {"imp:zoh", "imp:foh", "imp:zoh/1", "gs-imp:zoh", "gs-imp:foh/2"};
    for (int c = 0; c < 2; c++)
        for (size_t a = 0; a < sizeof names / sizeof names[0]; a++) {
            cosa_scheme s = scheme(names[a], 0, 1.0, c ? seq_rev : NULL);
            cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys[c], s.order);
            cosa_iter_info it;
            cr_assert_eq(cosa_phi_iter_info(sys[c], &s, dts[c], &it, w), COSA_OK);
            cr_assert_lt(it.rho_iter, 0.5, "system %d %s", c, names[a]);
            cosa_phi_workspace_free(w);
            cosa_layout lay;
            cosa_layout_get(sys[c], &s, &lay);
            const double tol = 256.0 * (double)lay.dim * DBL_EPSILON;
            const double r = phi_vs_direct(sys[c], &s, dts[c]);
            cr_expect_leq(r, tol, "system %d %s: %g > %g", c, names[a], r, tol);
        }
    cosa_system_free(sys[0]);
    cosa_system_free(sys[1]);
}

static double *build(const cosa_system *sys, const cosa_scheme *s, double dt, size_t *n)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    *n = lay.dim;
    double *Phi = calloc(lay.dim * lay.dim, sizeof(double));
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s->order);
    cr_assert_eq(cosa_phi_build(sys, s, dt, Phi, lay.dim, w), COSA_OK);
    cosa_phi_workspace_free(w);
    return Phi;
}

/* k = 1 with q = p is the explicit scheme: Jacobi p (imp:) and gs:p
 * (gs-imp:).  The explicit Jacobi route sums the Lagrange basis into P_j
 * first (lib/phi/phi.c), so the sums differ in order: dim eps times the
 * largest entry, 16 for the few terms per entry. */
Test(phi_iter, one_iteration_is_the_explicit_scheme)
{
    cosa_system *sys[2] = {tu_twomass(2e5, 5e2), random3()};
    const double dts[2] = {1e-4, 0.05};
    for (int c = 0; c < 2; c++)
        for (int p = 0; p <= 4; p++)
            for (int gs = 0; gs < 2; gs++) {
                char ei[32], ee[32];
                snprintf(ei, sizeof ei, "%sp%d", gs ? "gs-imp:" : "imp:", p);
                snprintf(ee, sizeof ee, "%sp%d", gs ? "gs:" : "", p);
                cosa_scheme si = scheme(ei, 1, 0.6, c ? seq_rev : NULL);
                cosa_scheme se = scheme(ee, 0, 1.0, c ? seq_rev : NULL);
                size_t n;
                double *A = build(sys[c], &si, dts[c], &n), *B = build(sys[c], &se, dts[c], &n);
                const double d = tu_maxdiff(n, n, A, n, B, n), m = tu_maxabs(n, n, B, n);
                cr_expect_leq(d, 16.0 * n * DBL_EPSILON * m, "system %d %s vs %s: %g (max %g)",
                              c, ei, ee, d, m);
                free(A);
                free(B);
            }
    cosa_system_free(sys[0]);
    cosa_system_free(sys[1]);
}

/* The converged step is the fixed point yhat = y(yhat): the same for every
 * omega and for Jacobi and Gauss-Seidel in any sequence.  Different omega
 * give bitwise the same solve (omega does not enter it); Jacobi and
 * Gauss-Seidel solve different systems (I - S) for the same solution:
 * cond(I - S) ~ 1/(1 - rho) <= 2 times dim eps, 64 for the sums. */
Test(phi_iter, converged_step_independent_of_relax_and_sequence)
{
    cosa_system *sys[2] = {tu_twomass(2e5, 5e2), random3()};
    const double dts[2] = {1e-4, 0.05};
    const size_t seq_id[3] = {0, 1, 2}, seq_b[3] = {1, 2, 0};
    const char *base[] = {"zoh", "foh", "zoh/1", "foh/2"};
    for (int c = 0; c < 2; c++)
        for (int b = 0; b < 4; b++) {
            char t1[32], t2[32];
            snprintf(t1, sizeof t1, "imp:%s", base[b]);
            snprintf(t2, sizeof t2, "gs-imp:%s", base[b]);
            size_t n;
            cosa_scheme r = scheme(t1, 0, 1.0, NULL);
            double *R = build(sys[c], &r, dts[c], &n);
            const double m = tu_maxabs(n, n, R, n), tol = 64.0 * n * DBL_EPSILON * m;
            const cosa_scheme var[] = {
                scheme(t1, 0, 0.4, NULL), scheme(t1, 0, -2.5, NULL), scheme(t2, 0, 1.0, NULL),
                scheme(t2, 0, 1.7, c ? seq_rev : seq_id),
                scheme(t2, 0, 0.3, c ? seq_b : seq_id)};
            for (size_t v = 0; v < sizeof var / sizeof var[0]; v++) {
                double *V = build(sys[c], &var[v], dts[c], &n);
                const double d = tu_maxdiff(n, n, V, n, R, n);
                if (v < 2)
                    cr_expect_eq(d, 0.0, "system %d %s omega %g", c, t1, var[v].relax);
                else
                    cr_expect_leq(d, tol, "system %d %s variant %zu: %g > %g", c, t2, v, d, tol);
                free(V);
            }
            free(R);
        }
    cosa_system_free(sys[0]);
    cosa_system_free(sys[1]);
}

/* ||Phi_k - Phi_inf|| ~ C rho_iter^k: the geometric mean rate over
 * k = 20..60 is rho_iter up to the drift of C, which (T diagonalisable, its
 * eigenvalues' moduli separated or equal) is at most a bounded oscillation:
 * its 40th root is within 5 % for factors up to e^2.  omega is chosen so
 * that rho_iter is 0.7..0.85 and rho^60 >> the rounding floor. */
Test(phi_iter, large_k_approaches_the_fixed_point_at_rho_iter)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    const double dt = 1e-4;
    const char *names[] = {"imp:zoh", "gs-imp:foh", "imp:zoh/1"};
    for (size_t a = 0; a < 3; a++) {
        cosa_scheme s = scheme(names[a], 0, 1.0, NULL);
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s.order);
        cosa_iter_info it;
        /* omega with rho_iter = 0.8 for the smallest-|a| mode: scan down */
        double om = 1.0;
        do {
            s.relax = om;
            cr_assert_eq(cosa_phi_iter_info(sys, &s, dt, &it, w), COSA_OK);
            om *= 0.9;
        } while (it.rho_iter < 0.7);
        cr_assert_leq(it.rho_iter, 0.85, "%s", names[a]);
        cosa_phi_workspace_free(w);
        size_t n;
        double *Pinf = build(sys, &s, dt, &n), d[2];
        const unsigned ks[2] = {20, 60};
        for (int i = 0; i < 2; i++) {
            s.iterations = ks[i];
            double *P = build(sys, &s, dt, &n);
            d[i] = tu_maxdiff(n, n, P, n, Pinf, n);
            free(P);
        }
        s.iterations = 0;
        const double rate = pow(d[1] / d[0], 1.0 / 40.0);
        cr_expect(fabs(rate / it.rho_iter - 1.0) < 0.05, "%s: rate %g vs rho_iter %g (d %g %g)",
                  names[a], rate, it.rho_iter, d[0], d[1]);
        free(Pinf);
    }
    cosa_system_free(sys);
}

/* M by the direct route: d y / d yhat of one sweep at z = 0 (the sweep is
 * linear), restricted to the outputs read as iterates: Jacobi every output
 * some unit reads, Gauss-Seidel those read by a unit running no later than
 * their owner.  Returns |R|. */
static size_t direct_M(const tsys *t, const cosa_scheme *s, double *M)
{
    const size_t ny = t->ny, nu = t->nu;
    size_t pos[8], R[NMAX], nr = 0;
    for (size_t k = 0; k < t->nsub; k++)
        pos[s->exec == COSA_GAUSS_SEIDEL && s->seq ? s->seq[k] : k] = k;
    for (size_t o = 0; o < ny; o++) {
        int read = 0;
        for (size_t i = 0; i < t->nsub; i++)
            for (size_t r = 0; r < t->nui[i]; r++)
                if (t->L[t->ou[i] + r + o * nu] != 0.0 &&
                    (s->exec != COSA_GAUSS_SEIDEL || pos[i] <= pos[t->owner[o]]))
                    read = 1;
        if (read)
            R[nr++] = o;
    }
    double x[NMAX] = {0}, hist[NMAX * 10] = {0}, yh[NMAX], xn[NMAX], y[NMAX];
    for (size_t c = 0; c < nr; c++) {
        memset(yh, 0, sizeof yh);
        yh[R[c]] = 1.0;
        direct_sweep(t, s, x, hist, yh, xn, y);
        for (size_t r = 0; r < nr; r++)
            M[r + c * nr] = y[R[r]];
    }
    return nr;
}

/* rho((1 - om) I + om M) by dgeev. */
static double rho_T(size_t n, const double *M, double om, cosa_eig_workspace *ew)
{
    double T[NMAX * NMAX], r;
    for (size_t c = 0; c < n; c++)
        for (size_t i = 0; i < n; i++)
            T[i + c * n] = om * M[i + c * n] + (i == c ? 1.0 - om : 0.0);
    cr_assert_eq(cosa_spectral_radius(n, T, n, &r, ew), COSA_OK);
    return r;
}

/* relax_max, relax_opt and rho_iter_opt against a scan of rho(T(omega)) on
 * a grid of spacing h over (0, 1.5 relax_max): rho(T) is Lipschitz in
 * omega with constant max |1 - mu| = Lmax, so the scan's minimum is within
 * Lmax h of the true one and never below it (beyond dgeev's ~1e-14).
 * relax_max: rho(T) < 1 just below it and > 1 just above (1e-6 relative
 * steps: rho(T) - 1 ~ 1e-6 there, far above the eigenvalue rounding). */
Test(phi_iter, relax_figures_against_a_brute_force_scan)
{
    cosa_system *sys[2] = {tu_twomass(2e5, 5e2), random3()};
    const double dts[2] = {1e-4, 0.05};
    const char *names[] = {"imp:zoh", "imp:foh/2", "gs-imp:zoh", "gs-imp:soh"};
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(NMAX);
    for (int c = 0; c < 2; c++)
        for (size_t a = 0; a < 4; a++) {
            cosa_scheme s = scheme(names[a], 0, 1.0, c ? seq_rev : NULL);
            tsys *t = calloc(1, sizeof *t);
            tsys_init(t, sys[c], s.order + s.q_extra, dts[c]);
            double M[NMAX * NMAX];
            const size_t nr = direct_M(t, &s, M);
            free(t);
            cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys[c], s.order);
            cosa_iter_info it;
            cr_assert_eq(cosa_phi_iter_info(sys[c], &s, dts[c], &it, w), COSA_OK);
            cosa_phi_workspace_free(w);
            cr_expect_eq(it.nr, nr, "system %d %s", c, names[a]);
            cr_expect(fabs(it.rho_iter - rho_T(nr, M, 1.0, ew)) <= 1e-12, "%s rho_iter %g",
                      names[a], it.rho_iter);
            cr_assert(isfinite(it.relax_max), "system %d %s", c, names[a]);
            cr_expect_lt(rho_T(nr, M, it.relax_max * (1 - 1e-6), ew), 1.0);
            cr_expect_gt(rho_T(nr, M, it.relax_max * (1 + 1e-6), ew), 1.0);
            const size_t N = 3000;
            const double h = 1.5 * it.relax_max / (double)N;
            double best = INFINITY, lmax = 0.0, wr[NMAX], wi[NMAX], Mc[NMAX * NMAX];
            memcpy(Mc, M, sizeof Mc);
            cr_assert_eq(cosa_eigenvalues(nr, Mc, nr, wr, wi, ew), COSA_OK);
            for (size_t i = 0; i < nr; i++)
                lmax = fmax(lmax, hypot(1.0 - wr[i], wi[i]));
            for (size_t k = 1; k < N; k++)
                best = fmin(best, rho_T(nr, M, h * (double)k, ew));
            cr_expect_leq(it.rho_iter_opt, best + 1e-12, "system %d %s: %.17g vs scan %.17g", c,
                          names[a], it.rho_iter_opt, best);
            cr_expect_geq(it.rho_iter_opt, best - lmax * h - 1e-12, "system %d %s", c, names[a]);
            cr_expect(fabs(rho_T(nr, M, it.relax_opt, ew) - it.rho_iter_opt) <= 1e-12,
                      "system %d %s", c, names[a]);
        }
    cosa_eig_workspace_free(ew);
    cosa_system_free(sys[0]);
    cosa_system_free(sys[1]);
}

/* Closed forms: one real mu = -3 (a = 4): relax_max = 2/4, relax_opt = 1/4
 * with rho 0; mu = +-0.5 (a = 0.5, 1.5): relax_max 4/3, the curves
 * |1 - omega/2| and |1.5 omega - 1| cross at omega = 1, rho 0.5; mu = +-2i
 * (a = 1 -+ 2i): relax_max 2/5, relax_opt 1/5, rho 2/sqrt(5); mu = 1.5:
 * none.  Golden section to ~eps relative in omega: 1e-7 covers the smooth
 * minimum (error ~ sqrt(eps)) and 1e-12 the values. */
Test(phi_iter, relax_analysis_closed_forms)
{
    cosa_iter_info it;
    const double wr1[] = {-3.0}, wi1[] = {0.0};
    cr_assert_eq(cosa_relax_analysis(1, wr1, wi1, 1.0, &it), COSA_OK);
    cr_expect(fabs(it.rho_iter - 3.0) < 1e-15);
    cr_expect(fabs(it.relax_max - 0.5) < 1e-15);
    cr_expect(fabs(it.relax_opt - 0.25) < 1e-7 && it.rho_iter_opt < 1e-7);
    const double wr2[] = {0.5, -0.5}, wi2[] = {0.0, 0.0};
    cr_assert_eq(cosa_relax_analysis(2, wr2, wi2, 1.0, &it), COSA_OK);
    cr_expect(fabs(it.relax_max - 4.0 / 3.0) < 1e-15);
    cr_expect(fabs(it.relax_opt - 1.0) < 1e-12 && fabs(it.rho_iter_opt - 0.5) < 1e-12,
              "%.17g %.17g", it.relax_opt, it.rho_iter_opt);
    const double wr3[] = {0.0, 0.0}, wi3[] = {2.0, -2.0};
    cr_assert_eq(cosa_relax_analysis(2, wr3, wi3, 1.0, &it), COSA_OK);
    cr_expect(fabs(it.relax_max - 0.4) < 1e-15);
    cr_expect(fabs(it.relax_opt - 0.2) < 1e-7, "%.17g", it.relax_opt);
    cr_expect(fabs(it.rho_iter_opt - 2.0 / sqrt(5.0)) < 1e-12, "%.17g", it.rho_iter_opt);
    const double wr4[] = {1.5, 0.2}, wi4[] = {0.0, 0.0};
    cr_assert_eq(cosa_relax_analysis(2, wr4, wi4, 1.0, &it), COSA_OK);
    cr_expect(isnan(it.relax_max) && isnan(it.relax_opt) && isnan(it.rho_iter_opt));
    cr_expect(fabs(it.rho_iter - 1.5) < 1e-15);
    cr_assert_eq(cosa_relax_analysis(0, NULL, NULL, 1.0, &it), COSA_OK);
    cr_expect(it.rho_iter == 0.0 && isinf(it.relax_max));
}

/* e_global of the converged schemes at dt and dt/2: order q + 1 (q = 0: 1,
 * q = 1: 2), Jacobi and Gauss-Seidel alike (the same fixed point).  Twomass
 * at ck = 2e5, dk = 5e2 with dt = 1e-5: omega dt ~ 1e-2, deep in the
 * asymptotic range, so the log2 ratio is the order to +-0.1. */
Test(phi_iter, convergence_orders_of_the_converged_schemes)
{
    cosa_system *sys = tu_twomass(2e5, 5e2);
    const double x0[4] = {0, 100, 0, -100}, dt = 1e-5;
    const struct { const char *name; double order; } cases[] = {
        {"imp:zoh", 1}, {"gs-imp:zoh", 1}, {"imp:zoh/1", 2}, {"imp:foh", 2}, {"gs-imp:foh", 2}};
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 1);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cosa_scheme s = scheme(cases[c].name, 0, 1.0, NULL);
        double e[2];
        for (int h = 0; h < 2; h++) {
            cosa_point_result r;
            cr_assert_eq(cosa_evaluate(sys, &s, dt / (1 << h), x0, 0.3,
                                       COSA_WANT_RHO | COSA_WANT_ERRORS, &r, ew),
                         COSA_OK);
            e[h] = r.err.e_global;
        }
        const double ord = log2(e[0] / e[1]);
        cr_expect(fabs(ord - cases[c].order) < 0.1, "%s: order %g (e %g %g)", cases[c].name, ord,
                  e[0], e[1]);
    }
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
}

/* The oscillator of preCICE's tutorial: stiffness 4 pi^2 [[5, -4], [-4, 5]],
 * eigenfrequencies 2 pi and 6 pi; A* from the coupled split (eq 35).  dgeev
 * on a 4 x 4 matrix of norm ~ 36 pi^2: 64 eps |A*| absolute. */
Test(phi_iter, oscillator_eigenfrequencies)
{
    const cosa_model *m = cosa_model_find("oscillator");
    cr_assert_not_null(m);
    double par[16], A[16], wr[4], wi[4];
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_assert_eq(cosa_system_monolithic(sys, A, NULL), COSA_OK);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(4);
    cr_assert_eq(cosa_eigenvalues(4, A, 4, wr, wi, ew), COSA_OK);
    double f[4];
    for (int i = 0; i < 4; i++) {
        cr_expect(fabs(wr[i]) < 64 * DBL_EPSILON * 36 * M_PI * M_PI, "Re %g", wr[i]);
        f[i] = fabs(wi[i]);
    }
    for (int i = 0; i < 4; i++) /* sort */
        for (int j = i + 1; j < 4; j++)
            if (f[j] < f[i]) {
                double t = f[i];
                f[i] = f[j];
                f[j] = t;
            }
    const double want[4] = {2 * M_PI, 2 * M_PI, 6 * M_PI, 6 * M_PI};
    for (int i = 0; i < 4; i++)
        cr_expect(fabs(f[i] - want[i]) < 64 * DBL_EPSILON * 36 * M_PI * M_PI, "%.17g vs %.17g",
                  f[i], want[i]);
    cosa_eig_workspace_free(ew);
    cosa_system_free(sys);
}

/* The scheme syntax and its checks. */
Test(phi_iter, scheme_syntax)
{
    cosa_scheme s;
    char nm[64];
    cr_expect_eq(cosa_scheme_parse("gs:zoh/3", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("zoh/1", &s), COSA_ESCHEME); /* explicit Jacobi: no Q */
    cr_expect_eq(cosa_scheme_parse("imp:foh/0", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("imp:p8/9", &s), COSA_ESCHEME);
    cr_expect_eq(cosa_scheme_parse("imp:foh/", &s), COSA_ESCHEME);
    cr_assert_eq(cosa_scheme_parse("GS-IMP:foh/2", &s), COSA_OK);
    cr_expect(s.implicit && s.exec == COSA_GAUSS_SEIDEL && s.q_extra == 1 && s.relax == 1.0 &&
              s.iterations == 0);
    cosa_scheme_name(&s, nm, sizeof nm);
    cr_expect_str_eq(nm, "gs-imp:FOH/2");
    cr_assert_eq(cosa_scheme_parse("imp:zoh+mbcorr", &s), COSA_OK);
    cr_expect_eq(cosa_scheme_check(&s, NULL), COSA_EUNSUPPORTED);
    cr_assert_eq(cosa_scheme_parse("imp:p3/3", &s), COSA_OK);
    cosa_scheme_name(&s, nm, sizeof nm);
    cr_expect_str_eq(nm, "imp:p3");
    s.relax = 0.0;
    cr_expect_eq(cosa_scheme_check(&s, NULL), COSA_ERANGE);
    s.relax = NAN;
    cr_expect_eq(cosa_scheme_check(&s, NULL), COSA_ERANGE);
    cr_assert_eq(cosa_scheme_parse("gs:soh/3", &s), COSA_OK);
    cosa_scheme_name(&s, nm, sizeof nm);
    cr_expect_str_eq(nm, "gs:SOH/3");
    cr_expect_eq(cosa_scheme_check(&s, NULL), COSA_OK);
}

/* Sweeps: a relax axis with the metric rho_iter gives cosa_phi_iter_info at
 * each omega, an iterations axis with rho gives cosa_evaluate at each k
 * (bitwise: the same computation); explicit schemes are refused. */
Test(phi_iter, sweep_axes_relax_and_iterations)
{
    const cosa_model *m = cosa_model_find("oscillator");
    cr_assert_not_null(m);
    double par[16];
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    const double dt[2] = {1e-3, 1e-2};
    cosa_scheme s[2] = {scheme("imp:foh", 0, 1.0, NULL), scheme("gs-imp:zoh/1", 0, 1.0, NULL)};
    cosa_sweep_spec sp = {.model = m, .dt = dt, .ndt = 2, .schemes = s, .nscheme = 2,
                          .metric = COSA_METRIC_RHO_ITER, .threads = 1};
    sp.x = (cosa_sweep_axis){COSA_AXIS_RELAX, 0.2, 1.8, 0, 5, 0};
    sp.y = (cosa_sweep_axis){COSA_AXIS_ITERATIONS, 1, 3, 0, 3, 0};
    double v[2 * 2 * 5 * 3];
    cr_assert_eq(cosa_sweep_size(&sp), 60);
    cr_assert_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_OK);
    cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, 1);
    for (size_t is = 0; is < 2; is++)
        for (size_t it = 0; it < 2; it++)
            for (size_t ix = 0; ix < 5; ix++)
                for (size_t iy = 0; iy < 3; iy++) {
                    cosa_scheme t = s[is];
                    t.relax = cosa_sweep_axis_value(&sp.x, ix);
                    t.iterations = (unsigned)(iy + 1);
                    cosa_point_result r;
                    cr_assert_eq(cosa_evaluate(sys, &t, dt[it], NULL, 1.0,
                                               COSA_WANT_ITER | COSA_WANT_RHO, &r, ew),
                                 COSA_OK);
                    const double got = v[cosa_sweep_index(&sp, is, it, ix, iy)];
                    cr_expect_eq(got, r.iter.rho_iter, "%zu %zu %zu %zu: %.17g vs %.17g", is, it,
                                 ix, iy, got, r.iter.rho_iter);
                }
    sp.metric = COSA_METRIC_RHO;
    cr_assert_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_OK);
    for (size_t iy = 0; iy < 3; iy++) {
        cosa_scheme t = s[0];
        t.relax = 0.2;
        t.iterations = (unsigned)(iy + 1);
        cosa_point_result r;
        cr_assert_eq(cosa_evaluate(sys, &t, dt[1], NULL, 1.0, COSA_WANT_RHO, &r, ew), COSA_OK);
        cr_expect_eq(v[cosa_sweep_index(&sp, 0, 1, 0, iy)], r.rho, "k = %zu", iy + 1);
    }
    cosa_scheme ex[1] = {scheme("foh", 0, 1.0, NULL)};
    sp.schemes = ex;
    sp.nscheme = 1;
    cr_expect_eq(cosa_sweep_size(&sp), 0); /* an iteration axis with an explicit scheme */
    cr_expect_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_EUNSUPPORTED);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
}

/* x' = u, y = x, u = y (one unit reading its own output): the converged
 * q = 0 step is implicit Euler, x_{n+1} = x_n / (1 - h) (the fixed point of
 * yhat = x_n + h yhat), exact in closed form; at h = 1, I - M = 1 - h is
 * singular and refused.  The only rounding is that of 1 / (1 - h) and of
 * Q_0 = h from the Van Loan exponential: 8 eps relative. */
Test(phi_iter, implicit_euler_closed_form_and_singular_fixed_point)
{
    const double A = 0.0, B = 1.0, C = 1.0, D = 0.0, L = 1.0;
    cosa_subsystem sub = {1, 1, 1, &A, &B, &C, &D};
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 1, &sub, &L), COSA_OK);
    cosa_scheme s = scheme("imp:zoh", 0, 1.0, NULL);
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, 0);
    double Phi[4];
    const double hs[3] = {0.5, 0.1, 3.0};
    for (int k = 0; k < 3; k++) {
        const double h = hs[k], want = 1.0 / (1.0 - h);
        cr_assert_eq(cosa_phi_build(sys, &s, h, Phi, 2, w), COSA_OK);
        cr_expect(fabs(Phi[0] - want) <= 8 * DBL_EPSILON * fabs(want), "h %g: %.17g", h, Phi[0]);
        cr_expect(fabs(Phi[1] - want) <= 8 * DBL_EPSILON * fabs(want), "h %g: %.17g", h, Phi[1]);
        cr_expect(Phi[2] == 0.0 && Phi[3] == 0.0, "h %g: ybar_n does not enter", h);
    }
    cr_expect_eq(cosa_phi_build(sys, &s, 1.0, Phi, 2, w), COSA_EITERSINGULAR);
    cosa_iter_info it;
    cr_assert_eq(cosa_phi_iter_info(sys, &s, 0.5, &it, w), COSA_OK);
    cr_expect(it.nr == 1 && fabs(it.rho_iter - 0.5) <= 4 * DBL_EPSILON, "M = h = 0.5: %g",
              it.rho_iter);
    cosa_phi_workspace_free(w);
    cosa_system_free(sys);
}
