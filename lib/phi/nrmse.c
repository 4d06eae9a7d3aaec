/* nrmse.c -- NRMSE error indicators of a co-simulation (eqs 31-33 of the
 * MBCorr paper; conventions in doc/method.md, section 9).
 *
 * Notation: Phi (co-simulation) and Phi* (reference) act on z (dimension d);
 * R selects the slot ybar_n.  The reference trajectory is given by its state:
 * q_n = A^n x0 (A = A*_d, nx x nx) and z*_n = T q_n (T: d x nx, Phi* T = T A).
 * The co-simulation starts on it, z_0 = T x0, z_n = Phi^n z_0, and
 * e_n = z*_n - z_n.  Per output component k the indicators need
 *   mean_k and var_k of y*_{k,n} = (R T q_n)_k                 over n = 1..N,
 *   SSg_k = sum_{n=1..N}   (R e_n)_k^2                          (global, eq 32),
 *   SSl_k = sum_{n=0..N-1} (R (Phi* - Phi) z_n)_k^2             (local, eq 31),
 *   SSr_k = sum_{n=0..N-1} (R (Phi* - Phi) z*_n)_k^2            (local, reference).
 *
 * Why the state form.  D = Phi* - Phi has O(1) entries (Phi* has zero history
 * columns, Phi extrapolation weights such as 4, -6, 4, -1), while D z*_n is
 * O((omega dt)^(p+1)) |z| because the history of z*_n is consistent with its
 * state.  Any formula that forms D G D^T from a Gram (scatter) matrix G of z
 * loses eps (|D| |z| / |D z|)^2 ~ eps (omega dt)^(-2(p+1)) relative: garbage
 * (even negative sums) for small errors.  Instead, the small matrix
 *   K = T A - Phi T   (= Phi* T - Phi T = D T, the defect of the reference
 *                      trajectory under one co-simulation step)
 * is formed once with compensated dot products (Ogita, Rump & Oishi 2005,
 * "Dot2"), i.e. as if in twice the working precision, so K is accurate for
 * the given double matrices even though its entries are ~1e-10 of the
 * products they come from.  Then, exactly:
 *   e_{n+1} = Phi e_n + K q_n,  e_0 = 0,
 *   local on the reference:        R D z*_n = R K q_n,
 *   local on the co-simulation:    R D z_n  = R K q_n - R D e_n,
 *   reference outputs:             y*_n     = R T q_n.
 * Every sum is a quadratic form of w_n = [q_n; e_n], w_{n+1} = Psi w_n,
 * Psi = [[A, 0], [K, Phi]], w_0 = [x0; 0], with row vectors (R T, 0),
 * (0, R), (R K, 0), (R K, -R D) whose products with w_n do not cancel
 * catastrophically.  A quadratic form x^T C x loses eps times the square of
 * the componentwise ratio |x||w| / |x w|; on the twomass cases (bench_nrmse
 * ratios) |R K||q| / |R K q| <= 2 and |R D||e_n| / |l_n| <= 30, except p3/p4
 * at dt = 1e-6 (5e2 and 1e5, where e_local < 1e-13 and the measured error
 * is 4e-8 relative); the old form had |D||z*| / |D z*| up to 3e16.
 *
 * Fast route (cosa_nrmse), O(d^3 log2 N).
 *  A block of M consecutive terms of v_j = Psi^j v is summarised by
 *  (M, mean a, centred scatter C = sum_j (v_j - a)(v_j - a)^T).  Shifting a
 *  block by s steps maps (a, C) -> (Psi^s a, Psi^s C Psi^sT); two adjacent
 *  blocks merge by the pairwise update of Chan, Golub & LeVeque (1979):
 *    delta = a_2 - a_1,  C = C_1 + C_2 + (M_1 M_2 / M) delta delta^T,
 *    a = a_1 + (M_2 / M) delta.
 *  Doubling the base block 2^k -> 2^(k+1) and prepending it to the
 *  accumulated block whenever bit k of M is set gives the statistics of
 *  w_1 .. w_{N-1} with about log2 N squarings/conjugations; adding the single
 *  terms w_N and w_0 gives the global (n = 1..N) and local (n = 0..N-1)
 *  blocks.  Centred scatter plus mean avoids the cancellation of
 *  sum y^2 - (sum y)^2 / N: the variance is exact up to eps * |mean| / std
 *  (its condition number) instead of eps * (|mean| / std)^2.  Raw second
 *  moments are C + M a a^T, a sum of two nonnegative terms.  Psi^s C Psi^sT
 *  is evaluated block by block, so the reference block (A only) is never
 *  contaminated by an overflowing co-simulation block (0 * inf = NaN).
 *
 * Direct route (cosa_nrmse_direct), O(N d^2): steps q_n, z*_n = T q_n and
 * z_n = Phi z_{n-1}, forms every error literally as in eqs 31/32
 * (R (z*_n - z_n), R Phi* z - R Phi z), and gets mean and variance of the
 * reference outputs from two passes (the second pass recomputes the same
 * trajectory) with the corrected two-pass formula
 *   var = (sum (y - m)^2 - (sum (y - m))^2 / N) / N.
 * Its local errors carry the per-step cancellation eps |D| |z| / |D z|.
 */
