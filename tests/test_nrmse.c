/* test_nrmse.c -- NRMSE error indicators (lib/nrmse.c), the reference basis
 * (lib/phi.c) and convergence tools (lib/convergence.c).
 *
 * Independent routes: the fast doubling route against the direct stepping
 * route and a long-double stepping route, on random stable pairs (reference
 * given as z*_n = Phi*^n z0, i.e. T = I, and in a genuine state form) and on
 * the real propagation matrices of the two-mass oscillator, where the errors
 * are down to 1e-12 of the trajectory; closed forms (geometric series) for
 * scalar and diagonal systems; identities (Phi == Phi* gives exactly 0); the
 * paper's local-error statements through cosa_evaluate. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cosa.h"
#include "core/dense.h"
#include "testutil.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static double rng_uniform(rng *r) /* in [0, 1) */
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (double)(r->s >> 11) * 0x1.0p-53;
}

static double rng_sym(rng *r) { return 2.0 * rng_uniform(r) - 1.0; }

/* Layout with ny outputs at off_y = nx; the remaining rows are history and du
 * (only off_y, ny and dim matter to the indicators). */
static cosa_layout make_layout(size_t dim, size_t nx, size_t ny)
{
    cosa_layout l = {0};
    l.nx = nx;
    l.ny = ny;
    l.nhist = (dim - nx) / ny;
    l.nu = dim - nx - l.nhist * ny;
    l.has_du = l.nu > 0;
    l.off_x = 0;
    l.off_y = nx;
    l.off_du = l.has_du ? nx + l.nhist * ny : dim;
    l.dim = dim;
    return l;
}

/* M = S Lambda S^{-1}; Lambda block diagonal with 2x2 blocks
 * r_i [[cos t_i, -sin t_i], [sin t_i, cos t_i]] (and a 1x1 block r_last if
 * d is odd), so rho(M) = max r_i exactly (up to the rounding of S^{-1}). */
static void similar(size_t d, const double *S, const double *r, const double *t, double *M)
{
    double *L = calloc(d * d, sizeof *L), *T = calloc(d * d, sizeof *T),
           *St = calloc(d * d, sizeof *St);
    lapack_int *ipiv = calloc(d, sizeof *ipiv);
    cr_assert(L && T && St && ipiv);
    for (size_t i = 0; i + 1 < d; i += 2) {
        const double c = r[i / 2] * cos(t[i / 2]), s = r[i / 2] * sin(t[i / 2]);
        L[i + i * d] = c;
        L[i + 1 + (i + 1) * d] = c;
        L[i + (i + 1) * d] = -s;
        L[i + 1 + i * d] = s;
    }
    if (d % 2)
        L[(d - 1) * (d + 1)] = r[d / 2];
    dense_gemm('N', 'N', d, d, d, 1.0, S, d, L, d, 0.0, T, d);
    /* M S = T  <=>  S^T M^T = T^T */
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++) {
            St[i + j * d] = S[j + i * d];
            M[i + j * d] = T[j + i * d];
        }
    cr_assert_eq(dense_lu(d, St, d, ipiv), 0);
    dense_lu_solve(d, d, St, d, ipiv, M, d);
    for (size_t j = 0; j < d; j++)
        for (size_t i = j + 1; i < d; i++) {
            const double x = M[i + j * d];
            M[i + j * d] = M[j + i * d];
            M[j + i * d] = x;
        }
    free(L);
    free(T);
    free(St);
    free(ipiv);
}

/* A random stable pair: Phi* with radii in [0.99, 0.9995] and slow rotations,
 * Phi a perturbation of it (eigenvectors and angles a few percent off, radii
 * slightly smaller), so rho(Phi) < 1 and the global error grows to O(|z|).
 * Returns rho(Phi). */
static double random_pair(size_t d, rng *g, double *Phi, double *Phistar, double *z0,
                          size_t ld)
{
    const size_t nb = (d + 1) / 2;
    double *S = calloc(d * d, sizeof *S), *S2 = calloc(d * d, sizeof *S2),
           *r = calloc(nb, sizeof *r), *t = calloc(nb, sizeof *t), *r2 = calloc(nb, sizeof *r2),
           *t2 = calloc(nb, sizeof *t2), *M = calloc(d * d, sizeof *M);
    cr_assert(S && S2 && r && t && r2 && t2 && M);
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++) {
            S[i + j * d] = (i == j) + 0.3 * rng_sym(g) / sqrt((double)d);
            S2[i + j * d] = S[i + j * d] + 0.03 * rng_sym(g) / sqrt((double)d);
        }
    double rho = 0.0;
    for (size_t k = 0; k < nb; k++) {
        r[k] = 0.99 + 0.0095 * rng_uniform(g);
        t[k] = 0.01 + 0.3 * rng_uniform(g);
        r2[k] = r[k] - 0.002 * rng_uniform(g);
        t2[k] = t[k] * (1.0 + 0.02 * rng_sym(g));
        if (r2[k] > rho)
            rho = r2[k];
    }
    similar(d, S, r, t, M);
    dense_copy(d, d, M, d, Phistar, ld);
    similar(d, S2, r2, t2, M);
    dense_copy(d, d, M, d, Phi, ld);
    for (size_t i = 0; i < d; i++)
        z0[i] = rng_sym(g);
    free(S);
    free(S2);
    free(r);
    free(t);
    free(r2);
    free(t2);
    free(M);
    return rho;
}

/* |a - b| <= tol |b|, with exact equality accepted (both 0 or both inf) */
static int close_rel(double a, double b, double tol)
{
    return a == b || fabs(a - b) <= tol * fabs(b);
}

typedef struct sums_buf {
    double v[5][64];
    cosa_nrmse_sums s;
} sums_buf;

static void sums_init(sums_buf *b)
{
    memset(b->v, 0, sizeof b->v);
    b->s = (cosa_nrmse_sums){b->v[0], b->v[1], b->v[2], b->v[3], b->v[4]};
}

typedef cosa_status (*nrmse_fn)(size_t, const double *, const double *, size_t,
                                const cosa_layout *, size_t, const double *, size_t,
                                const double *, size_t, const double *, size_t, double,
                                cosa_errors *, const cosa_nrmse_sums *, cosa_nrmse_workspace *);

/* Reference given as a trajectory of z: z*_n = Phi*^n z0 is the state form
 * with nx = dim, A*_d = Phi*, T = I and x0 = z0 (Phi* T = T A*_d exactly). */
static cosa_status zform(nrmse_fn fn, size_t d, const double *Phi, const double *Phis,
                         size_t ld, const cosa_layout *lay, const double *z0, size_t N,
                         double rho, cosa_errors *out, const cosa_nrmse_sums *sums,
                         cosa_nrmse_workspace *w)
{
    double *eye = calloc(d * d + 1, sizeof *eye);
    cr_assert_not_null(eye);
    for (size_t i = 0; i < d; i++)
        eye[i + i * d] = 1.0;
    cosa_status st = fn(d, Phi, Phis, ld, lay, d, Phis, ld, eye, d, z0, N, rho, out, sums, w);
    free(eye);
    return st;
}

static int cosim_finite(const cosa_errors *e)
{
    return isfinite(e->e_global) && isfinite(e->e_local) && isfinite(e->e_local_ref);
}

/* ---- long-double stepping route ------------------------------------------- */

typedef long double ldbl;

/* (hi, lo) += a b, compensated (Ogita, Rump & Oishi's Dot2 in long double):
 * TwoProduct by fmal, TwoSum.  hi + lo carries ~2 x 64 bits. */
static void ld_dot2(ldbl a, ldbl b, ldbl *hi, ldbl *lo)
{
    const ldbl p = a * b, pe = fmal(a, b, -p);
    const ldbl t = *hi + p, z = t - *hi, se = (*hi - (t - z)) + (p - z);
    *hi = t;
    *lo += se + pe;
}

/* The three indicators by stepping in long double (x87, 64-bit mantissa)
 * with the same double matrices:
 *   q_{n+1} = A q_n,  e_{n+1} = Phi e_n + K q_n,  e_0 = 0,
 *   global R e_n, local R K q_n - R (Phi* - Phi) e_n, local-ref R K q_n,
 *   reference outputs R T q_n (mean first, then centred sums),
 * where K = T A - Phi T is formed once by ld_dot2, i.e. essentially exactly
 * for the given doubles.  This is not the literal difference of two stepped
 * trajectories on purpose: in long double those carry a rounding random walk
 * of ~ sqrt(N) 2^-64 |z| each (measured: 6e-7 relative on e_global = 3e-12,
 * twomass p4, dt = 1e-5), while a __float128 literal stepping agrees with
 * this form to 1e-13.  The error recurrence holds exactly for the given
 * matrices (e_n = T q_n - Phi^n T x0), so this route computes the same
 * numbers as cosa_nrmse without its doubling, scatter merges, quadratic
 * forms and double rounding.  No constant-component rule and no stability
 * rule (callers use stable cases or compare e_local_ref only).
 * out: e_global, e_local, e_local_ref. */
