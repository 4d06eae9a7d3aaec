/* expm.c -- matrix exponential by scaling and squaring with Pade approximants.
 *
 * [H05]  N. J. Higham, "The scaling and squaring method for the matrix
 *        exponential revisited", SIAM J. Matrix Anal. Appl. 26(4):1179-1193, 2005.
 * [AH09] A. H. Al-Mohy and N. J. Higham, "A new scaling and squaring algorithm
 *        for the matrix exponential", SIAM J. Matrix Anal. Appl. 31(3):970-989, 2009.
 *
 * exp(A) = r_m(2^-s A)^(2^s), with r_m = p_m / q_m the [m/m] Pade approximant
 * of e^x, m in {3, 5, 7, 9, 13}.  [H05] shows that r_m(X) = exp(X + dX) with
 * ||dX|| <= u ||X||, u = 2^-53, whenever ||X||_1 <= theta_m; it takes the
 * lowest m with ||A||_1 <= theta_m, or else m = 13 and the smallest s with
 * ||2^-s A||_1 <= theta_13.
 *
 * The backward-error series h(X) = log(e^-X r_m(X)) = sum_{k>=2m+1} c_k X^k
 * can be bounded by alpha_p(X) = max(d_p, d_{p+1}), d_k = ||X^k||_1^(1/k),
 * instead of by ||X||_1, for any p with p (p - 1) <= 2m + 1 [AH09, Thm 4.2].
 * For non-normal matrices d_k can be far below ||X||_1 (a mass-spring matrix
 * [[0, 1], [-k/m, 0]] has d_k -> sqrt(k/m) while ||.||_1 ~ k/m), so [H05]
 * "overscales": it squares more often than needed, and every extra squaring
 * costs a matrix product and amplifies rounding errors.  cosa therefore
 * refines the [H05] choice by [AH09]:
 *   - the d_k come from exact 1-norms of the powers A^2, A^4, A^6 (and A^8
 *     when worthwhile) that the Pade evaluation needs anyway, and from the
 *     submultiplicative bound ||A^(i+j)|| <= ||A^i|| ||A^j|| otherwise;
 *   - whenever this lowers m or s below the [H05] choice (by enough to save
 *     at least two matrix products), the guard
 *     ell(X, m) = max(0, ceil(log2(alpha / u) / (2m))),
 *     alpha = |c_{2m+1}| || |X|^(2m+1) ||_1 / ||X||_1  [AH09, Sec. 5],
 *     adds back the squarings needed to keep rounding errors in r_m
 *     under control (ell = 0 when ||X||_1 <= theta_m, so the [H05] choice
 *     never needs it).
 * The result never uses more squarings or a higher degree than [H05].
 * The theta_m are those of [H05] throughout ([AH09] lowers theta_13 to 4.25).
 *
 * r_m is formed as I + 2 (V - U)^-1 U (p_m = V + U, q_m = V - U), and a
 * diagonal A (including n = 1) is exponentiated entry by entry.
 */
#include "cosa/core.h"
#include "core/dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cosa_expm_workspace {
    size_t nmax;
    double *X;          /* 2^-s A (leading dimension n)          */
    double *A2, *A4, *A6, *A8;
    double *U, *V;      /* odd and even parts of p_m             */
    double *T;          /* scratch; also the squaring ping-pong  */
    double *v, *y;      /* vectors for the norm computations     */
    lapack_int *ipiv;
};

/* Degrees, theta_m [H05] and log2 |c_{2m+1}|, where
 * c_{2m+1} = (m!)^2 / ((2m)! (2m+1)!) is the leading coefficient of the
 * backward-error series h_{2m+1} above (1/c = 100800, 10059033600,
 * 4487938430976000, 5914384781877411840000, 113250775606021113483283660800000000). */
enum { NDEG = 5 };
static const int deg_m[NDEG] = {3, 5, 7, 9, 13};
static const double deg_theta[NDEG] = {1.495585217958292e-2, 2.539398330063230e-1,
                                       9.504178996162932e-1, 2.097847961257068,
                                       5.371920351148152};
static const double deg_log2c[NDEG] = {-16.621136113274641, -33.227772656854164,
                                       -51.994974307382165, -72.324718098934952,
                                       -116.447004251763};

/* Coefficients b_j = (2m - j)! / (j! (m - j)!) of p_m(x) = sum_j b_j x^j
 * (scaled so that b_m = 1); q_m(x) = p_m(-x).  All are exact doubles. */