#include "cosa/phi.h"
#include "core/dense.h"
#include "phi/phi_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Statistics of a block of w_j = [q_j; e_j]: mean (a1: nx, a2: d) and centred
 * scatter C11 (nx x nx, ld nx), C21 (d x nx, ld d), C22 (d x d, ld d);
 * C12 = C21^T. */
typedef struct blockstats {
    double *a1, *a2;
    double *C11, *C21, *C22;
} blockstats;

struct cosa_nrmse_workspace {
    size_t dmax;
    double *Am, *Em, *Bm;  /* Psi^m = [[Am, 0], [Em, Bm]] (nx x nx, d x nx, d x d) */
    double *K;             /* T A - Phi T (d x nx)                              */
    double *RT, *RK, *RD;  /* R T, R K (ny x nx), R (Phi* - Phi) (ny x d)       */
    double *T1, *T2, *T3;  /* temporaries, up to d x d                          */
    blockstats b, a, t;    /* base, accumulated, temporary                      */
    double *vec;           /* NVEC vectors of length dmax                       */
    double *mem;
    cosa_stage_fn stage;   /* progress (may be NULL)                            */
    void *stage_data;
};

void cosa_nrmse_workspace_set_progress(cosa_nrmse_workspace *w, cosa_stage_fn fn,
                                       void *user_data)
{
    if (!w)
        return;
    w->stage = fn;
    w->stage_data = user_data;
}

enum { NVEC = 16 };

static double *vec_at(cosa_nrmse_workspace *w, size_t i) { return w->vec + i * w->dmax; }

cosa_nrmse_workspace *cosa_nrmse_workspace_alloc(size_t dim_max)
{
    if (dim_max == 0)
        return NULL;
    /* 10 matrices + 3 x 3 scatters = 19 d^2; 3 x 2 means + NVEC vectors. */
    const size_t nmat = 19, nvec = 6 + NVEC;
    if (dim_max > SIZE_MAX / sizeof(double) / (nmat + nvec) / dim_max)
        return NULL;
    cosa_nrmse_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    const size_t d = dim_max, d2 = d * d;
    w->mem = calloc(nmat * d2 + nvec * d, sizeof(double));
    if (!w->mem)
        goto fail;
    w->dmax = d;
    double *p = w->mem;
    double **mats[] = {&w->Am,    &w->Em,    &w->Bm,    &w->K,     &w->RT,
                       &w->RK,    &w->RD,    &w->T1,    &w->T2,    &w->T3,
                       &w->b.C11, &w->b.C21, &w->b.C22, &w->a.C11, &w->a.C21,
                       &w->a.C22, &w->t.C11, &w->t.C21, &w->t.C22};
    for (size_t i = 0; i < sizeof mats / sizeof *mats; i++, p += d2)
        *mats[i] = p;
    double **vecs[] = {&w->b.a1, &w->b.a2, &w->a.a1, &w->a.a2, &w->t.a1, &w->t.a2};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++, p += d)
        *vecs[i] = p;
    w->vec = p;
    return w;
fail:
    cosa_nrmse_workspace_free(w);
    return NULL;
}

void cosa_nrmse_workspace_free(cosa_nrmse_workspace *w)
{
    if (!w)
        return;
    free(w->mem);
    free(w);
}

/* ---- common validation and final reduction ------------------------------- */

static void set_failed(cosa_errors *out)
{
    if (out) {
        out->e_global = out->e_local = out->e_local_ref = NAN;
        out->ncomp = 0;
    }
}

