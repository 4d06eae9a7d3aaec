/* discretize.c -- exact zero-/higher-order-hold discretisation of the
 * subsystems through the Van Loan block exponential (doc/method.md):
 *
 *   M = [[hA, hB, 0, ..., 0], [0, 0, I, ..., 0], ..., [0, ..., 0, I], [0, ..., 0]]
 *
 * has exp(M) = [[A_d, Q_0/0!, Q_1/1!, ..., Q_p/p!], ...] with
 * A_d = e^{Ah} and Q_m = int_0^h e^{A(h-t)} B (t/h)^m dt  (= m! B_{d_m}/h^m of eq 13).
 * cosa_vanloan is the one block builder: the stacked discretisation below
 * (Phi assembly, linear units, the master's output correction) and the
 * deflated rho path (lib/phi/deflate.c) both call it.  Never A^{-1}. */
#include "core/system_impl.h"
#include "core/dense.h"
#include "core/discretize_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cosa_vanloan_workspace {
    size_t nmax;
    cosa_expm_workspace *ew;
    double *M, *E; /* nmax x nmax */
};

cosa_vanloan_workspace *cosa_vanloan_workspace_alloc(size_t nmax)
{
    cosa_vanloan_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    size_t nb = nmax ? nmax : 1;
    w->nmax = nmax;
    w->ew = cosa_expm_workspace_alloc(nmax);
    w->M = calloc(nb * nb, sizeof(double));
    w->E = calloc(nb * nb, sizeof(double));
    if (!w->ew || !w->M || !w->E) {
        cosa_vanloan_workspace_free(w);
        return NULL;
    }
    return w;
}

void cosa_vanloan_workspace_free(cosa_vanloan_workspace *w)
{
    if (!w)
        return;
    cosa_expm_workspace_free(w->ew);
    free(w->M);
    free(w->E);
    free(w);
}

cosa_status cosa_vanloan(size_t nx, size_t nu, int p, double h, const double *A, size_t lda,
                         const double *B, size_t ldb, double *Ad, size_t ldad, double *Q,
                         size_t ldq, size_t qstride, cosa_vanloan_workspace *w)
{
    if (!w || p < 0 || (nx && (!A || !Ad || lda < nx || ldad < nx)) ||
        (nx && nu && (!B || !Q || ldb < nx || ldq < nx)))
        return COSA_EINVAL;
    if (nx == 0)
        return COSA_OK;
    const size_t n = nx + (size_t)(p + 1) * nu;
    if (n > w->nmax)
        return COSA_EWORKSPACE;
    double *M = w->M, *E = w->E;
    dense_zero(n, n, M, n);
    for (size_t c = 0; c < nx; c++)
        for (size_t r = 0; r < nx; r++)
            M[r + c * n] = h * A[r + c * lda];
    for (size_t c = 0; c < nu; c++)
        for (size_t r = 0; r < nx; r++)
            M[r + (nx + c) * n] = h * B[r + c * ldb];
    for (int k = 0; k < p; k++)
        for (size_t c = 0; c < nu; c++)
            M[nx + (size_t)k * nu + c + (nx + (size_t)(k + 1) * nu + c) * n] = 1.0;
    cosa_status st = cosa_expm(n, M, n, E, n, w->ew);
    if (st != COSA_OK)
        return st;
    dense_copy(nx, nx, E, n, Ad, ldad);
    double fact = 1.0;
    for (int m = 0; m <= p; m++) {
        if (m > 0)
            fact *= m;
        double *Qm = Q + (size_t)m * qstride;
        for (size_t c = 0; c < nu; c++)
            for (size_t r = 0; r < nx; r++)
                Qm[r + c * ldq] = fact * E[r + (nx + (size_t)m * nu + c) * n];
    }
    return COSA_OK;
}

/* ---- stacked discretisation with a per-subsystem cache ------------------- */

/* The (A_i, B_i, dt, p) subsystem i was last discretised for. */
struct disc_cache {
    int valid;
    int p;
    double dt;
    double *AB; /* copy of [A_i | B_i] (nx_i x (nx_i + nu_i)) */
};

struct cosa_disc_workspace {
    size_t nsub, nx, nu;
    int pmax;
    size_t *sub_dims;  /* nsub x 3: nx_i, nu_i, ny_i it was sized for */
    double *Ad;        /* nx x nx                                     */
    double *Q;         /* (pmax+1) blocks nx x nu                      */
    struct disc_cache *cache;
    cosa_vanloan_workspace *vw;
};

void cosa_disc_workspace_free(cosa_disc_workspace *w)
{
    if (!w)
        return;
    if (w->cache)
        for (size_t i = 0; i < w->nsub; i++)
            free(w->cache[i].AB);
    free(w->cache);
    free(w->sub_dims);
    free(w->Ad);
    free(w->Q);
    cosa_vanloan_workspace_free(w->vw);
    free(w);
}