static const double b3[] = {120.0, 60.0, 12.0, 1.0};
static const double b5[] = {30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0};
static const double b7[] = {17297280.0, 8648640.0, 1995840.0, 277200.0,
                            25200.0,    1512.0,    56.0,      1.0};
static const double b9[] = {17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0,
                            2162160.0,     110880.0,     3960.0,       90.0,        1.0};
static const double b13[] = {64764752532480000.0,
                             32382376266240000.0,
                             7771770303897600.0,
                             1187353796428800.0,
                             129060195264000.0,
                             10559470521600.0,
                             670442572800.0,
                             33522128640.0,
                             1323241920.0,
                             40840800.0,
                             960960.0,
                             16380.0,
                             182.0,
                             1.0};

/* Matrices whose 1-norm exceeds 2^LOG2_BIG are first scaled by a power of
 * two (and squared back) so that ||X^10||_1 <= 2^1000 cannot overflow. */
#define LOG2_BIG 100

/* u = 2^-53, the unit roundoff of IEEE double. */
#define LOG2_U (-53.0)

cosa_expm_workspace *cosa_expm_workspace_alloc(size_t nmax)
{
    if (nmax > 46340) /* nmax^2 must fit the int dimensions of BLAS */
        return NULL;
    cosa_expm_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    size_t nb = nmax ? nmax : 1; /* nmax = 0: a valid workspace for n = 0 */
    size_t nn = nb * nb;
    w->nmax = nmax;
    w->X = malloc(nn * sizeof *w->X);
    w->A2 = malloc(nn * sizeof *w->A2);
    w->A4 = malloc(nn * sizeof *w->A4);
    w->A6 = malloc(nn * sizeof *w->A6);
    w->A8 = malloc(nn * sizeof *w->A8);
    w->U = malloc(nn * sizeof *w->U);
    w->V = malloc(nn * sizeof *w->V);
    w->T = malloc(nn * sizeof *w->T);
    w->v = malloc(nb * sizeof *w->v);
    w->y = malloc(nb * sizeof *w->y);
    w->ipiv = malloc(nb * sizeof *w->ipiv);
    if (!w->X || !w->A2 || !w->A4 || !w->A6 || !w->A8 || !w->U || !w->V || !w->T || !w->v ||
        !w->y || !w->ipiv)
        goto fail;
    return w;
fail:
    cosa_expm_workspace_free(w);
    return NULL;
}

void cosa_expm_workspace_free(cosa_expm_workspace *w)
{
    if (!w)
        return;
    free(w->X);
    free(w->A2);
    free(w->A4);
    free(w->A6);
    free(w->A8);
    free(w->U);
    free(w->V);
    free(w->T);
    free(w->v);
    free(w->y);
    free(w->ipiv);
    free(w);
}

/* ------------------------------------------------------------------------ */
/* Norms                                                                    */
/* ------------------------------------------------------------------------ */

/* || |X|^p ||_1 for the guard ell: for the non-negative matrix |X|^p the
 * 1-norm is the largest entry of the row vector w_p = e^T |X|^p, so it is
 * computed exactly (up to rounding) with p vector-matrix products.  The
 * running vector is renormalised by a power of two at every step, so nothing
 * overflows or underflows for any p.  lg[k] = log2 || |X|^k ||_1 for k <= p.
 * Bounds for q > p, used to stop early:
 *   upper: || |X|^q || <= || |X|^k ||^(q div k) || |X|^(q mod k) ||, k <= p;
 *   lower: w_p >= r w_(p-1) entrywise with r = min_j w_p,j / w_(p-1),j
 *          (over w_(p-1),j > 0) implies w_q >= r^(q-p) w_p, since |X| >= 0,
 *          so || |X|^q || >= r^(q-p) || |X|^p ||. */
#define ABSPOW_MAX 27 /* 2m + 1 for m = 13 */
typedef struct {
    int p;                     /* power reached so far           */
    double log2sc;             /* w_p = 2^log2sc * v             */
    double log2r;              /* log2 r at step p (lower bound) */
    double lg[ABSPOW_MAX + 1];
} abspow;

static void abspow_init(abspow *st, size_t n, double *v)
{
    st->p = 0;
    st->log2sc = 0.0;
    st->log2r = -INFINITY;
    st->lg[0] = 0.0;
    for (size_t i = 0; i < n; i++)
        v[i] = 1.0;
}

