/* deflate.c -- the deflated propagation matrix Phi_d of a Jacobi scheme: a
 * smaller matrix with exactly the nonzero eigenvalues of Phi (lib/phi.c), so
 * that rho(Phi) costs one small dgeev.  Two exact reductions:
 *
 * 1. Coupling signals.  Subsystem i sees its input only through
 *    [B_i; D_i] u_i.  If [B_i; D_i] has rank r_i < nu_i, write it as
 *    [B_i; D_i] = [Bh_i; Dh_i] K_i with Bh_i = B_i(:, J_i), Dh_i = D_i(:, J_i)
 *    (r_i independent columns J_i, an interpolative decomposition from QR
 *    with column pivoting; K_i = [I T] P^T, r_i x nu_i).  Every ybar slot
 *    enters Phi only through L (x rows: P_j L; output rows: D L, G_p L;
 *    du rows: L), and du only through K du.  With c = Lh ybar, Lh = K L
 *    (r x ny), v = K du, the co-simulation is that of the equivalent system
 *      (A, Bh, Ch = Lh C, Dt = Lh Dh, coupling I_r)
 *    on z_d = [x | c_n | c_{n-1} | ... | c_{n-p} | v]  (doc/method.md formulas:
 *    x' = A_d x + sum_j P_j c_{n-j} + Q_0 v, y' = Ch x' + Dt (E_p + v),
 *    c' = (I - G_p)^{-1} (y' - G_p E_p - G_0 v) with G_p = Ch W_p + Dt,
 *    W_p = sum_m w_m Q_m, G_0 = Ch Q_0 + Dt, v' = (1-alpha) v
 *    + alpha kappa_p (c' - E_p)).  S z = z_d (S = diag(I, Lh, ..., Lh, K))
 *    satisfies S Phi = Phi_eq S.  So ker S is Phi-invariant: on it Phi is
 *    block triangular with diagonal blocks "history shift" (nilpotent) and
 *    (1 - alpha) I (the part of du outside the row space of K), and on
 *    R^dim / ker S it is Phi_eq.  Where Lh is not of full row rank, the
 *    extra directions of Phi_eq are the left null space of S, on which
 *    Phi_eq acts as the history shift again (c' = Lh (...) is annihilated by
 *    null(Lh^T)).  Hence nonzero eig(Phi) = nonzero eig(Phi_eq), except
 *    1 - alpha with multiplicity nu - r, which deflate_rho adds back.
 *    The discretisation uses Bh_i, so its Van Loan matrix has order
 *    nx_i + (p+1) r_i instead of nx_i + (p+1) nu_i.
 *
 * 2. Outputs that are functions of the state.  Without output correction,
 *    c'_k = Ch_k x' + Dt_k (E_p + v); where the row Dt_k is exactly zero the
 *    row of c_{n,k} in Phi_eq is Ch_k times the x rows, so in the
 *    coordinates w_k = c_{n,k} - Ch_k x the row of w_k is zero: w_k carries
 *    the eigenvalue 0 and is removed; the x columns absorb
 *    Phi_eq(:, c_{n,k}) Ch_k.
 *
 * For the two-mass oscillator (eq 27), [B_II; D_II] = [0 0; ck dk; -ck m2
 * -dk m2] / m2 has rank 1 and D_I = 0, so Phi_d has order 5, 8, 7, 10, 9, 12
 * for ZOH, ZOH+MBCorr, FOH, FOH+MBCorr, SOH, SOH+MBCorr (Phi: 7, 10, 10, 13,
 * 13, 16); the removed eigenvalues include the defective zero eigenvalues
 * (Jordan blocks of order up to p + 2) that rounding smears into clusters
 * of radius eps^(1/(p+2)).
 *
 * Rank decision: |R_kk| <= COSA_DEFLATE_RTOL |R_00| in the pivoted QR.  In
 * exact arithmetic the twomass columns are exactly proportional; in double
 * precision they are proportional to rounding, and neglecting R_22 is a
 * backward perturbation of [B_i; D_i] of relative size <= the tolerance.
 *
 * Everything is per subsystem and cached: a subsystem whose [B_i; D_i]
 * (compression) or (A_i, Bh_i, dt, p) (discretisation) did not change is not
 * recomputed; a cached result is bitwise the value a recomputation gives
 * (same code, same inputs, no BLAS), so results do not depend on the order in
 * which points are evaluated. */
#include "phi/deflate_impl.h"
#include "phi/phi_impl.h"
#include "core/system_impl.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COSA_DEFLATE_RTOL (64.0 * DBL_EPSILON)

/* Q_m does not depend on the order p of the scheme, so the schemes of
 * orders p <= COSA_DEFLATE_PMIN share one Van Loan exponential of order
 * P = max(p, COSA_DEFLATE_PMIN): a sweep over ZOH, FOH and SOH discretises
 * each subsystem once per point.  The order is fixed (not the workspace's
 * pmax), so a value never depends on which other schemes were evaluated. */
#define COSA_DEFLATE_PMIN 2

