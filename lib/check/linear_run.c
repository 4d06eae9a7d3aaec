/* linear_run.c -- independent time-domain co-simulation of linear coupling schemes.
 *
 * A master algorithm in the sense of section 2.3 of the MBCorr paper, written
 * without the propagation-matrix assembly of phi.c and without its closed-form
 * coefficient tables (e_j, w_p, kappa_p, G_p).  Per macro step T_n -> T_{n+1},
 * with s = (t - T_n)/dt in [0, 1]:
 *
 *  1. every input gets the degree-p polynomial through the output history
 *     (s = 0, -1, ..., -p), built numerically (Newton divided differences,
 *     expanded to monomials), plus the offset du_n;
 *  2. every subsystem is advanced exactly with that polynomial input (one
 *     matrix exponential of an augmented system per subsystem and step);
 *  3. output correction (eq 14 in integral form, doc/method.md): the correction
 *     matrices G, G0 are obtained by probing the subsystem models with the
 *     difference polynomial of "true" and extrapolated inputs;
 *  4. state correction (eq 22): the integral of ubar - utilde over the step,
 *     from the monomial coefficients of both polynomials;
 *  5. the output history is shifted.
 *
 * Gauss-Seidel (doc/method.md): subsystems advance in the order s->seq; an output
 * of a subsystem that has already advanced in this step is represented by
 * its interpolation polynomial through y_{n+1}, y_n, ..., y_{n+1-p}
 * (s = 1, 0, ..., 1-p) instead of the extrapolation polynomial.  Corrections
 * are defined for Jacobi only (cosa_scheme_check).
 *
 * This is a cross-check, not a hot path: the workspace is allocated once per
 * call. */
#include "cosa/check.h"
#include "core/carve.h"
#include "core/dense.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Dimensions and offsets of one subsystem in the stacked x, u, y. */
struct blk {
    size_t nx, nu, ny, ox, ou, oy;
};

/* Everything one call needs; matrices column-major. */
struct cosim {
    size_t nsub, nx, nu, ny;
    int p;
    size_t np;                 /* p + 1: coefficients of a degree-p polynomial   */
    double dt;
    const double *A, *B, *C, *D, *L; /* stacked (eq 5), ld = rows           */
    struct blk *sub;
    size_t nbmax;              /* largest augmented matrix: max nx_i + p + 1    */
    cosa_expm_workspace *ew;
    double *M, *E;             /* nbmax x nbmax each                            */
    double *u1;                /* nu: input at s = 1                            */
    double *P;                 /* ny x (p+2): output polynomials, monomial coef */
    double *Pb;                /* ny x (p+2): interpolants incl. ybar_{n+1}     */
    double *a;                 /* nu x (p+1): input polynomials                 */
    double *aprobe;            /* nu x (p+1): probe input                       */
    double *q;                 /* p+2: probe polynomial                         */
    double *nodes, *vals, *dd; /* p+2 each: interpolation scratch               */
    double *xp;                /* nx: probe state                               */
    double *G, *G0;            /* ny x nu: output-correction matrices           */
    double *IGL;               /* ny x ny: LU of I - G L                        */
    lapack_int *ipiv;          /* ny                                            */
    double *y, *ybar, *vu, *vy, *du0; /* scratch vectors: ny, ny, nu, ny, nu    */
    double *buf;               /* owner of all double arrays above              */
};

static void cosim_free(struct cosim *c)
{
    cosa_expm_workspace_free(c->ew);
    free(c->sub);
    free(c->buf);
    free(c->ipiv);
}

/* Monomial coefficients c[0..m-1] of the polynomial of degree < m through
 * the m points (s[j], v[j]): Newton divided differences, then the Newton form
 * dd_0 + (t - s_0)(dd_1 + (t - s_1)(dd_2 + ...)) expanded from the inside.
 * dd: m doubles of scratch. */
static void poly_interp(size_t m, const double *s, const double *v, double *c, double *dd)
{
    for (size_t j = 0; j < m; j++)
        dd[j] = v[j];
    for (size_t k = 1; k < m; k++)
        for (size_t j = m - 1; j >= k; j--)
            dd[j] = (dd[j] - dd[j - 1]) / (s[j] - s[j - k]);
    for (size_t j = 0; j < m; j++)
        c[j] = 0.0;
    c[0] = dd[m - 1];
    for (size_t k = m - 1; k-- > 0;) {
        /* c <- c * (t - s_k) + dd_k; c has degree m-2-k before the update */
        for (size_t i = m - 1 - k; i >= 1; i--)
            c[i] = c[i - 1] - s[k] * c[i];
        c[0] = dd[k] - s[k] * c[0];
    }
}

