/* nrmse.c -- NRMSE error indicators of a co-simulation (eqs 31-33 of the
 * MBCorr paper; conventions in METHOD.md, "Conventions for accuracy").
 *
 * Notation: Phi (co-simulation) and Phi* (reference) act on z (dimension d);
 * R selects the slot ybar_n; D = Phi* - Phi; z*_n = Phi*^n z0, z_n = Phi^n z0,
 * e_n = z*_n - z_n.  Per output component k the indicators need
 *   mean_k and var_k of y*_{k,n} = (R z*_n)_k            over n = 1..N,
 *   SSg_k  = sum_{n=1..N}   (R e_n)_k^2                    (global, eq 32),
 *   SSl_k  = sum_{n=0..N-1} (R D z_n)_k^2                  (local, eq 31),
 *   SSr_k  = sum_{n=0..N-1} (R D z*_n)_k^2                 (local, reference).
 *
 * Fast route (cosa_nrmse), O(d^3 log2 N).
 *  The error obeys its own recurrence, e_{n+1} = D z*_n + Phi e_n, so
 *  w_n = [z*_n; e_n] satisfies w_{n+1} = Psi w_n with the block lower
 *  triangular Psi = [[Phi*, 0], [D, Phi]].  Errors are therefore never formed
 *  as differences of trajectories or of large sums.  The local sums need the
 *  second moments of z*_n and z_n over n = 0..N-1, i.e. of w'_n = P'^n [z0; z0]
 *  with P' = [[Phi*, 0], [0, Phi]].  Both are statistics of a sequence
 *  v_j = P^j v, j = 0..M-1, with P = [[A, 0], [E, B]] block lower triangular.
 *  A block of M consecutive terms is summarised by (M, mean a, centred scatter
 *  C = sum_j (v_j - a)(v_j - a)^T).  Shifting a block by s steps maps
 *  (a, C) -> (P^s a, P^s C P^sT); two adjacent blocks merge by the pairwise
 *  update of Chan, Golub & LeVeque (1979):
 *    delta = a_2 - a_1,  C = C_1 + C_2 + (M_1 M_2 / M) delta delta^T,
 *    a = a_1 + (M_2 / M) delta.
 *  Doubling the base block 2^k -> 2^(k+1) and prepending it to the
 *  accumulated block whenever bit k of N is set gives the statistics of N
 *  terms with about log2 N squarings/conjugations.  Centred scatter plus mean
 *  avoids the cancellation of sum y^2 - (sum y)^2 / N: the variance is exact
 *  up to eps * |mean| / std (the condition number of the variance) instead of
 *  eps * (|mean| / std)^2.  Raw second moments are C + M a a^T, a sum of two
 *  nonnegative terms.  P^s C P^sT is evaluated block by block, so the
 *  reference block (A only) is never contaminated by an overflowing
 *  co-simulation block (0 * inf = NaN in a full product).
 *
 * Direct route (cosa_nrmse_direct), O(N d^2): steps both trajectories, forms
 * every error literally as a difference, and gets mean and variance of the
 * reference outputs from two passes (the second pass recomputes the same
 * trajectory) with the corrected two-pass formula
 *   var = (sum (y - m)^2 - (sum (y - m))^2 / N) / N.
 */
#include "cosa.h"
#include "dense.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Statistics of a block of the sequence v_j = P^j v: mean (a1, a2) and
 * centred scatter (C11, C21, C22; C12 = C21^T), all d x d with ld d. */
typedef struct blockstats {
    double *a1, *a2;
    double *C11, *C21, *C22;
} blockstats;

struct cosa_nrmse_workspace {
    size_t dmax;
    double *D;              /* Phi* - Phi                                */
    double *Am, *Em, *Bm;   /* P^m = [[Am, 0], [Em, Bm]]                  */
    double *T1, *T2, *T3;   /* d x d temporaries                          */
    blockstats gb, ga, gt;  /* global run: base, accumulated, temporary   */
    blockstats lb, la, lt;  /* local run (no C21): base, accumulated, tmp */
    double *vec;            /* NVEC vectors of length dmax                */
    double *mem;
};

enum { NVEC = 16 };

static double *vec_at(cosa_nrmse_workspace *w, size_t i) { return w->vec + i * w->dmax; }