static double *dalloc(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

cosa_disc_workspace *cosa_disc_workspace_alloc(const cosa_system *sys, int pmax)
{
    if (!sys || pmax < 0 || pmax > COSA_ORDER_MAX)
        return NULL;
    cosa_disc_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    const size_t nx = sys->nx, nu = sys->nu, np = (size_t)pmax + 1;
    w->nsub = sys->nsub;
    w->nx = nx;
    w->nu = nu;
    w->pmax = pmax;
    size_t vl = nx;
    for (size_t i = 0; i < sys->nsub; i++) {
        size_t n = sys->sub[i].nx + np * sys->sub[i].nu;
        vl = n > vl ? n : vl;
    }
    w->vw = cosa_vanloan_workspace_alloc(vl);
    w->Ad = dalloc(nx * nx);
    w->Q = dalloc(np * nx * nu);
    w->cache = calloc(sys->nsub ? sys->nsub : 1, sizeof *w->cache);
    w->sub_dims = calloc(3 * sys->nsub + 1, sizeof(size_t));
    if (!w->vw || !w->Ad || !w->Q || !w->cache || !w->sub_dims)
        goto fail;
    for (size_t i = 0; i < sys->nsub; i++) {
        const size_t nxi = sys->sub[i].nx, nui = sys->sub[i].nu;
        w->sub_dims[3 * i] = nxi;
        w->sub_dims[3 * i + 1] = nui;
        w->sub_dims[3 * i + 2] = sys->sub[i].ny;
        if (!(w->cache[i].AB = dalloc(nxi * (nxi + nui))))
            goto fail;
    }
    return w;
fail:
    cosa_disc_workspace_free(w);
    return NULL;
}

static int fits(const cosa_disc_workspace *w, const cosa_system *sys, int p)
{
    if (p > w->pmax || w->nsub != sys->nsub || w->nx != sys->nx || w->nu != sys->nu)
        return 0;
    for (size_t i = 0; i < sys->nsub; i++)
        if (w->sub_dims[3 * i] != sys->sub[i].nx || w->sub_dims[3 * i + 1] != sys->sub[i].nu ||
            w->sub_dims[3 * i + 2] != sys->sub[i].ny)
            return 0;
    return 1;
}

/* Is the cached discretisation of subsystem i valid for (A_i, B_i, h, p)? */
static int cache_hit(const cosa_system *sys, size_t i, int p, double h,
                     const cosa_disc_workspace *w)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    const struct disc_cache *c = &w->cache[i];
    if (!c->valid || c->p != p || c->dt != h)
        return 0;
    size_t nx = sys->nx, k = 0;
    for (size_t col = 0; col < b->nx; col++, k += b->nx)
        if (memcmp(c->AB + k, sys->A + b->ox + (b->ox + col) * nx, b->nx * sizeof(double)))
            return 0;
    for (size_t col = 0; col < b->nu; col++, k += b->nx)
        if (memcmp(c->AB + k, sys->B + b->ox + (b->ou + col) * nx, b->nx * sizeof(double)))
            return 0;
    return 1;
}

static void cache_store(const cosa_system *sys, size_t i, int p, double h,
                        cosa_disc_workspace *w)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    struct disc_cache *c = &w->cache[i];
    size_t nx = sys->nx;
    dense_copy(b->nx, b->nx, sys->A + b->ox + b->ox * nx, nx, c->AB, b->nx);
    if (b->nu)
        dense_copy(b->nx, b->nu, sys->B + b->ox + b->ou * nx, nx, c->AB + b->nx * b->nx,
                      b->nx);
    c->p = p;
    c->dt = h;
    c->valid = 1;
}

cosa_status cosa_disc_compute(const cosa_system *sys, int p, double dt, cosa_disc_workspace *w)
{
    if (!sys || !w)
        return COSA_EINVAL;
    if (!(dt > 0.0) || !isfinite(dt) || p < 0)
        return COSA_ERANGE;
    if (!fits(w, sys, p))
        return COSA_EWORKSPACE;
    const size_t nx = sys->nx, nu = sys->nu;
    for (size_t i = 0; i < sys->nsub; i++) {
        if (cache_hit(sys, i, p, dt, w))
            continue;
        w->cache[i].valid = 0;
        const struct cosa_sub_info *b = &sys->sub[i];
        /* Off-diagonal blocks of Ad, Q stay zero (set at allocation, never
         * written: every subsystem writes only its own blocks). */
        cosa_status st = cosa_vanloan(b->nx, b->nu, p, dt, sys->A + b->ox + b->ox * nx, nx,
                                      sys->B + b->ox + b->ou * nx, nx,
                                      w->Ad + b->ox + b->ox * nx, nx,
                                      w->Q + b->ox + b->ou * nx, nx, nx * nu, w->vw);
        if (st != COSA_OK)
            return st;
        cache_store(sys, i, p, dt, w);
    }
    return COSA_OK;
}

const double *cosa_disc_Ad(const cosa_disc_workspace *w) { return w ? w->Ad : NULL; }

const double *cosa_disc_Q(const cosa_disc_workspace *w) { return w ? w->Q : NULL; }
