/* phi_iter.c -- Phi of iterative coupling schemes (imp:, gs-imp:) and of
 * explicit Gauss-Seidel schemes with interpolation degree q = p + 1, and the
 * iteration matrix M with its relaxation figures (README "Iterative coupling").
 *
 * One macro step.  Predictor yhat^(0) = E_p = sum_j e_j ybar_{n-j}.  Sweep
 * j = 1..k: every unit restarts from x_n; an input from output o is the
 * degree-q polynomial through the nodes s = 1 (the end value), 0, ..., 1 - q
 * (ybar_n, ..., ybar_{n-q+1}),
 *   u_o(s) = l_0(s) v_o + sum_{i=1..q} l_i(s) ybar_{n-i+1, o},
 * whose end value v_o is y^(j)_o if o's unit already advanced in this sweep
 * (Gauss-Seidel, in sequence order), else yhat^(j-1)_o.  With Q_m of the
 * Van Loan exponential (lib/core/discretize.c) unit i advances exactly,
 * x^(j)_i = A_d,i x_n,i + sum_m Q_m,i U_m with U_m the s^m coefficients of
 * its input, and y^(j)_i = C_i x^(j)_i + D_i u_i(s = 1); summed over the
 * Lagrange basis this is P_j = sum_m l_jm Q_m per node (sweep()).  Then
 * yhat^(j) = yhat^(j-1) + omega (y^(j) - yhat^(j-1)).  Accepted:
 * x_{n+1} = x^(k), ybar_{n+1} = y^(k).
 *
 * Everything is linear in the columns it is carried over: z_n (dim columns)
 * for the k sweeps composed one after another, or [z_n | yhat] (dim + ny
 * columns) for one sweep as an affine map of the iterate: y = Y_c z + S yhat,
 * x = X_c z + S_x yhat.  The converged step (k = inf) is the fixed point
 * yhat = y(yhat):  (I - S) Ybar = Y_c  (dgesv; I - S is singular exactly when
 * I - M is, because the columns of S outside R are zero), x = X_c + S_x Ybar.
 * M = S restricted to R x R.  No A^{-1} anywhere. */
#include "phi/phi_impl.h"
#include "core/system_impl.h"
#include "core/dense.h"
#include "core/discretize_impl.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* P_j = sum_m l_jm Q_m (w->P, q + 1 blocks nx x nu): the input-to-state map
 * of the node-j value of the degree-q input polynomial through the nodes
 * s = 1, 0, ..., 1 - q (l_jm: the s^m coefficient of the Lagrange basis). */
static void node_maps(int q, cosa_phi_workspace *w)
{
    const size_t nq = (size_t)q + 1, xu = w->nx * w->nu;
    double itp[(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)];
    cosa_lagrange_table(q, 1.0, itp);
    for (size_t j = 0; j < nq; j++) {
        double *Pj = w->P + j * xu;
        memset(Pj, 0, xu * sizeof(double));
        for (size_t m = 0; m < nq; m++)
            for (size_t k = 0; k < xu; k++)
                Pj[k] += itp[j * nq + m] * w->Q[m * xu + k];
    }
}

/* One sweep over W columns from the iterate Hin (ny x W, ld ldh): x^(j) into
 * w->iX (nx x W, ld nx), y^(j) into w->Y (ny x W, ld ny).  With the end
 * values v (Hin, or y^(j) of units already advanced) unit i advances by
 *   x^(j)_i = A_d,i x_n,i + P_0,i L_i v + sum_{j=1..q} P_j,i L_i ybar_{n-j+1},
 *   y^(j)_i = C_i x^(j)_i + D_i L_i v     (l_j(1) = 1 for j = 0, else 0);
 * w->P holds P_j (node_maps). */