/* Cached discretisations per subsystem and Van Loan order: a sweep visits
 * up to this many macro steps at every parameter point (the paper's maps:
 * 8), so a subsystem that does not change keeps one entry per step. */
#define COSA_DEFLATE_SLOTS 16

/* Discretisation of one subsystem with Bh_i at Van Loan order P. */
struct ddisc {
    int valid;
    size_t r;
    double h;
    double *key; /* nx*nx (A_i) + nx*nu (Bh_i) */
    double *Ad;  /* nx x nx */
    double *Q;   /* (P+1) blocks nx x nu, ld nx, columns 0..r-1 */
};

struct dsub {
    size_t nx, nu, ny, ox, ou, oy;
    /* compression of [B_i; D_i] */
    int cvalid;
    double *ckey; /* (nx+ny) x nu copy of [B_i; D_i] */
    size_t r;
    size_t *J;    /* nu: selected columns first (J[0..r-1]) */
    double *K;    /* nu x nu, ld nu; rows 0..r-1 used */
    struct ddisc *disc; /* COSA_DEFLATE_SLOTS entries per Van Loan order P */
    unsigned *next;     /* per P: the slot to replace next (round robin) */
};

struct deflate_workspace {
    size_t nsub, nx, nu, ny, dmax;
    int pmax, pvl;      /* largest scheme order; largest Van Loan order */
    struct dsub *sub;
    cosa_vanloan_workspace *vw; /* the Van Loan block builder (lib/core/discretize.c) */
    double *key;        /* cache key scratch, vl x vl */
    size_t vl;
    double *qr, *tau, *qwork; /* pivoted QR of [B_i; D_i] */
    lapack_int *jpvt, lqwork;
    size_t *ro;         /* offset of subsystem i in the coupling signals */
    const struct ddisc **disc; /* entries used by the current build */
    double *Qs;         /* (pmax+1) blocks nx x nu (stacked Q_m, R columns) */
    double *Lh;         /* nu x ny  (R x ny used)  */
    double *Ch;         /* nu x nx  */
    double *Dh;         /* ny x nu  */
    double *Dt, *Gp, *G0; /* nu x nu */
    size_t *ipiv;
    double *Y;          /* nu x dmax */
    double *F;          /* dmax x dmax: Phi_eq before step 2 */
    double *Phid;       /* dmax x dmax: for deflate_rho */
    unsigned char *defl;
    /* order tables (cosa_order_tables) for p = 0..pmax */
    double lag[COSA_ORDER_MAX + 1][(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)];
    double e[COSA_ORDER_MAX + 1][COSA_ORDER_MAX + 1], wp[COSA_ORDER_MAX + 1][COSA_ORDER_MAX + 1];
    double kappa[COSA_ORDER_MAX + 1];
    /* eigenvalues: balance(), then dgehrd + dhseqr */
    double *wr, *wi, *scale, *htau, *ework;
    lapack_int lework;
};