static void ld_route(size_t d, const double *Phi, const double *Phis, size_t ld,
                     const cosa_layout *lay, size_t nx, const double *A, size_t lda,
                     const double *T, size_t ldt, const double *x0, size_t N, double out[3])
{
    const size_t ny = lay->ny, off = lay->off_y;
    ldbl *K = calloc(d * nx, sizeof *K), *q = calloc(nx, sizeof *q),
         *qn = calloc(nx, sizeof *qn), *e = calloc(d, sizeof *e), *en = calloc(d, sizeof *en),
         *acc = calloc(7 * ny, sizeof *acc), *t;
    cr_assert(K && q && qn && e && en && acc);
    ldbl *mean = acc, *s1 = acc + ny, *v = acc + 2 * ny, *sg = acc + 3 * ny, *sl = acc + 4 * ny,
         *sr = acc + 5 * ny;
    for (size_t j = 0; j < nx; j++)
        for (size_t i = 0; i < d; i++) {
            ldbl hi = 0, lo = 0;
            for (size_t k = 0; k < nx; k++)
                ld_dot2(T[i + k * ldt], A[k + j * lda], &hi, &lo);
            for (size_t k = 0; k < d; k++)
                ld_dot2(-Phi[i + k * ld], T[k + j * ldt], &hi, &lo);
            K[i + j * d] = hi + lo;
        }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < nx; i++)
            q[i] = x0[i];
        for (size_t i = 0; i < d; i++)
            e[i] = 0;
        for (size_t n = 0; n < N; n++) {
            for (size_t i = 0; i < nx; i++) {
                ldbl sum = 0;
                for (size_t j = 0; j < nx; j++)
                    sum += (ldbl)A[i + j * lda] * q[j];
                qn[i] = sum;
            }
            if (pass == 1)
                for (size_t i = 0; i < d; i++) {
                    ldbl sum = 0;
                    for (size_t j = 0; j < d; j++)
                        sum += (ldbl)Phi[i + j * ld] * e[j];
                    for (size_t j = 0; j < nx; j++)
                        sum += K[i + j * d] * q[j];
                    en[i] = sum;
                }
            for (size_t k = 0; k < ny; k++) {
                const size_t r = off + k;
                ldbl y = 0;
                for (size_t j = 0; j < nx; j++)
                    y += (ldbl)T[r + j * ldt] * qn[j];
                if (pass == 0) {
                    mean[k] += y;
                    continue;
                }
                ldbl lr = 0, de = 0;
                for (size_t j = 0; j < nx; j++)
                    lr += K[r + j * d] * q[j];
                for (size_t j = 0; j < d; j++)
                    de += ((ldbl)Phis[r + j * ld] - (ldbl)Phi[r + j * ld]) * e[j];
                const ldbl c = y - mean[k], l = lr - de;
                s1[k] += c;
                v[k] += c * c;
                sg[k] += en[r] * en[r];
                sl[k] += l * l;
                sr[k] += lr * lr;
            }
            t = q, q = qn, qn = t;
            t = e, e = en, en = t;
        }
        if (pass == 0)
            for (size_t k = 0; k < ny; k++)
                mean[k] /= (ldbl)N;
    }
    ldbl g = 0, l = 0, r = 0;
    for (size_t k = 0; k < ny; k++) {
        const ldbl den = v[k] - s1[k] * s1[k] / (ldbl)N; /* N var_k */
        g += sg[k] / den;
        l += sl[k] / den;
        r += sr[k] / den;
    }
    out[0] = (double)sqrtl(g / (ldbl)ny);
    out[1] = (double)sqrtl(l / (ldbl)ny);
    out[2] = (double)sqrtl(r / (ldbl)ny);
    free(K);
    free(q);
    free(qn);
    free(e);
    free(en);
    free(acc);
}

/* ---- fast route against direct route -------------------------------------- */

/* Reference in state form (see cosa_nrmse). */
typedef struct sf_ref {
    size_t nx;
    const double *A;
    size_t lda;
    const double *T;
    size_t ldt;
    const double *x0;
} sf_ref;

/* Tolerance 1e-9 relative.  The two routes round differently: the fast one
 * through log2 N squarings of Phi, A*_d and pairwise merges, the direct one
 * through N sequential mat-vecs and differences of trajectories.  Both have
 * rounding errors of order sqrt(N) * DBL_EPSILON * |z| relative to errors
 * that are here >= 1e-3 |z|, i.e. disagreement ~1e-11 at N = 4097; any
 * algebraic mistake gives O(1) differences.  The long-double route (same
 * tolerance) is checked too. */
static void compare_routes_sf(size_t d, const double *Phi, const double *Phistar, size_t ld,
                              const cosa_layout *lay, const sf_ref *rf, size_t N, double rho,
                              cosa_nrmse_workspace *w, const char *what)
{
    cosa_errors ef, ed;
    sums_buf bf, bd;
    sums_init(&bf);
    sums_init(&bd);
    cosa_status sf = cosa_nrmse(d, Phi, Phistar, ld, lay, rf->nx, rf->A, rf->lda, rf->T, rf->ldt,
                                rf->x0, N, rho, &ef, &bf.s, w);
    cosa_status sd = cosa_nrmse_direct(d, Phi, Phistar, ld, lay, rf->nx, rf->A, rf->lda, rf->T,
                                       rf->ldt, rf->x0, N, rho, &ed, &bd.s, w);
    cr_assert_eq(sf, sd, "%s d=%zu N=%zu: status fast %d direct %d", what, d, N, sf, sd);
    if (N == 1) /* one point: std = 0 for every component (eq 33 undefined) */
        cr_assert_eq(sf, COSA_ERANGE, "%s N=1 must be COSA_ERANGE", what);
    else {
        cr_assert_eq(sf, COSA_OK, "%s d=%zu N=%zu: %s", what, d, N, cosa_strerror(sf));
        cr_assert_eq(ef.ncomp, ed.ncomp);
        cr_assert(close_rel(ef.e_global, ed.e_global, 1e-9), "%s d=%zu N=%zu e_g %.17g vs %.17g",
                  what, d, N, ef.e_global, ed.e_global);
        cr_assert(close_rel(ef.e_local, ed.e_local, 1e-9), "%s d=%zu N=%zu e_l %.17g vs %.17g",
                  what, d, N, ef.e_local, ed.e_local);
        cr_assert(close_rel(ef.e_local_ref, ed.e_local_ref, 1e-9),
                  "%s d=%zu N=%zu e_lr %.17g vs %.17g", what, d, N, ef.e_local_ref,
                  ed.e_local_ref);
        if (ef.ncomp == lay->ny && cosim_finite(&ef)) {
            double el[3];
            ld_route(d, Phi, Phistar, ld, lay, rf->nx, rf->A, rf->lda, rf->T, rf->ldt, rf->x0, N,
                     el);
            const double f[3] = {ef.e_global, ef.e_local, ef.e_local_ref};
            for (int i = 0; i < 3; i++)
                cr_assert(close_rel(f[i], el[i], 1e-9),
                          "%s d=%zu N=%zu indicator %d: fast %.17g long double %.17g", what, d,
                          N, i, f[i], el[i]);
        }
    }
    for (size_t k = 0; k < lay->ny; k++) {
        const char *names[5] = {"mean", "var", "ss_global", "ss_local", "ss_local_ref"};
        for (int q = 0; q < 5; q++) {
            /* mean can be near 0 relative to the output scale: compare it
             * against the RMS of the output instead of itself */
            const double scale = q == 0 ? sqrt(bd.v[0][k] * bd.v[0][k] + bd.v[1][k]) : 0.0;
            const double a = bf.v[q][k], b = bd.v[q][k];
            cr_assert(close_rel(a, b, 1e-9) || fabs(a - b) <= 1e-9 * scale,
                      "%s d=%zu N=%zu comp %zu %s: fast %.17g direct %.17g", what, d, N, k,
                      names[q], a, b);
        }
    }
}

/* The same for a reference given as z*_n = Phi*^n z0 (T = I, A*_d = Phi*). */
static void compare_routes(size_t d, const double *Phi, const double *Phistar, size_t ld,
                           const cosa_layout *lay, const double *z0, size_t N, double rho,
                           cosa_nrmse_workspace *w, const char *what)
{
    double *eye = calloc(d * d, sizeof *eye);
    cr_assert_not_null(eye);
    for (size_t i = 0; i < d; i++)
        eye[i + i * d] = 1.0;
    const sf_ref rf = {d, Phistar, ld, eye, d, z0};
    compare_routes_sf(d, Phi, Phistar, ld, lay, &rf, N, rho, w, what);
    free(eye);
}

Test(nrmse, fast_equals_direct_random)
{
    const size_t dims[] = {4, 5, 9, 16, 23, 30};
    const size_t Ns[] = {1, 2, 3, 7, 300, 1000, 4097};
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(30);
    cr_assert_not_null(w);
    double *Phi = calloc(32 * 32, sizeof *Phi), *Phis = calloc(32 * 32, sizeof *Phis),
           *z0 = calloc(32, sizeof *z0);
    rng g = {0x9E3779B97F4A7C15u};
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        const size_t d = dims[i], ld = d + 2; /* ld > dim exercised */
        const double rho = random_pair(d, &g, Phi, Phis, z0, ld);
        const cosa_layout lay = make_layout(d, d / 3, d / 4 > 0 ? d / 4 : 1);
        for (size_t j = 0; j < sizeof Ns / sizeof *Ns; j++) {
            compare_routes(d, Phi, Phis, ld, &lay, z0, Ns[j], rho, w, "random");
            compare_routes(d, Phi, Phis, ld, &lay, z0, Ns[j], COSA_RHO_UNKNOWN, w,
                           "random/rho unknown");
        }
    }
    free(Phi);
    free(Phis);
    free(z0);
    cosa_nrmse_workspace_free(w);
}

/* A genuine state form, nx < dim: Phi* = S diag(Lambda_1, Lambda_2) S^-1
 * with Lambda_1 (nx x nx) the first rotation blocks, so T = S[:, 0:nx] and
 * A*_d = Lambda_1 satisfy Phi* T = T A*_d (up to the rounding of S^-1);
 * Phi = S2 Lambda' S2^-1 a perturbation as in random_pair. */
