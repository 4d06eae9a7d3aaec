/* test_expm.c -- tests of cosa_expm (lib/expm.c).
 *
 * Every accuracy check compares against an independent route -- a closed form
 * evaluated in long double for the matrix actually stored in double, a
 * long double Taylor series, or an identity -- and asserts
 *
 *     ratio = error / (n u scale) <= K,      u = DBL_EPSILON / 2,
 *
 * with the scale and the constant K stated at each test.  The reasoning
 * behind the scales: a backward-stable exponential returns exp(A + dA) with
 * ||dA|| <~ n u ||A||; the relative condition number of exp at A is at
 * least ||A|| and equals ||A||_2 for normal A [Van Loan, SIAM J. Numer. Anal.
 * 14(6), 1977], so the forward relative error of a good algorithm is
 * O(n u max(1, ||A||)) for normal A (e.g. the angle of a rotation by w is
 * known only to w u).  For matrices that are a diagonal scaling away from a
 * normal one (mass-spring matrices), the scale is the spectral radius rho(A)
 * rather than ||A||_1 -- this is what scaling and squaring with the
 * ||A^k||^(1/k) estimates of Al-Mohy and Higham achieves, and what the plain
 * ||A||_1 choice of Higham 2005 misses by a factor up to ||A||_1 / rho(A).
 * The constants K leave a margin of 5 or more (10 or more for most) over
 * the largest ratios measured on x86-64 with OpenBLAS 0.3.21 under each of
 * its kernels Prescott, Haswell, Zen and SkylakeX and with the reference
 * BLAS/LAPACK 3.11 (listed in each comment; tools/check-blas-kernels.sh).
 *
 * References are computed in long double (64-bit significand on x86-64, so
 * 2^11 times more accurate than double); where long double is only double
 * (some ARM ABIs) the references add errors of order u and the margins
 * shrink accordingly.
 *
 * Set TOL_SCALE to 0 at compile time (-DTOL_SCALE=0) to make every check
 * fail and so print every measured ratio.
 */
#include "cosa.h"
#include "testutil.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef TOL_SCALE
#define TOL_SCALE 1.0
#endif

#define U (DBL_EPSILON / 2.0)
#define NMAX 64

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static cosa_expm_workspace *ws(void)
{
    cosa_expm_workspace *w = cosa_expm_workspace_alloc(NMAX);
    cr_assert(w != NULL, "workspace allocation failed");
    return w;
}

/* Assert ratio <= K, naming the check. */
#define CHECK_RATIO(name, ratio, K)                                                        \
    cr_expect((ratio) <= (K) * TOL_SCALE, "%s: error ratio %.3g > %g", (name), (double)(ratio), \
              (double)(K))

/* Deterministic uniform(-1, 1) numbers (xorshift64*), independent of libc. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static void rng_seed(uint64_t s)
{
    rng_state = s ? s : 0x9E3779B97F4A7C15u;
}
static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1Du;
    return (double)(r >> 11) * 0x1.0p-52 - 1.0;
}

static double norm1(size_t n, const double *A, size_t lda)
{
    double best = 0.0;
    for (size_t j = 0; j < n; j++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += fabs(A[i + j * lda]);
        best = fmax(best, s);
    }
    return best;
}

static long double norm1_ld(size_t m, size_t n, const long double *A, size_t lda)
{
    long double best = 0.0L;
    for (size_t j = 0; j < n; j++) {
        long double s = 0.0L;
        for (size_t i = 0; i < m; i++)
            s += fabsl(A[i + j * lda]);
        if (s > best)
            best = s;
    }
    return best;
}

/* ||E - R||_1 / ||R||_1 over the m x n block at E (lde) and R (ldr). */
static double relerr_block(size_t m, size_t n, const double *E, size_t lde, const long double *R,
                           size_t ldr)
{
    long double num = 0.0L;
    for (size_t j = 0; j < n; j++) {
        long double s = 0.0L;
        for (size_t i = 0; i < m; i++)
            s += fabsl((long double)E[i + j * lde] - R[i + j * ldr]);
        if (s > num)
            num = s;
    }
    return (double)(num / norm1_ld(m, n, R, ldr));
}

static double relerr(size_t n, const double *E, const long double *R)
{
    return relerr_block(n, n, E, n, R, n);
}

static void matmul_ld(size_t n, const long double *A, const long double *B, long double *C)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            long double s = 0.0L;
            for (size_t k = 0; k < n; k++)
                s += A[i + k * n] * B[k + j * n];
            C[i + j * n] = s;
        }
}

static void matmul(size_t n, const double *A, const double *B, double *C)
{
    tu_matmul(n, n, n, A, B, C);
}

/* exp(M) of a real 2x2 M in closed form.  With mu = tr(M)/2 and N = M - mu I,
 * N^2 = delta2 I where delta2 = ((a - d)/2)^2 + b c (Cayley-Hamilton), so
 * exp(M) = e^mu (C I + S N) with C = cosh(delta), S = sinh(delta)/delta for
 * delta2 > 0, C = cos(omega), S = sin(omega)/omega for delta2 = -omega^2 < 0
 * and C = S = 1 for delta2 = 0.  For real eigenvalues lambda = mu +- delta
 * apart, e^mu cosh and e^mu sinh are formed from e^lambda to avoid overflow. */
static void exp2x2_ld(const long double *M, long double *R)
{
    long double a = M[0], c = M[1], b = M[2], d = M[3];
    long double mu = (a + d) / 2.0L, h = (a - d) / 2.0L;
    long double delta2 = h * h + b * c;
    long double ec, es; /* e^mu C, e^mu S */
    if (delta2 > 0.0L) {
        long double del = sqrtl(delta2);
        if (del < 0.5L) {
            ec = expl(mu) * coshl(del);
            es = expl(mu) * sinhl(del) / del;
        } else {
            long double e1 = expl(mu + del), e2 = expl(mu - del);
            ec = (e1 + e2) / 2.0L;
            es = (e1 - e2) / (2.0L * del);
        }
    } else if (delta2 < 0.0L) {
        long double om = sqrtl(-delta2);
        ec = expl(mu) * cosl(om);
        es = expl(mu) * sinl(om) / om;
    } else {
        ec = es = expl(mu);
    }
    R[0] = ec + es * h;
    R[1] = es * c;
    R[2] = es * b;
    R[3] = ec - es * h;
}