cosa_nrmse_workspace *cosa_nrmse_workspace_alloc(size_t dim_max)
{
    if (dim_max == 0)
        return NULL;
    /* 7 matrices + 3 x 3 (global) + 3 x 2 (local) scatters = 22 d^2;
     * 3 x 2 + 3 x 2 means + NVEC work vectors. */
    const size_t nmat = 22, nvec = 12 + NVEC;
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
    double **mats[] = {&w->D, &w->Am, &w->Em, &w->Bm, &w->T1, &w->T2, &w->T3,
                       &w->gb.C11, &w->gb.C21, &w->gb.C22, &w->ga.C11, &w->ga.C21,
                       &w->ga.C22, &w->gt.C11, &w->gt.C21, &w->gt.C22, &w->lb.C11,
                       &w->lb.C22, &w->la.C11, &w->la.C22, &w->lt.C11, &w->lt.C22};
    for (size_t i = 0; i < sizeof mats / sizeof *mats; i++, p += d2)
        *mats[i] = p;
    double **vecs[] = {&w->gb.a1, &w->gb.a2, &w->ga.a1, &w->ga.a2, &w->gt.a1, &w->gt.a2,
                       &w->lb.a1, &w->lb.a2, &w->la.a1, &w->la.a2, &w->lt.a1, &w->lt.a2};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++, p += d)
        *vecs[i] = p;
    w->vec = p;
    w->lb.C21 = w->la.C21 = w->lt.C21 = NULL;
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
                            const cosa_layout *lay, const double *z0, size_t N, double rho,
                            const cosa_errors *out, const cosa_nrmse_workspace *w)
{
    if (!Phi || !Phistar || !lay || !z0 || !out || !w)
        return COSA_EINVAL;
    if (dim == 0 || dim != lay->dim || ld < dim || lay->ny == 0 || lay->off_y > dim ||
        lay->ny > dim - lay->off_y)
        return COSA_EINVAL;
    if (N == 0)
        return COSA_ERANGE;
    if (isnan(rho))
        return COSA_ENONFINITE;
    if (dim > w->dmax)
        return COSA_EWORKSPACE;
    if (!cosa_mat_isfinite(dim, dim, Phi, ld) || !cosa_mat_isfinite(dim, dim, Phistar, ld) ||
        !cosa_mat_isfinite(dim, 1, z0, dim))
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

/* ---- fast route ------------------------------------------------------------ */

/* C <- (C + C^T) / 2: keeps scatter matrices exactly symmetric. */
static void symmetrize(size_t d, double *C)
{
    for (size_t j = 0; j < d; j++)
        for (size_t i = j + 1; i < d; i++) {
            const double s = 0.5 * (C[i + j * d] + C[j + i * d]);
            C[i + j * d] = C[j + i * d] = s;
        }
}

/* Shift a block by m steps: (a, C) <- (P^m a, P^m C P^mT) with
 * P^m = [[Am, 0], [Em, Bm]].  full: C has a C21 block and Em is used
 * (global run); otherwise P^m = diag(Am, Bm) and only C11, C22 exist.
 * cosim = 0: only the reference block (a1, C11) is needed. */
static void shift_block(size_t d, cosa_nrmse_workspace *w, blockstats *s, int full, int cosim)
{
    double *t = vec_at(w, 0);
    const double *A = w->Am, *E = w->Em, *B = w->Bm;
    cosa_gemm('N', 'N', d, d, d, 1.0, A, d, s->C11, d, 0.0, w->T1, d);
    if (cosim && full) {
        /* X = E C11 + B C21 and Y = E C21^T + B C22 (second block row of P C) */
        cosa_gemm('N', 'N', d, d, d, 1.0, E, d, s->C11, d, 0.0, w->T2, d);
        cosa_gemm('N', 'N', d, d, d, 1.0, B, d, s->C21, d, 1.0, w->T2, d);
        cosa_gemm('N', 'T', d, d, d, 1.0, E, d, s->C21, d, 0.0, w->T3, d);
        cosa_gemm('N', 'N', d, d, d, 1.0, B, d, s->C22, d, 1.0, w->T3, d);
        cosa_gemm('N', 'T', d, d, d, 1.0, w->T1, d, A, d, 0.0, s->C11, d);
        cosa_gemm('N', 'T', d, d, d, 1.0, w->T2, d, A, d, 0.0, s->C21, d); /* X A^T */
        cosa_gemm('N', 'T', d, d, d, 1.0, w->T2, d, E, d, 0.0, s->C22, d); /* X E^T + */
        cosa_gemm('N', 'T', d, d, d, 1.0, w->T3, d, B, d, 1.0, s->C22, d); /* Y B^T */
        memcpy(t, s->a2, d * sizeof *t);
        cosa_gemv(d, d, 1.0, E, d, s->a1, 0.0, s->a2);
        cosa_gemv(d, d, 1.0, B, d, t, 1.0, s->a2);
    } else {
        cosa_gemm('N', 'T', d, d, d, 1.0, w->T1, d, A, d, 0.0, s->C11, d);
        if (cosim) {
            cosa_gemm('N', 'N', d, d, d, 1.0, B, d, s->C22, d, 0.0, w->T2, d);
            cosa_gemm('N', 'T', d, d, d, 1.0, w->T2, d, B, d, 0.0, s->C22, d);
            memcpy(t, s->a2, d * sizeof *t);
            cosa_gemv(d, d, 1.0, B, d, t, 0.0, s->a2);
        }
    }
    memcpy(t, s->a1, d * sizeof *t);
    cosa_gemv(d, d, 1.0, A, d, t, 0.0, s->a1);
    symmetrize(d, s->C11);
    if (cosim)
        symmetrize(d, s->C22);
}

/* out <- merge of block f (nf terms, first) and block g (ng terms, after it);
 * out may be f or g. */
static void merge_blocks(size_t d, cosa_nrmse_workspace *w, blockstats *out,
                         const blockstats *f, double nf, const blockstats *g, double ng,
                         int full, int cosim)
{
    double *d1 = vec_at(w, 0), *d2 = vec_at(w, 1);
    const double n = nf + ng, wt = nf * ng / n, fr = ng / n;
    for (size_t i = 0; i < d; i++) {
        d1[i] = g->a1[i] - f->a1[i];
        d2[i] = cosim ? g->a2[i] - f->a2[i] : 0.0;
    }
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++) {
            const size_t ij = i + j * d;
            out->C11[ij] = f->C11[ij] + g->C11[ij] + wt * d1[i] * d1[j];
            if (cosim) {
                out->C22[ij] = f->C22[ij] + g->C22[ij] + wt * d2[i] * d2[j];
                if (full)
                    out->C21[ij] = f->C21[ij] + g->C21[ij] + wt * d2[i] * d1[j];
            }
        }
    for (size_t i = 0; i < d; i++) {
        out->a1[i] = f->a1[i] + fr * d1[i];
        if (cosim)
            out->a2[i] = f->a2[i] + fr * d2[i];
    }
}