static double *dalloc(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

void deflate_workspace_free(deflate_workspace *w)
{
    if (!w)
        return;
    if (w->sub)
        for (size_t i = 0; i < w->nsub; i++) {
            free(w->sub[i].ckey);
            free(w->sub[i].J);
            free(w->sub[i].K);
            if (w->sub[i].disc)
                for (size_t k = 0; k < ((size_t)w->pvl + 1) * COSA_DEFLATE_SLOTS; k++) {
                    free(w->sub[i].disc[k].key);
                    free(w->sub[i].disc[k].Ad);
                    free(w->sub[i].disc[k].Q);
                }
            free(w->sub[i].disc);
            free(w->sub[i].next);
        }
    free(w->sub);
    cosa_vanloan_workspace_free(w->vw);
    free(w->wr);
    free(w->wi);
    free(w->scale);
    free(w->htau);
    free(w->ework);
    free(w->key);
    free(w->qr);
    free(w->tau);
    free(w->qwork);
    free(w->jpvt);
    free(w->ro);
    free(w->disc);
    free(w->Qs);
    free(w->Lh);
    free(w->Ch);
    free(w->Dh);
    free(w->Dt);
    free(w->Gp);
    free(w->G0);
    free(w->ipiv);
    free(w->Y);
    free(w->F);
    free(w->Phid);
    free(w->defl);
    free(w);
}

deflate_workspace *deflate_workspace_alloc(const cosa_system *sys, int pmax)
{
    if (!sys || pmax < 0 || pmax > COSA_ORDER_MAX)
        return NULL;
    deflate_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    const size_t nx = sys->nx, nu = sys->nu, ny = sys->ny, np = (size_t)pmax + 1;
    w->nsub = sys->nsub;
    w->nx = nx;
    w->nu = nu;
    w->ny = ny;
    w->pmax = pmax;
    w->pvl = pmax > COSA_DEFLATE_PMIN ? pmax : COSA_DEFLATE_PMIN;
    w->dmax = nx + (np + 1) * nu;
    const size_t nvl = (size_t)w->pvl + 1;
    w->sub = calloc(sys->nsub, sizeof *w->sub);
    if (!w->sub)
        goto fail;
    size_t vl = 1, qm = 1, qn = 1;
    for (size_t i = 0; i < sys->nsub; i++) {
        const struct cosa_sub_info *b = &sys->sub[i];
        struct dsub *d = &w->sub[i];
        *d = (struct dsub){.nx = b->nx, .nu = b->nu, .ny = b->ny,
                           .ox = b->ox, .ou = b->ou, .oy = b->oy};
        d->ckey = dalloc((b->nx + b->ny) * b->nu);
        d->J = calloc(b->nu + 1, sizeof(size_t));
        d->K = dalloc(b->nu * b->nu);
        d->disc = calloc(nvl * COSA_DEFLATE_SLOTS, sizeof *d->disc);
        d->next = calloc(nvl, sizeof *d->next);
        if (!d->ckey || !d->J || !d->K || !d->disc || !d->next)
            goto fail;
        for (int P = COSA_DEFLATE_PMIN; P <= w->pvl; P++)
            for (size_t k = 0; k < COSA_DEFLATE_SLOTS; k++) {
                struct ddisc *e = &d->disc[(size_t)P * COSA_DEFLATE_SLOTS + k];
                e->key = dalloc(b->nx * (b->nx + b->nu));
                e->Ad = dalloc(b->nx * b->nx);
                e->Q = dalloc(((size_t)P + 1) * b->nx * b->nu);
                if (!e->key || !e->Ad || !e->Q)
                    goto fail;
            }
        if (b->nx + nvl * b->nu > vl)
            vl = b->nx + nvl * b->nu;
        if (b->nx + b->ny > qm)
            qm = b->nx + b->ny;
        if (b->nu > qn)
            qn = b->nu;
    }
    for (int p = 0; p <= pmax; p++)
        w->kappa[p] = cosa_order_tables(p, w->lag[p], w->e[p], w->wp[p]);
    w->vl = vl;
    w->vw = cosa_vanloan_workspace_alloc(vl);
    w->key = dalloc(vl * vl);
    w->qr = dalloc(qm * qn);
    w->tau = dalloc(qn);
    w->jpvt = calloc(qn, sizeof(lapack_int));
    w->ro = calloc(sys->nsub + 1, sizeof(size_t));
    w->disc = calloc(sys->nsub + 1, sizeof *w->disc);
    w->Qs = dalloc(nvl * nx * nu);
    w->Lh = dalloc(nu * ny);
    w->Ch = dalloc(nu * nx);
    w->Dh = dalloc(ny * nu);
    w->Dt = dalloc(nu * nu);
    w->Gp = dalloc(nu * nu);
    w->G0 = dalloc(nu * nu);
    w->ipiv = calloc(nu + 1, sizeof(size_t));
    w->Y = dalloc(nu * w->dmax);
    w->F = dalloc(w->dmax * w->dmax);
    w->Phid = dalloc(w->dmax * w->dmax);
    w->defl = calloc(nu + 1, 1);
    w->wr = dalloc(w->dmax);
    w->wi = dalloc(w->dmax);
    w->scale = dalloc(w->dmax);
    w->htau = dalloc(w->dmax);
    if (!w->wr || !w->wi || !w->scale || !w->htau)
        goto fail;
    if (!w->vw || !w->key || !w->qr || !w->tau || !w->jpvt || !w->ro || !w->disc || !w->Qs ||
        !w->Lh || !w->Ch || !w->Dh || !w->Dt || !w->Gp || !w->G0 || !w->ipiv || !w->Y || !w->F ||
        !w->Phid || !w->defl)
        goto fail;
    /* dgeqp3 workspace for the largest [B_i; D_i] */
    double q = 0.0;
    lapack_int info = LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, (lapack_int)qm, (lapack_int)qn,
                                          w->qr, (lapack_int)qm, w->jpvt, w->tau, &q, -1);
    if (info != 0)
        goto fail;
    w->lqwork = (lapack_int)q > 3 * (lapack_int)qn + 1 ? (lapack_int)q : 3 * (lapack_int)qn + 1;
    w->qwork = dalloc((size_t)w->lqwork);
    if (!w->qwork)
        goto fail;
    /* dgehrd and dhseqr workspace for the largest order */
    const lapack_int nd = (lapack_int)w->dmax;
    double q2 = 0.0;
    info = LAPACKE_dgehrd_work(LAPACK_COL_MAJOR, nd, 1, nd, w->F, nd, w->htau, &q, -1);
    if (info == 0)
        info = LAPACKE_dhseqr_work(LAPACK_COL_MAJOR, 'E', 'N', nd, 1, nd, w->F, nd, w->wr, w->wi,
                                   NULL, 1, &q2, -1);
    if (info != 0)
        goto fail;
    w->lework = (lapack_int)(q > q2 ? q : q2);
    if (w->lework < 3 * nd)
        w->lework = 3 * nd;
    w->ework = dalloc((size_t)w->lework);
    if (!w->ework)
        goto fail;
    return w;
fail:
    deflate_workspace_free(w);
    return NULL;
}

size_t deflate_dim_max(const deflate_workspace *w) { return w ? w->dmax : 0; }