static void exp2x2(const double *M, long double *R)
{
    const long double Ml[4] = {M[0], M[1], M[2], M[3]};
    exp2x2_ld(Ml, R);
}

/* Relative condition number of exp at the balanced form of a real 2x2 M
 * with M(0,1) M(1,0) != 0 [Higham, Functions of Matrices, 2008, sec. 3.1]:
 *   cond(M~) = ||L(M~)||_1 ||M~||_1 / ||exp(M~)||_1,  M~ = D^-1 M D,
 *   D = diag(1, sqrt|M(1,0) / M(0,1)|)
 * (equal off-diagonal magnitudes: the basis in which a mass-spring matrix is
 * a scaled normal one).  ||L||_1 is the 1-norm of the 4 x 4 Kronecker form
 * of the Frechet derivative (within a factor 2 of the operator norm), by
 * central differences of the long double closed form; cond >= ||M~|| and
 * equals it for normal M~. */
static double cond_exp2x2_balanced(const double *M)
{
    long double s = sqrtl(fabsl((long double)M[1] / (long double)M[2]));
    const long double Mt[4] = {M[0], M[1] / s, M[2] * s, M[3]};
    long double R[4], kn = 0.0L;
    exp2x2_ld(Mt, R);
    for (int e = 0; e < 4; e++) {
        long double h = 1e-6L * fmaxl(1.0L, fabsl(Mt[e])), Mp[4], Mm[4], Rp[4], Rm[4], col = 0.0L;
        memcpy(Mp, Mt, sizeof Mp);
        memcpy(Mm, Mt, sizeof Mm);
        Mp[e] += h;
        Mm[e] -= h;
        exp2x2_ld(Mp, Rp);
        exp2x2_ld(Mm, Rm);
        for (int i = 0; i < 4; i++)
            col += fabsl(Rp[i] - Rm[i]) / (2.0L * h);
        if (col > kn)
            kn = col;
    }
    return (double)(kn * norm1_ld(2, 2, Mt, 2) / norm1_ld(2, 2, R, 2));
}

/* Reference exp(A) in long double: Taylor series of 2^-s A with
 * ||2^-s A||_1 <= 1/4 (30 terms: 4^-30 / 30! is far below long double
 * precision), then s squarings.  Only for moderate norms, as the squarings
 * amplify the long double rounding errors by about 2^s. */
#define REF_NMAX 16
static void expm_taylor_ld(size_t n, const double *A, long double *E)
{
    long double X[REF_NMAX * REF_NMAX], T[REF_NMAX * REF_NMAX], P[REF_NMAX * REF_NMAX];
    cr_assert(n <= REF_NMAX, "expm_taylor_ld: n = %zu too large", n);
    double a1 = norm1(n, A, n);
    int s = a1 > 0.25 ? (int)ceil(log2(a1 / 0.25)) : 0;
    for (size_t i = 0; i < n * n; i++) {
        X[i] = ldexpl((long double)A[i], -s);
        T[i] = X[i];
        E[i] = X[i];
    }
    for (size_t i = 0; i < n; i++)
        E[i + i * n] += 1.0L;
    for (int k = 2; k <= 30; k++) {
        matmul_ld(n, T, X, P);
        for (size_t i = 0; i < n * n; i++) {
            T[i] = P[i] / k;
            E[i] += T[i];
        }
    }
    for (int k = 0; k < s; k++) {
        matmul_ld(n, E, E, P);
        memcpy(E, P, n * n * sizeof *E);
    }
}

/* ------------------------------------------------------------------------ */
/* Trivial cases                                                            */
/* ------------------------------------------------------------------------ */

Test(expm, n1_equals_exp)
{
    cosa_expm_workspace *w = ws();
    const double a[] = {0.0, 1.0, -1.0, 3.7, -745.0, 709.0, 1e-300, -1e-17, 0.5};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
        double e = -1.0;
        cr_expect(cosa_expm(1, &a[k], 1, &e, 1, w) == COSA_OK, "n=1, a=%g: status", a[k]);
        /* The 1 x 1 case is exp itself: equality, not a tolerance. */
        cr_expect(e == exp(a[k]), "n=1, a=%g: got %.17g, exp gives %.17g", a[k], e, exp(a[k]));
    }
    cosa_expm_workspace_free(w);
}

Test(expm, zero_gives_identity)
{
    cosa_expm_workspace *w = ws();
    double Z[NMAX * NMAX] = {0}, E[NMAX * NMAX];
    for (size_t n = 1; n <= 12; n++) {
        cr_expect(cosa_expm(n, Z, n, E, n, w) == COSA_OK, "zero n=%zu: status", n);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++)
                cr_expect(E[i + j * n] == (i == j ? 1.0 : 0.0),
                          "zero n=%zu: exp(0) must be I exactly, E(%zu,%zu) = %g", n, i, j,
                          E[i + j * n]);
    }
    cosa_expm_workspace_free(w);
}

Test(expm, diagonal_exact)
{
    cosa_expm_workspace *w = ws();
    const double d[] = {-1e9, -3.5, 0.0, 1e-8, 2.25, 700.0};
    size_t n = sizeof d / sizeof d[0];
    double A[36] = {0}, E[36];
    for (size_t i = 0; i < n; i++)
        A[i + i * n] = d[i];
    cr_assert(cosa_expm(n, A, n, E, n, w) == COSA_OK, "diagonal: status");
    /* exp(diag(d)) = diag(exp(d)): exact, entry by entry. */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            cr_expect(E[i + j * n] == (i == j ? exp(d[i]) : 0.0), "diagonal: E(%zu,%zu) = %.17g",
                      i, j, E[i + j * n]);
    cosa_expm_workspace_free(w);
}