Test(nrmse, fast_equals_direct_state_form)
{
    const size_t dims[] = {6, 9, 16, 23}, nxs[] = {2, 4, 6, 10};
    const size_t Ns[] = {1, 2, 7, 300, 4097};
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(23);
    rng g = {0xC0FFEEu};
    for (size_t c = 0; c < 4; c++) {
        const size_t d = dims[c], nx = nxs[c], nb = (d + 1) / 2;
        double *S = calloc(d * d, sizeof *S), *S2 = calloc(d * d, sizeof *S2),
               *Phis = calloc(d * d, sizeof *Phis), *Phi = calloc(d * d, sizeof *Phi),
               *A = calloc(nx * nx, sizeof *A), *x0 = calloc(nx, sizeof *x0);
        double r[12], t[12], r2[12], t2[12], rho = 0.0;
        cr_assert(S && S2 && Phis && Phi && A && x0 && nb <= 12);
        for (size_t j = 0; j < d; j++)
            for (size_t i = 0; i < d; i++) {
                S[i + j * d] = (i == j) + 0.3 * rng_sym(&g) / sqrt((double)d);
                S2[i + j * d] = S[i + j * d] + 0.03 * rng_sym(&g) / sqrt((double)d);
            }
        for (size_t k = 0; k < nb; k++) {
            r[k] = 0.99 + 0.0095 * rng_uniform(&g);
            t[k] = 0.01 + 0.3 * rng_uniform(&g);
            r2[k] = r[k] - 0.002 * rng_uniform(&g);
            t2[k] = t[k] * (1.0 + 0.02 * rng_sym(&g));
            rho = r2[k] > rho ? r2[k] : rho;
        }
        similar(d, S, r, t, Phis);
        similar(d, S2, r2, t2, Phi);
        for (size_t i = 0; i + 1 < nx; i += 2) { /* the rotation blocks of similar() */
            A[i + i * nx] = A[i + 1 + (i + 1) * nx] = r[i / 2] * cos(t[i / 2]);
            A[i + (i + 1) * nx] = -r[i / 2] * sin(t[i / 2]);
            A[i + 1 + i * nx] = r[i / 2] * sin(t[i / 2]);
        }
        for (size_t i = 0; i < nx; i++)
            x0[i] = rng_sym(&g);
        const cosa_layout lay = make_layout(d, d / 3, d / 4 > 0 ? d / 4 : 1);
        const sf_ref rf = {nx, A, nx, S, d, x0};
        for (size_t j = 0; j < sizeof Ns / sizeof *Ns; j++) {
            compare_routes_sf(d, Phi, Phis, d, &lay, &rf, Ns[j], rho, w, "state form");
            compare_routes_sf(d, Phi, Phis, d, &lay, &rf, Ns[j], COSA_RHO_UNKNOWN, w,
                              "state form/rho unknown");
        }
        free(S);
        free(S2);
        free(Phis);
        free(Phi);
        free(A);
        free(x0);
    }
    cosa_nrmse_workspace_free(w);
}

/* One long horizon: 1e5 steps, radii ~0.9999 (slow decay, ~1e3 rotations). */
Test(nrmse, fast_equals_direct_long)
{
    const size_t d = 6, N = 100000;
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    double Phi[36], Phis[36], z0[6], M[36];
    double S[36], r[3] = {0.99995, 0.9999, 0.9998}, t[3] = {0.02, 0.013, 0.005};
    double r2[3] = {0.99993, 0.9999, 0.99978}, t2[3] = {0.0201, 0.0129, 0.005};
    rng g = {12345};
    for (size_t i = 0; i < 36; i++)
        S[i] = (i % 7 == 0) + 0.2 * rng_sym(&g);
    similar(d, S, r, t, M);
    memcpy(Phis, M, sizeof M);
    similar(d, S, r2, t2, M);
    memcpy(Phi, M, sizeof M);
    for (size_t i = 0; i < d; i++)
        z0[i] = rng_sym(&g);
    const cosa_layout lay = make_layout(d, 2, 2);
    compare_routes(d, Phi, Phis, d, &lay, z0, N, 0.99993, w, "long");
    cosa_nrmse_workspace_free(w);
}

/* Outputs with a large constant offset (eigenvalue exactly 1 carrying
 * 1e4 times the oscillating part): the variance is ill-conditioned
 * (mean/std ~ 1e4).  The textbook formula sum y^2 - (sum y)^2/N would lose
 * eps (mean/std)^2 ~ 1e-8; both routes lose ~ eps mean/std. */
Test(nrmse, fast_equals_direct_offset)
{
    const size_t d = 7;
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    double Phi[49], Phis[49], z0[7], M[49], S[49], S2[49], y[7];
    double r[4] = {0.995, 0.998, 0.99, 1.0}, t[4] = {0.1, 0.03, 0.2, 0.0};
    double r2[4] = {0.994, 0.998, 0.99, 1.0}, t2[4] = {0.101, 0.0302, 0.2, 0.0};
    rng g = {777};
    for (size_t i = 0; i < 49; i++) {
        S[i] = (i % 8 == 0) + 0.2 * rng_sym(&g);
        S2[i] = S[i] + 0.01 * rng_sym(&g);
    }
    similar(d, S, r, t, M);
    memcpy(Phis, M, sizeof M);
    similar(d, S2, r2, t2, M);
    memcpy(Phi, M, sizeof M);
    for (size_t i = 0; i < d; i++)
        y[i] = rng_sym(&g);
    y[6] = 1e4; /* coefficient of the eigenvalue-1 mode */
    dense_gemv(d, d, 1.0, S, d, y, 0.0, z0);
    const cosa_layout lay = make_layout(d, 3, 2);
    const size_t Ns[] = {2, 7, 300, 4097};
    for (size_t j = 0; j < 4; j++)
        compare_routes(d, Phi, Phis, d, &lay, z0, Ns[j], COSA_RHO_UNKNOWN, w, "offset");
    cosa_nrmse_workspace_free(w);
}

/* Variance against an exact value when mean/std ~ 3e6.  z = [y; s] with
 * s_{n+1} = s_n / 2 and y_{n+1} = y_n - s_n / 2, z0 = [2^20 + 1; 1]: then
 * y*_n = 2^20 + 2^-n exactly in binary64 for n <= 32, so the sample is
 * exact and only the statistics can lose accuracy.  Textbook formula:
 * ~ eps (mean/std)^2 ~ 1e-3 relative error; the tolerance 1e-8 allows
 * eps * mean/std * (a few merges). */
Test(nrmse, variance_without_cancellation)
{
    const size_t N = 30;
    const double Phis[4] = {1.0, 0.0, -0.5, 0.5}; /* column-major [[1,-.5],[0,.5]] */
    const double Phi[4] = {1.0, 0.0, -0.5, 0.25};
    const double c = 1048576.0, z0[2] = {c + 1.0, 1.0};
    const cosa_layout lay = make_layout(2, 0, 1); /* y = row 0 */
    long double s1 = 0, s2 = 0; /* exact: mean and variance of 2^-n, n = 1..N */
    for (size_t n = 1; n <= N; n++) {
        const long double q = ldexpl(1.0L, -(int)n);
        s1 += q;
    }
    const long double m = s1 / N;
    for (size_t n = 1; n <= N; n++) {
        const long double q = ldexpl(1.0L, -(int)n) - m;
        s2 += q * q;
    }
    const double var = (double)(s2 / N), mean = (double)(c + m);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(2);
    sums_buf b;
    for (int route = 0; route < 2; route++) {
        sums_init(&b);
        cosa_errors e;
        cosa_status st = zform(route ? cosa_nrmse_direct : cosa_nrmse, 2, Phi, Phis, 2, &lay, z0, N,
                                                                  COSA_RHO_UNKNOWN, &e, &b.s, w);
        cr_assert_eq(st, COSA_OK);
        cr_assert(close_rel(b.v[1][0], var, 1e-8), "route %d var %.17g exact %.17g", route,
                  b.v[1][0], var);
        cr_assert(close_rel(b.v[0][0], mean, 1e-15), "route %d mean", route);
    }
    cosa_nrmse_workspace_free(w);
}

/* ---- identities and closed forms -------------------------------------------- */

/* Phi == Phi*: every error is exactly 0 (fast: D = 0 and the error
 * recurrence stays exactly 0; direct: identical trajectories). */
Test(nrmse, identical_trajectories_zero)
{
    const size_t d = 12;
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    double Phi[144], Phis[144], z0[12];
    rng g = {42};
    random_pair(d, &g, Phi, Phis, z0, d);
    const cosa_layout lay = make_layout(d, 4, 3);
    const size_t Ns[] = {2, 3, 300, 4097};
    for (size_t j = 0; j < 4; j++) {
        cosa_errors e;
        cr_assert_eq(zform(cosa_nrmse, d, Phis, Phis, d, &lay, z0, Ns[j], 0.9995, &e, NULL, w),
                     COSA_OK);
        cr_assert(e.e_global == 0.0 && e.e_local == 0.0 && e.e_local_ref == 0.0,
                  "fast N=%zu: %g %g %g", Ns[j], e.e_global, e.e_local, e.e_local_ref);
        cr_assert_eq(e.ncomp, 3);
        cr_assert_eq(
            zform(cosa_nrmse_direct, d, Phis, Phis, d, &lay, z0, Ns[j], 0.9995, &e, NULL, w),
            COSA_OK);
        cr_assert(e.e_global == 0.0 && e.e_local == 0.0 && e.e_local_ref == 0.0,
                  "direct N=%zu: %g %g %g", Ns[j], e.e_global, e.e_local, e.e_local_ref);
    }
    cosa_nrmse_workspace_free(w);
}

/* G(q) = sum_{n=1}^{N} q^n = q (1 - q^N) / (1 - q) */
static long double geo1(long double q, size_t N)
{
    return q * (1.0L - powl(q, (long double)N)) / (1.0L - q);
}

/* Scalar system Phi = a, Phi* = b, z0 = 1 (y = z):
 *   y*_n = b^n, mean = G(b)/N, var = G(b^2)/N - mean^2,
 *   SSg = sum (b^n - a^n)^2 = G(b^2) - 2 G(ab) + G(a^2),
 *   SSl = sum_{n=0}^{N-1} ((b - a) a^n)^2 = (b - a)^2 (1 + G(a^2) - a^{2N}),
 *   SSr = (b - a)^2 (1 + G(b^2) - b^{2N}),
 *   e = sqrt(SS / (N var)).
 * Evaluated in long double; a, b chosen so that none of these loses more
 * than ~2 digits.  Tolerance 1e-12: the routes' rounding is ~ log2(N) or
 * sqrt(N) times DBL_EPSILON, amplified by at most ~1e2 by the variance. */