/* Exact solution over one macro step of subsystem i,
 *   x' = A_i x + B_i u,  u(s) = sum_m a_m s^m  (m = 0..p),  y = C_i x + D_i u.
 * In s the augmented state [x; g], g = (1, s, ..., s^p), obeys
 *   d/ds [x; g] = [[dt A_i, dt B_i a], [0, N]] [x; g],  N_{m,m-1} = m,  g(0) = e_1,
 * so with E = exp(that matrix), x(1) = E_11 x(0) + E_12 e_1.
 * The coupling block is scaled by a power of two sigma: by the diagonal
 * similarity diag(I, I/sigma), exp([[F, sigma G], [0, N]]) has sigma E_12 in its
 * corner, and the scaled block no longer dominates the norm that fixes the
 * number of squarings (large inputs would otherwise overscale dt A_i).
 * a: nu_i x (p+1) with leading dimension lda (may be NULL if nu_i = 0);
 * x0: NULL for the zero state.  Writes x1 (nx_i) and y1 = C_i x1 + D_i u(1). */
static cosa_status advance(struct cosim *c, size_t i, const double *a, size_t lda,
                           const double *x0, double *x1, double *y1)
{
    const struct blk *b = &c->sub[i];
    const size_t nx = b->nx, nu = b->nu, ny = b->ny, np = c->np;
    const size_t nb = nx + np, ld = c->nbmax;
    const double *Ai = c->A + b->ox + b->ox * c->nx;
    const double *Bi = c->B + b->ox + b->ou * c->nx;
    const double *Ci = c->C + b->oy + b->ox * c->ny;
    const double *Di = c->D + b->oy + b->ou * c->ny;

    if (nx > 0) {
        double *M = c->M;
        dense_zero(nb, nb, M, ld);
        for (size_t j = 0; j < nx; j++)
            for (size_t r = 0; r < nx; r++)
                M[r + j * ld] = c->dt * Ai[r + j * c->nx];
        double *F = M + nx * ld; /* block (0, 1): nx x np */
        if (nu > 0)
            dense_gemm('N', 'N', nx, np, nu, c->dt, Bi, c->nx, a, lda, 0.0, F, ld);
        double fnorm = dense_norm1(nx, np, F, ld);
        double target = fmax(fmax(dense_norm1(nx, nx, M, ld), (double)c->p), 1.0);
        double sigma = 1.0;
        if (!isfinite(fnorm))
            return COSA_ENONFINITE;
        if (fnorm > target) {
            sigma = ldexp(1.0, ilogb(target) - ilogb(fnorm) - 1);
            for (size_t j = 0; j < np; j++)
                for (size_t r = 0; r < nx; r++)
                    F[r + j * ld] *= sigma;
        }
        for (size_t m = 1; m < np; m++)
            M[nx + m + (nx + m - 1) * ld] = (double)m;
        cosa_status st = cosa_expm(nb, M, ld, c->E, ld, c->ew);
        if (st != COSA_OK)
            return st;
        const double *E12 = c->E + nx * ld; /* first column of block (0, 1) */
        for (size_t r = 0; r < nx; r++)
            x1[r] = E12[r] / sigma;
        if (x0)
            dense_gemv(nx, nx, 1.0, c->E, ld, x0, 1.0, x1);
    }
    /* u(1) = sum_m a_m */
    for (size_t k = 0; k < nu; k++) {
        double s = 0.0;
        for (size_t m = 0; m < np; m++)
            s += a[k + m * lda];
        c->u1[k] = s;
    }
    for (size_t r = 0; r < ny; r++)
        y1[r] = 0.0;
    if (nx > 0)
        dense_gemv(ny, nx, 1.0, Ci, c->ny, x1, 0.0, y1);
    if (nu > 0)
        dense_gemv(ny, nu, 1.0, Di, c->ny, c->u1, 1.0, y1);
    return COSA_OK;
}

/* Output response at s = 1, from zero state, of every subsystem to the input
 * e_k q(s) on each of its input channels k: the columns of Gout (ny x nu,
 * block-diagonal, zero elsewhere).  q: p+1 monomial coefficients. */
static cosa_status probe(struct cosim *c, const double *q, double *Gout)
{
    dense_zero(c->ny, c->nu, Gout, c->ny);
    for (size_t i = 0; i < c->nsub; i++) {
        const struct blk *b = &c->sub[i];
        for (size_t k = 0; k < b->nu; k++) {
            dense_zero(b->nu, c->np, c->aprobe, b->nu);
            for (size_t m = 0; m < c->np; m++)
                c->aprobe[k + m * b->nu] = q[m];
            cosa_status st = advance(c, i, c->aprobe, b->nu, NULL, c->xp,
                                     Gout + b->oy + (b->ou + k) * c->ny);
            if (st != COSA_OK)
                return st;
        }
    }
    return COSA_OK;
}