Test(expm, leading_dimensions_respected)
{
    /* A and E stored with padding: the padding of A (NaN) must not be read,
     * that of E must not be written; the result equals the packed one. */
    cosa_expm_workspace *w = ws();
    enum { n = 5, lda = 8, lde = 7 };
    double A[lda * n], Ap[n * n], E[lde * n], Ep[n * n];
    rng_seed(11);
    for (size_t i = 0; i < lda * n; i++)
        A[i] = NAN;
    for (size_t i = 0; i < lde * n; i++)
        E[i] = -7.0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            A[i + j * lda] = Ap[i + j * n] = 3.0 * rng_uniform();
    cr_assert(cosa_expm(n, A, lda, E, lde, w) == COSA_OK, "padded: status");
    cr_assert(cosa_expm(n, Ap, n, Ep, n, w) == COSA_OK, "packed: status");
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++)
            cr_expect(E[i + j * lde] == Ep[i + j * n], "padded vs packed E(%zu,%zu)", i, j);
        for (size_t i = n; i < lde; i++)
            cr_expect(E[i + j * lde] == -7.0, "padding of E overwritten at (%zu,%zu)", i, j);
    }
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* 2 x 2 closed forms: oscillators, rotations, stiff mass-spring            */
/* ------------------------------------------------------------------------ */

/* exp(t [[0, 1], [-w^2, -2 zeta w]]) against the closed form for the stored
 * matrix; scale max(1, ||M||_1) (M is well scaled here, ||M|| ~ rho(M)).
 * K = 10; measured ratios <= 0.4. */
static void check_oscillator(const char *name, double wn, double zeta, double t)
{
    cosa_expm_workspace *w = ws();
    double M[4] = {0.0, -wn * wn * t, t, -2.0 * zeta * wn * t}, E[4];
    long double R[4];
    cr_assert(cosa_expm(2, M, 2, E, 2, w) == COSA_OK, "%s: status", name);
    exp2x2(M, R);
    double ratio = relerr(2, E, R) / (2 * U * fmax(1.0, norm1(2, M, 2)));
    CHECK_RATIO(name, ratio, 10.0);
    cosa_expm_workspace_free(w);
}

Test(expm, oscillator_underdamped)
{
    check_oscillator("underdamped zeta=0.1", 2.0, 0.1, 1.3);
    check_oscillator("underdamped zeta=0.7 long", 5.0, 0.7, 4.1);
    check_oscillator("undamped", 3.0, 0.0, 10.0);
}

Test(expm, oscillator_critically_damped)
{
    /* Dyadic w and t: the stored matrix has delta2 = 0 exactly. */
    check_oscillator("critical w=2 t=0.75", 2.0, 1.0, 0.75);
    check_oscillator("critical w=4 t=2.5", 4.0, 1.0, 2.5);
}

Test(expm, oscillator_overdamped)
{
    check_oscillator("overdamped zeta=2.5", 3.0, 2.5, 1.3);
    check_oscillator("overdamped zeta=40", 1.0, 40.0, 0.9);
}

/* exp([[0, w], [-w, 0]]) = [[cos w, sin w], [-sin w, cos w]]: the angle
 * carries an absolute error ~ w u, so the scale is max(1, w).
 * K = 10; measured ratios <= 0.94 (accuracy), <= 1.12 (orthogonality). */
Test(expm, rotation)
{
    cosa_expm_workspace *w = ws();
    const double om[] = {1e-3, 0.5, 1.0, 2.0, 10.0, 100.0, 1e3, 1e4};
    for (size_t k = 0; k < sizeof om / sizeof om[0]; k++) {
        double M[4] = {0.0, -om[k], om[k], 0.0}, E[4];
        long double R[4];
        cr_assert(cosa_expm(2, M, 2, E, 2, w) == COSA_OK, "rotation w=%g: status", om[k]);
        R[0] = R[3] = cosl((long double)om[k]);
        R[1] = -sinl((long double)om[k]);
        R[2] = sinl((long double)om[k]);
        char name[64];
        snprintf(name, sizeof name, "rotation w=%g", om[k]);
        CHECK_RATIO(name, relerr(2, E, R) / (2 * U * fmax(1.0, om[k])), 10.0);
        /* orthogonality: |E^T E - I| ~ u (a property, not an accuracy check) */
        double o = fabs(E[0] * E[0] + E[1] * E[1] - 1.0) + fabs(E[0] * E[2] + E[1] * E[3]);
        snprintf(name, sizeof name, "rotation w=%g orthogonality", om[k]);
        CHECK_RATIO(name, o / (2 * U * fmax(1.0, om[k])), 10.0);
    }
    cosa_expm_workspace_free(w);
}

/* One mass on a spring, k = 1e10 N/m, m = 10 kg, over dt = 3e-3 s:
 * M = dt [[0, 1], [-k/m, -d/m]], ||M||_1 = 3e6 while rho(M) ~ 95 (the matrix
 * is a diagonal scaling of a normal one, except at critical damping).
 * Scale: cond(M~), the relative condition number of exp at the balanced M
 * (cond_exp2x2_balanced), not ||M||_1: a backward error of n u in the
 * balanced basis becomes a forward error of n u cond.  For the normal
 * (undamped, lightly damped) cases cond = rho(M) = 95.  At critical damping
 * d = 2 sqrt(k m) M~ is a Jordan block (double eigenvalue -95) and
 * cond = 9.2e3 ~ rho^2: the exponential is that sensitive, so errors of
 * ~100 n u rho are expected there, and they differ between BLAS kernels
 * (10.5 n u rho with OpenBLAS Haswell/Zen, 103 with SkylakeX, 94 with the
 * reference BLAS; the former bound 100 n u rho sat at that rounding edge).
 * K = 30, LAPACK's threshold for such ratios: measured ratios <= 4.1 over
 * OpenBLAS Prescott/Haswell/Zen/SkylakeX and the reference BLAS (at
 * d = 1e5, cond = 122), <= 1.1 at critical damping.  The ||M||_1-based
 * choice of Higham 2005 alone gives ratios 8e2 .. 4e5 on these six cases
 * against rho. */