static cosa_status validate(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                            const cosa_layout *lay, size_t nx, const double *A, size_t lda,
                            const double *T, size_t ldt, const double *x0, size_t N,
                            double rho, const cosa_errors *out, const cosa_nrmse_workspace *w)
{
    if (!Phi || !Phistar || !lay || !A || !T || !x0 || !out || !w)
        return COSA_EINVAL;
    if (dim == 0 || dim != lay->dim || ld < dim || lay->off_y > dim ||
        lay->ny > dim - lay->off_y || nx == 0 || lda < nx || ldt < dim)
        return COSA_EINVAL;
    if (N == 0 || lay->ny == 0) /* no macro step, or no output to measure */
        return COSA_ERANGE;
    if (isnan(rho))
        return COSA_ENONFINITE;
    if (dim > w->dmax || nx > w->dmax)
        return COSA_EWORKSPACE;
    if (!dense_isfinite(dim, dim, Phi, ld) || !dense_isfinite(dim, dim, Phistar, ld) ||
        !dense_isfinite(nx, nx, A, lda) || !dense_isfinite(dim, nx, T, ldt) ||
        !dense_isfinite(nx, 1, x0, nx))
        return COSA_ENONFINITE;
    return COSA_OK;
}

/* eq 33 from the per-component sums (see the top of the file), with the
 * rules of cosa.h: constant components skipped, non-finite sum -> +inf
 * (callers store +inf in ssg, ssl for an unstable co-simulation). */
static cosa_status finish(size_t ny, double N, const double *mean, const double *var,
                          const double *ssg, const double *ssl, const double *ssr,
                          const cosa_nrmse_sums *sums, cosa_errors *out)
{
    if (sums) {
        const double *src[5] = {mean, var, ssg, ssl, ssr};
        double *dst[5] = {sums->mean, sums->var, sums->ss_global, sums->ss_local,
                          sums->ss_local_ref};
        for (int i = 0; i < 5; i++)
            if (dst[i])
                memcpy(dst[i], src[i], ny * sizeof(double));
    }
    for (size_t k = 0; k < ny; k++)
        if (!isfinite(mean[k]) || !isfinite(var[k]))
            return COSA_EUNSTABLEREF;
    double sg = 0.0, sl = 0.0, sr = 0.0;
    int infg = 0, infl = 0, infr = 0;
    size_t nc = 0;
    for (size_t k = 0; k < ny; k++) {
        const double v = var[k] > 0.0 ? var[k] : 0.0, sd = sqrt(v);
        const double rms = hypot(mean[k], sd); /* RMS of the reference output */
        if (sd <= COSA_NRMSE_STD_RTOL * rms)
            continue; /* constant reference output: normalisation undefined */
        nc++;
        const double den = N * v;
        /* NaN or Inf in a sum (overflow, or +inf set for an unstable
         * co-simulation) -> +inf */
        if (!isfinite(ssg[k]))
            infg = 1;
        else
            sg += (ssg[k] > 0.0 ? ssg[k] : 0.0) / den;
        if (!isfinite(ssl[k]))
            infl = 1;
        else
            sl += (ssl[k] > 0.0 ? ssl[k] : 0.0) / den;
        if (!isfinite(ssr[k]))
            infr = 1;
        else
            sr += (ssr[k] > 0.0 ? ssr[k] : 0.0) / den;
    }
    if (nc == 0)
        return COSA_ERANGE;
    out->e_global = infg ? INFINITY : sqrt(sg / (double)nc);
    out->e_local = infl ? INFINITY : sqrt(sl / (double)nc);
    out->e_local_ref = infr ? INFINITY : sqrt(sr / (double)nc);
    out->ncomp = nc;
    return COSA_OK;
}

static int cosim_stable(double rho) { return !(rho > 1.0 + COSA_RHO_TOL); }

/* ---- common setup ----------------------------------------------------------- */

/* Compensated dot product sum_k x_k y_k (strides incx, incy) added to the
 * running compensated sum (*hi, *lo): Ogita, Rump & Oishi (2005), Dot2, with
 * TwoProduct by fma and Knuth's TwoSum.  The result hi + lo is as accurate
 * as if computed in twice the working precision. */