/* Correction matrices of the output correction (section 2.1, doc/method.md).
 * Over the step, ubar - utilde = L (ybar_{n+1} - E) q(s) - du_n, where q is the
 * difference of the degree-p interpolant through ybar_{n+1}, ..., ybar_{n+1-p}
 * and the extrapolant through ybar_n, ..., ybar_{n-p}, taken for unit data
 * ybar_{n+1} = 1, zero history (the extrapolant is then 0, ybar_{n+1} - E = 1).
 * The model response to it gives G; to the constant input 1 it gives G0.
 * Then (I - G L) is factorised once: the model is time-invariant. */
static cosa_status correction_setup(struct cosim *c, int has_du, const cosa_system *model)
{
    const size_t np = c->np, ny = c->ny, nu = c->nu;
    for (size_t j = 0; j < np; j++) {
        c->nodes[j] = 1.0 - (double)j;
        c->vals[j] = j == 0 ? 1.0 : 0.0;
    }
    poly_interp(np, c->nodes, c->vals, c->q, c->dd);
    /* the probes ask the model the correction believes in (cosa_scheme.model) */
    const double *A = c->A, *B = c->B, *C = c->C, *D = c->D;
    if (model) {
        c->A = cosa_system_A(model);
        c->B = cosa_system_B(model);
        c->C = cosa_system_C(model);
        c->D = cosa_system_D(model);
    }
    cosa_status st = probe(c, c->q, c->G);
    if (st == COSA_OK && has_du) {
        for (size_t m = 0; m < np; m++)
            c->q[m] = m == 0 ? 1.0 : 0.0;
        st = probe(c, c->q, c->G0);
    }
    c->A = A;
    c->B = B;
    c->C = C;
    c->D = D;
    if (st != COSA_OK)
        return st;
    dense_identity(ny, c->IGL, ny);
    dense_gemm('N', 'N', ny, ny, nu, -1.0, c->G, ny, c->L, nu, 1.0, c->IGL, ny);
    if (!dense_isfinite(ny, ny, c->IGL, ny))
        return COSA_ENONFINITE;
    /* Only exact singularity is rejected: I - G L mixes units (m, m/s, N), so
     * an unequilibrated condition estimate would flag well-posed systems. */
    if (dense_lu(ny, c->IGL, ny, c->ipiv) != 0)
        return COSA_ECORRSINGULAR;
    return COSA_OK;
}

static cosa_status cosim_alloc(struct cosim *c, const cosa_system *sys, const cosa_scheme *s,
                               double dt)
{
    memset(c, 0, sizeof *c);
    c->nsub = cosa_system_nsub(sys);
    c->nx = cosa_system_nx(sys);
    c->nu = cosa_system_nu(sys);
    c->ny = cosa_system_ny(sys);
    c->p = s->order;
    c->np = (size_t)s->order + 1;
    c->dt = dt;
    c->A = cosa_system_A(sys);
    c->B = cosa_system_B(sys);
    c->C = cosa_system_C(sys);
    c->D = cosa_system_D(sys);
    c->L = cosa_system_L(sys);
    c->sub = calloc(c->nsub, sizeof *c->sub);
    if (!c->sub)
        return COSA_ENOMEM;
    size_t nxmax = 0;
    for (size_t i = 0; i < c->nsub; i++) {
        struct blk *b = &c->sub[i];
        cosa_status st = cosa_system_sub_dims(sys, i, &b->nx, &b->nu, &b->ny, &b->ox, &b->ou,
                                              &b->oy);
        if (st != COSA_OK)
            return st;
        nxmax = b->nx > nxmax ? b->nx : nxmax;
    }
    const size_t nx = c->nx, nu = c->nu, ny = c->ny, np = c->np, np2 = np + 1;
    c->nbmax = nxmax + np;
    c->ew = cosa_expm_workspace_alloc(c->nbmax);
    if (!c->ew)
        return COSA_ENOMEM;
    const size_t n2 = c->nbmax * c->nbmax;
    size_t total = 2 * n2 + nu + 2 * ny * np2 + 2 * nu * np + 4 * np2 + nx + 2 * ny * nu +
                   ny * ny + 3 * ny + 2 * nu + 1;
    c->buf = calloc(total, sizeof(double));
    c->ipiv = calloc(ny + 1, sizeof(lapack_int));
    if (!c->buf || !c->ipiv)
        return COSA_ENOMEM;
    double *q = c->buf;
    COSA_CARVE(c->M, q, n2);
    COSA_CARVE(c->E, q, n2);
    COSA_CARVE(c->u1, q, nu);
    COSA_CARVE(c->P, q, ny * np2);
    COSA_CARVE(c->Pb, q, ny * np2);
    COSA_CARVE(c->a, q, nu * np);
    COSA_CARVE(c->aprobe, q, nu * np);
    COSA_CARVE(c->q, q, np2);
    COSA_CARVE(c->nodes, q, np2);
    COSA_CARVE(c->vals, q, np2);
    COSA_CARVE(c->dd, q, np2);
    COSA_CARVE(c->xp, q, nx);
    COSA_CARVE(c->G, q, ny * nu);
    COSA_CARVE(c->G0, q, ny * nu);
    COSA_CARVE(c->IGL, q, ny * ny);
    COSA_CARVE(c->y, q, ny);
    COSA_CARVE(c->ybar, q, ny);
    COSA_CARVE(c->vy, q, ny);
    COSA_CARVE(c->vu, q, nu);
    COSA_CARVE(c->du0, q, nu);
    return COSA_OK;
}