Test(expm, mass_spring_large_norm)
{
    cosa_expm_workspace *w = ws();
    const double k = 1e10, m = 10.0, dt = 3e-3;
    const double damp[] = {0.0, 10.0, 1e3, 1e5, 2.0 * sqrt(k * m), 1e7};
    for (size_t q = 0; q < sizeof damp / sizeof damp[0]; q++) {
        double M[4] = {0.0, -k / m * dt, dt, -damp[q] / m * dt}, E[4];
        long double R[4];
        cr_assert(cosa_expm(2, M, 2, E, 2, w) == COSA_OK, "spring d=%g: status", damp[q]);
        exp2x2(M, R);
        double cond = cond_exp2x2_balanced(M);
        char name[64];
        snprintf(name, sizeof name, "spring k=1e10 m=10 dt=3e-3 d=%g", damp[q]);
        CHECK_RATIO(name, relerr(2, E, R) / (2 * U * cond), 30.0);
    }
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* Triangular matrices with known exponentials                              */
/* ------------------------------------------------------------------------ */

/* Strictly upper triangular N (6 x 6, integers in [-3, 3]): exp(N) is the
 * finite series sum_{k<6} N^k / k!, evaluated in long double.  Rounding in
 * the series is bounded entrywise by sums of |N|^k / k!, so the scale is
 * ||exp(|N|)||_1 / ||exp(N)||_1.  K = 10; measured ratio 0.002. */
Test(expm, nilpotent_6x6)
{
    cosa_expm_workspace *w = ws();
    enum { n = 6 };
    double N[n * n] = {0}, E[n * n];
    long double R[n * n] = {0}, Ra[n * n] = {0}, T[n * n], Ta[n * n], P[n * n], Na[n * n];
    rng_seed(5);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < j; i++)
            N[i + j * n] = round(3.0 * rng_uniform());
    for (size_t i = 0; i < n * n; i++) {
        Na[i] = fabs(N[i]);
        T[i] = (i % (n + 1) == 0) ? 1.0L : 0.0L;
        Ta[i] = T[i];
    }
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < n * n; i++) {
            R[i] += T[i];
            Ra[i] += Ta[i];
        }
        long double Nl[n * n];
        for (size_t i = 0; i < n * n; i++)
            Nl[i] = N[i];
        matmul_ld(n, T, Nl, P);
        for (size_t i = 0; i < n * n; i++)
            T[i] = P[i] / (k + 1);
        matmul_ld(n, Ta, Na, P);
        for (size_t i = 0; i < n * n; i++)
            Ta[i] = P[i] / (k + 1);
    }
    cr_assert(cosa_expm(n, N, n, E, n, w) == COSA_OK, "nilpotent: status");
    double scale = (double)(norm1_ld(n, n, Ra, n) / norm1_ld(n, n, R, n));
    CHECK_RATIO("nilpotent 6x6 strictly upper", relerr(n, E, R) / ((double)n * U * scale), 10.0);
    /* exp(N) is unit upper triangular: the zeros below the diagonal are exact. */
    for (size_t j = 0; j < n; j++)
        for (size_t i = j + 1; i < n; i++)
            cr_expect(E[i + j * n] == 0.0, "nilpotent: E(%zu,%zu) = %g below the diagonal", i, j,
                      E[i + j * n]);
    cosa_expm_workspace_free(w);
}

/* Jordan block J = lambda I + N (N the shift): exp(J)(i, i+k) = e^lambda / k!.
 * Scale max(1, ||J||_1).  K = 10; measured ratios <= 1.82 (reference BLAS;
 * 1.2 with OpenBLAS).  The condition number of exp at a Jordan block is
 * about e ||J||, so against cond(exp, J) these are <= 0.7. */
Test(expm, jordan_block)
{
    cosa_expm_workspace *w = ws();
    enum { n = 7 };
    const double lam[] = {-0.75, 2.5, -30.0};
    for (size_t q = 0; q < 3; q++) {
        double J[n * n] = {0}, E[n * n];
        long double R[n * n] = {0};
        for (size_t i = 0; i < n; i++) {
            J[i + i * n] = lam[q];
            if (i + 1 < n)
                J[i + (i + 1) * n] = 1.0;
        }
        long double f = expl((long double)lam[q]);
        for (size_t k = 0; k < n; k++) {
            for (size_t i = 0; i + k < n; i++)
                R[i + (i + k) * n] = f;
            f /= (long double)(k + 1);
        }
        cr_assert(cosa_expm(n, J, n, E, n, w) == COSA_OK, "jordan: status");
        char name[64];
        snprintf(name, sizeof name, "jordan block lambda=%g", lam[q]);
        CHECK_RATIO(name, relerr(n, E, R) / ((double)n * U * fmax(1.0, norm1(n, J, n))), 10.0);
    }
    cosa_expm_workspace_free(w);
}

/* exp([[a, b], [0, d]]) = [[e^a, b e^d expm1(a - d) / (a - d)], [0, e^d]];
 * the divided difference through expm1 stays accurate for a ~ d.
 * Scale max(1, ||A||_1).  K = 10; measured ratios <= 0.5. */
Test(expm, triangular_2x2)
{
    cosa_expm_workspace *w = ws();
    const double cases[][3] = {{1.0, 2.0, -1.0}, {0.3, -5.0, 0.3 + 1e-9}, {-2.0, 40.0, -2.5},
                               {-20.0, 1e3, -0.5}, {3.0, 1e-3, -4.0}};
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        double a = cases[q][0], b = cases[q][1], d = cases[q][2];
        double A[4] = {a, 0.0, b, d}, E[4];
        long double R[4], x = (long double)a - (long double)d;
        R[0] = expl(a);
        R[1] = 0.0L;
        R[2] = b * expl(d) * (x == 0.0L ? 1.0L : expm1l(x) / x);
        R[3] = expl(d);
        cr_assert(cosa_expm(2, A, 2, E, 2, w) == COSA_OK, "triangular: status");
        char name[80];
        snprintf(name, sizeof name, "triangular a=%g b=%g d=%g", a, b, d);
        CHECK_RATIO(name, relerr(2, E, R) / (2 * U * fmax(1.0, norm1(2, A, 2))), 10.0);
        cr_expect(E[1] == 0.0, "%s: lower entry %g", name, E[1]);
    }
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* Identities on random matrices                                            */
/* ------------------------------------------------------------------------ */