static void dot2_acc(size_t n, double sign, const double *x, size_t incx, const double *y,
                     size_t incy, double *hi, double *lo)
{
    double s = *hi, c = *lo;
    for (size_t k = 0; k < n; k++) {
        const double a = sign * x[k * incx], b = y[k * incy];
        const double p = a * b, pe = fma(a, b, -p);
        const double t = s + p, z = t - s, se = (s - (t - z)) + (p - z);
        s = t;
        c += se + pe;
    }
    *hi = s;
    *lo = c;
}

/* K = T A - Phi T (d x nx, ld d) by Dot2, and the rows of R T, R K and
 * R (Phi* - Phi) (ld ny). */
static void setup_rows(size_t d, size_t nx, const double *Phi, const double *Phistar,
                       size_t ld, const double *A, size_t lda, const double *T, size_t ldt,
                       size_t off, size_t ny, cosa_nrmse_workspace *w)
{
    /* rows of T and Phi as unit-stride columns of T^T (nx x d) and Phi^T
     * (d x d) in the temporaries: the same products in the same order as
     * reading the rows with stride ld, without a cache miss per term
     * (a 1215-state chain: 29 s -> a few s) */
    double *Tt = w->T1, *Pt = w->T2;
    for (size_t j = 0; j < nx; j++)
        for (size_t i = 0; i < d; i++)
            Tt[j + i * nx] = T[i + j * ldt];
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++)
            Pt[j + i * d] = Phi[i + j * ld];
    const size_t every = nx / 100 + 1; /* progress: about 100 reports */
    for (size_t j = 0; j < nx; j++) {
        if (w->stage && j % every == 0)
            w->stage("NRMSE setup (K = T A - Phi T)", d, j, nx, w->stage_data);
        for (size_t i = 0; i < d; i++) {
            double hi = 0.0, lo = 0.0;
            dot2_acc(nx, 1.0, Tt + i * nx, 1, A + j * lda, 1, &hi, &lo);
            dot2_acc(d, -1.0, Pt + i * d, 1, T + j * ldt, 1, &hi, &lo);
            w->K[i + j * d] = hi + lo;
        }
    }
    for (size_t j = 0; j < nx; j++)
        for (size_t k = 0; k < ny; k++) {
            w->RT[k + j * ny] = T[off + k + j * ldt];
            w->RK[k + j * ny] = w->K[off + k + j * d];
        }
    for (size_t j = 0; j < d; j++)
        for (size_t k = 0; k < ny; k++)
            w->RD[k + j * ny] = Phistar[off + k + j * ld] - Phi[off + k + j * ld];
}

/* ---- fast route ------------------------------------------------------------ */

/* C <- (C + C^T) / 2: keeps scatter matrices exactly symmetric. */
static void symmetrize(size_t n, double *C)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = j + 1; i < n; i++) {
            const double s = 0.5 * (C[i + j * n] + C[j + i * n]);
            C[i + j * n] = C[j + i * n] = s;
        }
}

/* Shift a block by m steps: (a, C) <- (P a, P C P^T) with
 * P = Psi^m = [[Am, 0], [Em, Bm]], block by block.  cosim = 0: only the
 * reference part (a1, C11) is needed. */
static void shift_block(size_t nx, size_t d, cosa_nrmse_workspace *w, blockstats *s, int cosim)
{
    double *t = vec_at(w, 0);
    const double *A = w->Am, *E = w->Em, *B = w->Bm;
    dense_gemm('N', 'N', nx, nx, nx, 1.0, A, nx, s->C11, nx, 0.0, w->T1, nx);
    if (cosim) {
        /* X = E C11 + B C21 and Y = E C21^T + B C22 (second block row of P C) */
        dense_gemm('N', 'N', d, nx, nx, 1.0, E, d, s->C11, nx, 0.0, w->T2, d);
        dense_gemm('N', 'N', d, nx, d, 1.0, B, d, s->C21, d, 1.0, w->T2, d);
        dense_gemm('N', 'T', d, d, nx, 1.0, E, d, s->C21, d, 0.0, w->T3, d);
        dense_gemm('N', 'N', d, d, d, 1.0, B, d, s->C22, d, 1.0, w->T3, d);
        dense_gemm('N', 'T', d, nx, nx, 1.0, w->T2, d, A, nx, 0.0, s->C21, d); /* X A^T */
        dense_gemm('N', 'T', d, d, nx, 1.0, w->T2, d, E, d, 0.0, s->C22, d);  /* X E^T + */
        dense_gemm('N', 'T', d, d, d, 1.0, w->T3, d, B, d, 1.0, s->C22, d);   /* Y B^T */
        memcpy(t, s->a2, d * sizeof *t);
        dense_gemv(d, nx, 1.0, E, d, s->a1, 0.0, s->a2);
        dense_gemv(d, d, 1.0, B, d, t, 1.0, s->a2);
        symmetrize(d, s->C22);
    }
    dense_gemm('N', 'T', nx, nx, nx, 1.0, w->T1, nx, A, nx, 0.0, s->C11, nx);
    memcpy(t, s->a1, nx * sizeof *t);
    dense_gemv(nx, nx, 1.0, A, nx, t, 0.0, s->a1);
    symmetrize(nx, s->C11);
}