static void copy_block(size_t d, blockstats *dst, const blockstats *src, int full)
{
    memcpy(dst->a1, src->a1, d * sizeof(double));
    memcpy(dst->a2, src->a2, d * sizeof(double));
    memcpy(dst->C11, src->C11, d * d * sizeof(double));
    memcpy(dst->C22, src->C22, d * d * sizeof(double));
    if (full)
        memcpy(dst->C21, src->C21, d * d * sizeof(double));
}

/* (Am, Em, Bm) <- P^2m from P^m:  A^2m = A A, B^2m = B B, E_2m = E A + B E. */
static void square_powers(size_t d, cosa_nrmse_workspace *w, int cosim)
{
    if (cosim) {
        cosa_gemm('N', 'N', d, d, d, 1.0, w->Em, d, w->Am, d, 0.0, w->T1, d);
        cosa_gemm('N', 'N', d, d, d, 1.0, w->Bm, d, w->Em, d, 1.0, w->T1, d);
        memcpy(w->Em, w->T1, d * d * sizeof(double));
        cosa_gemm('N', 'N', d, d, d, 1.0, w->Bm, d, w->Bm, d, 0.0, w->T1, d);
        memcpy(w->Bm, w->T1, d * d * sizeof(double));
    }
    cosa_gemm('N', 'N', d, d, d, 1.0, w->Am, d, w->Am, d, 0.0, w->T1, d);
    memcpy(w->Am, w->T1, d * d * sizeof(double));
}

/* sum_k over the rows r of R D: x_r^T C x_r + n (x_r . a)^2, i.e. the raw
 * second moment of R D v_j for a block with centred scatter C and mean a. */