static void random_matrix(size_t n, double norm, double *A)
{
    for (size_t i = 0; i < n * n; i++)
        A[i] = rng_uniform();
    double a1 = norm1(n, A, n);
    for (size_t i = 0; i < n * n; i++)
        A[i] *= norm / a1;
}

/* exp(A) exp(-A) = I.  With E+ = exp(A)(1 + O(eps+)), E- likewise, the
 * residual is bounded by (eps+ + eps-) ||E+|| ||E-|| + n u ||E+|| ||E-||, and
 * eps ~ n u max(1, ||A||) for these matrices; scale
 * max(1, ||A||_1) ||E+||_1 ||E-||_1.  K = 10; measured ratios <= 0.34. */
Test(expm, inverse_identity_random)
{
    cosa_expm_workspace *w = ws();
    const size_t ns[] = {3, 5, 8, 13, 20};
    const double norms[] = {1.0, 3.0, 5.0, 12.0, 20.0, 50.0};
    double A[NMAX * NMAX], mA[NMAX * NMAX], Ep[NMAX * NMAX], Em[NMAX * NMAX],
        P[NMAX * NMAX];
    rng_seed(1234);
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof norms / sizeof norms[0]; b++) {
            size_t n = ns[a];
            random_matrix(n, norms[b], A);
            for (size_t i = 0; i < n * n; i++)
                mA[i] = -A[i];
            cr_assert(cosa_expm(n, A, n, Ep, n, w) == COSA_OK, "exp(A): status");
            cr_assert(cosa_expm(n, mA, n, Em, n, w) == COSA_OK, "exp(-A): status");
            matmul(n, Ep, Em, P);
            for (size_t i = 0; i < n; i++)
                P[i + i * n] -= 1.0;
            double scale = fmax(1.0, norms[b]) * norm1(n, Ep, n) * norm1(n, Em, n);
            char name[64];
            snprintf(name, sizeof name, "exp(A)exp(-A)=I n=%zu |A|=%g", n, norms[b]);
            CHECK_RATIO(name, norm1(n, P, n) / ((double)n * U * scale), 10.0);
        }
    cosa_expm_workspace_free(w);
}

/* For skew-symmetric S, exp(S) is orthogonal: ||E^T E - I||_1 relative to
 * n u max(1, ||S||_1) (the rotation-angle argument above).
 * K = 10; measured ratios <= 0.7. */
Test(expm, skew_symmetric_orthogonal)
{
    cosa_expm_workspace *w = ws();
    const size_t ns[] = {4, 9, 16};
    const double norms[] = {0.1, 2.0, 30.0, 1e3};
    double S[NMAX * NMAX], E[NMAX * NMAX];
    rng_seed(99);
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 4; b++) {
            size_t n = ns[a];
            for (size_t j = 0; j < n; j++) {
                S[j + j * n] = 0.0;
                for (size_t i = 0; i < j; i++) {
                    S[i + j * n] = rng_uniform();
                    S[j + i * n] = -S[i + j * n];
                }
            }
            double s1 = norm1(n, S, n);
            for (size_t i = 0; i < n * n; i++)
                S[i] *= norms[b] / s1;
            cr_assert(cosa_expm(n, S, n, E, n, w) == COSA_OK, "skew: status");
            double worst = 0.0;
            for (size_t j = 0; j < n; j++) {
                double col = 0.0;
                for (size_t i = 0; i < n; i++) {
                    double s = 0.0;
                    for (size_t k = 0; k < n; k++)
                        s += E[k + i * n] * E[k + j * n];
                    col += fabs(s - (i == j ? 1.0 : 0.0));
                }
                worst = fmax(worst, col);
            }
            char name[64];
            snprintf(name, sizeof name, "skew n=%zu |S|=%g: E^T E = I", n, norms[b]);
            CHECK_RATIO(name, worst / ((double)n * U * fmax(1.0, norms[b])), 10.0);
        }
    cosa_expm_workspace_free(w);
}

/* exp(A) commutes with A.  For E = exp(A + dA), A E - E A = E dA - dA E, so
 * the scale-free residual ||A E - E A||_1 / (||A||_1 ||E||_1 u) measures the
 * backward error and does not grow with the conditioning; the products
 * themselves add n u ||A|| ||E||.  K = 10 n; measured ratios <= 0.71 n. */
Test(expm, commutes_with_A)
{
    cosa_expm_workspace *w = ws();
    const size_t ns[] = {4, 8, 16, 30};
    const double norms[] = {0.01, 1.0, 6.0, 40.0, 500.0};
    double A[NMAX * NMAX], E[NMAX * NMAX], P[NMAX * NMAX], Q[NMAX * NMAX];
    rng_seed(4321);
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 5; b++) {
            size_t n = ns[a];
            random_matrix(n, norms[b], A);
            cr_assert(cosa_expm(n, A, n, E, n, w) == COSA_OK, "commute: status");
            matmul(n, A, E, P);
            matmul(n, E, A, Q);
            for (size_t i = 0; i < n * n; i++)
                P[i] -= Q[i];
            double ratio = norm1(n, P, n) / (norm1(n, A, n) * norm1(n, E, n) * U);
            char name[64];
            snprintf(name, sizeof name, "AE = EA n=%zu |A|=%g", n, norms[b]);
            CHECK_RATIO(name, ratio / (double)n, 10.0);
        }
    cosa_expm_workspace_free(w);
}