/* (u1, u2) <- Psi^m (u1, u2). */
static void shift_point(size_t nx, size_t d, cosa_nrmse_workspace *w, double *u1, double *u2,
                        int cosim)
{
    double *t = vec_at(w, 0);
    if (cosim) {
        memcpy(t, u2, d * sizeof *t);
        dense_gemv(d, nx, 1.0, w->Em, d, u1, 0.0, u2);
        dense_gemv(d, d, 1.0, w->Bm, d, t, 1.0, u2);
    }
    memcpy(t, u1, nx * sizeof *t);
    dense_gemv(nx, nx, 1.0, w->Am, nx, t, 0.0, u1);
}

/* out <- merge of block f (nf terms) and block g (ng terms); out may be f or g. */
static void merge_blocks(size_t nx, size_t d, cosa_nrmse_workspace *w, blockstats *out,
                         const blockstats *f, double nf, const blockstats *g, double ng,
                         int cosim)
{
    double *d1 = vec_at(w, 0), *d2 = vec_at(w, 1);
    const double n = nf + ng, wt = nf * ng / n, fr = ng / n;
    for (size_t i = 0; i < nx; i++)
        d1[i] = g->a1[i] - f->a1[i];
    for (size_t j = 0; j < nx; j++)
        for (size_t i = 0; i < nx; i++)
            out->C11[i + j * nx] = f->C11[i + j * nx] + g->C11[i + j * nx] + wt * d1[i] * d1[j];
    for (size_t i = 0; i < nx; i++)
        out->a1[i] = f->a1[i] + fr * d1[i];
    if (!cosim)
        return;
    for (size_t i = 0; i < d; i++)
        d2[i] = g->a2[i] - f->a2[i];
    for (size_t j = 0; j < nx; j++)
        for (size_t i = 0; i < d; i++)
            out->C21[i + j * d] = f->C21[i + j * d] + g->C21[i + j * d] + wt * d2[i] * d1[j];
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++)
            out->C22[i + j * d] = f->C22[i + j * d] + g->C22[i + j * d] + wt * d2[i] * d2[j];
    for (size_t i = 0; i < d; i++)
        out->a2[i] = f->a2[i] + fr * d2[i];
}

/* out <- block s (m terms, m may be 0) plus the single term (v1, v2). */
static void add_point(size_t nx, size_t d, blockstats *out, const blockstats *s, double m,
                      const double *v1, const double *v2, int cosim)
{
    const double wt = m / (m + 1.0), fr = 1.0 / (m + 1.0);
    for (size_t j = 0; j < nx; j++)
        for (size_t i = 0; i < nx; i++)
            out->C11[i + j * nx] = m > 0.0 ? s->C11[i + j * nx] + wt * (v1[i] - s->a1[i]) *
                                                                        (v1[j] - s->a1[j])
                                           : 0.0;
    if (cosim) {
        for (size_t j = 0; j < nx; j++)
            for (size_t i = 0; i < d; i++)
                out->C21[i + j * d] = m > 0.0 ? s->C21[i + j * d] + wt * (v2[i] - s->a2[i]) *
                                                                          (v1[j] - s->a1[j])
                                              : 0.0;
        for (size_t j = 0; j < d; j++)
            for (size_t i = 0; i < d; i++)
                out->C22[i + j * d] = m > 0.0 ? s->C22[i + j * d] + wt * (v2[i] - s->a2[i]) *
                                                                          (v2[j] - s->a2[j])
                                              : 0.0;
        for (size_t i = 0; i < d; i++)
            out->a2[i] = m > 0.0 ? s->a2[i] + fr * (v2[i] - s->a2[i]) : v2[i];
    }
    for (size_t i = 0; i < nx; i++)
        out->a1[i] = m > 0.0 ? s->a1[i] + fr * (v1[i] - s->a1[i]) : v1[i];
}