Test(nrmse, scalar_closed_form)
{
    const double ab[][2] = {{0.7, 0.9}, {-0.5, 0.95}, {0.99, 0.8}, {0.3, -0.6}};
    const size_t Ns[] = {2, 5, 50, 1000, 4097};
    const cosa_layout lay = make_layout(1, 0, 1);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(1);
    for (size_t i = 0; i < sizeof ab / sizeof *ab; i++)
        for (size_t j = 0; j < sizeof Ns / sizeof *Ns; j++) {
            const long double a = ab[i][0], b = ab[i][1];
            const size_t N = Ns[j];
            const long double mean = geo1(b, N) / N;
            const long double var = geo1(b * b, N) / N - mean * mean;
            const long double ssg = geo1(b * b, N) - 2 * geo1(a * b, N) + geo1(a * a, N);
            const long double ssl =
                (b - a) * (b - a) * (1 + geo1(a * a, N) - powl(a, 2.0L * N));
            const long double ssr =
                (b - a) * (b - a) * (1 + geo1(b * b, N) - powl(b, 2.0L * N));
            const double eg = (double)sqrtl(ssg / (N * var));
            const double el = (double)sqrtl(ssl / (N * var));
            const double er = (double)sqrtl(ssr / (N * var));
            const double Phi = ab[i][0], Phis = ab[i][1], z0 = 1.0;
            for (int route = 0; route < 2; route++) {
                cosa_errors e;
                cosa_status st = zform(route ? cosa_nrmse_direct : cosa_nrmse, 1, &Phi, &Phis, 1,
                                       &lay, &z0, N, fabs(Phi), &e, NULL, w);
                cr_assert_eq(st, COSA_OK);
                cr_assert(close_rel(e.e_global, eg, 1e-12),
                          "route %d a=%g b=%g N=%zu e_g %.17g vs %.17g", route, Phi, Phis, N,
                          e.e_global, eg);
                cr_assert(close_rel(e.e_local, el, 1e-12),
                          "route %d a=%g b=%g N=%zu e_l %.17g vs %.17g", route, Phi, Phis, N,
                          e.e_local, el);
                cr_assert(close_rel(e.e_local_ref, er, 1e-12),
                          "route %d a=%g b=%g N=%zu e_lr %.17g vs %.17g", route, Phi, Phis, N,
                          e.e_local_ref, er);
            }
        }
    cosa_nrmse_workspace_free(w);
}

/* Phi diagonal, Phi* = Phi except one diagonal entry in the output slot
 * (row/col 3 = output component 1, Phi_33 = a = 0.8, Phi*_33 = b = a + delta):
 * D = delta e_3 e_3^T, so with z0_3 = 1
 *   local:     eps_{n+1} = delta a^n   in component 1 only,
 *   local ref: eps_{n+1} = delta b^n,
 *   global:    b^n - a^n,
 * and every reference output is geometric.  The global sum uses the long
 * double recurrence e_{n+1} = b e_n + (b - a) a^n (b - a is exact), because
 * the closed form G(b^2) - 2 G(ab) + G(a^2) cancels when delta is small.
 * tol: relative tolerance for this route (see the callers). */
static void one_entry_case(double delta, int route, double tol)
{
    const size_t d = 5, N = 300;
    const double p[5] = {0.5, 0.6, 0.9, 0.8, 0.7};
    const double z0[5] = {1.0, -1.0, 2.0, 1.0, -3.0};
    double Phi[25] = {0}, Phis[25] = {0};
    for (size_t i = 0; i < d; i++)
        Phi[i * 6] = Phis[i * 6] = p[i];
    Phis[3 * 6] += delta;
    const cosa_layout lay = make_layout(d, 2, 3);
    const long double a = Phi[18], b = Phis[18], dl = b - a;
    const long double q[3] = {Phis[12], b, Phis[24]}; /* reference output rates */
    const long double c[3] = {2.0L, 1.0L, -3.0L};
    long double sg = 0, sl = 0, sr = 0;
    for (int k = 0; k < 3; k++) {
        const long double mean = c[k] * geo1(q[k], N) / N;
        const long double var = c[k] * c[k] * geo1(q[k] * q[k], N) / N - mean * mean;
        if (k == 1) {
            long double e = 0, an = 1, ssg = 0;
            for (size_t n = 0; n < N; n++) {
                e = b * e + dl * an; /* e_{n+1} */
                an *= a;
                ssg += e * e;
            }
            sg += ssg / (N * var);
            sl += dl * dl * (1 + geo1(a * a, N) - powl(a, 2.0L * N)) / (N * var);
            sr += dl * dl * (1 + geo1(b * b, N) - powl(b, 2.0L * N)) / (N * var);
        }
    }
    const double eg = (double)sqrtl(sg / 3), el = (double)sqrtl(sl / 3),
                 er = (double)sqrtl(sr / 3);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    cosa_errors e;
    sums_buf bs;
    sums_init(&bs);
    cosa_status st = zform(route ? cosa_nrmse_direct : cosa_nrmse, d, Phi, Phis, d, &lay, z0, N,
                                                              0.9, &e, &bs.s, w);
    cr_assert_eq(st, COSA_OK);
    cr_assert_eq(e.ncomp, 3);
    cr_assert(close_rel(e.e_global, eg, tol), "route %d delta %g e_g %.17g vs %.17g", route,
              delta, e.e_global, eg);
    cr_assert(close_rel(e.e_local, el, tol), "route %d delta %g e_l %.17g vs %.17g", route,
              delta, e.e_local, el);
    cr_assert(close_rel(e.e_local_ref, er, tol), "route %d delta %g e_lr %.17g vs %.17g", route,
              delta, e.e_local_ref, er);
    cr_assert(e.e_local < e.e_local_ref); /* a < b */
    /* components 0 and 2 have no error at all: exactly 0 (fast: D has a
     * single nonzero entry, so the projections are exact zeros) */
    for (int k = 0; k < 3; k += 2)
        cr_assert(bs.v[2][k] == 0.0 && bs.v[3][k] == 0.0 && bs.v[4][k] == 0.0,
                  "route %d comp %d: %g %g %g", route, k, bs.v[2][k], bs.v[3][k], bs.v[4][k]);
    cosa_nrmse_workspace_free(w);
}

/* delta = 0.05: both routes to 1e-12 (as the scalar closed form). */
Test(nrmse, one_entry_difference)
{
    one_entry_case(0.05, 0, 1e-12);
    one_entry_case(0.05, 1, 1e-12);
}

/* delta = 1e-9: the error is ~1e-9 of the trajectory.  The fast route
 * propagates the error itself and stays at ~1e-14 relative (tolerance
 * 1e-10); the direct route subtracts two trajectories that each carry
 * ~ n eps |z| rounding, i.e. ~ eps / delta (measured 2e-8 relative;
 * tolerance 1e-5). */
Test(nrmse, one_entry_tiny_difference)
{
    one_entry_case(1e-9, 0, 1e-10);
    one_entry_case(1e-9, 1, 1e-5);
}

/* A component whose reference output is identically zero is skipped
 * (ncomp = ny - 1) and the result equals the indicator over the remaining
 * components alone (tolerance: 1e-14, same arithmetic up to the order of
 * the final sum). */
Test(nrmse, constant_component_skipped)
{
    const size_t d = 8;
    double Phi[64], Phis[64], z0[8];
    rng g = {99};
    random_pair(d, &g, Phi, Phis, z0, d);
    /* row/column 2 (first output) decoupled, z0_2 = 0: y*_0 == 0 */
    for (size_t k = 0; k < d; k++) {
        Phis[2 + k * d] = Phis[k + 2 * d] = 0.0;
        Phi[2 + k * d] = Phi[k + 2 * d] = 0.0;
    }
    Phis[2 + 2 * d] = Phi[2 + 2 * d] = 0.5;
    z0[2] = 0.0;
    cosa_layout l3 = make_layout(d, 2, 3), l2 = l3;
    l2.off_y = 3;
    l2.ny = 2;
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    for (int route = 0; route < 2; route++) {
        cosa_errors e3, e2;
        nrmse_fn fn = route ? cosa_nrmse_direct : cosa_nrmse;
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &l3, z0, 500, COSA_RHO_UNKNOWN, &e3, NULL, w),
                     COSA_OK);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &l2, z0, 500, COSA_RHO_UNKNOWN, &e2, NULL, w),
                     COSA_OK);
        cr_assert_eq(e3.ncomp, 2);
        cr_assert_eq(e2.ncomp, 2);
        cr_assert(close_rel(e3.e_global, e2.e_global, 1e-14));
        cr_assert(close_rel(e3.e_local, e2.e_local, 1e-14));
        cr_assert(close_rel(e3.e_local_ref, e2.e_local_ref, 1e-14));
    }
    cosa_nrmse_workspace_free(w);
}

/* ---- instability ------------------------------------------------------------ */

static void assert_inf_not_nan(const cosa_errors *e, const char *what)
{
    cr_assert(isinf(e->e_global) && e->e_global > 0, "%s: e_g = %g", what, e->e_global);
    cr_assert(isinf(e->e_local) && e->e_local > 0, "%s: e_l = %g", what, e->e_local);
    cr_assert(isfinite(e->e_local_ref), "%s: e_lr = %g", what, e->e_local_ref);
}