/* Norms just below and just above each theta_m of Higham 2005 (3, 5, 7, 9,
 * 13) and past it into the squaring range, so that every Pade degree is
 * used.  The matrices are non-negative with equal column sums c (and their
 * negatives), so ||A^k||_1 = c^k: the norm-power estimates coincide with
 * ||A||_1 and the degree is exactly the one theta_m prescribes.  Reference:
 * long double Taylor series.  Scale max(1, ||A||_1).
 * K = 10; measured ratios <= 1.33. */
Test(expm, all_pade_degrees)
{
    cosa_expm_workspace *w = ws();
    const double theta[] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                            2.097847961257068, 5.371920351148152};
    const double factor[] = {0.999, 1.001};
    enum { n = 7 };
    double B[n * n], A[n * n], E[n * n];
    long double R[n * n];
    rng_seed(77);
    for (size_t i = 0; i < n * n; i++)
        B[i] = 0.5 * (rng_uniform() + 1.0);
    for (size_t j = 0; j < n; j++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += B[i + j * n];
        for (size_t i = 0; i < n; i++)
            B[i + j * n] /= s;
    }
    for (size_t t = 0; t < 5; t++)
        for (size_t f = 0; f < 2; f++)
            for (int sign = -1; sign <= 1; sign += 2) {
                double c = sign * theta[t] * factor[f];
                for (size_t i = 0; i < n * n; i++)
                    A[i] = c * B[i];
                cr_assert(cosa_expm(n, A, n, E, n, w) == COSA_OK, "degrees: status");
                expm_taylor_ld(n, A, R);
                char name[80];
                snprintf(name, sizeof name, "|A| = %.4g theta_%d (sign %+d)", factor[f],
                         (int[]){3, 5, 7, 9, 13}[t], sign);
                CHECK_RATIO(name, relerr(n, E, R) / ((double)n * U * fmax(1.0, fabs(c))), 10.0);
            }
    /* and into the squaring phase: ||A||_1 = 2^k theta_13 (1 + 1e-3) */
    for (int k = 1; k <= 4; k++)
        for (int sign = -1; sign <= 1; sign += 2) {
            double c = sign * ldexp(theta[4] * 1.001, k);
            for (size_t i = 0; i < n * n; i++)
                A[i] = c * B[i];
            cr_assert(cosa_expm(n, A, n, E, n, w) == COSA_OK, "squaring: status");
            expm_taylor_ld(n, A, R);
            char name[80];
            snprintf(name, sizeof name, "|A| = 2^%d theta_13 (sign %+d)", k, sign);
            CHECK_RATIO(name, relerr(n, E, R) / ((double)n * U * fmax(1.0, fabs(c))), 10.0);
        }
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* Stiff matrices                                                           */
/* ------------------------------------------------------------------------ */

/* T diag(l1, l2) T^-1 with T = [[2, 1], [1, 1]], T^-1 = [[1, -1], [-1, 2]]:
 * for integer or dyadic l the matrix is exact in double, and so is the
 * closed form T diag(e^l1, e^l2) T^-1. */
static void similar2(double l1, double l2, double *A)
{
    A[0] = 2.0 * l1 - l2;
    A[1] = l1 - l2;
    A[2] = -2.0 * l1 + 2.0 * l2;
    A[3] = -l1 + 2.0 * l2;
}
static void similar2_f(long double f1, long double f2, long double *R, size_t ld)
{
    R[0] = 2.0L * f1 - f2;
    R[1] = f1 - f2;
    R[ld] = -2.0L * f1 + 2.0L * f2;
    R[ld + 1] = -f1 + 2.0L * f2;
}

/* Eigenvalues -1e9 and -1: exp(A) = e^-1 [[-1, 2], [-1, 2]] up to e^-1e9.
 * The slow mode e^-1 is determined by the data only to about ||A|| u (a
 * relative perturbation u of the entries ~1e9 moves the eigenvalue -1 by
 * ~1e-7), so the scale is ||A||_1.  K = 10; measured ratios <= 0.30. */
Test(expm, stiff_2x2_similarity)
{
    cosa_expm_workspace *w = ws();
    double A[4], E[4];
    long double R[4];
    similar2(-1e9, -1.0, A);
    similar2_f(expl(-1e9L), expl(-1.0L), R, 2);
    cr_assert(cosa_expm(2, A, 2, E, 2, w) == COSA_OK, "stiff 2x2: status");
    CHECK_RATIO("stiff 2x2 eig -1e9, -1", relerr(2, E, R) / (2 * U * norm1(2, A, 2)), 10.0);
    cosa_expm_workspace_free(w);
}

/* Block diagonal, eigenvalues -1/8, -1e3 | -1e6, -1e9 (spanning 1e-1..1e9),
 * blocks and closed form as above, then a symmetric permutation that
 * interleaves the blocks.  Scale ||A||_1 as for the 2 x 2 case.
 * K = 10; measured ratio 0.09. */
Test(expm, stiff_4x4_block_diagonal)
{
    cosa_expm_workspace *w = ws();
    enum { n = 4 };
    double B[n * n] = {0}, A[n * n], E[n * n], b[4];
    long double RB[n * n] = {0}, R[n * n];
    similar2(-0.125, -1e3, b);
    B[0] = b[0], B[1] = b[1], B[4] = b[2], B[5] = b[3];
    similar2(-1e6, -1e9, b);
    B[10] = b[0], B[11] = b[1], B[14] = b[2], B[15] = b[3];
    similar2_f(expl(-0.125L), expl(-1e3L), RB, n);
    similar2_f(expl(-1e6L), expl(-1e9L), RB + 2 + 2 * n, n);
    const size_t p[n] = {2, 0, 3, 1}; /* A = P B P^T */
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) {
            A[p[i] + p[j] * n] = B[i + j * n];
            R[p[i] + p[j] * n] = RB[i + j * n];
        }
    cr_assert(cosa_expm(n, A, n, E, n, w) == COSA_OK, "stiff 4x4: status");
    CHECK_RATIO("stiff 4x4 eig 1/8 .. 1e9", relerr(n, E, R) / ((double)n * U * norm1(n, A, n)),
                10.0);
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* Van Loan block matrices (exact discretisation)                           */
/* ------------------------------------------------------------------------ */