/* One more factor |X|. */
static void abspow_step(abspow *st, size_t n, const double *X, double *v, double *y)
{
    double vmax = 0.0, r = INFINITY;
    for (size_t j = 0; j < n; j++) {
        const double *xj = X + j * n;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            s0 += v[i] * fabs(xj[i]);
            s1 += v[i + 1] * fabs(xj[i + 1]);
            s2 += v[i + 2] * fabs(xj[i + 2]);
            s3 += v[i + 3] * fabs(xj[i + 3]);
        }
        for (; i < n; i++)
            s0 += v[i] * fabs(xj[i]);
        y[j] = (s0 + s1) + (s2 + s3);
        if (y[j] > vmax)
            vmax = y[j];
        if (v[j] > 0.0 && y[j] < r * v[j])
            r = y[j] / v[j];
    }
    st->p++;
    if (vmax == 0.0) { /* |X|^p = 0, and so are all higher powers */
        for (int k = st->p; k <= ABSPOW_MAX; k++)
            st->lg[k] = -INFINITY;
        st->p = ABSPOW_MAX;
        return;
    }
    int e;
    double mant = frexp(vmax, &e);
    double scale = ldexp(1.0, -e);
    for (size_t j = 0; j < n; j++)
        v[j] = y[j] * scale;
    st->log2sc += e;
    st->lg[st->p] = st->log2sc + log2(mant);
    st->log2r = r > 0.0 ? log2(r) : -INFINITY;
}

/* Upper bound on log2 || |X|^q ||_1 from the norms known so far
 * (exact once q <= p). */
static double abspow_upper(const abspow *st, int q)
{
    if (q <= st->p)
        return st->lg[q];
    double best = INFINITY;
    for (int k = 1; k <= st->p; k++)
        best = fmin(best, (q / k) * st->lg[k] + st->lg[q % k]);
    return best;
}

/* min(ell(2^-s X, m), cap) of [AH09] (cap >= 1), with log2 ||X||_1 = l2a1
 * given; log2 alpha(2^-s X) = log2 alpha(X) - 2 m s.  The vector-matrix
 * products stop as soon as the bounds above decide the result. */
static int ell(int k, int s, int cap, double l2a1, abspow *st, size_t n, const double *X,
               double *v, double *y)
{
    const int m = deg_m[k], q = 2 * m + 1;
    const double off = deg_log2c[k] - l2a1 - 2.0 * m * s - LOG2_U;
    double up = abspow_upper(st, q);
    for (;;) {
        double e = ceil((off + up) / (2.0 * m));
        if (!(e > 0.0))
            return 0;
        if (st->p >= q)
            return e < cap ? (int)e : cap;
        if (st->p > 0) {
            double lo = st->lg[st->p] + (q - st->p) * st->log2r;
            if (ceil((off + lo) / (2.0 * m)) >= cap)
                return cap;
        }
        abspow_step(st, n, X, v, y);
        int p = st->p;
        up = p >= q ? st->lg[q] : fmin(up, (q / p) * st->lg[p] + st->lg[q % p]);
    }
}

/* Smallest s >= 0 with 2^-s eta <= theta_13. */
static int squarings_for(double eta)
{
    if (!(eta > deg_theta[NDEG - 1]))
        return 0;
    double e = ceil(log2(eta / deg_theta[NDEG - 1]));
    return e > 0.0 ? (int)e : 0;
}

/* ------------------------------------------------------------------------ */
/* Pade approximant                                                          */
/* ------------------------------------------------------------------------ */

/* M = sum_k c_k P_k + c0 I over the given even powers (ld n), summed from
 * the highest power down (roughly increasing size of the terms). */
static void lincomb(size_t n, double *M, double c0, int np, const double *const *P,
                    const double *c)
{
    size_t nn = n * n;
    const double *Pk = P[np - 1];
    double ck = c[np - 1];
    for (size_t i = 0; i < nn; i++)
        M[i] = ck * Pk[i];
    for (int k = np - 2; k >= 0; k--) {
        Pk = P[k];
        ck = c[k];
        for (size_t i = 0; i < nn; i++)
            M[i] += ck * Pk[i];
    }
    for (size_t i = 0; i < n; i++)
        M[i + i * n] += c0;
}

