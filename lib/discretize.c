/* discretize.c -- exact zero-/higher-order-hold discretisation of the
 * subsystems through the Van Loan block exponential (METHOD.md):
 *
 *   M = [[hA, hB, 0, ..., 0], [0, 0, I, ..., 0], ..., [0, ..., 0, I], [0, ..., 0]]
 *
 * has exp(M) = [[A_d, Q_0/0!, Q_1/1!, ..., Q_p/p!], ...] with
 * A_d = e^{Ah} and Q_m = int_0^h e^{A(h-t)} B (t/h)^m dt  (= m! B_{d_m}/h^m of eq 13).
 * Computed per subsystem (block-diagonal), never through A^{-1}. */
#include "phi_impl.h"
#include "system_impl.h"
#include "dense.h"

#include <math.h>
#include <string.h>

/* Discretise subsystem b into the stacked Ad and Q (ld nx) for order p. */
static cosa_status disc_sub(const cosa_system *sys, size_t i, int p, double h,
                            cosa_phi_workspace *w)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    size_t nx = sys->nx, nu = sys->nu;
    size_t nxi = b->nx, nui = b->nu;
    if (nxi == 0)
        return COSA_OK;
    size_t n = nxi + (size_t)(p + 1) * nui;
    double *M = w->M, *E = w->E;
    cosa_mat_zero(n, n, M, n);
    const double *Ai = sys->A + b->ox + b->ox * nx;
    const double *Bi = sys->B + b->ox + b->ou * nx;
    for (size_t c = 0; c < nxi; c++)
        for (size_t r = 0; r < nxi; r++)
            M[r + c * n] = h * Ai[r + c * nx];
    for (size_t c = 0; c < nui; c++)
        for (size_t r = 0; r < nxi; r++)
            M[r + (nxi + c) * n] = h * Bi[r + c * nx];
    for (int k = 0; k < p; k++)
        for (size_t c = 0; c < nui; c++)
            M[nxi + (size_t)k * nui + c + (nxi + (size_t)(k + 1) * nui + c) * n] = 1.0;
    cosa_status st = cosa_expm(n, M, n, E, n, w->ew);
    if (st != COSA_OK)
        return st;
    cosa_mat_copy(nxi, nxi, E, n, w->Ad + b->ox + b->ox * nx, nx);
    double fact = 1.0;
    for (int m = 0; m <= p; m++) {
        if (m > 0)
            fact *= m;
        double *Qm = w->Q + (size_t)m * nx * nu;
        for (size_t c = 0; c < nui; c++)
            for (size_t r = 0; r < nxi; r++)
                Qm[b->ox + r + (b->ou + c) * nx] = fact * E[r + (nxi + (size_t)m * nui + c) * n];
    }
    return COSA_OK;
}

/* Is the cached discretisation of subsystem i valid for (A_i, B_i, h, p)? */
static int cache_hit(const cosa_system *sys, size_t i, int p, double h, cosa_phi_workspace *w)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    struct cosa_disc_cache *c = &w->cache[i];
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
                        cosa_phi_workspace *w)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    struct cosa_disc_cache *c = &w->cache[i];
    size_t nx = sys->nx;
    cosa_mat_copy(b->nx, b->nx, sys->A + b->ox + b->ox * nx, nx, c->AB, b->nx);
    if (b->nu)
        cosa_mat_copy(b->nx, b->nu, sys->B + b->ox + b->ou * nx, nx, c->AB + b->nx * b->nx,
                      b->nx);
    c->p = p;
    c->dt = h;
    c->valid = 1;
}

/* Internal: fill w->Ad and w->Q (blocks 0..p) for (sys, p, h), reusing what
 * is cached.  Off-diagonal blocks of Ad, Q are zero (set at allocation, and
 * never written: every subsystem writes only its own blocks). */
cosa_status cosa_discretize_ws(const cosa_system *sys, int p, double h, cosa_phi_workspace *w)
{
    for (size_t i = 0; i < sys->nsub; i++) {
        if (cache_hit(sys, i, p, h, w))
            continue;
        w->cache[i].valid = 0;
        cosa_status st = disc_sub(sys, i, p, h, w);
        if (st != COSA_OK)
            return st;
        cache_store(sys, i, p, h, w);
    }
    return COSA_OK;
}

cosa_status cosa_discretize(const cosa_system *sys, int p, double dt, double *Ad, double *Q,
                            cosa_phi_workspace *w)
{
    if (!sys || !w || !Ad || !Q)
        return COSA_EINVAL;
    if (!(dt > 0.0) || !isfinite(dt) || p < 0)
        return COSA_ERANGE;
    if (!cosa_phi_workspace_fits(w, sys, p))
        return COSA_EWORKSPACE;
    cosa_status st = cosa_discretize_ws(sys, p, dt, w);
    if (st != COSA_OK)
        return st;
    size_t nx = sys->nx, nu = sys->nu;
    memcpy(Ad, w->Ad, nx * nx * sizeof(double));
    memcpy(Q, w->Q, (size_t)(p + 1) * nx * nu * sizeof(double));
    return COSA_OK;
}