static void copy_block(size_t nx, size_t d, blockstats *dst, const blockstats *src, int cosim)
{
    memcpy(dst->a1, src->a1, nx * sizeof(double));
    memcpy(dst->C11, src->C11, nx * nx * sizeof(double));
    if (cosim) {
        memcpy(dst->a2, src->a2, d * sizeof(double));
        memcpy(dst->C21, src->C21, d * nx * sizeof(double));
        memcpy(dst->C22, src->C22, d * d * sizeof(double));
    }
}

/* Psi^m -> Psi^2m:  A^2m = A A, B^2m = B B, E_2m = E A + B E. */
static void square_powers(size_t nx, size_t d, cosa_nrmse_workspace *w, int cosim)
{
    if (cosim) {
        dense_gemm('N', 'N', d, nx, nx, 1.0, w->Em, d, w->Am, nx, 0.0, w->T1, d);
        dense_gemm('N', 'N', d, nx, d, 1.0, w->Bm, d, w->Em, d, 1.0, w->T1, d);
        memcpy(w->Em, w->T1, d * nx * sizeof(double));
        dense_gemm('N', 'N', d, d, d, 1.0, w->Bm, d, w->Bm, d, 0.0, w->T1, d);
        memcpy(w->Bm, w->T1, d * d * sizeof(double));
    }
    dense_gemm('N', 'N', nx, nx, nx, 1.0, w->Am, nx, w->Am, nx, 0.0, w->T1, nx);
    memcpy(w->Am, w->T1, nx * nx * sizeof(double));
}

/* sum_ij X_ki C_ij Y_kj for row k of X (ld ldx, n1 columns), C (n1 x n2,
 * ld ldc) and row k of Y (ld ldy, n2 columns). */
static double bilinear(size_t k, size_t n1, size_t n2, const double *X, size_t ldx,
                       const double *C, size_t ldc, const double *Y, size_t ldy)
{
    double s = 0.0;
    for (size_t j = 0; j < n2; j++) {
        double c = 0.0;
        for (size_t i = 0; i < n1; i++)
            c += X[k + i * ldx] * C[i + j * ldc];
        s += c * Y[k + j * ldy];
    }
    return s;
}

/* row k of X (ld ldx, n columns) times v */
static double rowdot(size_t k, size_t n, const double *X, size_t ldx, const double *v)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += X[k + i * ldx] * v[i];
    return s;
}