/* C (m x n, ld ldc) = alpha A B + beta C, A m x k (lda), B k x n (ldb); plain
 * loops: the matrices here are a few rows wide, and a fixed summation order
 * keeps results independent of BLAS kernels and alignment. */
static void mm(size_t m, size_t n, size_t k, double alpha, const double *A, size_t lda,
               const double *B, size_t ldb, double beta, double *C, size_t ldc)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0.0;
            for (size_t l = 0; l < k; l++)
                s += A[i + l * lda] * B[l + j * ldb];
            C[i + j * ldc] = (beta == 0.0 ? 0.0 : beta * C[i + j * ldc]) + alpha * s;
        }
}

/* LU with partial pivoting of the n x n matrix A (ld n) in place, for the
 * few coupling signals of the output correction (LAPACK's dgetrf costs more
 * in call overhead than the arithmetic here).  0, or 1 if a pivot is exactly
 * zero (as dgetrf's info > 0). */
static int small_lu(size_t n, double *A, size_t *piv)
{
    for (size_t k = 0; k < n; k++) {
        size_t p = k;
        for (size_t i = k + 1; i < n; i++)
            if (fabs(A[i + k * n]) > fabs(A[p + k * n]))
                p = i;
        piv[k] = p;
        if (A[p + k * n] == 0.0)
            return 1;
        if (p != k)
            for (size_t j = 0; j < n; j++) {
                const double t = A[k + j * n];
                A[k + j * n] = A[p + j * n];
                A[p + j * n] = t;
            }
        for (size_t i = k + 1; i < n; i++)
            A[i + k * n] /= A[k + k * n];
        for (size_t j = k + 1; j < n; j++)
            for (size_t i = k + 1; i < n; i++)
                A[i + j * n] -= A[i + k * n] * A[k + j * n];
    }
    return 0;
}

/* Solve A X = B with the LU of small_lu; B is n x nrhs (ld ldb). */
static void small_lu_solve(size_t n, const double *LU, const size_t *piv, size_t nrhs,
                           double *B, size_t ldb)
{
    for (size_t c = 0; c < nrhs; c++) {
        double *x = B + c * ldb;
        for (size_t k = 0; k < n; k++)
            if (piv[k] != k) {
                const double t = x[k];
                x[k] = x[piv[k]];
                x[piv[k]] = t;
            }
        for (size_t k = 0; k < n; k++)
            for (size_t i = k + 1; i < n; i++)
                x[i] -= LU[i + k * n] * x[k];
        for (size_t k = n; k-- > 0;) {
            x[k] /= LU[k + k * n];
            for (size_t i = 0; i < k; i++)
                x[i] -= LU[i + k * n] * x[k];
        }
    }
}

/* Compression of [B_i; D_i] (cached): r, J, K with [B_i; D_i] = [B_i; D_i](:, J) K. */
static cosa_status compress_sub(const cosa_system *sys, struct dsub *d,
                                deflate_workspace *w)
{
    const size_t nx = sys->nx, ny = sys->ny, m = d->nx + d->ny, n = d->nu;
    double *key = w->qr; /* assemble [B_i; D_i] into qr first */
    for (size_t c = 0; c < n; c++) {
        for (size_t r = 0; r < d->nx; r++)
            key[r + c * m] = sys->B[d->ox + r + (d->ou + c) * nx];
        for (size_t r = 0; r < d->ny; r++)
            key[d->nx + r + c * m] = sys->D[d->oy + r + (d->ou + c) * ny];
    }
    if (d->cvalid && memcmp(key, d->ckey, m * n * sizeof(double)) == 0)
        return COSA_OK;
    d->cvalid = 0;
    memcpy(d->ckey, key, m * n * sizeof(double));
    memset(d->K, 0, n * n * sizeof(double));
    size_t r = 0;
    if (n > 0 && m > 0) {
        for (size_t c = 0; c < n; c++)
            w->jpvt[c] = 0;
        lapack_int info = LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, (lapack_int)m, (lapack_int)n,
                                              w->qr, (lapack_int)m, w->jpvt, w->tau, w->qwork,
                                              w->lqwork);
        if (info != 0)
            return info < 0 ? COSA_EINVAL : COSA_ELAPACK;
        const double *R = w->qr;
        const size_t kmax = m < n ? m : n;
        const double r00 = fabs(R[0]);
        if (!isfinite(r00))
            return COSA_ENONFINITE;
        while (r < kmax && r00 > 0.0 && fabs(R[r + r * m]) > COSA_DEFLATE_RTOL * r00)
            r++;
    } else {
        /* inputs that reach neither a state nor an output (nx_i = ny_i = 0):
         * rank 0, columns in their own order (K = 0 below) */
        for (size_t c = 0; c < n; c++)
            w->jpvt[c] = (lapack_int)(c + 1);
    }
    if (r == n) {
        /* full rank: keep the inputs as they are (K = I, no rounding) */
        for (size_t c = 0; c < n; c++) {
            d->J[c] = c;
            d->K[c + c * n] = 1.0;
        }
    } else {
        /* J = pivot columns; K(:, J) = I, K(:, rest) = T = R11^{-1} R12 */
        const double *R = w->qr;
        for (size_t c = 0; c < n; c++)
            d->J[c] = (size_t)(w->jpvt[c] - 1);
        for (size_t k = 0; k < r; k++)
            d->K[k + d->J[k] * n] = 1.0;
        for (size_t q = r; q < n; q++) {
            double *t = d->K + d->J[q] * n; /* column J[q] of K, rows 0..r-1 */
            for (size_t k = r; k-- > 0;) {
                double s = R[k + q * m];
                for (size_t l = k + 1; l < r; l++)
                    s -= R[k + l * m] * t[l];
                t[k] = s / R[k + k * m];
            }
        }
    }
    d->r = r;
    d->cvalid = 1;
    return COSA_OK;
}