static void sweep(const cosa_system *sys, const cosa_scheme *s, const cosa_layout *lay, size_t W,
                  const double *Hin, size_t ldh, cosa_phi_workspace *w)
{
    const int q = COSA_SCHEME_Q(s);
    const size_t nq = (size_t)q + 1, nx = lay->nx, ny = lay->ny, nu = lay->nu, xu = nx * nu;
    const int gs = s->exec == COSA_GAUSS_SEIDEL;
    double *V = w->gsR, *LV = w->gsU, *X = w->iX, *Y = w->Y;
    dense_copy(ny, W, Hin, ldh, V, ny);
    for (size_t k = 0; k < sys->nsub; k++) {
        const size_t i = gs && s->seq ? s->seq[k] : k;
        const struct cosa_sub_info *b = &sys->sub[i];
        dense_gemm('N', 'N', b->nu, W, ny, 1.0, sys->L + b->ou, nu, V, ny, 0.0, LV, nu);
        /* x^(j)_i (rollback: from x_n) */
        double *Xi = X + b->ox;
        dense_zero(b->nx, W, Xi, nx);
        dense_copy(b->nx, b->nx, w->Ad + b->ox + b->ox * nx, nx, Xi + b->ox * nx, nx);
        dense_gemm('N', 'N', b->nx, W, b->nu, 1.0, w->P + b->ox + b->ou * nx, nx, LV, nu, 1.0,
                   Xi, nx);
        for (size_t j = 1; j < nq; j++)
            dense_gemm('N', 'N', b->nx, ny, b->nu, 1.0, w->P + j * xu + b->ox + b->ou * nx, nx,
                       sys->L + b->ou, nu, 1.0, Xi + (lay->off_y + (j - 1) * ny) * nx, nx);
        /* y^(j)_i = C_i x^(j)_i + D_i u_i(1) */
        double *Yi = Y + b->oy;
        dense_gemm('N', 'N', b->ny, W, b->nx, 1.0, sys->C + b->oy + b->ox * ny, ny, Xi, nx, 0.0,
                   Yi, ny);
        dense_gemm('N', 'N', b->ny, W, b->nu, 1.0, sys->D + b->oy + b->ou * ny, ny, LV, nu, 1.0,
                   Yi, ny);
        if (gs) /* later units read i's fresh outputs as their end values */
            dense_copy(b->ny, W, Yi, ny, V + b->oy, ny);
    }
}

/* One sweep over [z | yhat] (W = dim + ny): yhat = the unit columns. */
static void sweep_affine(const cosa_system *sys, const cosa_scheme *s, const cosa_layout *lay,
                         cosa_phi_workspace *w)
{
    const size_t ny = lay->ny, dim = lay->dim, W = dim + ny;
    dense_zero(ny, W, w->iH, ny);
    for (size_t o = 0; o < ny; o++)
        w->iH[o + (dim + o) * ny] = 1.0;
    sweep(sys, s, lay, W, w->iH, ny, w);
}

/* History shift rows: ybar_{n-j+1} <- ybar_{n-j}, j = 1..p. */
static void history_shift(const cosa_layout *lay, double *Phi, size_t ld)
{
    for (size_t j = 1; j < lay->nhist; j++)
        for (size_t k = 0; k < lay->ny; k++)
            Phi[lay->off_y + j * lay->ny + k + (lay->off_y + (j - 1) * lay->ny + k) * ld] = 1.0;
}

/* k = inf: the fixed point (I - S) Ybar = Y_c, x = X_c + S_x Ybar;
 * COSA_EITERSINGULAR when I - S is singular or its reciprocal condition
 * number is below DBL_EPSILON. */
static cosa_status build_converged(const cosa_system *sys, const cosa_scheme *s,
                                   const cosa_layout *lay, double *Phi, size_t ld,
                                   cosa_phi_workspace *w)
{
    const size_t nx = lay->nx, ny = lay->ny, dim = lay->dim;
    sweep_affine(sys, s, lay, w);
    double *A = w->iS, *Yb = w->iH;
    for (size_t c = 0; c < ny; c++)
        for (size_t r = 0; r < ny; r++)
            A[r + c * ny] = (r == c ? 1.0 : 0.0) - w->Y[r + (dim + c) * ny];
    /* singular, or so ill-conditioned that the solve has no correct digit */
    const double anorm = dense_norm1(ny, ny, A, ny);
    if (ny && (dense_lu(ny, A, ny, w->ipiv) != 0 ||
               !(dense_lu_rcond(ny, A, ny, anorm, w->icw, w->iciw) >= DBL_EPSILON)))
        return COSA_EITERSINGULAR;
    dense_copy(ny, dim, w->Y, ny, Yb, ny);
    if (ny)
        dense_lu_solve(ny, dim, A, ny, w->ipiv, Yb, ny);
    if (!dense_isfinite(ny, dim, Yb, ny))
        return COSA_EITERSINGULAR;
    dense_zero(dim, dim, Phi, ld);
    dense_copy(nx, dim, w->iX, nx, Phi, ld);
    dense_gemm('N', 'N', nx, dim, ny, 1.0, w->iX + dim * nx, nx, Yb, ny, 1.0, Phi, ld);
    dense_copy(ny, dim, Yb, ny, Phi + lay->off_y, ld);
    return COSA_OK;
}