cosa_status cosa_nrmse(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                       const cosa_layout *lay, size_t nx, const double *Adstar, size_t lda,
                       const double *T, size_t ldt, const double *x0, size_t N, double rho,
                       cosa_errors *out, const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w)
{
    cosa_status st = validate(dim, Phi, Phistar, ld, lay, nx, Adstar, lda, T, ldt, x0, N, rho,
                              out, w);
    if (st != COSA_OK) {
        set_failed(out);
        return st;
    }
    const size_t d = dim, off = lay->off_y, ny = lay->ny;
    const int cosim = cosim_stable(rho);
    setup_rows(d, nx, Phi, Phistar, ld, Adstar, lda, T, ldt, off, ny, w);

    /* Psi = [[A, 0], [K, Phi]] */
    dense_copy(nx, nx, Adstar, lda, w->Am, nx);
    dense_copy(d, nx, w->K, d, w->Em, d);
    dense_copy(d, d, Phi, ld, w->Bm, d);

    /* Base block: the single term w_1 = [A x0; K x0]; u tracks the term
     * after the accumulated block, ending at w_N. */
    blockstats *b = &w->b, *a = &w->a, *t = &w->t;
    double *u1 = vec_at(w, 2), *u2 = vec_at(w, 3), *z0 = vec_at(w, 4);
    dense_gemv(nx, nx, 1.0, w->Am, nx, x0, 0.0, b->a1);
    dense_gemv(d, nx, 1.0, w->Em, d, x0, 0.0, b->a2);
    dense_zero(nx, nx, b->C11, nx);
    dense_zero(d, nx, b->C21, d);
    dense_zero(d, d, b->C22, d);
    memcpy(u1, b->a1, nx * sizeof(double));
    memcpy(u2, b->a2, d * sizeof(double));

    /* Statistics of w_1 .. w_{N-1} (M = N - 1 terms).  Binary decomposition
     * of M, least significant bit first: the accumulated block (indices
     * 0..nacc-1) is shifted by m = 2^k and the base block (indices 0..m-1)
     * is put in front of it. */
    const size_t M = N - 1;
    size_t m = 1, nacc = 0, step = 0, nsteps = 0;
    for (size_t rest = M; rest > 0; rest >>= 1)
        nsteps++;
    for (size_t rest = M; rest > 0; rest >>= 1) {
        if (w->stage)
            w->stage("NRMSE", d, step++, nsteps, w->stage_data);
        if (rest & 1) {
            if (nacc == 0)
                copy_block(nx, d, a, b, cosim);
            else {
                shift_block(nx, d, w, a, cosim);
                merge_blocks(nx, d, w, a, b, (double)m, a, (double)nacc, cosim);
            }
            nacc += m;
            shift_point(nx, d, w, u1, u2, cosim);
        }
        if (rest <= 1)
            break;
        copy_block(nx, d, t, b, cosim);
        shift_block(nx, d, w, t, cosim);
        merge_blocks(nx, d, w, b, b, (double)m, t, (double)m, cosim);
        square_powers(nx, d, w, cosim);
        m <<= 1;
    }

    const double n = (double)N;
    double *mean = vec_at(w, 5), *var = vec_at(w, 6), *ssg = vec_at(w, 7),
           *ssl = vec_at(w, 8), *ssr = vec_at(w, 9);
    /* global block, n = 1..N: reference outputs R T q_n and errors R e_n */
    add_point(nx, d, t, a, (double)nacc, u1, u2, cosim);
    for (size_t k = 0; k < ny; k++) {
        const size_t r = off + k;
        mean[k] = rowdot(k, nx, w->RT, ny, t->a1);
        var[k] = bilinear(k, nx, nx, w->RT, ny, t->C11, nx, w->RT, ny) / n;
        ssg[k] = cosim ? t->C22[r + r * d] + n * t->a2[r] * t->a2[r] : INFINITY;
    }
    /* local block, n = 0..N-1 (w_0 = [x0; 0]):
     *   R D z*_n = R K q_n,   R D z_n = R K q_n - R D e_n */
    memset(z0, 0, d * sizeof(double));
    add_point(nx, d, t, a, (double)nacc, x0, z0, cosim);
    for (size_t k = 0; k < ny; k++) {
        const double mk = rowdot(k, nx, w->RK, ny, t->a1);
        const double qk = bilinear(k, nx, nx, w->RK, ny, t->C11, nx, w->RK, ny);
        ssr[k] = qk + n * mk * mk;
        if (cosim) {
            const double ml = mk - rowdot(k, d, w->RD, ny, t->a2);
            ssl[k] = qk - 2.0 * bilinear(k, d, nx, w->RD, ny, t->C21, d, w->RK, ny) +
                     bilinear(k, d, d, w->RD, ny, t->C22, d, w->RD, ny) + n * ml * ml;
        } else
            ssl[k] = INFINITY;
    }
    /* quadratic forms of a positive semidefinite scatter: a negative value is
     * rounding of a sum that is 0 relative to its terms */
    for (size_t k = 0; k < ny; k++) {
        var[k] = var[k] > 0.0 ? var[k] : (isnan(var[k]) ? var[k] : 0.0);
        ssl[k] = ssl[k] > 0.0 ? ssl[k] : (isnan(ssl[k]) ? ssl[k] : 0.0);
        ssr[k] = ssr[k] > 0.0 ? ssr[k] : (isnan(ssr[k]) ? ssr[k] : 0.0);
    }

    st = finish(ny, n, mean, var, ssg, ssl, ssr, sums, out);
    if (st != COSA_OK)
        set_failed(out);
    return st;
}

/* ---- direct route ----------------------------------------------------------- */