/* Discretisation of subsystem i with Bh_i at Van Loan order P (cached):
 * Ad_i and Q_m, m = 0..P (lib/discretize.c, doc/method.md).  *out: the entry. */
static cosa_status disc_sub(const cosa_system *sys, struct dsub *d, int P, double h,
                            deflate_workspace *w, const struct ddisc **out)
{
    const size_t nx = sys->nx, nxi = d->nx, r = d->r;
    struct ddisc *slots = d->disc + (size_t)P * COSA_DEFLATE_SLOTS;
    *out = slots;
    if (nxi == 0)
        return COSA_OK;
    /* key: A_i, Bh_i */
    double *key = w->key;
    size_t k = 0;
    for (size_t c = 0; c < nxi; c++)
        for (size_t i = 0; i < nxi; i++)
            key[k++] = sys->A[d->ox + i + (d->ox + c) * nx];
    for (size_t c = 0; c < r; c++)
        for (size_t i = 0; i < nxi; i++)
            key[k++] = sys->B[d->ox + i + (d->ou + d->J[c]) * nx];
    for (size_t q = 0; q < COSA_DEFLATE_SLOTS; q++) {
        const struct ddisc *e = &slots[q];
        if (e->valid && e->h == h && e->r == r && memcmp(key, e->key, k * sizeof(double)) == 0) {
            *out = e;
            return COSA_OK;
        }
    }
    struct ddisc *e = &slots[d->next[P]];
    d->next[P] = (d->next[P] + 1) % COSA_DEFLATE_SLOTS;
    *out = e;
    e->valid = 0;
    memcpy(e->key, key, k * sizeof(double));
    /* A_i, Bh_i from the key (ld nxi); Q_m blocks nxi x r, ld nxi */
    cosa_status st = cosa_vanloan(nxi, r, P, h, e->key, nxi, e->key + nxi * nxi, nxi, e->Ad, nxi,
                                  e->Q, nxi, nxi * d->nu, w->vw);
    if (st != COSA_OK)
        return st;
    e->h = h;
    e->r = r;
    e->valid = 1;
    return COSA_OK;
}