Test(nrmse, unstable_is_inf_not_nan)
{
    const size_t d = 10;
    double Phi[100], Phis[100], z0[10];
    rng g = {2024};
    random_pair(d, &g, Phi, Phis, z0, d);
    for (size_t i = 0; i < 100; i++)
        Phi[i] *= 3.0; /* rho(Phi) ~ 3: Phi^4097 overflows */
    const cosa_layout lay = make_layout(d, 3, 2);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d);
    for (int route = 0; route < 2; route++) {
        nrmse_fn fn = route ? cosa_nrmse_direct : cosa_nrmse;
        cosa_errors e, eref;
        sums_buf b;
        sums_init(&b);
        /* rule 1: rho > 1 + COSA_RHO_TOL -> +inf even for short horizons */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, 3.0, &e, &b.s, w), COSA_OK);
        assert_inf_not_nan(&e, "rho=3, N=10");
        cr_assert(isinf(b.v[2][0]) && isinf(b.v[3][0]));
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, INFINITY, &e, NULL, w), COSA_OK);
        assert_inf_not_nan(&e, "rho=inf");
        /* rule 2: unknown rho, trajectory overflows (3^4097) -> +inf, not NaN;
         * the reference part is unaffected */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 4097, COSA_RHO_UNKNOWN, &e, NULL, w),
                     COSA_OK);
        assert_inf_not_nan(&e, "overflow");
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 4097, 3.0, &eref, NULL, w), COSA_OK);
        cr_assert(close_rel(e.e_local_ref, eref.e_local_ref, 1e-14));
        /* unknown rho, short horizon: finite-horizon values */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, COSA_RHO_UNKNOWN, &e, NULL, w),
                     COSA_OK);
        cr_assert(isfinite(e.e_global) && isfinite(e.e_local));
    }
    /* threshold of the rho rule */
    double Phi1[100], Phis1[100];
    random_pair(d, &g, Phi1, Phis1, z0, d);
    cosa_errors a, b2, c;
    cr_assert_eq(zform(cosa_nrmse, d, Phi1, Phis1, d, &lay, z0, 300, 1.0 + 1e-11, &a, NULL, w),
                 COSA_OK);
    cr_assert(isinf(a.e_global) && isinf(a.e_local));
    cr_assert_eq(zform(cosa_nrmse, d, Phi1, Phis1, d, &lay, z0, 300, 1.0 + 1e-13, &b2, NULL, w),
                 COSA_OK);
    cr_assert_eq(zform(cosa_nrmse, d, Phi1, Phis1, d, &lay, z0, 300, COSA_RHO_UNKNOWN, &c, NULL, w),
                 COSA_OK);
    cr_assert(isfinite(b2.e_global) && b2.e_global == c.e_global && b2.e_local == c.e_local);
    cosa_nrmse_workspace_free(w);
}

Test(nrmse, scalar_unstable)
{
    const cosa_layout lay = make_layout(1, 0, 1);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(1);
    const double a = -10.0, b = 0.9, z0 = 1.0;
    for (int route = 0; route < 2; route++) {
        cosa_errors e;
        cosa_status st = zform(route ? cosa_nrmse_direct : cosa_nrmse, 1, &a, &b, 1, &lay, &z0,
                               1000, COSA_RHO_UNKNOWN, &e, NULL, w);
        cr_assert_eq(st, COSA_OK);
        assert_inf_not_nan(&e, "scalar a=-10");
    }
    cosa_nrmse_workspace_free(w);
}

/* ---- bad input ------------------------------------------------------------- */

Test(nrmse, bad_input_status)
{
    const size_t d = 4;
    double Phi[16] = {0}, Phis[16] = {0}, z0[4] = {1, 2, 3, 4};
    for (size_t i = 0; i < d; i++)
        Phi[i * 5] = 0.5, Phis[i * 5] = 0.6;
    cosa_layout lay = make_layout(d, 1, 2);
    cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(d), *small = cosa_nrmse_workspace_alloc(3);
    cr_assert_not_null(w);
    cr_assert_null(cosa_nrmse_workspace_alloc(0));
    cosa_nrmse_workspace_free(NULL);
    nrmse_fn fns[2] = {cosa_nrmse, cosa_nrmse_direct};
    for (int r = 0; r < 2; r++) {
        nrmse_fn fn = fns[r];
        cosa_errors e;
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_OK);
        cr_assert_eq(zform(fn, d, NULL, Phis, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert(isnan(e.e_global) && isnan(e.e_local) && isnan(e.e_local_ref) && e.ncomp == 0);
        cr_assert_eq(zform(fn, d, Phi, NULL, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, NULL, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, NULL, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, 0.5, NULL, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, 0.5, &e, NULL, NULL), COSA_EINVAL);
        cr_assert_eq(zform(fn, 0, Phi, Phis, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        /* dim != lay.dim, then ld < dim */
        cr_assert_eq(zform(fn, 3, Phi, Phis, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d - 1, &lay, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cosa_layout bad = lay;
        bad.ny = 0; /* no outputs: the NRMSE is undefined, as for constant outputs */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &bad, z0, 10, 0.5, &e, NULL, w), COSA_ERANGE);
        bad = lay;
        bad.off_y = 3; /* 3 + 2 > 4 */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &bad, z0, 10, 0.5, &e, NULL, w), COSA_EINVAL);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 0, 0.5, &e, NULL, w), COSA_ERANGE);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 1, 0.5, &e, NULL, w),
                     COSA_ERANGE); /* std = 0 */
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, NAN, &e, NULL, w), COSA_ENONFINITE);
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, z0, 10, 0.5, &e, NULL, small),
                     COSA_EWORKSPACE);
        const double zz[4] = {0, 0, 0, 0};
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, zz, 10, 0.5, &e, NULL, w), COSA_ERANGE);
        double nanm[16];
        memcpy(nanm, Phi, sizeof nanm);
        nanm[7] = NAN;
        cr_assert_eq(zform(fn, d, nanm, Phis, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_ENONFINITE);
        nanm[7] = INFINITY;
        cr_assert_eq(zform(fn, d, Phi, nanm, d, &lay, z0, 10, 0.5, &e, NULL, w), COSA_ENONFINITE);
        const double zn[4] = {1, NAN, 0, 0};
        cr_assert_eq(zform(fn, d, Phi, Phis, d, &lay, zn, 10, 0.5, &e, NULL, w), COSA_ENONFINITE);
        /* unstable reference: its statistics overflow */
        double big[16] = {0};
        for (size_t i = 0; i < d; i++)
            big[i * 5] = 1e10;
        cr_assert_eq(zform(fn, d, Phi, big, d, &lay, z0, 100, 0.5, &e, NULL, w), COSA_EUNSTABLEREF);
        cr_assert(isnan(e.e_global));
        /* the state-form arguments: T = [I; 0] (4 x 2), A*_d = 0.6 I (2 x 2) */
        const double T[8] = {1, 0, 0, 0, 0, 1, 0, 0}, A[4] = {0.6, 0, 0, 0.6}, x0[2] = {1, 2};
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, T, d, x0, 10, 0.5, &e, NULL, w), COSA_OK);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, NULL, 2, T, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, NULL, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, T, d, NULL, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 0, A, 2, T, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL); /* nx = 0 */
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 1, T, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL); /* lda < nx */
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, T, d - 1, x0, 10, 0.5, &e, NULL, w),
                     COSA_EINVAL); /* ldt < dim */
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 5, A, 5, T, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_EWORKSPACE); /* nx > dim_max (checked before reading A, T, x0) */
        double Tn[8], An[4], xn[2] = {1, INFINITY};
        memcpy(Tn, T, sizeof Tn);
        memcpy(An, A, sizeof An);
        Tn[5] = NAN;
        An[3] = INFINITY;
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, Tn, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_ENONFINITE);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, An, 2, T, d, x0, 10, 0.5, &e, NULL, w),
                     COSA_ENONFINITE);
        cr_assert_eq(fn(d, Phi, Phis, d, &lay, 2, A, 2, T, d, xn, 10, 0.5, &e, NULL, w),
                     COSA_ENONFINITE);
    }
    cosa_nrmse_workspace_free(w);
    cosa_nrmse_workspace_free(small);
}

/* ---- real propagation matrices: the two-mass oscillator -------------------- */

/* Phi, Phi*, A*_d, T of scheme `scheme` at dt for the built-in model
 * "twomass" at its defaults (c_k = 2e5, d_k = 5e2, x0 = [0, 100, 0, -100]),
 * horizon 0.3 s. */
typedef struct tm_case {
    cosa_system *sys;
    cosa_layout lay;
    size_t d, nx, N;
    double rho, x0[8];
    double *Phi, *Phis, *A, *T;
} tm_case;