cosa_status cosa_nrmse_direct(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                              const cosa_layout *lay, size_t nx, const double *Adstar,
                              size_t lda, const double *T, size_t ldt, const double *x0,
                              size_t N, double rho, cosa_errors *out,
                              const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w)
{
    cosa_status st = validate(dim, Phi, Phistar, ld, lay, nx, Adstar, lda, T, ldt, x0, N, rho,
                              out, w);
    if (st != COSA_OK) {
        set_failed(out);
        return st;
    }
    const size_t d = dim, off = lay->off_y, ny = lay->ny;
    const int cosim = cosim_stable(rho);
    double *q = vec_at(w, 0), *qn = vec_at(w, 1), *zs = vec_at(w, 2), *z = vec_at(w, 3),
           *zn = vec_at(w, 4);
    /* R Phi* z*_n, R Phi z*_n, R Phi* z_n, R Phi z_n (ny each) */
    double *rs_zs = vec_at(w, 5), *rp_zs = vec_at(w, 6), *rs_z = vec_at(w, 7),
           *rp_z = vec_at(w, 8);
    double *mean = vec_at(w, 10), *var = vec_at(w, 11), *s1 = vec_at(w, 12),
           *ssg = vec_at(w, 13), *ssl = vec_at(w, 14), *ssr = vec_at(w, 15);
    double *tmp;

    /* pass 1: mean of y*_n = R T q_n, n = 1..N */
    memcpy(q, x0, nx * sizeof *q);
    memset(mean, 0, ny * sizeof *mean);
    for (size_t n = 0; n < N; n++) {
        dense_gemv(nx, nx, 1.0, Adstar, lda, q, 0.0, qn);
        tmp = q, q = qn, qn = tmp;
        dense_gemv(d, nx, 1.0, T, ldt, q, 0.0, zs); /* the same kernel as pass 2 */
        for (size_t k = 0; k < ny; k++)
            mean[k] += zs[off + k];
    }
    for (size_t k = 0; k < ny; k++)
        mean[k] /= (double)N;

    /* pass 2: the same trajectory again, plus the co-simulation z_0 = T x0 */
    memcpy(q, x0, nx * sizeof *q);
    dense_gemv(d, nx, 1.0, T, ldt, q, 0.0, zs);
    memcpy(z, zs, d * sizeof *z);
    memset(var, 0, ny * sizeof *var);
    memset(s1, 0, ny * sizeof *s1);
    memset(ssg, 0, ny * sizeof *ssg);
    memset(ssl, 0, ny * sizeof *ssl);
    memset(ssr, 0, ny * sizeof *ssr);
    for (size_t n = 0; n < N; n++) {
        /* local errors at step n+1 (eq 31): R Phi* v - R Phi v, v = z_n, z*_n;
         * both products by the same kernel (ny-row mat-vecs), so that
         * Phi == Phi* gives exactly 0 */
        dense_gemv(ny, d, 1.0, Phistar + off, ld, zs, 0.0, rs_zs);
        dense_gemv(ny, d, 1.0, Phi + off, ld, zs, 0.0, rp_zs);
        if (cosim) {
            dense_gemv(d, d, 1.0, Phi, ld, z, 0.0, zn);
            dense_gemv(ny, d, 1.0, Phistar + off, ld, z, 0.0, rs_z);
            dense_gemv(ny, d, 1.0, Phi + off, ld, z, 0.0, rp_z);
        }
        /* reference: q_{n+1} = A q_n, z*_{n+1} = T q_{n+1} */
        dense_gemv(nx, nx, 1.0, Adstar, lda, q, 0.0, qn);
        tmp = q, q = qn, qn = tmp;
        dense_gemv(d, nx, 1.0, T, ldt, q, 0.0, zs);
        for (size_t k = 0; k < ny; k++) {
            const double y = zs[off + k], c = y - mean[k], lr = rs_zs[k] - rp_zs[k];
            s1[k] += c;
            var[k] += c * c;
            ssr[k] += lr * lr;
            if (cosim) {
                const double eg = y - zn[off + k], el = rs_z[k] - rp_z[k];
                ssg[k] += eg * eg;
                ssl[k] += el * el;
            }
        }
        tmp = z, z = zn, zn = tmp;
    }
    for (size_t k = 0; k < ny; k++) {
        var[k] = (var[k] - s1[k] * s1[k] / (double)N) / (double)N;
        if (!cosim)
            ssg[k] = ssl[k] = INFINITY;
    }

    st = finish(ny, (double)N, mean, var, ssg, ssl, ssr, sums, out);
    if (st != COSA_OK)
        set_failed(out);
    return st;
}