/* exp([[hA, hB], [0, 0]]) = [[e^(hA), int_0^h e^(A(h-t)) B dt], [0, I]].
 * Diagonal A: block (i, j) of the integral is c_ij expm1(alpha_i) / alpha_i
 * for the stored alpha_i = h a_i, c_ij = h b_ij.  Stiff: h a down to -1e4.
 * Scale n u max(1, ||hA||_1) (the squarings needed for the stiff entry
 * amplify the error of the slow ones as in the stiff tests).
 * K = 10; measured ratios <= 0.01. */
Test(expm, van_loan_diagonal)
{
    cosa_expm_workspace *w = ws();
    enum { nx = 3, nu = 2, n = nx + nu };
    const double a[nx] = {-1.0, -1e3, -1e6}, h = 1e-2;
    double M[n * n] = {0}, E[n * n];
    long double RA[nx * nx] = {0}, RQ[nx * nu];
    rng_seed(3);
    for (size_t i = 0; i < nx; i++) {
        M[i + i * n] = h * a[i];
        long double al = M[i + i * n];
        RA[i + i * nx] = expl(al);
        for (size_t j = 0; j < nu; j++) {
            M[i + (nx + j) * n] = h * rng_uniform();
            RQ[i + j * nx] = M[i + (nx + j) * n] * (expm1l(al) / al);
        }
    }
    cr_assert(cosa_expm(n, M, n, E, n, w) == COSA_OK, "van loan diag: status");
    double sc = n * U * fmax(1.0, h * 1e6);
    CHECK_RATIO("van loan diag: e^(hA) block", relerr_block(nx, nx, E, n, RA, nx) / sc, 10.0);
    CHECK_RATIO("van loan diag: integral block",
                relerr_block(nx, nu, E + nx * n, n, RQ, nx) / sc, 10.0);
    /* The lower block rows are exactly [0, I]: X^k has zero lower rows. */
    for (size_t j = 0; j < n; j++)
        for (size_t i = nx; i < n; i++)
            cr_expect(E[i + j * n] == (i == j ? 1.0 : 0.0), "van loan diag: E(%zu,%zu) = %g", i,
                      j, E[i + j * n]);
    cosa_expm_workspace_free(w);
}

/* Non-diagonal invertible hA = T diag(-1/4, -2^14) T^-1 (exact, stiff), hB = c:
 * integral block = (hA)^-1 (e^(hA) - I) hB = T diag(expm1(l)/l) T^-1 c,
 * in long double.  Also with ||c|| = 1e8: the size of B must not cost
 * accuracy in the e^(hA) block (no overscaling).  Scale n u max(1, ||hA||_1)
 * for both blocks, relative to each block.  K = 10; measured ratios <= 0.44
 * (Higham 2005's ||A||_1-based scaling gives 85 and 41 for ||c|| = 1e8). */
Test(expm, van_loan_similarity)
{
    cosa_expm_workspace *w = ws();
    enum { nx = 2, n = 3 };
    const double l1 = -0.25, l2 = -16384.0, cscale[] = {1.0, 1e4, 1e8};
    for (size_t q = 0; q < 3; q++) {
        double M[n * n] = {0}, E[n * n], Ah[4];
        long double RA[4], G[4], RQ[2];
        similar2(l1, l2, Ah);
        M[0] = Ah[0], M[1] = Ah[1], M[3] = Ah[2], M[4] = Ah[3];
        M[6] = 1.0 * cscale[q];
        M[7] = -3.0 * cscale[q];
        similar2_f(expl(l1), expl(l2), RA, 2);
        similar2_f(expm1l(l1) / l1, expm1l(l2) / l2, G, 2);
        RQ[0] = G[0] * M[6] + G[2] * M[7];
        RQ[1] = G[1] * M[6] + G[3] * M[7];
        cr_assert(cosa_expm(n, M, n, E, n, w) == COSA_OK, "van loan sim: status");
        double sc = n * U * norm1(nx, Ah, nx);
        char name[80];
        snprintf(name, sizeof name, "van loan sim |c|=%g: e^(hA) block", cscale[q]);
        CHECK_RATIO(name, relerr_block(nx, nx, E, n, RA, nx) / sc, 10.0);
        snprintf(name, sizeof name, "van loan sim |c|=%g: integral block", cscale[q]);
        CHECK_RATIO(name, relerr_block(nx, 1, E + nx * n, n, RQ, nx) / sc, 10.0);
    }
    cosa_expm_workspace_free(w);
}

/* First-order-hold chain of doc/method.md for a scalar subsystem:
 * exp([[alpha, c, 0], [0, 0, 1], [0, 0, 0]]) has first row
 * [e^alpha, c phi1(alpha), c phi2(alpha)], phi1 = expm1(a)/a,
 * phi2 = (expm1(a) - a)/a^2, and lower rows [0, 1, 1], [0, 0, 1].
 * Each entry of the first row relative to the largest one (e^alpha
 * underflows for alpha = -1e4); scale n u max(1, |alpha|).
 * K = 10; measured ratios <= 0.34.  The lower rows are exact except
 * for E(1,2) = 1, which the triangular solve in the Pade step may round
 * by an ulp (the solver multiplies by reciprocal pivots). */