/* p_m(X) = V + U with V = sum_j b_{2j} X^{2j} and U = X sum_j b_{2j+1} X^{2j}
 * ([H05]; for m = 13 the powers beyond X^6 are factored through X^6 so that
 * only three further products are needed). */
static void pade_uv(int m, size_t n, cosa_expm_workspace *w)
{
    const double *const P[4] = {w->A2, w->A4, w->A6, w->A8};
    double *T = w->T;

    if (m == 13) {
        const double *b = b13;
        const double cu[3] = {b[9], b[11], b[13]}, cv[3] = {b[8], b[10], b[12]};
        const double lu[3] = {b[3], b[5], b[7]}, lv[3] = {b[2], b[4], b[6]};
        /* T = X^6 (b13 X^6 + b11 X^4 + b9 X^2) + b7 X^6 + b5 X^4 + b3 X^2 + b1 I;
         * U = X T */
        lincomb(n, w->A8, 0.0, 3, P, cu);
        lincomb(n, T, b[1], 3, P, lu);
        dense_gemm('N', 'N', n, n, n, 1.0, w->A6, n, w->A8, n, 1.0, T, n);
        dense_gemm('N', 'N', n, n, n, 1.0, w->X, n, T, n, 0.0, w->U, n);
        /* V = X^6 (b12 X^6 + b10 X^4 + b8 X^2) + b6 X^6 + b4 X^4 + b2 X^2 + b0 I */
        lincomb(n, w->A8, 0.0, 3, P, cv);
        lincomb(n, w->V, b[0], 3, P, lv);
        dense_gemm('N', 'N', n, n, n, 1.0, w->A6, n, w->A8, n, 1.0, w->V, n);
        return;
    }

    const double *b = m == 3 ? b3 : m == 5 ? b5 : m == 7 ? b7 : b9;
    int np = (m - 1) / 2; /* even powers X^2 .. X^(m-1) */
    double cu[4], cv[4];
    for (int k = 0; k < np; k++) {
        cu[k] = b[2 * k + 3];
        cv[k] = b[2 * k + 2];
    }
    lincomb(n, T, b[1], np, P, cu);
    dense_gemm('N', 'N', n, n, n, 1.0, w->X, n, T, n, 0.0, w->U, n);
    lincomb(n, w->V, b[0], np, P, cv);
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                   */
/* ------------------------------------------------------------------------ */

static void fill_nan(size_t n, double *E, size_t lde)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            E[i + j * lde] = NAN;
}

/* An overflow in exp or in the squarings leaves an Inf or NaN in E. */
static cosa_status check_result(size_t n, double *E, size_t lde)
{
    if (!dense_isfinite(n, n, E, lde)) {
        fill_nan(n, E, lde);
        return COSA_ENOTCONVERGED;
    }
    return COSA_OK;
}

static int is_diagonal(size_t n, const double *A, size_t lda)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            if (i != j && A[i + j * lda] != 0.0)
                return 0;
    return 1;
}

/* Matrix products needed to evaluate r_m, m = 3, 5, 7, 9, 13 (powers
 * X^2 ... plus one for U, plus for m = 13 two more [H05]); each squaring
 * costs one more. */
static const int deg_cost[NDEG] = {2, 3, 4, 5, 6};

/* A refinement by [AH09] is tried only if it saves at least this many matrix
 * products: the guard ell costs up to 2m + 1 vector-matrix products, about
 * one matrix product at the sizes cosa works with. */
#define MIN_SAVING 2

/* Degree index k (into deg_m) and number of squarings s for X = w->X with
 * ||X||_1 = a1 > 0.  Computes the powers of X that degree k needs
 * (X^2, X^4, X^6 and, for m = 9, X^8) into the workspace. */