/* Row l of the polynomial store P (ld ny): monomial coefficients of the
 * polynomial through nodes s_j with values ys[j][l], j = 0..m-1. */
static void output_poly(struct cosim *c, size_t l, size_t m, const double *const *ys,
                        double *P)
{
    double v[COSA_ORDER_MAX + 2] = {0}, coef[COSA_ORDER_MAX + 2] = {0};
    for (size_t j = 0; j < m; j++)
        v[j] = ys[j][l];
    poly_interp(m, c->nodes, v, coef, c->dd);
    for (size_t j = 0; j < m; j++)
        P[l + j * c->ny] = coef[j];
}

/* One macro step z_n -> z_{n+1} (layout lay). */
static cosa_status step(struct cosim *c, const cosa_scheme *s, const cosa_layout *lay,
                        const double *zc, double *zn)
{
    const size_t nx = c->nx, nu = c->nu, ny = c->ny, np = c->np;
    const int gs = s->exec == COSA_GAUSS_SEIDEL;
    const double *du = lay->has_du ? zc + lay->off_du : c->du0;
    const double *hist[COSA_ORDER_MAX + 2]; /* hist[j] = ybar_{n-j}, j = 0..p */

    /* 1. Extrapolation polynomial of every output through (s = -j, ybar_{n-j}),
     *    j = 0..p; inputs u = L y (eq 4) plus the constant offset du_n. */
    for (size_t j = 0; j < np; j++) {
        c->nodes[j] = -(double)j;
        hist[j] = zc + lay->off_y + j * ny;
    }
    for (size_t l = 0; l < ny; l++)
        output_poly(c, l, np, hist, c->P);

    /* 2. Advance every subsystem exactly over the step (in s->seq order for
     *    Gauss-Seidel; the order does not matter for Jacobi). */
    for (size_t k = 0; k < c->nsub; k++) {
        size_t i = gs && s->seq ? s->seq[k] : k;
        const struct blk *b = &c->sub[i];
        if (b->nu > 0) {
            dense_gemm('N', 'N', b->nu, np, ny, 1.0, c->L + b->ou, nu, c->P, ny, 0.0,
                      c->a + b->ou, nu);
            for (size_t r = 0; r < b->nu; r++)
                c->a[b->ou + r] += du[b->ou + r];
        }
        cosa_status st = advance(c, i, c->a + b->ou, nu, zc + b->ox, zn + b->ox, c->y + b->oy);
        if (st != COSA_OK)
            return st;
        if (gs) {
            /* this subsystem's outputs are now known at s = 1: interpolate
             * through (s = 1 - j, y_{n+1-j}), j = 0..p */
            const double *ys[COSA_ORDER_MAX + 2];
            ys[0] = c->y;
            for (size_t j = 1; j < np; j++)
                ys[j] = hist[j - 1];
            for (size_t j = 0; j < np; j++)
                c->nodes[j] = 1.0 - (double)j;
            for (size_t l = b->oy; l < b->oy + b->ny; l++)
                output_poly(c, l, np, ys, c->P);
            for (size_t j = 0; j < np; j++)
                c->nodes[j] = -(double)j;
        }
    }
    if (!dense_isfinite(nx, 1, zn, nx) || !dense_isfinite(ny, 1, c->y, ny))
        return COSA_ENONFINITE;

    /* 3. Output correction: ybar_{n+1} = y_{n+1} + G (L ybar_{n+1} - L E) - G0 du_n,
     *    E = extrapolants at s = 1; solved as
     *    (I - G L) ybar_{n+1} = y_{n+1} - G L E - G0 du_n. */
    double *ybar = c->ybar;
    memcpy(ybar, c->y, ny * sizeof *ybar);
    if (s->corr & COSA_CORR_OUTPUT) {
        for (size_t l = 0; l < ny; l++) {
            double e = 0.0;
            for (size_t m = 0; m < np; m++)
                e += c->P[l + m * ny];
            c->vy[l] = e;
        }
        dense_gemv(nu, ny, 1.0, c->L, nu, c->vy, 0.0, c->vu);
        dense_gemv(ny, nu, -1.0, c->G, ny, c->vu, 1.0, ybar);
        if (lay->has_du)
            dense_gemv(ny, nu, -1.0, c->G0, ny, du, 1.0, ybar);
        dense_lu_solve(ny, 1, c->IGL, ny, c->ipiv, ybar, ny);
        if (!dense_isfinite(ny, 1, ybar, ny))
            return COSA_ENONFINITE;
    }

    /* 4. State correction (eq 22): du_{n+1} = du_n + (alpha/dt) int (ubar - utilde) dt
     *    = du_n + alpha (L int_0^1 (ybar-interp - y-extrap) ds - du_n), with ubar the
     *    degree-(p+1) interpolant through (s = 1, ybar_{n+1}), (s = -j, ybar_{n-j}). */
    if (lay->has_du) {
        const double *ys[COSA_ORDER_MAX + 2];
        ys[0] = ybar;
        c->nodes[0] = 1.0;
        for (size_t j = 0; j < np; j++) {
            ys[j + 1] = hist[j];
            c->nodes[j + 1] = -(double)j;
        }
        for (size_t l = 0; l < ny; l++) {
            output_poly(c, l, np + 1, ys, c->Pb);
            double integral = c->Pb[l + np * ny] / (double)(np + 1);
            for (size_t m = 0; m < np; m++)
                integral += (c->Pb[l + m * ny] - c->P[l + m * ny]) / (double)(m + 1);
            c->vy[l] = integral;
        }
        double *dun = zn + lay->off_du;
        dense_gemv(nu, ny, 1.0, c->L, nu, c->vy, 0.0, dun);
        for (size_t r = 0; r < nu; r++)
            dun[r] = du[r] + s->alpha * (dun[r] - du[r]);
        if (!dense_isfinite(nu, 1, dun, nu))
            return COSA_ENONFINITE;
    }

    /* 5. History: ybar_{n+1}, ybar_n, ..., ybar_{n+1-p}. */
    memcpy(zn + lay->off_y, ybar, ny * sizeof *ybar);
    for (size_t j = 1; j < np; j++)
        memcpy(zn + lay->off_y + j * ny, hist[j - 1], ny * sizeof *ybar);
    return COSA_OK;
}