static void tm_setup(const char *scheme, double dt, tm_case *c)
{
    const cosa_model *m = cosa_model_find("twomass");
    cr_assert_not_null(m);
    double par[64];
    cr_assert(m->nparam <= 64);
    cosa_model_defaults(m, par);
    cr_assert_eq(m->create(m, par, &c->sys), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cr_assert_eq(cosa_layout_get(c->sys, &s, &c->lay), COSA_OK);
    const size_t d = c->d = c->lay.dim, nx = c->nx = c->lay.nx;
    cr_assert(nx <= 8);
    cr_assert_eq(m->initial_state(m, par, c->x0), COSA_OK);
    c->Phi = calloc(d * d, sizeof(double));
    c->Phis = calloc(d * d, sizeof(double));
    c->A = calloc(nx * nx, sizeof(double));
    c->T = calloc(d * nx, sizeof(double));
    double *copy = calloc(d * d, sizeof(double));
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(c->sys, s.order);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(d);
    cr_assert(c->Phi && c->Phis && c->A && c->T && copy && pw && ew);
    cr_assert_eq(cosa_phi_build(c->sys, &s, dt, c->Phi, d, pw), COSA_OK);
    cr_assert_eq(cosa_phi_ref_build(c->sys, &s, dt, c->Phis, d, pw), COSA_OK);
    cr_assert_eq(cosa_phi_ref_basis(c->sys, &s, dt, c->T, d, pw), COSA_OK);
    dense_copy(nx, nx, c->Phis, d, c->A, nx);
    dense_copy(d, d, c->Phi, d, copy, d);
    cr_assert_eq(cosa_spectral_radius(d, copy, d, &c->rho, ew), COSA_OK);
    c->N = (size_t)nearbyint(0.3 / dt);
    free(copy);
    cosa_phi_workspace_free(pw);
    cosa_eig_workspace_free(ew);
}

static void tm_free(tm_case *c)
{
    cosa_system_free(c->sys);
    free(c->Phi);
    free(c->Phis);
    free(c->A);
    free(c->T);
}

/* fast (cosa_nrmse) against the long-double stepping route and the double
 * direct route, dt = 1e-3 .. 1e-6 (N = 300 .. 300000).
 *
 * Long double, tolerance 1e-9 relative wherever the value is >= 1e-14: the
 * fast route now subtracts nothing large (componentwise cancellation
 * |K||q|/|Kq| <= 2 on these cases; |R D||e|/|l| <= 30 except p3/p4 at
 * dt = 1e-6, where e_local < 1e-13), so its error is ~ log2(N) eps times
 * small factors (measured <= 1e-13); the long-double route's is ~ 2^-64
 * sqrt(N).  The old fast route (D G D^T from Gram matrices of z) was off by
 * O(1) here (e_local = 0 or negative sums for p3/p4 at dt = 1e-5).
 *
 * Double direct, tolerance d u (sqrt(N) max(1, |fast|) + log2(N) |fast|),
 * d = dim z, u = DBL_EPSILON / 2.  The direct route forms (Phi* - Phi) z per
 * step, which loses DBL_EPSILON |D||z| / |D z| relative (|D||z|/|Dz| up to
 * 1e13 at dt = 1e-5, 3e16 at dt = 1e-6), i.e. an absolute error of d u
 * (d-term products) in the normalised indicator, uses Phi* T where the fast
 * route uses T A*_d (they differ by the rounding of the matrices, again
 * ~ d u absolute), and differences two stepped trajectories whose roundings,
 * d u per step, add up as random walks: ~ sqrt(N) d u absolute in the RMS
 * e_global, relative to it once it exceeds 1 (growing errors).  The fast
 * route adds its own log2(N) d u relative (above).  Measured ratios <= 0.08
 * over OpenBLAS Prescott/Haswell/Zen/SkylakeX and the reference BLAS
 * (|fast - direct| <= 1.8e-15 at e_global = 1.1, <= 1.4e-14 absolute); the
 * former tolerance 1e-6 |fast| + sqrt(N) DBL_EPSILON saw ratios up to 0.18
 * and allowed 1e-6 relative where the routes agree to 1e-15.
 *
 * Always: e_global, e_local >= 0 (or +inf), per-component sums >= 0; an
 * unstable scheme (p3, p4 at dt = 1e-3) has e_global = e_local = +inf and a
 * finite e_local_ref. */
static void twomass_routes(const char *scheme)
{
    const double dts[4] = {1e-3, 1e-4, 1e-5, 1e-6};
    for (int i = 0; i < 4; i++) {
        tm_case c;
        tm_setup(scheme, dts[i], &c);
        cosa_nrmse_workspace *w = cosa_nrmse_workspace_alloc(c.d);
        cosa_errors ef, ed;
        sums_buf bf;
        sums_init(&bf);
        cr_assert_eq(cosa_nrmse(c.d, c.Phi, c.Phis, c.d, &c.lay, c.nx, c.A, c.nx, c.T, c.d, c.x0,
                                c.N, c.rho, &ef, &bf.s, w),
                     COSA_OK);
        cr_assert_eq(cosa_nrmse_direct(c.d, c.Phi, c.Phis, c.d, &c.lay, c.nx, c.A, c.nx, c.T, c.d,
                                       c.x0, c.N, c.rho, &ed, NULL, w),
                     COSA_OK);
        cr_assert_eq(ef.ncomp, 3);
        const int stable = !(c.rho > 1.0 + COSA_RHO_TOL);
        double el[3];
        ld_route(c.d, c.Phi, c.Phis, c.d, &c.lay, c.nx, c.A, c.nx, c.T, c.d, c.x0, c.N, el);
        const double f[3] = {ef.e_global, ef.e_local, ef.e_local_ref},
                     dr[3] = {ed.e_global, ed.e_local, ed.e_local_ref};
        const char *nm[3] = {"e_global", "e_local", "e_local_ref"};
        const double du = (double)c.d * DBL_EPSILON / 2, sqn = sqrt((double)c.N),
                     lgn = log2((double)c.N);
        for (int k = 0; k < 3; k++) {
            cr_assert(f[k] >= 0.0 && !isnan(f[k]), "%s dt=%g %s = %g", scheme, dts[i], nm[k],
                      f[k]);
            if (!stable && k < 2) {
                cr_assert(isinf(f[k]) && isinf(dr[k]), "%s dt=%g unstable: %s %g / %g", scheme,
                          dts[i], nm[k], f[k], dr[k]);
                continue;
            }
            cr_assert(isfinite(f[k]), "%s dt=%g %s = %g", scheme, dts[i], nm[k], f[k]);
            if (el[k] >= 1e-14)
                cr_assert(fabs(f[k] - el[k]) <= 1e-9 * el[k],
                          "%s dt=%g %s: fast %.17g long double %.17g (rel %.2g)", scheme, dts[i],
                          nm[k], f[k], el[k], fabs(f[k] - el[k]) / el[k]);
            const double tol_d = du * (sqn * fmax(1.0, f[k]) + lgn * f[k]);
            cr_assert(fabs(f[k] - dr[k]) <= tol_d,
                      "%s dt=%g %s: fast %.17g direct %.17g (ratio %.3g)", scheme, dts[i], nm[k],
                      f[k], dr[k], fabs(f[k] - dr[k]) / tol_d);
            cr_log_info("%-11s dt=%-6g %-11s fast %.6e  |fast-ld|/ld %.1e  |fast-direct|/fast "
                        "%.1e",
                        scheme, dts[i], nm[k], f[k], fabs(f[k] - el[k]) / el[k],
                        fabs(f[k] - dr[k]) / f[k]);
        }
        for (size_t k = 0; k < 3; k++)
            for (int q = 1; q < 5; q++)
                cr_assert(bf.v[q][k] >= 0.0, "%s dt=%g comp %zu sum %d = %g", scheme, dts[i], k,
                          q, bf.v[q][k]);
        cosa_nrmse_workspace_free(w);
        tm_free(&c);
    }
}

Test(nrmse_twomass, zoh) { twomass_routes("zoh"); }
Test(nrmse_twomass, zoh_mbcorr) { twomass_routes("zoh+mbcorr"); }
Test(nrmse_twomass, soh_mbcorr) { twomass_routes("soh+mbcorr"); }
Test(nrmse_twomass, p3) { twomass_routes("p3"); }
Test(nrmse_twomass, p4) { twomass_routes("p4"); }
Test(nrmse_twomass, p4_mbcorr) { twomass_routes("p4+mbcorr"); }

/* The reference basis: Phi* T = T A*_d up to rounding, and cosa_z0_build
 * gives T x0.  Componentwise tolerance 64 p eps (|Phi*||T| + |T||A*_d|): T is
 * built by the row recursion slot_{j-1} = slot_j A*_d and Phi*'s output row
 * is C* A*_d, so each entry of the difference is a few roundings of products
 * of at most p + 1 factors. */
Test(nrmse_twomass, reference_basis)
{
    const char *schemes[] = {"zoh", "foh+mbcorr", "p3", "p4+ecorr"};
    const double dts[] = {1e-3, 1e-5};
    for (int si = 0; si < 4; si++)
        for (int di = 0; di < 2; di++) {
            tm_case c;
            tm_setup(schemes[si], dts[di], &c);
            const size_t d = c.d, nx = c.nx, p = c.lay.nhist - 1;
            for (size_t j = 0; j < nx; j++)
                for (size_t i = 0; i < d; i++) {
                    double x = 0, y = 0, bound = 0;
                    for (size_t k = 0; k < d; k++) {
                        x += c.Phis[i + k * d] * c.T[k + j * d];
                        bound += fabs(c.Phis[i + k * d] * c.T[k + j * d]);
                    }
                    for (size_t k = 0; k < nx; k++) {
                        y += c.T[i + k * d] * c.A[k + j * nx];
                        bound += fabs(c.T[i + k * d] * c.A[k + j * nx]);
                    }
                    cr_assert(fabs(x - y) <= 64.0 * (double)(p + 1) * DBL_EPSILON * bound,
                              "%s dt=%g (Phi* T - T A)[%zu,%zu] = %g, bound %g", schemes[si],
                              dts[di], i, j, x - y, bound);
                }
            /* z0 = T x0; du rows zero */
            cosa_scheme s;
            cosa_scheme_parse(schemes[si], &s);
            cosa_phi_workspace *pw = cosa_phi_workspace_alloc(c.sys, s.order);
            double z0[64];
            cr_assert(d <= 64);
            cr_assert_eq(cosa_z0_build(c.sys, &s, dts[di], c.x0, z0, pw), COSA_OK);
            for (size_t i = 0; i < d; i++) {
                double x = 0, bound = 0;
                for (size_t k = 0; k < nx; k++) {
                    x += c.T[i + k * d] * c.x0[k];
                    bound += fabs(c.T[i + k * d] * c.x0[k]);
                }
                cr_assert(fabs(z0[i] - x) <= 4.0 * (double)nx * DBL_EPSILON * bound,
                          "%s z0[%zu] %.17g vs T x0 %.17g", schemes[si], i, z0[i], x);
                if (i >= c.lay.off_du)
                    cr_assert(c.T[i] == 0.0 && z0[i] == 0.0);
            }
            double Tb[1];
            cr_assert_eq(cosa_phi_ref_basis(c.sys, &s, dts[di], Tb, d - 1, pw), COSA_EINVAL);
            cr_assert_eq(cosa_phi_ref_basis(c.sys, &s, dts[di], NULL, d, pw), COSA_EINVAL);
            cr_assert_eq(cosa_phi_ref_basis(c.sys, &s, -1.0, c.T, d, pw), COSA_ERANGE);
            cosa_phi_workspace_free(pw);
            tm_free(&c);
        }
}

/* MBCorr paper, section 4.3 (doc/method.md, section 12),
 * at the twomass defaults (c_k = 2e5, d_k = 5e2): local error 1e-3 needs
 * dt ~ 7e-6 for ZOH and ~ 2e-4 for ZOH+MBCorr.  Checked as brackets through
 * cosa_evaluate: e_l(5e-6) < 1e-3 < e_l(9e-6) (ZOH) and
 * e_l(1.5e-4) < 1e-3 < e_l(3e-4) (ZOH+MBCorr). */
Test(nrmse_twomass, paper_local_error_brackets)
{
    double x0[8];
    cosa_system *sys = tu_model_system("twomass", x0);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 0);
    cr_assert_not_null(w);
    const struct {
        const char *scheme;
        double lo, hi;
    } cases[2] = {{"zoh", 5e-6, 9e-6}, {"zoh+mbcorr", 1.5e-4, 3e-4}};
    for (int i = 0; i < 2; i++) {
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(cases[i].scheme, &s), COSA_OK);
        cosa_point_result lo, hi;
        cr_assert_eq(cosa_evaluate(sys, &s, cases[i].lo, x0, 0.3, COSA_WANT_ERRORS, &lo, w),
                     COSA_OK);
        cr_assert_eq(cosa_evaluate(sys, &s, cases[i].hi, x0, 0.3, COSA_WANT_ERRORS, &hi, w),
                     COSA_OK);
        cr_log_info("%s: e_local(%g) = %.4g, e_local(%g) = %.4g", cases[i].scheme, cases[i].lo,
                    lo.err.e_local, cases[i].hi, hi.err.e_local);
        cr_assert(lo.err.e_local < 1e-3 && hi.err.e_local > 1e-3,
                  "%s: e_local(%g) = %g, e_local(%g) = %g", cases[i].scheme, cases[i].lo,
                  lo.err.e_local, cases[i].hi, hi.err.e_local);
    }
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}