static void choose_degree(size_t n, double a1, cosa_expm_workspace *w, int *kout, int *sout)
{
    const double *th = deg_theta;
    const double l2a1 = log2(a1);

    /* [H05]: the lowest degree with a1 <= theta_m, else m = 13 with s05
     * squarings; this is the fallback and the cost to beat. */
    int k05 = 0;
    while (k05 < NDEG - 1 && a1 > th[k05])
        k05++;
    const int s05 = k05 == NDEG - 1 ? squarings_for(a1) : 0;
    const int c05 = deg_cost[k05] + s05;

    abspow st;
    abspow_init(&st, n, w->v);
#define ELL(k, s, cap) ell((k), (s), (cap), l2a1, &st, n, w->X, w->v, w->y)
#define TRY(k, eta) (c05 - deg_cost[k] >= MIN_SAVING && (eta) <= th[k] && ELL((k), 0, 1) == 0)
#define PICK(k)                                                                                \
    do {                                                                                       \
        *kout = (k);                                                                           \
        *sout = 0;                                                                             \
        return;                                                                                \
    } while (0)

    /* eta_k bound the d_j = ||X^j||^(1/j) that the backward-error bound of
     * degree k needs [AH09]; exact norms of computed powers, otherwise
     * ||X^(i+j)|| <= ||X^i|| ||X^j||. */
    dense_gemm('N', 'N', n, n, n, 1.0, w->X, n, w->X, n, 0.0, w->A2, n);
    const double n2 = dense_norm1(n, n, w->A2, n);
    if (k05 == 0 || TRY(0, sqrt(n2))) /* max(d4, d6) <= ||X^2||^(1/2) */
        PICK(0);

    dense_gemm('N', 'N', n, n, n, 1.0, w->A2, n, w->A2, n, 0.0, w->A4, n);
    const double n4 = dense_norm1(n, n, w->A4, n);
    if (k05 == 1 || TRY(1, fmax(pow(n4, 0.25), pow(n4 * n2, 1.0 / 6.0)))) /* max(d4, d6) */
        PICK(1);

    dense_gemm('N', 'N', n, n, n, 1.0, w->A4, n, w->A2, n, 0.0, w->A6, n);
    const double n6 = dense_norm1(n, n, w->A6, n);
    const double d6 = pow(n6, 1.0 / 6.0);
    double n8 = fmin(n4 * n4, n6 * n2);
    if (k05 == 2 || TRY(2, fmax(d6, pow(n8, 0.125)))) /* max(d6, d8) */
        PICK(2);

    /* m = 9 needs X^8 anyway; form it if m = 9 is chosen or still possible. */
    int have_a8 = 0;
    if (k05 == 3 || (c05 - deg_cost[3] >= MIN_SAVING && d6 <= th[3])) {
        dense_gemm('N', 'N', n, n, n, 1.0, w->A4, n, w->A4, n, 0.0, w->A8, n);
        n8 = dense_norm1(n, n, w->A8, n);
        have_a8 = 1;
        if (k05 == 3 || TRY(3, fmax(d6, pow(n8, 0.125))))
            PICK(3);
    }

    /* m = 13: eta = min(max(d6, d8), max(d8, d10)), d10 bounded through
     * ||X^4|| ||X^6|| and ||X^2|| ||X^8||. */
    int s = s05;
    if (s05 >= MIN_SAVING) {
        double d8 = pow(n8, 0.125);
        double d10 = pow(fmin(n4 * n6, n2 * n8), 0.1);
        int seta = squarings_for(fmin(fmax(d6, d8), fmax(d8, d10)));
        if (!have_a8 && seta > 0) {
            /* An exact ||X^8|| costs a product; pay it only if it may save
             * squarings.  eta >= d8 and ||X^8||_1 >= ||X^4 (X^4 e_j)||_1 for
             * any j; take j the column of X^4 of largest 1-norm. */
            size_t jmax = 0;
            double cmax = -1.0;
            for (size_t j = 0; j < n; j++) {
                double c = dense_norm1(n, 1, w->A4 + j * n, n);
                if (c > cmax) {
                    cmax = c;
                    jmax = j;
                }
            }
            dense_gemv(n, n, 1.0, w->A4, n, w->A4 + jmax * n, 0.0, w->y);
            double d8lo = pow(dense_norm1(n, 1, w->y, n), 0.125);
            if (seta - squarings_for(d8lo) >= MIN_SAVING) {
                dense_gemm('N', 'N', n, n, n, 1.0, w->A4, n, w->A4, n, 0.0, w->A8, n);
                n8 = dense_norm1(n, n, w->A8, n);
                d8 = pow(n8, 0.125);
                d10 = pow(fmin(n4 * n6, n2 * n8), 0.1);
                seta = squarings_for(fmin(fmax(d6, d8), fmax(d8, d10)));
            }
        }
        /* s = s_eta + ell(2^-s_eta X, 13) (never above s05, since
         * ell(2^-s05 X, 13) = 0), kept only if it still saves MIN_SAVING
         * squarings; ell stops as soon as it knows that it does not. */
        if (s05 - seta >= MIN_SAVING) {
            int cap = s05 - seta - MIN_SAVING + 1;
            int l = ELL(4, seta, cap);
            if (l < cap)
                s = seta + l;
        }
    }
#undef PICK
#undef TRY
#undef ELL
    *kout = NDEG - 1;
    *sout = s;
}