/* Phi_eq into w->F (order *nf, ld dmax); coupling-signal count into *rr. */
static cosa_status build_eq(const cosa_system *sys, const cosa_scheme *s, double h,
                            deflate_workspace *w, size_t *nf, size_t *rr)
{
    const int p = s->order;
    const size_t np = (size_t)p + 1, nx = w->nx, ny = w->ny, nu = w->nu, ld = w->dmax;
    const int P = p > COSA_DEFLATE_PMIN ? p : COSA_DEFLATE_PMIN;
        cosa_status st;
    size_t R = 0;
    for (size_t i = 0; i < w->nsub; i++) {
        struct dsub *d = &w->sub[i];
        if ((st = compress_sub(sys, d, w)) != COSA_OK)
            return st;
        const struct ddisc *e;
        if ((st = disc_sub(sys, d, P, h, w, &e)) != COSA_OK)
            return st;
        w->disc[i] = e;
        w->ro[i] = R;
        R += d->r;
    }
    *rr = R;
    const size_t xr = nx * R;
    /* stacked Q_m (nx x R), Lh = K L (R x ny), Dh (ny x R) */
    memset(w->Qs, 0, np * xr * sizeof(double));
    memset(w->Dh, 0, ny * R * sizeof(double)); /* Dh holds ny x nu >= ny x R */
    for (size_t i = 0; i < w->nsub; i++) {
        const struct dsub *d = &w->sub[i];
        const size_t o = w->ro[i];
        for (size_t m = 0; m < np; m++)
            for (size_t c = 0; c < d->r; c++)
                for (size_t a = 0; a < d->nx; a++)
                    w->Qs[m * xr + d->ox + a + (o + c) * nx] =
                        w->disc[i]->Q[m * d->nx * d->nu + a + c * d->nx];
        for (size_t k = 0; k < d->r; k++)
            for (size_t c = 0; c < ny; c++) {
                double t = 0.0;
                for (size_t q = 0; q < d->nu; q++)
                    t += d->K[k + q * d->nu] * sys->L[d->ou + q + c * nu];
                w->Lh[o + k + c * R] = t;
            }
        for (size_t c = 0; c < d->r; c++)
            for (size_t a = 0; a < d->ny; a++)
                w->Dh[d->oy + a + (o + c) * ny] = sys->D[d->oy + a + (d->ou + d->J[c]) * ny];
    }
    mm(R, nx, ny, 1.0, w->Lh, R, sys->C, ny, 0.0, w->Ch, R);  /* Ch = Lh C  */
    mm(R, R, ny, 1.0, w->Lh, R, w->Dh, ny, 0.0, w->Dt, R);    /* Dt = Lh Dh */

    const double *lag = w->lag[p], *e = w->e[p], *wp = w->wp[p], kappa = w->kappa[p];
    const int has_v = (s->corr & COSA_CORR_STATE) != 0;
    const size_t oc = nx, ov = nx + np * R, n = ov + (has_v ? R : 0);
    double *F = w->F, *Y = w->Y;
    dense_zero(n, n, F, ld);

    /* x rows: [A_d | P_0 ... P_p | Q_0],  P_j = sum_m lag_jm Q_m */
    for (size_t i = 0; i < w->nsub; i++) {
        const struct dsub *d = &w->sub[i];
        dense_copy(d->nx, d->nx, w->disc[i]->Ad, d->nx, F + d->ox + d->ox * ld, ld);
    }
    for (size_t j = 0; j < np; j++)
        for (size_t m = 0; m < np; m++) {
            const double c = lag[j * np + m];
            if (c == 0.0)
                continue;
            for (size_t col = 0; col < R; col++)
                for (size_t a = 0; a < nx; a++)
                    F[a + (oc + j * R + col) * ld] += c * w->Qs[m * xr + a + col * nx];
        }
    if (has_v)
        dense_copy(nx, R, w->Qs, nx, F + ov * ld, ld);

    /* raw outputs y' = Ch x' + Dt (E_p + v) */
    mm(R, n, nx, 1.0, w->Ch, R, F, ld, 0.0, Y, R);
    for (size_t j = 0; j < np; j++)
        for (size_t c = 0; c < R; c++)
            for (size_t a = 0; a < R; a++)
                Y[a + (oc + j * R + c) * R] += e[j] * w->Dt[a + c * R];
    if (has_v)
        for (size_t c = 0; c < R; c++)
            for (size_t a = 0; a < R; a++)
                Y[a + (ov + c) * R] += w->Dt[a + c * R];

    if ((s->corr & COSA_CORR_OUTPUT) && R > 0) {
        /* G_p = Ch W_p + Dt, G_0 = Ch Q_0 + Dt;  c' = (I - G_p)^{-1} (y' - G_p E_p - G_0 v) */
        memcpy(w->Gp, w->Dt, R * R * sizeof(double));
        for (size_t m = 0; m < np; m++)
            if (wp[m] != 0.0)
                mm(R, R, nx, wp[m], w->Ch, R, w->Qs + m * xr, nx, 1.0, w->Gp, R);
        memcpy(w->G0, w->Dt, R * R * sizeof(double));
        mm(R, R, nx, 1.0, w->Ch, R, w->Qs, nx, 1.0, w->G0, R);
        for (size_t j = 0; j < np; j++)
            for (size_t c = 0; c < R; c++)
                for (size_t a = 0; a < R; a++)
                    Y[a + (oc + j * R + c) * R] -= e[j] * w->Gp[a + c * R];
        if (has_v)
            for (size_t c = 0; c < R; c++)
                for (size_t a = 0; a < R; a++)
                    Y[a + (ov + c) * R] -= w->G0[a + c * R];
        double *IG = w->Gp;
        for (size_t k = 0; k < R * R; k++)
            IG[k] = -IG[k];
        for (size_t k = 0; k < R; k++)
            IG[k + k * R] += 1.0;
        if (small_lu(R, IG, w->ipiv) != 0)
            return COSA_ECORRSINGULAR;
        small_lu_solve(R, IG, w->ipiv, n, Y, R);
        if (!dense_isfinite(R, n, Y, R))
            return COSA_ECORRSINGULAR;
    }
    /* c_n rows, history shift, v rows */
    dense_copy(R, n, Y, R, F + oc, ld);
    for (size_t j = 1; j < np; j++)
        for (size_t k = 0; k < R; k++)
            F[oc + j * R + k + (oc + (j - 1) * R + k) * ld] = 1.0;
    if (has_v) {
        const double g = s->alpha * kappa;
        for (size_t c = 0; c < n; c++)
            for (size_t k = 0; k < R; k++)
                F[ov + k + c * ld] = g * Y[k + c * R];
        for (size_t j = 0; j < np; j++)
            for (size_t k = 0; k < R; k++)
                F[ov + k + (oc + j * R + k) * ld] -= g * e[j];
        for (size_t k = 0; k < R; k++)
            F[ov + k + (ov + k) * ld] += 1.0 - s->alpha;
    }
    if (!dense_isfinite(n, n, F, ld))
        return COSA_ENOTCONVERGED;
    *nf = n;
    return COSA_OK;
}