/* ---- convergence order ------------------------------------------------------ */

/* exact power law: the fit is exact up to rounding of log (tolerance 1e-12) */
Test(convergence, order_fit_exact)
{
    double dt[9], e[9];
    for (int i = 0; i < 9; i++) {
        dt[i] = 1e-6 * pow(10.0, 0.5 * i);
        e[i] = 5.0 * pow(dt[i], 2.5);
    }
    e[3] = INFINITY; /* skipped */
    e[5] = NAN;      /* skipped */
    e[7] = 0.0;      /* skipped (log undefined) */
    double p, lc;
    size_t nu;
    cr_assert_eq(cosa_order_fit(9, dt, e, &p, &lc, &nu), COSA_OK);
    cr_assert_eq(nu, 6);
    cr_assert(fabs(p - 2.5) <= 1e-12, "order %.17g", p);
    cr_assert(fabs(lc - log10(5.0)) <= 1e-10, "log10c %.17g", lc);
    cr_assert_eq(cosa_order_fit(1, dt, e, &p, &lc, &nu), COSA_ERANGE);
    const double same[3] = {1e-3, 1e-3, 1e-3}, es[3] = {1, 2, 3};
    cr_assert_eq(cosa_order_fit(3, same, es, &p, NULL, NULL), COSA_ERANGE);
    cr_assert(isnan(p));
    cr_assert_eq(cosa_order_fit(3, NULL, es, &p, NULL, NULL), COSA_EINVAL);
}

/* e = 1e-13 (round-off floor) + 10 dt^3, unstable (inf) above 1e-3:
 * the range must start where 10 dt^3 dominates the floor and stop before
 * the infinite points; the fitted order must be ~3 (within 0.1: the lowest
 * points of the run still carry a few percent of floor). */
Test(convergence, order_range_synthetic)
{
    enum { n = 21 };
    double dt[n], e[n];
    for (int i = 0; i < n; i++) {
        dt[i] = pow(10.0, -6.0 + 0.25 * i); /* 1e-6 .. 1e-1 */
        e[i] = dt[i] > 1.01e-3 ? INFINITY : 1e-13 + 10.0 * pow(dt[i], 3.0);
    }
    size_t first, last;
    cr_assert_eq(cosa_order_range(n, dt, e, 0.0, 0.0, &first, &last), COSA_OK);
    cr_assert(dt[last] <= 1.01e-3 && dt[last] >= 0.99e-3, "last dt %g", dt[last]);
    cr_assert(dt[first] >= 1e-5 && dt[first] <= 1e-4, "first dt %g", dt[first]);
    double p;
    cr_assert_eq(cosa_order_fit(last - first + 1, dt + first, e + first, &p, NULL, NULL), COSA_OK);
    cr_assert(fabs(p - 3.0) <= 0.1, "order %g", p);
    /* errors above emax are excluded */
    for (int i = 0; i < n; i++)
        e[i] = 1e-2 * pow(dt[i] / 1e-6, 1.0); /* 1e-2 .. 1e3, slope 1 */
    cr_assert_eq(cosa_order_range(n, dt, e, 0.15, 0.3, &first, &last), COSA_OK);
    cr_assert_eq(first, 0);
    cr_assert_eq(last, 4); /* dt = 1e-5 gives 0.1, dt = 10^-4.75 gives 0.178 */
    /* not increasing / nothing usable */
    double dd[3] = {1e-3, 1e-4, 1e-2}, ee[3] = {1e-3, 1e-4, 1e-2};
    cr_assert_eq(cosa_order_range(3, dd, ee, 0.0, 0.0, &first, &last), COSA_ERANGE);
    double d2[3] = {1e-4, 1e-3, 1e-2}, e2[3] = {NAN, 1.0, INFINITY};
    cr_assert_eq(cosa_order_range(3, d2, e2, 0.0, 0.0, &first, &last), COSA_ERANGE);
}

/* The asymptotic-range rule applied literally (the quadratic loop that
 * cosa_order_range used before its sliding window): for every start i the
 * run is extended while the next point is in range and the spread of the
 * slopes stays <= tol; the longest run wins, ties to smaller dt. */
static int range_direct(size_t n, const double *dt, const double *err, double emax, double tol,
                        size_t *first, size_t *last)
{
    size_t best_i = 0, best_len = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (!(isfinite(err[i]) && err[i] > 0.0 && err[i] <= emax))
            continue;
        double smin = INFINITY, smax = -INFINITY;
        size_t j = i;
        while (j + 1 < n && isfinite(err[j + 1]) && err[j + 1] > 0.0 && err[j + 1] <= emax) {
            const double sl = log(err[j + 1] / err[j]) / log(dt[j + 1] / dt[j]);
            const double lo = sl < smin ? sl : smin, hi = sl > smax ? sl : smax;
            if (!isfinite(sl) || hi - lo > tol)
                break;
            smin = lo;
            smax = hi;
            j++;
        }
        if (j > i && j - i + 1 > best_len) {
            best_len = j - i + 1;
            best_i = i;
        }
    }
    if (best_len < 2)
        return 1;
    *first = best_i;
    *last = best_i + best_len - 1;
    return 0;
}

/* The sliding window gives exactly the literal rule's range (same index
 * pair, same status) on random error curves: noisy power laws with
 * plateaus, jumps, points above emax, NaN, inf and 0, for n = 2..80 and
 * tolerances that make runs short and long. */
Test(convergence, order_range_window_equals_direct)
{
    rng r = {0x9e3779b97f4a7c15ull};
    enum { nmax = 80 };
    double dt[nmax], e[nmax];
    const double tols[3] = {0.05, 0.3, 2.0};
    for (int trial = 0; trial < 3000; trial++) {
        const size_t n = 2 + (size_t)(rng_uniform(&r) * (nmax - 1));
        const double noise = rng_uniform(&r) < 0.5 ? 0.02 : 0.5;
        double p = 1.0 + 3.0 * rng_uniform(&r);
        for (size_t i = 0; i < n; i++) {
            dt[i] = 1e-6 * pow(10.0, 4.0 * (double)i / (double)nmax);
            if (rng_uniform(&r) < 0.05)
                p = 1.0 + 3.0 * rng_uniform(&r); /* the order changes */
            e[i] = 1e3 * pow(dt[i], p) * (1.0 + noise * rng_sym(&r));
            const double u = rng_uniform(&r);
            if (u < 0.02)
                e[i] = NAN;
            else if (u < 0.04)
                e[i] = INFINITY;
            else if (u < 0.05)
                e[i] = 0.0;
            else if (u < 0.10)
                e[i] = 0.5; /* above emax = 0.1 */
            else if (u < 0.15 && i > 0)
                e[i] = e[i - 1]; /* plateau: slope 0 */
        }
        const double tol = tols[trial % 3];
        size_t f1 = 0, l1 = 0, f2 = 0, l2 = 0;
        const int d = range_direct(n, dt, e, 0.1, tol, &f1, &l1);
        const cosa_status st = cosa_order_range(n, dt, e, 0.1, tol, &f2, &l2);
        cr_assert_eq(st, d ? COSA_ERANGE : COSA_OK, "trial %d: status %d", trial, (int)st);
        if (!d)
            cr_assert(f1 == f2 && l1 == l2, "trial %d (n %zu, tol %g): direct %zu..%zu, "
                      "window %zu..%zu", trial, n, tol, f1, l1, f2, l2);
    }
}

/* Closed form at the size of `converge --points 100000`: e = 3 dt^2 on a
 * log grid whose errors stay below emax up to dt = sqrt(0.1/3): the range is
 * every point with e <= 0.1 and the fitted order is 2 (rounding of log over
 * 1e5 points: 1e-9 is far above it and far below any real change of order). */
Test(convergence, order_range_large_closed_form)
{
    enum { n = 100000 };
    double *dt = malloc(n * sizeof *dt), *e = malloc(n * sizeof *e);
    cr_assert(dt && e);
    size_t inside = 0;
    for (size_t i = 0; i < n; i++) {
        dt[i] = 1e-6 * pow(10.0, 5.0 * (double)i / (double)(n - 1)); /* 1e-6 .. 0.1 */
        e[i] = 3.0 * dt[i] * dt[i];
        inside += e[i] <= 0.1;
    }
    size_t first, last;
    cr_assert_eq(cosa_order_range(n, dt, e, 0.0, 0.0, &first, &last), COSA_OK);
    cr_assert_eq(first, 0);
    cr_assert_eq(last, inside - 1);
    double p;
    cr_assert_eq(cosa_order_fit(last + 1, dt, e, &p, NULL, NULL), COSA_OK);
    cr_assert(fabs(p - 2.0) <= 1e-9, "order %.17g", p);
    free(dt);
    free(e);
}