/* k sweeps composed: H_0 = E_p, H_j = H_{j-1} + omega (Y_j - H_{j-1}). */
static void build_k(const cosa_system *sys, const cosa_scheme *s, const cosa_layout *lay,
                    unsigned k, double *Phi, size_t ld, cosa_phi_workspace *w)
{
    const size_t nx = lay->nx, ny = lay->ny, dim = lay->dim, np = lay->nhist;
    double lag[(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)], e[COSA_ORDER_MAX + 1],
        wp[COSA_ORDER_MAX + 1];
    (void)cosa_order_tables(s->order, lag, e, wp);
    double *H = w->iH;
    dense_zero(ny, dim, H, ny);
    for (size_t j = 0; j < np; j++)
        for (size_t o = 0; o < ny; o++)
            H[o + (lay->off_y + j * ny + o) * ny] = e[j];
    const double om = s->implicit ? s->relax : 1.0;
    for (unsigned j = 1; j <= k; j++) {
        sweep(sys, s, lay, dim, H, ny, w);
        if (j < k)
            for (size_t c = 0; c < ny * dim; c++)
                H[c] += om * (w->Y[c] - H[c]);
    }
    dense_zero(dim, dim, Phi, ld);
    dense_copy(nx, dim, w->iX, nx, Phi, ld);
    dense_copy(ny, dim, w->Y, ny, Phi + lay->off_y, ld);
}

cosa_status phi_build_iter(const cosa_system *sys, const cosa_scheme *s, const cosa_layout *lay,
                           double dt, double *Phi, size_t ld, cosa_phi_workspace *w)
{
    const int q = COSA_SCHEME_Q(s);
    if (q > w->qmax)
        return COSA_EWORKSPACE;
    cosa_status st = cosa_disc_compute(sys, q, dt, w->dw);
    if (st != COSA_OK)
        return st;
    node_maps(q, w);
    /* an explicit scheme is one sweep (gs:P/Q) */
    const unsigned k = s->implicit ? s->iterations : 1u;
    if (k == 0)
        st = build_converged(sys, s, lay, Phi, ld, w);
    else
        build_k(sys, s, lay, k, Phi, ld, w);
    if (st != COSA_OK)
        return st;
    history_shift(lay, Phi, ld);
    if (!dense_isfinite(lay->dim, lay->dim, Phi, ld))
        return COSA_ENOTCONVERGED;
    return COSA_OK;
}

/* max_i |1 - omega a_i|, a_i = 1 - mu_i. */
static double rho_T(size_t n, const double *wr, const double *wi, double om)
{
    double r = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double re = 1.0 - om * (1.0 - wr[i]), im = om * wi[i];
        const double v = hypot(re, im);
        r = v > r ? v : r;
    }
    return r;
}