/* Step 2 (no output correction): remove c_{n,k} where Dt_k = 0, writing the
 * result (order *nd) into out (ld ldo; ldo = 0: packed, ld = *nd). */
static void deflate_outputs(const cosa_scheme *s, size_t nf, size_t R,
                            deflate_workspace *w, double *out, size_t ldo, size_t *nd)
{
    const size_t nx = w->nx, oc = nx, ld = w->dmax;
    double *F = w->F;
    size_t nrm = 0;
    for (size_t k = 0; k < R; k++) {
        int zero = !(s->corr & COSA_CORR_OUTPUT);
        for (size_t c = 0; c < R && zero; c++)
            if (w->Dt[k + c * R] != 0.0)
                zero = 0;
        w->defl[k] = (unsigned char)zero;
        nrm += (size_t)zero;
    }
    if (nrm > 0)
        /* x columns += F(:, c_{n,k}) Ch_k */
        for (size_t k = 0; k < R; k++)
            if (w->defl[k])
                for (size_t c = 0; c < nx; c++) {
                    const double t = w->Ch[k + c * R];
                    if (t != 0.0)
                        for (size_t i = 0; i < nf; i++)
                            F[i + c * ld] += F[i + (oc + k) * ld] * t;
                }
    if (ldo == 0)
        ldo = nf - nrm;
    size_t jj = 0;
    for (size_t j = 0; j < nf; j++) {
        if (j >= oc && j < oc + R && w->defl[j - oc])
            continue;
        size_t ii = 0;
        for (size_t i = 0; i < nf; i++) {
            if (i >= oc && i < oc + R && w->defl[i - oc])
                continue;
            out[ii++ + jj * ldo] = F[i + j * ld];
        }
        jj++;
    }
    *nd = nf - nrm;
}

static cosa_status check_args(const cosa_system *sys, const cosa_scheme *s, double dt,
                              const deflate_workspace *w)
{
    if (!sys || !s || !w)
        return COSA_EINVAL;
    if (!isfinite(dt))
        return COSA_ENONFINITE;
    if (!(dt > 0.0))
        return COSA_ERANGE;
    cosa_status st = cosa_scheme_check(s, sys);
    if (st != COSA_OK)
        return st;
    if (s->exec != COSA_JACOBI)
        return COSA_EUNSUPPORTED;
    if (s->order > w->pmax || w->nsub != sys->nsub || w->nx != sys->nx || w->nu != sys->nu ||
        w->ny != sys->ny)
        return COSA_EWORKSPACE;
    for (size_t i = 0; i < sys->nsub; i++)
        if (w->sub[i].nx != sys->sub[i].nx || w->sub[i].nu != sys->sub[i].nu ||
            w->sub[i].ny != sys->sub[i].ny)
            return COSA_EWORKSPACE;
    return COSA_OK;
}

cosa_status deflate_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                               double *Phid, size_t ld, size_t *n, deflate_workspace *w)
{
    cosa_status st = check_args(sys, s, dt, w);
    if (st != COSA_OK)
        return st;
    if (!Phid || !n || ld < w->dmax)
        return COSA_EINVAL;
    if (s->model && s->model != sys && (s->corr & COSA_CORR_OUTPUT))
        return COSA_EUNSUPPORTED; /* the reduction assumes the true model */
    size_t nf, R;
    if ((st = build_eq(sys, s, dt, w, &nf, &R)) != COSA_OK)
        return st;
    deflate_outputs(s, nf, R, w, Phid, ld, n);
    return COSA_OK;
}

/* Balancing: the diagonal similarity by powers of 2 of LAPACK's dgebal
 * (job 'S'; Parlett & Reinsch, Numer. Math. 13 (1969) 293-304, in the form
 * of LAPACK 3.10: 2-norms of row and column including the diagonal, radix 2,
 * a sweep repeated until no row/column pair changes by 5 %), written out in
 * C: on these matrices dgebal's BLAS-1 calls cost more than the whole
 * balancing arithmetic.  Exact in floating point (the scale factors are
 * powers of 2), so the eigenvalues are those of the input up to LAPACK's own
 * backward error; without it the QR iteration loses digits to the unit
 * disparities (entries from 1e-10 to 1e10 for c_k = 1e10). */