/* ---- macro-step limits ------------------------------------------------------ */

static double f_square(double dt, void *ud)
{
    (void)ud;
    return (dt / 1e-4) * (dt / 1e-4);
}

/* good below 1e-4, bad in (1e-4, 2e-4), good in [2e-4, 3e-4], bad above,
 * NaN (callback failure) above 1e-3 */
static double f_window(double dt, void *ud)
{
    int *calls = ud;
    ++*calls;
    if (dt > 1e-3)
        return NAN;
    if (dt <= 1e-4)
        return 0.5;
    if (dt < 2e-4)
        return 1.5;
    if (dt <= 3e-4)
        return 0.9;
    return 2.0;
}

static double f_zero(double dt, void *ud)
{
    (void)dt;
    (void)ud;
    return 0.0;
}

/* tolerance: the refined bracket is <= 1e-6 relative wide and its good end
 * is reported, so the result lies in [x (1 - 1.01e-6), x] for a loss at x
 * (and [x, x (1 + 1.01e-6)] for an entry). */
Test(convergence, limit_square)
{
    cosa_crossing c[4];
    cosa_limit L;
    cr_assert_eq(cosa_limit_find(f_square, NULL, 1.0, 1e-6, 1e-2, 0, c, 4, &L), COSA_OK);
    cr_assert(L.good_at_min && !L.never_lost && L.monotone);
    cr_assert_eq(L.ncross, 1);
    cr_assert(L.dt_max <= 1e-4 && L.dt_max >= 1e-4 * (1 - 1.01e-6), "dt_max %.17g", L.dt_max);
    cr_assert_eq(c[0].enters, 0);
    cr_assert(c[0].dt == L.dt_max && c[0].dt_lo <= 1e-4 && c[0].dt_hi >= 1e-4);
    cr_assert(c[0].dt_hi / c[0].dt_lo - 1 <= 1e-6);
    /* 4 decades x 20 + 1 grid points, plus ~17 bisection steps */
    cr_assert(L.nevals >= 81 && L.nevals < 81 + 40, "nevals %zu", L.nevals);
}

Test(convergence, limit_window)
{
    cosa_crossing c[8];
    cosa_limit L;
    int calls = 0;
    cr_assert_eq(cosa_limit_find(f_window, &calls, 1.0, 1e-6, 1e-2, 40, c, 8, &L), COSA_OK);
    cr_assert_eq(L.ncross, 3, "ncross %zu", L.ncross);
    cr_assert(!L.monotone && !L.never_lost && L.good_at_min);
    cr_assert_eq((size_t)calls, L.nevals);
    cr_assert(L.dt_max <= 1e-4 && L.dt_max >= 1e-4 * (1 - 1.01e-6), "dt_max %.17g", L.dt_max);
    cr_assert(c[0].enters == 0 && c[1].enters == 1 && c[2].enters == 0);
    cr_assert(c[1].dt >= 2e-4 && c[1].dt <= 2e-4 * (1 + 1.01e-6), "enter %.17g", c[1].dt);
    cr_assert(c[2].dt <= 3e-4 && c[2].dt >= 3e-4 * (1 - 1.01e-6), "leave %.17g", c[2].dt);
    /* capacity smaller than the number of crossings: all counted, 1 stored */
    cosa_crossing one;
    cr_assert_eq(cosa_limit_find(f_window, &calls, 1.0, 1e-6, 1e-2, 40, &one, 1, &L), COSA_OK);
    cr_assert_eq(L.ncross, 3);
    cr_assert(one.dt == L.dt_max);
    /* start inside the bad band: dt_max = dt_min, then enters and leaves */
    cr_assert_eq(cosa_limit_find(f_window, &calls, 1.0, 1.5e-4, 1e-2, 0, c, 8, &L), COSA_OK);
    cr_assert(!L.good_at_min && L.dt_max == 1.5e-4 && L.ncross == 2 && !L.monotone);
    cr_assert(c[0].enters == 1 && c[1].enters == 0);
}

Test(convergence, limit_never_lost_and_errors)
{
    cosa_limit L;
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 1e-6, 3e-3, 0, NULL, 0, &L), COSA_OK);
    cr_assert(L.never_lost && L.good_at_min && L.monotone && L.ncross == 0);
    cr_assert(L.dt_max == 3e-3);
    cr_assert_eq(cosa_limit_find(NULL, NULL, 1.0, 1e-6, 1e-2, 0, NULL, 0, &L), COSA_EINVAL);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 1e-6, 1e-2, 0, NULL, 0, NULL), COSA_EINVAL);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 1e-6, 1e-2, 0, NULL, 3, &L), COSA_EINVAL);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 1e-2, 1e-6, 0, NULL, 0, &L), COSA_ERANGE);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 0.0, 1e-6, 0, NULL, 0, &L), COSA_ERANGE);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, NAN, 1e-6, 1e-2, 0, NULL, 0, &L), COSA_ERANGE);
    cr_assert_eq(cosa_limit_find(f_zero, NULL, 1.0, 1e-6, INFINITY, 0, NULL, 0, &L), COSA_ERANGE);
}

/* ---- progress of long evaluations ------------------------------------------ */

struct stage_log {
    char names[64][48];
    size_t done[64], total[64];
    size_t n;
};

static void log_stage(const char *stage, size_t dim, size_t done, size_t total, void *user)
{
    struct stage_log *l = user;
    cr_assert_gt(dim, 0);
    if (l->n < 64) {
        snprintf(l->names[l->n], sizeof l->names[0], "%s", stage);
        l->done[l->n] = done;
        l->total[l->n] = total;
        l->n++;
    }
}

/* The stages of cosa_evaluate in order, the NRMSE's doubling steps counted
 * 0 .. total-1 with total = the bit length of N - 1, and the same result
 * bits with and without a progress callback. */
/* The two-mass oscillator at its defaults, its x0, a scheme and a workspace. */
struct twomass_case {
    cosa_system *sys;
    double x0[8];
    cosa_scheme s;
    cosa_eval_workspace *w;
};

static void twomass_case_open(struct twomass_case *c, const char *scheme)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    cr_assert_eq(m->create(m, par, &c->sys), COSA_OK);
    cr_assert_eq(m->initial_state(m, par, c->x0), COSA_OK);
    cr_assert_eq(cosa_scheme_parse(scheme, &c->s), COSA_OK);
    c->w = cosa_eval_workspace_alloc(c->sys, c->s.order);
    cr_assert_not_null(c->w);
}

static void twomass_case_close(struct twomass_case *c)
{
    cosa_eval_workspace_free(c->w);
    cosa_system_free(c->sys);
}

Test(nrmse, progress_stages_and_unchanged_results)
{
    struct twomass_case c;
    twomass_case_open(&c, "foh+mbcorr");
    cosa_system *sys = c.sys;
    const double *x0 = c.x0;
    const cosa_scheme s = c.s;
    cosa_eval_workspace *w = c.w;
    cosa_point_result r0, r1;
    /* N = 300 steps: N - 1 = 299 = 100101011b, 9 bits */
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-3, x0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &r0, w),
                 COSA_OK);
    struct stage_log l = {0};
    cosa_eval_workspace_set_progress(w, log_stage, &l);
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-3, x0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &r1, w),
                 COSA_OK);
    cr_expect(memcmp(&r0, &r1, sizeof r0) == 0, "a progress callback changes nothing");
    static const char *const want[] = {"start", "Phi*", "rho(Phi*)", "Phi", "rho(Phi)",
                                       "reference basis", "NRMSE"};
    size_t k = 0;
    for (; k < 7; k++) {
        cr_expect_str_eq(l.names[k], want[k]);
        cr_expect_eq(l.total[k], 0);
    }
    size_t setup = 0; /* the setup walks the nx = 4 state columns */
    while (k < l.n && strncmp(l.names[k], "NRMSE setup", 11) == 0) {
        cr_expect_eq(l.done[k], setup);
        cr_expect_eq(l.total[k], 4);
        k++;
        setup++;
    }
    cr_expect_eq(setup, 4);
    size_t step = 0;
    for (; k < l.n; k++, step++) {
        cr_expect_str_eq(l.names[k], "NRMSE");
        cr_expect_eq(l.done[k], step);
        cr_expect_eq(l.total[k], 9);
    }
    cr_expect_eq(step, 9);
    cosa_eval_workspace_set_progress(w, NULL, NULL);
    twomass_case_close(&c);
}

/* COSA_GIVEN_RHO: with the true rho the result is bitwise the same as
 * computing it; the given value is really used (a wrong rho > 1 makes the
 * co-simulation "unstable": e_global = inf), and NaN means "not given". */
Test(nrmse, given_rho_is_used_not_recomputed)
{
    struct twomass_case c;
    twomass_case_open(&c, "soh+mbcorr");
    cosa_system *sys = c.sys;
    const double *x0 = c.x0;
    const cosa_scheme s = c.s;
    cosa_eval_workspace *w = c.w;
    const unsigned all = COSA_WANT_RHO | COSA_WANT_ERRORS;
    cosa_point_result r0, r1, r2, r3;
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, all, &r0, w), COSA_OK);
    r1.rho = r0.rho;
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, all | COSA_GIVEN_RHO, &r1, w), COSA_OK);
    cr_expect(memcmp(&r0, &r1, sizeof r0) == 0);
    r2.rho = 2.0;
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, all | COSA_GIVEN_RHO, &r2, w), COSA_OK);
    cr_expect_eq(r2.rho, 2.0);
    cr_expect(isinf(r2.err.e_global) && isfinite(r0.err.e_global));
    r3.rho = NAN;
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, all | COSA_GIVEN_RHO, &r3, w), COSA_OK);
    cr_expect(memcmp(&r0, &r3, sizeof r0) == 0);
    twomass_case_close(&c);
}