static void projected_raw(size_t d, cosa_nrmse_workspace *w, size_t off, size_t ny,
                          const double *C, const double *a, double n, double *ss)
{
    const double *X = w->D + off; /* rows off..off+ny-1 of D, ld d */
    cosa_gemm('N', 'N', ny, d, d, 1.0, X, d, C, d, 0.0, w->T1, ny);
    for (size_t k = 0; k < ny; k++) {
        double q = 0.0, xa = 0.0;
        for (size_t j = 0; j < d; j++) {
            q += w->T1[k + j * ny] * X[k + j * d];
            xa += X[k + j * d] * a[j];
        }
        ss[k] = q + n * xa * xa;
    }
}

cosa_status cosa_nrmse(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                       const cosa_layout *lay, const double *z0, size_t N, double rho,
                       cosa_errors *out, const cosa_nrmse_sums *sums,
                       cosa_nrmse_workspace *w)
{
    cosa_status st = validate(dim, Phi, Phistar, ld, lay, z0, N, rho, out, w);
    if (st != COSA_OK) {
        set_failed(out);
        return st;
    }
    const size_t d = dim, off = lay->off_y, ny = lay->ny;
    const int cosim = cosim_stable(rho);

    /* P = Psi = [[Phi*, 0], [D, Phi]] */
    cosa_mat_copy(d, d, Phistar, ld, w->Am, d);
    cosa_mat_copy(d, d, Phi, ld, w->Bm, d);
    for (size_t j = 0; j < d; j++)
        for (size_t i = 0; i < d; i++)
            w->D[i + j * d] = Phistar[i + j * ld] - Phi[i + j * ld];
    memcpy(w->Em, w->D, d * d * sizeof(double));

    /* Base blocks of one term.  Global run: v_j = Psi^j [Phi* z0; D z0] =
     * [z*_{j+1}; e_{j+1}], j = 0..N-1.  Local run: v_j = diag(Phi*, Phi)^j
     * [z0; z0] = [z*_j; z_j], j = 0..N-1 (the local run uses Am, Bm only). */
    blockstats *gb = &w->gb, *ga = &w->ga, *gt = &w->gt;
    blockstats *lb = &w->lb, *la = &w->la, *lt = &w->lt;
    cosa_gemv(d, d, 1.0, w->Am, d, z0, 0.0, gb->a1);
    cosa_gemv(d, d, 1.0, w->D, d, z0, 0.0, gb->a2);
    memcpy(lb->a1, z0, d * sizeof(double));
    memcpy(lb->a2, z0, d * sizeof(double));
    cosa_mat_zero(d, d, gb->C11, d);
    cosa_mat_zero(d, d, gb->C21, d);
    cosa_mat_zero(d, d, gb->C22, d);
    cosa_mat_zero(d, d, lb->C11, d);
    cosa_mat_zero(d, d, lb->C22, d);

    /* Binary decomposition of N, least significant bit first: the
     * accumulated block (indices 0..nacc-1) is shifted by m = 2^k and the
     * base block (indices 0..m-1) is put in front of it. */
    size_t m = 1, nacc = 0;
    for (size_t rest = N;; rest >>= 1) {
        if (rest & 1) {
            if (nacc == 0) {
                copy_block(d, ga, gb, 1);
                copy_block(d, la, lb, 0);
            } else {
                shift_block(d, w, ga, 1, cosim);
                shift_block(d, w, la, 0, cosim);
                merge_blocks(d, w, ga, gb, (double)m, ga, (double)nacc, 1, cosim);
                merge_blocks(d, w, la, lb, (double)m, la, (double)nacc, 0, cosim);
            }
            nacc += m;
        }
        if (rest <= 1)
            break;
        copy_block(d, gt, gb, 1);
        copy_block(d, lt, lb, 0);
        shift_block(d, w, gt, 1, cosim);
        shift_block(d, w, lt, 0, cosim);
        merge_blocks(d, w, gb, gb, (double)m, gt, (double)m, 1, cosim);
        merge_blocks(d, w, lb, lb, (double)m, lt, (double)m, 0, cosim);
        square_powers(d, w, cosim);
        m <<= 1;
    }

    const double n = (double)N;
    double *mean = vec_at(w, 2), *var = vec_at(w, 3), *ssg = vec_at(w, 4),
           *ssl = vec_at(w, 5), *ssr = vec_at(w, 6);
    for (size_t k = 0; k < ny; k++) {
        const size_t r = off + k, rr = r + r * d;
        mean[k] = ga->a1[r];
        var[k] = ga->C11[rr] / n;
        ssg[k] = cosim ? ga->C22[rr] + n * ga->a2[r] * ga->a2[r] : INFINITY;
    }
    projected_raw(d, w, off, ny, la->C11, la->a1, n, ssr);
    if (cosim)
        projected_raw(d, w, off, ny, la->C22, la->a2, n, ssl);
    else
        for (size_t k = 0; k < ny; k++)
            ssl[k] = INFINITY;

    st = finish(ny, n, mean, var, ssg, ssl, ssr, sums, out);
    if (st != COSA_OK)
        set_failed(out);
    return st;
}