static void balance(size_t n, double *A, size_t lda, double *scale)
{
    const double radix = 2.0, factor = 0.95;
    const double sfmin1 = DBL_MIN / (DBL_EPSILON * 0.5), sfmax1 = 1.0 / sfmin1;
    const double sfmin2 = sfmin1 * radix, sfmax2 = 1.0 / sfmin2;
    for (size_t i = 0; i < n; i++)
        scale[i] = 1.0;
    int noconv;
    do {
        noconv = 0;
        for (size_t i = 0; i < n; i++) {
            double *col = A + i * lda, *row = A + i;
            double c = 0.0, r = 0.0, ca, ra;
            for (size_t k = 0; k < n; k++) {
                const double a = col[k], b = row[k * lda];
                c += a * a;
                r += b * b;
            }
            if (c > 1e-290 && c < 1e290 && r > 1e-290 && r < 1e290) {
                c = sqrt(c);
                r = sqrt(r);
                /* the guards below need the largest entries; max >= 2-norm / sqrt(n)
                 * and max <= 2-norm give the same decisions away from
                 * under/overflow (dgebal's guards act near 1e-292 / 1e292) */
                ca = c;
                ra = r / sqrt((double)n);
            } else { /* the sums of squares may have under/overflowed: rescale */
                ca = ra = 0.0;
                for (size_t k = 0; k < n; k++) {
                    if (fabs(col[k]) > ca)
                        ca = fabs(col[k]);
                    if (fabs(row[k * lda]) > ra)
                        ra = fabs(row[k * lda]);
                }
                if (ca == 0.0 || ra == 0.0)
                    continue;
                c = r = 0.0;
                for (size_t k = 0; k < n; k++) {
                    const double a = col[k] / ca, b = row[k * lda] / ra;
                    c += a * a;
                    r += b * b;
                }
                c = ca * sqrt(c);
                r = ra * sqrt(r);
            }
            double g = r / radix, f = 1.0;
            const double s = c + r;
            while (c < g && f < sfmax2 && c < sfmax2 && ca < sfmax2 && r > sfmin2 &&
                   g > sfmin2 && ra > sfmin2) {
                f *= radix;
                c *= radix;
                ca *= radix;
                r /= radix;
                g /= radix;
                ra /= radix;
            }
            g = c / radix;
            while (g >= r && r < sfmax2 && ra < sfmax2 && f > sfmin2 && c > sfmin2 && g > sfmin2 &&
                   ca > sfmin2) {
                f /= radix;
                c /= radix;
                g /= radix;
                ca /= radix;
                r *= radix;
                ra *= radix;
            }
            if (c + r >= factor * s)
                continue;
            if (f < 1.0 && scale[i] < 1.0 && f * scale[i] <= sfmin1)
                continue;
            if (f > 1.0 && scale[i] > 1.0 && scale[i] >= sfmax1 / f)
                continue;
            scale[i] *= f;
            noconv = 1;
            g = 1.0 / f;
            for (size_t k = 0; k < n; k++)
                row[k * lda] *= g;
            for (size_t k = 0; k < n; k++)
                col[k] *= f;
        }
    } while (noconv);
}

/* max |eig(A)| (A n x n, ld n, destroyed): balance(), then LAPACK's
 * Hessenberg reduction dgehrd and Francis double-shift QR dhseqr (what dgeev
 * does after its own balancing). */
static cosa_status spectral_radius(size_t n, double *A, deflate_workspace *w, double *rho)
{
    if (n == 0) {
        *rho = 0.0;
        return COSA_OK;
    }
    balance(n, A, n, w->scale);
    const lapack_int ln = (lapack_int)n;
    lapack_int info = LAPACKE_dgehrd_work(LAPACK_COL_MAJOR, ln, 1, ln, A, ln, w->htau, w->ework,
                                          w->lework);
    if (info == 0)
        info = LAPACKE_dhseqr_work(LAPACK_COL_MAJOR, 'E', 'N', ln, 1, ln, A, ln, w->wr, w->wi,
                                   NULL, 1, w->ework, w->lework);
    if (info != 0)
        return info < 0 ? COSA_EINVAL : COSA_ELAPACK;
    /* max |lambda|: compare squares, one hypot (no overflow) at the end */
    size_t best = 0;
    double b2 = -1.0;
    for (size_t i = 0; i < n; i++) {
        const double a2 = w->wr[i] * w->wr[i] + w->wi[i] * w->wi[i];
        if (a2 > b2 || isnan(a2)) {
            b2 = a2;
            best = i;
        }
        if (isinf(a2)) { /* |lambda| > 1e154: squares overflow, compare exactly */
            double r = 0.0;
            for (size_t k = 0; k < n; k++)
                r = fmax(r, hypot(w->wr[k], w->wi[k]));
            *rho = r;
            return COSA_OK;
        }
    }
    *rho = hypot(w->wr[best], w->wi[best]);
    return COSA_OK;
}

cosa_status deflate_rho(const cosa_system *sys, const cosa_scheme *s, double dt,
                             double *rho, deflate_workspace *w)
{
    if (!rho)
        return COSA_EINVAL;
    *rho = NAN;
    cosa_status st = check_args(sys, s, dt, w);
    if (st != COSA_OK)
        return st;
    size_t nf, R, n;
    if ((st = build_eq(sys, s, dt, w, &nf, &R)) != COSA_OK)
        return st;
    deflate_outputs(s, nf, R, w, w->Phid, 0, &n);
    if (n < nf && !dense_isfinite(n, n, w->Phid, n))
        return COSA_ENOTCONVERGED;
    double r;
    if ((st = spectral_radius(n, w->Phid, w, &r)) != COSA_OK)
        return st;
    /* the part of du outside the row space of K keeps eigenvalue 1 - alpha */
    if ((s->corr & COSA_CORR_STATE) && R < w->nu && fabs(1.0 - s->alpha) > r)
        r = fabs(1.0 - s->alpha);
    *rho = r;
    return COSA_OK;
}