cosa_status cosa_check_linear_run(const cosa_system *sys, const cosa_scheme *s, double dt,
                                  const double *z0, size_t nsteps, double *traj)
{
    if (!sys || !s || !z0 || !traj)
        return COSA_EINVAL;
    if (!isfinite(dt) || !(dt > 0.0))
        return COSA_ERANGE;
    cosa_status st = cosa_scheme_check(s, sys);
    if (st != COSA_OK)
        return st;
    if (s->exec == COSA_GAUSS_SEIDEL && s->corr != COSA_CORR_NONE)
        return COSA_EUNSUPPORTED;
    if (cosa_iteration_of(s)->iterates) /* iterative coupling: Phi only, for now */
        return COSA_EUNSUPPORTED;
    cosa_layout lay;
    st = cosa_layout_get(sys, s, &lay);
    if (st != COSA_OK)
        return st;
    const size_t dim = lay.dim;
    if (nsteps >= SIZE_MAX / sizeof(double) / dim - 1)
        return COSA_ERANGE;
    if (!dense_isfinite(dim, 1, z0, dim))
        return COSA_ENONFINITE;

    struct cosim c;
    st = cosim_alloc(&c, sys, s, dt);
    if (st != COSA_OK)
        goto done;
    if (s->corr & COSA_CORR_OUTPUT) {
        st = correction_setup(&c, lay.has_du, s->model && s->model != sys ? s->model : NULL);
        if (st != COSA_OK)
            goto done;
    }
    memmove(traj, z0, dim * sizeof *traj);
    for (size_t n = 0; n < nsteps; n++) {
        st = step(&c, s, &lay, traj + n * dim, traj + (n + 1) * dim);
        if (st != COSA_OK)
            goto done;
    }
done:
    cosim_free(&c);
    return st;
}