Test(expm, van_loan_first_order_hold)
{
    cosa_expm_workspace *w = ws();
    const double alpha[] = {-0.5, -20.0, -1e4, 3.0};
    for (size_t q = 0; q < 4; q++) {
        double M[9] = {0}, E[9];
        M[0] = alpha[q];
        M[3] = 2.5;
        M[7] = 1.0;
        long double al = alpha[q], em = expm1l(al);
        long double R[3] = {expl(al), 2.5L * em / al, 2.5L * (em - al) / (al * al)};
        long double rmax = fmaxl(R[0], fmaxl(fabsl(R[1]), fabsl(R[2])));
        cr_assert(cosa_expm(3, M, 3, E, 3, w) == COSA_OK, "foh chain: status");
        char name[64];
        for (size_t k = 0; k < 3; k++) {
            double err = (double)(fabsl(E[3 * k] - R[k]) / rmax);
            snprintf(name, sizeof name, "foh chain alpha=%g entry (0,%zu)", alpha[q], k);
            CHECK_RATIO(name, err / (3 * U * fmax(1.0, fabs(alpha[q]))), 10.0);
        }
        cr_expect(E[1] == 0.0 && E[2] == 0.0 && E[5] == 0.0, "foh chain: zeros below");
        cr_expect(E[4] == 1.0 && E[8] == 1.0, "foh chain: unit diagonal of the lower rows");
        snprintf(name, sizeof name, "foh chain alpha=%g entry (1,2)", alpha[q]);
        CHECK_RATIO(name, fabs(E[7] - 1.0) / (3 * U), 10.0);
    }
    cosa_expm_workspace_free(w);
}

/* ------------------------------------------------------------------------ */
/* Extreme norms and error statuses                                         */
/* ------------------------------------------------------------------------ */

Test(expm, huge_norm_decays_to_zero)
{
    /* exp([[-x, x], [0, -x]]) = e^-x [[1, x], [0, 1]] = 0 in double for
     * x = 1e40 (the norm is first scaled down by a power of two). */
    cosa_expm_workspace *w = ws();
    double A[4] = {-1e40, 0.0, 1e40, -1e40}, E[4];
    cr_assert(cosa_expm(2, A, 2, E, 2, w) == COSA_OK, "huge decaying: status");
    for (size_t i = 0; i < 4; i++)
        cr_expect(fabs(E[i]) < 1e-300, "huge decaying: E[%zu] = %g", i, E[i]);
    cosa_expm_workspace_free(w);
}

Test(expm, error_statuses)
{
    cosa_expm_workspace *w = cosa_expm_workspace_alloc(4);
    cr_assert(w != NULL);
    double A[25] = {0}, E[25];
    A[0] = 1.0;
    A[1] = 0.5;

    cr_expect(cosa_expm(0, NULL, 0, NULL, 0, w) == COSA_OK, "n = 0");
    cr_expect(cosa_expm(2, NULL, 2, E, 2, w) == COSA_EINVAL, "A NULL");
    cr_expect(cosa_expm(2, A, 2, NULL, 2, w) == COSA_EINVAL, "E NULL");
    cr_expect(cosa_expm(2, A, 2, E, 2, NULL) == COSA_EINVAL, "workspace NULL");
    cr_expect(cosa_expm(3, A, 2, E, 3, w) == COSA_EINVAL, "lda < n");
    cr_expect(cosa_expm(3, A, 3, E, 2, w) == COSA_EINVAL, "lde < n");
    cr_expect(cosa_expm(5, A, 5, E, 5, w) == COSA_EWORKSPACE, "n > nmax");

    A[3] = NAN;
    cr_expect(cosa_expm(2, A, 2, E, 2, w) == COSA_ENONFINITE, "NaN in A");
    for (size_t i = 0; i < 4; i++)
        cr_expect(isnan(E[i]), "NaN in A: E filled with NaN");
    A[3] = -INFINITY;
    cr_expect(cosa_expm(2, A, 2, E, 2, w) == COSA_ENONFINITE, "-Inf in A");
    A[3] = 0.0;

    /* exp overflows: diagonal fast path and the full algorithm */
    double D[4] = {800.0, 0.0, 0.0, 1.0};
    cr_expect(cosa_expm(2, D, 2, E, 2, w) == COSA_ENOTCONVERGED, "overflow, diagonal");
    double F[4] = {800.0, 1.0, 1.0, 800.0};
    cr_expect(cosa_expm(2, F, 2, E, 2, w) == COSA_ENOTCONVERGED, "overflow, full");
    for (size_t i = 0; i < 4; i++)
        cr_expect(isnan(E[i]), "overflow: E filled with NaN");
    double H[4] = {1e40, 1.0, 1.0, 1e40};
    cr_expect(cosa_expm(2, H, 2, E, 2, w) == COSA_ENOTCONVERGED, "overflow, huge norm");
    double one = 710.0, e1;
    cr_expect(cosa_expm(1, &one, 1, &e1, 1, w) == COSA_ENOTCONVERGED, "overflow, n = 1");

    cosa_expm_workspace_free(w);
    cosa_expm_workspace_free(NULL);

    cosa_expm_workspace *w0 = cosa_expm_workspace_alloc(0);
    cr_expect(w0 != NULL, "alloc(0) gives a workspace for n = 0");
    cr_expect(cosa_expm(0, NULL, 0, NULL, 0, w0) == COSA_OK, "n = 0 with nmax = 0");
    cr_expect(cosa_expm(1, A, 1, E, 1, w0) == COSA_EWORKSPACE, "n = 1 with nmax = 0");
    cosa_expm_workspace_free(w0);
}

Test(expm, workspace_reuse_across_sizes)
{
    /* One workspace, many sizes and norms, interleaved: results must not
     * depend on what the workspace held before. */
    cosa_expm_workspace *w = ws();
    double A[NMAX * NMAX], E1[NMAX * NMAX], E2[NMAX * NMAX], B[NMAX * NMAX], F[NMAX * NMAX];
    rng_seed(8);
    random_matrix(9, 30.0, A);
    random_matrix(NMAX, 0.5, B);
    cr_assert(cosa_expm(9, A, 9, E1, 9, w) == COSA_OK);
    cr_assert(cosa_expm(NMAX, B, NMAX, F, NMAX, w) == COSA_OK);
    cr_assert(cosa_expm(9, A, 9, E2, 9, w) == COSA_OK);
    cr_expect(memcmp(E1, E2, 81 * sizeof *E1) == 0, "result depends on workspace history");
    cosa_expm_workspace_free(w);
}