/* ---- direct route ----------------------------------------------------------- */

cosa_status cosa_nrmse_direct(size_t dim, const double *Phi, const double *Phistar,
                              size_t ld, const cosa_layout *lay, const double *z0, size_t N,
                              double rho, cosa_errors *out, const cosa_nrmse_sums *sums,
                              cosa_nrmse_workspace *w)
{
    cosa_status st = validate(dim, Phi, Phistar, ld, lay, z0, N, rho, out, w);
    if (st != COSA_OK) {
        set_failed(out);
        return st;
    }
    const size_t d = dim, off = lay->off_y, ny = lay->ny;
    const int cosim = cosim_stable(rho);
    double *zs = vec_at(w, 0), *zsn = vec_at(w, 1), *z = vec_at(w, 2), *zn = vec_at(w, 3);
    /* R Phi* z*_n, R Phi z*_n, R Phi* z_n, R Phi z_n (ny entries each) */
    double *rs_zs = vec_at(w, 4), *rp_zs = vec_at(w, 5), *rs_z = vec_at(w, 12),
           *rp_z = vec_at(w, 13);
    double *mean = vec_at(w, 6), *var = vec_at(w, 7), *s1 = vec_at(w, 8), *ssg = vec_at(w, 9),
           *ssl = vec_at(w, 10), *ssr = vec_at(w, 11);
    double *tmp;

    /* pass 1: mean of y*_n = R Phi*^n z0, n = 1..N */
    memcpy(zs, z0, d * sizeof *zs);
    memset(mean, 0, ny * sizeof *mean);
    for (size_t n = 0; n < N; n++) {
        cosa_gemv(d, d, 1.0, Phistar, ld, zs, 0.0, zsn);
        tmp = zs, zs = zsn, zsn = tmp;
        for (size_t k = 0; k < ny; k++)
            mean[k] += zs[off + k];
    }
    for (size_t k = 0; k < ny; k++)
        mean[k] /= (double)N;

    /* pass 2: the same trajectory again, plus the co-simulation */
    memcpy(zs, z0, d * sizeof *zs);
    memcpy(z, z0, d * sizeof *z);
    memset(var, 0, ny * sizeof *var);
    memset(s1, 0, ny * sizeof *s1);
    memset(ssg, 0, ny * sizeof *ssg);
    memset(ssl, 0, ny * sizeof *ssl);
    memset(ssr, 0, ny * sizeof *ssr);
    for (size_t n = 0; n < N; n++) {
        /* local errors at step n+1 (eq 31): R Phi* v - R Phi v, v = z_n, z*_n;
         * both products by the same kernel (ny-row mat-vecs), so that
         * Phi == Phi* gives exactly 0 */
        cosa_gemv(d, d, 1.0, Phistar, ld, zs, 0.0, zsn);
        cosa_gemv(ny, d, 1.0, Phistar + off, ld, zs, 0.0, rs_zs);
        cosa_gemv(ny, d, 1.0, Phi + off, ld, zs, 0.0, rp_zs);
        if (cosim) {
            cosa_gemv(d, d, 1.0, Phi, ld, z, 0.0, zn);
            cosa_gemv(ny, d, 1.0, Phistar + off, ld, z, 0.0, rs_z);
            cosa_gemv(ny, d, 1.0, Phi + off, ld, z, 0.0, rp_z);
        }
        for (size_t k = 0; k < ny; k++) {
            const double ys = zsn[off + k], c = ys - mean[k], lr = rs_zs[k] - rp_zs[k];
            s1[k] += c;
            var[k] += c * c;
            ssr[k] += lr * lr;
            if (cosim) {
                const double eg = ys - zn[off + k], el = rs_z[k] - rp_z[k];
                ssg[k] += eg * eg;
                ssl[k] += el * el;
            }
        }
        tmp = zs, zs = zsn, zsn = tmp;
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