cosa_status cosa_relax_analysis(size_t n, const double *wr, const double *wi, double omega,
                                cosa_iter_info *out)
{
    if (!out || (n && (!wr || !wi)))
        return COSA_EINVAL;
    *out = (cosa_iter_info){n, NAN, NAN, NAN, NAN};
    if (!isfinite(omega))
        return COSA_ENONFINITE;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(wr[i]) || !isfinite(wi[i]))
            return COSA_ENONFINITE;
    if (n == 0) { /* nothing is iterated: one sweep is exact for every omega */
        *out = (cosa_iter_info){0, 0.0, INFINITY, 1.0, 0.0};
        return COSA_OK;
    }
    out->rho_iter = rho_T(n, wr, wi, omega);
    /* |1 - omega a| < 1  <=>  omega (omega |a|^2 - 2 Re a) < 0 */
    double wmax = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double re = 1.0 - wr[i], a2 = re * re + wi[i] * wi[i];
        if (!(re > 0.0))
            return COSA_OK; /* relax_max none */
        const double b = 2.0 * re / a2;
        wmax = b < wmax ? b : wmax;
    }
    out->relax_max = wmax;
    /* golden section on the convex rho(T(omega)) over (0, wmax) */
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double lo = 0.0, hi = wmax, x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = rho_T(n, wr, wi, x1), f2 = rho_T(n, wr, wi, x2);
    for (int it = 0; it < 200 && hi - lo > 4.0 * DBL_EPSILON * hi; it++) {
        if (f1 <= f2) {
            hi = x2, x2 = x1, f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = rho_T(n, wr, wi, x1);
        } else {
            lo = x1, x1 = x2, f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = rho_T(n, wr, wi, x2);
        }
    }
    out->relax_opt = f1 <= f2 ? x1 : x2;
    out->rho_iter_opt = f1 <= f2 ? f1 : f2;
    return COSA_OK;
}

/* R (w->iridx, *nr): outputs read as relaxed iterates.  Jacobi: every
 * output some unit reads; Gauss-Seidel: those read by a unit at a position
 * in the sequence no later than their own unit's. */
static size_t iterate_set(const cosa_system *sys, const cosa_scheme *s, cosa_phi_workspace *w)
{
    const size_t nu = sys->nu, ny = sys->ny;
    const int gs = s->exec == COSA_GAUSS_SEIDEL;
    for (size_t k = 0; k < sys->nsub; k++)
        w->ipos[gs && s->seq ? s->seq[k] : k] = k;
    size_t nr = 0;
    for (size_t o = 0; o < ny; o++) {
        int read = 0;
        for (size_t i = 0; i < sys->nsub && !read; i++) {
            const struct cosa_sub_info *b = &sys->sub[i];
            if (gs && w->ipos[i] > w->ipos[w->owner[o]])
                continue;
            for (size_t r = 0; r < b->nu && !read; r++)
                read = sys->L[b->ou + r + o * nu] != 0.0;
        }
        if (read)
            w->iridx[nr++] = o;
    }
    return nr;
}

cosa_status cosa_phi_iter_info(const cosa_system *sys, const cosa_scheme *s, double dt,
                               cosa_iter_info *out, cosa_phi_workspace *w)
{
    if (!sys || !s || !out || !w)
        return COSA_EINVAL;
    *out = (cosa_iter_info){0, NAN, NAN, NAN, NAN};
    if (!isfinite(dt))
        return COSA_ENONFINITE;
    if (!(dt > 0.0))
        return COSA_ERANGE;
    cosa_layout lay;
    cosa_status st = cosa_layout_get(sys, s, &lay);
    if (st != COSA_OK)
        return st;
    if (!s->implicit)
        return COSA_EUNSUPPORTED;
    const int q = COSA_SCHEME_Q(s);
    if (!phi_workspace_fits(w, sys, s->order) || q > w->qmax)
        return COSA_EWORKSPACE;
    if ((st = cosa_disc_compute(sys, q, dt, w->dw)) != COSA_OK)
        return st;
    node_maps(q, w);
    sweep_affine(sys, s, &lay, w);
    const size_t nr = iterate_set(sys, s, w), dim = lay.dim, ny = lay.ny;
    double *M = w->iS;
    for (size_t c = 0; c < nr; c++)
        for (size_t r = 0; r < nr; r++)
            M[r + c * nr] = w->Y[w->iridx[r] + (dim + w->iridx[c]) * ny];
    if (!dense_isfinite(nr, nr, M, nr ? nr : 1))
        return COSA_ENOTCONVERGED;
    if (nr && (st = cosa_eigenvalues(nr, M, nr, w->iwr, w->iwi, w->ieig)) != COSA_OK)
        return st;
    return cosa_relax_analysis(nr, w->iwr, w->iwi, s->relax, out);
}