cosa_status cosa_expm(size_t n, const double *A, size_t lda, double *E, size_t lde,
                      cosa_expm_workspace *w)
{
    if (!w)
        return COSA_EINVAL;
    if (n == 0)
        return COSA_OK;
    if (!A || !E || lda < n || lde < n)
        return COSA_EINVAL;
    if (n > w->nmax)
        return COSA_EWORKSPACE;

    double a1 = dense_norm1(n, n, A, lda);
    if (!isfinite(a1) && !dense_isfinite(n, n, A, lda)) {
        fill_nan(n, E, lde);
        return COSA_ENONFINITE;
    }

    /* exp(diag(a)) = diag(exp(a)), exactly; this includes n == 1. */
    if (is_diagonal(n, A, lda)) {
        for (size_t j = 0; j < n; j++) {
            double ejj = exp(A[j + j * lda]);
            for (size_t i = 0; i < n; i++)
                E[i + j * lde] = 0.0;
            E[j + j * lde] = ejj;
        }
        return check_result(n, E, lde);
    }

    /* X = 2^-t A, t > 0 only for huge norms (exp(A) = exp(X)^(2^t)). */
    int t = 0;
    if (!(a1 <= ldexp(1.0, LOG2_BIG))) {
        double amax = 0.0;
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < n; i++)
                amax = fmax(amax, fabs(A[i + j * lda]));
        int e;
        frexp(amax, &e);                                    /* amax < 2^e          */
        t = e + (int)ceil(log2((double)n)) - LOG2_BIG + 1;  /* ||X|| <= n amax 2^-t */
    }
    double *X = w->X;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            X[i + j * n] = t ? ldexp(A[i + j * lda], -t) : A[i + j * lda];
    if (t)
        a1 = dense_norm1(n, n, X, n);

    int k, s;
    choose_degree(n, a1, w, &k, &s);
    int m = deg_m[k];

    if (s > 0) {
        /* X <- 2^-s X and its powers accordingly: exact scalings by 2^-js. */
        size_t nn = n * n;
        double f1 = ldexp(1.0, -s), f2 = ldexp(1.0, -2 * s), f4 = ldexp(1.0, -4 * s),
               f6 = ldexp(1.0, -6 * s);
        for (size_t i = 0; i < nn; i++) {
            X[i] *= f1;
            w->A2[i] *= f2;
            w->A4[i] *= f4;
            w->A6[i] *= f6;
        }
    }
    pade_uv(m, n, w);

    /* r_m = (V - U)^-1 (V + U) = I + 2 (V - U)^-1 U: the correction to I is
     * then computed to a relative accuracy independent of ||r_m||.
     * The squarings alternate between T and E; start in whichever makes the
     * last one land in E. */
    int nsq = s + t;
    double *R = (nsq % 2 == 0) ? E : w->T;
    size_t ldr = (nsq % 2 == 0) ? lde : n;
    size_t nn = n * n;
    for (size_t i = 0; i < nn; i++)
        w->V[i] -= w->U[i];
    if (dense_lu(n, w->V, n, w->ipiv) != 0) {
        fill_nan(n, E, lde);
        return COSA_ELAPACK;
    }
    dense_copy(n, n, w->U, n, R, ldr);
    dense_lu_solve(n, n, w->V, n, w->ipiv, R, ldr);
    for (size_t j = 0; j < n; j++) {
        for (size_t i = 0; i < n; i++)
            R[i + j * ldr] *= 2.0;
        R[j + j * ldr] += 1.0;
    }

    /* exp(A) = r_m(2^-(s+t) A)^(2^(s+t)). */
    double *Q = (R == E) ? w->T : E;
    size_t ldq = (R == E) ? n : lde;
    for (int i = 0; i < nsq; i++) {
        dense_gemm('N', 'N', n, n, n, 1.0, R, ldr, R, ldr, 0.0, Q, ldq);
        double *tp = R;
        size_t tl = ldr;
        R = Q;
        ldr = ldq;
        Q = tp;
        ldq = tl;
    }

    return check_result(n, E, lde);
}
