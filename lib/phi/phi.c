/* phi.c -- propagation matrices Phi (co-simulation, Jacobi schemes) and
 * Phi* (exact reference, eq 37) on the information-vector layout of
 * doc/method.md, and the initial information vector z0.
 *
 * Jacobi scheme of order p with offset du (doc/method.md, eqs 38-42 generalised):
 *   utilde(s) = L sum_j l_j(s) ybar_{n-j} + du_n,   s = (t - T_n)/h
 *   x_{n+1}   = A_d x_n + sum_j P_j L ybar_{n-j} + Q_0 du_n,   P_j = sum_m lag_jm Q_m
 *   y_{n+1}   = C x_{n+1} + D (L E_p + du_n),                  E_p = sum_j e_j ybar_{n-j}
 * output correction (eq 14 integrated, q = p):
 *   ybar_{n+1} = (I - G_p L)^{-1} (y_{n+1} - G_p L E_p - G_0 du_n)
 *   G_p = C sum_m w_m Q_m + D,  G_0 = C Q_0 + D
 * state correction (eq 22 integrated exactly, q = p + 1):
 *   du_{n+1} = (1 - alpha) du_n + alpha kappa_p L (ybar_{n+1} - E_p). */
#include "phi/phi_impl.h"
#include "core/system_impl.h"
#include "core/dense.h"
#include "core/discretize_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cosa_phi_workspace_free(cosa_phi_workspace *w)
{
    if (!w)
        return;
    cosa_disc_workspace_free(w->dw);
    cosa_disc_workspace_free(w->dwm);
    cosa_expm_workspace_free(w->ew);
    free(w->M);
    free(w->P);
    free(w->PL);
    free(w->Y);
    free(w->Gp);
    free(w->G0);
    free(w->IGL);
    free(w->ipiv);
    free(w->tmp_yu);
    free(w->Astar);
    free(w->Cstar);
    free(w->Adstar);
    free(w->work_xy);
    free(w->xk);
    free(w->xk1);
    free(w->Tref);
    free(w->gsR);
    free(w->gsU);
    free(w->done);
    free(w->owner);
    free(w->sub_dims);
    free(w->iX);
    free(w->iH);
    free(w->iS);
    free(w->iwr);
    free(w->iwi);
    free(w->icw);
    free(w->iciw);
    free(w->iridx);
    free(w->ipos);
    cosa_eig_workspace_free(w->ieig);
    free(w);
}

static double *dalloc(size_t n) { return calloc(n ? n : 1, sizeof(double)); }

cosa_phi_workspace *cosa_phi_workspace_alloc(const cosa_system *sys, int pmax)
{
    if (!sys || pmax < 0 || pmax > COSA_ORDER_MAX)
        return NULL;
    cosa_phi_workspace *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    size_t nx = sys->nx, nu = sys->nu, ny = sys->ny, np = (size_t)pmax + 1;
    w->nsub = sys->nsub;
    w->nx = nx;
    w->nu = nu;
    w->ny = ny;
    w->pmax = pmax;
    w->dimmax = nx + np * ny + nu;
    /* iterative schemes interpolate with degree q <= p + 1 (<= COSA_ORDER_MAX) */
    w->qmax = pmax < COSA_ORDER_MAX ? pmax + 1 : COSA_ORDER_MAX;
    w->wmax = w->dimmax + ny;
    const size_t nq = (size_t)w->qmax + 1;
    w->dw = cosa_disc_workspace_alloc(sys, w->qmax);
    w->dwm = cosa_disc_workspace_alloc(sys, pmax);
    if (w->dw) {
        w->Ad = cosa_disc_Ad(w->dw);
        w->Q = cosa_disc_Q(w->dw);
    }
    w->ew = cosa_expm_workspace_alloc(nx);
    w->M = dalloc(nx * nx);
    w->P = dalloc(nq * nx * nu); /* P_j of degree p (Jacobi) or q (phi_iter.c) */
    w->PL = dalloc(nx * ny);
    w->Y = dalloc(ny * w->wmax);
    w->Gp = dalloc(ny * nu);
    w->G0 = dalloc(ny * nu);
    w->IGL = dalloc(ny * ny);
    w->ipiv = calloc(ny + 1, sizeof(lapack_int));
    w->tmp_yu = dalloc(ny * nu);
    w->Astar = dalloc(nx * nx);
    w->Cstar = dalloc(ny * nx);
    w->Adstar = dalloc(nx * nx);
    w->work_xy = dalloc(nx * ny);
    w->xk = dalloc(nx);
    w->xk1 = dalloc(nx);
    w->Tref = dalloc(w->dimmax * nx);
    w->gsR = dalloc(nq * ny * w->wmax);
    w->gsU = dalloc(nq * nu * w->wmax);
    w->iX = dalloc(nx * w->wmax);
    w->iH = dalloc(ny * w->wmax);
    w->iS = dalloc(ny * ny);
    w->iwr = dalloc(ny);
    w->iwi = dalloc(ny);
    w->icw = dalloc(4 * ny);
    w->iciw = calloc(ny + 1, sizeof(lapack_int));
    w->iridx = calloc(ny + 1, sizeof(size_t));
    w->ipos = calloc(sys->nsub + 1, sizeof(size_t));
    w->ieig = cosa_eig_workspace_alloc(ny ? ny : 1);
    if (!w->iX || !w->iH || !w->iS || !w->iwr || !w->iwi || !w->icw || !w->iciw || !w->iridx ||
        !w->ipos || !w->ieig)
        goto fail;
    w->done = calloc(sys->nsub, 1);
    w->owner = calloc(ny + 1, sizeof(size_t));
    w->sub_dims = calloc(3 * sys->nsub, sizeof(size_t));
    if (!w->gsR || !w->gsU || !w->done || !w->owner || !w->sub_dims)
        goto fail;
    for (size_t i = 0; i < sys->nsub; i++) {
        w->sub_dims[3 * i] = sys->sub[i].nx;
        w->sub_dims[3 * i + 1] = sys->sub[i].nu;
        w->sub_dims[3 * i + 2] = sys->sub[i].ny;
    }
    for (size_t i = 0; i < sys->nsub; i++)
        for (size_t k = 0; k < sys->sub[i].ny; k++)
            w->owner[sys->sub[i].oy + k] = i;
    if (!w->dw || !w->dwm || !w->ew || !w->M || !w->P || !w->PL || !w->Y ||
        !w->Gp || !w->G0 || !w->IGL || !w->ipiv || !w->tmp_yu || !w->Astar || !w->Cstar ||
        !w->Adstar || !w->work_xy || !w->xk || !w->xk1 || !w->Tref)
        goto fail;
    return w;
fail:
    cosa_phi_workspace_free(w);
    return NULL;
}

int phi_workspace_fits(const cosa_phi_workspace *w, const cosa_system *sys, int p)
{
    if (!w || !sys || p > w->pmax || w->nsub != sys->nsub || w->nx != sys->nx ||
        w->nu != sys->nu || w->ny != sys->ny)
        return 0;
    for (size_t i = 0; i < sys->nsub; i++)
        if (w->sub_dims[3 * i] != sys->sub[i].nx || w->sub_dims[3 * i + 1] != sys->sub[i].nu ||
            w->sub_dims[3 * i + 2] != sys->sub[i].ny)
            return 0;
    return 1;
}

static cosa_status check_common(const cosa_system *sys, const cosa_scheme *s, double dt,
                                const cosa_phi_workspace *w, cosa_layout *lay)
{
    if (!sys || !s || !w)
        return COSA_EINVAL;
    if (!isfinite(dt))
        return COSA_ENONFINITE;
    if (!(dt > 0.0))
        return COSA_ERANGE;
    cosa_status st = cosa_layout_get(sys, s, lay);
    if (st != COSA_OK)
        return st;
    if (!phi_workspace_fits(w, sys, s->order))
        return COSA_EWORKSPACE;
    return COSA_OK;
}

/* History shift rows of Phi and Phi*: ybar_{n-j+1} <- ybar_{n-j}, j = 1..p
 * (identity blocks below the ybar_n block). */
static void set_history_shift(const cosa_layout *lay, double *Phi, size_t ld)
{
    for (size_t j = 1; j < lay->nhist; j++)
        for (size_t k = 0; k < lay->ny; k++)
            Phi[lay->off_y + j * lay->ny + k + (lay->off_y + (j - 1) * lay->ny + k) * ld] = 1.0;
}

/* Gauss-Seidel (sequential) scheme of order p, doc/method.md: subsystems advance
 * one after another in the order s->seq.  An output whose subsystem has
 * already advanced in this macro step enters its consumers through the
 * degree-p interpolant through y_{n+1}, ybar_n, ..., ybar_{n+1-p} (nodes
 * s = 1, 0, ..., 1-p); any other output through the extrapolant (nodes
 * 0, ..., -p).  Every quantity is a row vector over z_n: the polynomial
 * coefficients R_m of each output (ny x dim per degree m), the input
 * coefficients U_m = L_i R_m of subsystem i, its new state
 * x_{n+1} = A_d x_n + sum_m Q_m U_m, and its new output
 * y_{n+1} = C_i x_{n+1} + D_i sum_m U_m (the input at s = 1). */
static cosa_status phi_build_gs(const cosa_system *sys, const cosa_scheme *s,
                                const cosa_layout *lay, double *Phi, size_t ld,
                                cosa_phi_workspace *w)
{
    const int p = s->order;
    const size_t np = (size_t)p + 1, nx = lay->nx, ny = lay->ny, nu = lay->nu, dim = lay->dim;
    const size_t xu = nx * nu, rb = ny * dim, ub = nu * dim;
    double ext[(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)];
    double itp[(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)];
    cosa_lagrange_table(p, 0.0, ext);
    cosa_lagrange_table(p, 1.0, itp);
    double *R = w->gsR, *U = w->gsU, *Y = w->Y;

    dense_zero(dim, dim, Phi, ld);
    dense_zero(ny, dim, Y, ny);
    memset(w->done, 0, sys->nsub);
    /* Extrapolation coefficients for every output: R_m(o, slot j o) = ext_jm. */
    for (size_t m = 0; m < np; m++) {
        double *Rm = R + m * rb;
        dense_zero(ny, dim, Rm, ny);
        for (size_t j = 0; j < np; j++)
            for (size_t o = 0; o < ny; o++)
                Rm[o + (lay->off_y + j * ny + o) * ny] = ext[j * np + m];
    }
    for (size_t q = 0; q < sys->nsub; q++) {
        size_t i = s->seq ? s->seq[q] : q;
        const struct cosa_sub_info *b = &sys->sub[i];
        /* U_m = L(rows of i) R_m */
        for (size_t m = 0; m < np; m++)
            dense_gemm('N', 'N', b->nu, dim, ny, 1.0, sys->L + b->ou, nu, R + m * rb, ny, 0.0,
                      U + m * ub, nu);
        /* x_{n+1} rows of subsystem i */
        double *Xi = Phi + b->ox;
        for (size_t c = 0; c < b->nx; c++)
            for (size_t r = 0; r < b->nx; r++)
                Xi[r + (b->ox + c) * ld] = w->Ad[b->ox + r + (b->ox + c) * nx];
        for (size_t m = 0; m < np; m++)
            dense_gemm('N', 'N', b->nx, dim, b->nu, 1.0, w->Q + m * xu + b->ox + b->ou * nx, nx,
                      U + m * ub, nu, 1.0, Xi, ld);
        /* y_{n+1} rows: C_i x_{n+1} + D_i u_i(1) */
        double *Yi = Y + b->oy;
        dense_gemm('N', 'N', b->ny, dim, b->nx, 1.0, sys->C + b->oy + b->ox * ny, ny, Xi, ld,
                  0.0, Yi, ny);
        for (size_t m = 0; m < np; m++)
            dense_gemm('N', 'N', b->ny, dim, b->nu, 1.0, sys->D + b->oy + b->ou * ny, ny,
                      U + m * ub, nu, 1.0, Yi, ny);
        w->done[i] = 1;
        /* From now on, outputs of i enter through the interpolant:
         * R_m(o) = itp_0m y_{n+1}(o) + sum_{j>=1} itp_jm ybar_{n+1-j}(o). */
        for (size_t m = 0; m < np; m++) {
            double *Rm = R + m * rb;
            for (size_t o = b->oy; o < b->oy + b->ny; o++) {
                for (size_t c = 0; c < dim; c++)
                    Rm[o + c * ny] = itp[m] * Y[o + c * ny];
                for (size_t j = 1; j < np; j++)
                    Rm[o + (lay->off_y + (j - 1) * ny + o) * ny] += itp[j * np + m];
            }
        }
    }
    /* ybar_{n+1} = y_{n+1} (no correction for Gauss-Seidel); history shift. */
    dense_copy(ny, dim, Y, ny, Phi + lay->off_y, ld);
    set_history_shift(lay, Phi, ld);
    if (!dense_isfinite(dim, dim, Phi, ld))
        return COSA_ENOTCONVERGED;
    return COSA_OK;
}

cosa_status cosa_phi_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                           double *Phi, size_t ld, cosa_phi_workspace *w)
{
    cosa_layout lay;
    cosa_status st = check_common(sys, s, dt, w, &lay);
    if (st != COSA_OK)
        return st;
    if (!Phi || ld < lay.dim)
        return COSA_EINVAL;
    if (cosa_iteration_of(s)->iterates) /* the coupling descriptor's entry */
        return phi_build_iter(sys, s, &lay, dt, Phi, ld, w);
    if (s->exec == COSA_GAUSS_SEIDEL) {
        st = cosa_disc_compute(sys, s->order, dt, w->dw);
        return st == COSA_OK ? phi_build_gs(sys, s, &lay, Phi, ld, w) : st;
    }
    const int p = s->order;
    const size_t np = (size_t)p + 1, nx = lay.nx, ny = lay.ny, nu = lay.nu, dim = lay.dim;
    const size_t xu = nx * nu;
    const double *C = sys->C, *D = sys->D, *L = sys->L;

    st = cosa_disc_compute(sys, p, dt, w->dw);
    if (st != COSA_OK)
        return st;

    double lag[(COSA_ORDER_MAX + 1) * (COSA_ORDER_MAX + 1)], e[COSA_ORDER_MAX + 1];
    double wp[COSA_ORDER_MAX + 1];
    double kappa = cosa_order_tables(p, lag, e, wp);

    /* P_j = sum_m lag_jm Q_m  (input-to-state map of ybar_{n-j} before L). */
    for (size_t j = 0; j < np; j++) {
        double *Pj = w->P + j * xu;
        memset(Pj, 0, xu * sizeof(double));
        for (size_t m = 0; m < np; m++) {
            double c = lag[j * np + m];
            if (c == 0.0)
                continue;
            const double *Qm = w->Q + m * xu;
            for (size_t k = 0; k < xu; k++)
                Pj[k] += c * Qm[k];
        }
    }

    dense_zero(dim, dim, Phi, ld);
    double *Y = w->Y; /* ny x dim, ld ny: output rows of ybar_{n+1} */

    /* x_{n+1} rows and raw y_{n+1} = C x_{n+1} + D utilde(1). */
    dense_copy(nx, nx, w->Ad, nx, Phi, ld);
    for (size_t j = 0; j < np; j++) {
        double *col = Phi + (lay.off_y + j * ny) * ld;
        dense_gemm('N', 'N', nx, ny, nu, 1.0, w->P + j * xu, nx, L, nu, 0.0, col, ld);
    }
    if (lay.has_du)
        dense_copy(nx, nu, w->Q, nx, Phi + lay.off_du * ld, ld);
    /* Y = C * (x rows of Phi) */
    dense_gemm('N', 'N', ny, dim, nx, 1.0, C, ny, Phi, ld, 0.0, Y, ny);
    /* D L E_p: column block j gets e_j D L;  du column gets D. */
    double *DL = w->IGL; /* reuse as ny x ny scratch */
    dense_gemm('N', 'N', ny, ny, nu, 1.0, D, ny, L, nu, 0.0, DL, ny);
    for (size_t j = 0; j < np; j++) {
        double *Yj = Y + (lay.off_y + j * ny) * ny;
        for (size_t k = 0; k < ny * ny; k++)
            Yj[k] += e[j] * DL[k];
    }
    if (lay.has_du)
        for (size_t k = 0; k < ny * nu; k++)
            Y[lay.off_du * ny + k] += D[k];

    if (s->corr & COSA_CORR_OUTPUT) {
        /* G_p = C sum_m w_m Q_m + D;  G_0 = C Q_0 + D, of the model the
         * correction believes in (s->model; the true system by default):
         * its A_i, B_i enter through Q_m, its C_i, D_i directly, block by
         * block -- a subsystem without inputs has no block. */
        const double *Cm = C, *Dm = D, *Qm = w->Q;
        if (s->model && s->model != sys) {
            st = cosa_disc_compute(s->model, p, dt, w->dwm);
            if (st != COSA_OK)
                return st;
            Cm = s->model->C;
            Dm = s->model->D;
            Qm = cosa_disc_Q(w->dwm);
        }
        memcpy(w->Gp, Dm, ny * nu * sizeof(double));
        for (size_t m = 0; m < np; m++)
            if (wp[m] != 0.0)
                dense_gemm('N', 'N', ny, nu, nx, wp[m], Cm, ny, Qm + m * xu, nx, 1.0, w->Gp, ny);
        memcpy(w->G0, Dm, ny * nu * sizeof(double));
        dense_gemm('N', 'N', ny, nu, nx, 1.0, Cm, ny, Qm, nx, 1.0, w->G0, ny);
        /* GL = G_p L;  Y[slot j] -= e_j GL;  Y[du] -= G_0. */
        double *GL = w->IGL;
        dense_gemm('N', 'N', ny, ny, nu, 1.0, w->Gp, ny, L, nu, 0.0, GL, ny);
        for (size_t j = 0; j < np; j++) {
            double *Yj = Y + (lay.off_y + j * ny) * ny;
            for (size_t k = 0; k < ny * ny; k++)
                Yj[k] -= e[j] * GL[k];
        }
        if (lay.has_du)
            for (size_t k = 0; k < ny * nu; k++)
                Y[lay.off_du * ny + k] -= w->G0[k];
        /* Solve (I - G_p L) Ybar = Y. */
        for (size_t k = 0; k < ny * ny; k++)
            GL[k] = -GL[k];
        for (size_t k = 0; k < ny; k++)
            GL[k + k * ny] += 1.0;
        if (dense_lu(ny, GL, ny, w->ipiv) != 0)
            return COSA_ECORRSINGULAR;
        dense_lu_solve(ny, dim, GL, ny, w->ipiv, Y, ny);
        if (!dense_isfinite(ny, dim, Y, ny))
            return COSA_ECORRSINGULAR;
    }
    /* ybar_{n+1} rows; history shift ybar_{n-j+1} <- ybar_{n-j+1}. */
    dense_copy(ny, dim, Y, ny, Phi + lay.off_y, ld);
    set_history_shift(&lay, Phi, ld);

    if (lay.has_du) {
        /* du_{n+1} = (1 - alpha) du_n + alpha kappa L (ybar_{n+1} - E_p) */
        double g = s->alpha * kappa;
        double *R = Phi + lay.off_du;
        dense_gemm('N', 'N', nu, dim, ny, g, L, nu, Y, ny, 0.0, R, ld);
        for (size_t j = 0; j < np; j++) {
            double *Rj = R + (lay.off_y + j * ny) * ld;
            for (size_t c = 0; c < ny; c++)
                for (size_t r = 0; r < nu; r++)
                    Rj[r + c * ld] -= g * e[j] * L[r + c * nu];
        }
        for (size_t k = 0; k < nu; k++)
            R[k + (lay.off_du + k) * ld] += 1.0 - s->alpha;
    }
    if (!dense_isfinite(dim, dim, Phi, ld))
        return COSA_ENOTCONVERGED;
    return COSA_OK;
}

/* A*_d = exp(A* dt) and C* into the workspace. */
static cosa_status ref_discretize(const cosa_system *sys, double dt, cosa_phi_workspace *w)
{
    size_t nx = sys->nx;
    cosa_status st = system_monolithic_work(sys, w->Astar, w->Cstar, w->work_xy);
    if (st != COSA_OK)
        return st;
    for (size_t k = 0; k < nx * nx; k++)
        w->Astar[k] *= dt;
    return cosa_expm(nx, w->Astar, nx, w->Adstar, nx, w->ew);
}

cosa_status cosa_phi_ref_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                               double *Phi, size_t ld, cosa_phi_workspace *w)
{
    cosa_layout lay;
    cosa_status st = check_common(sys, s, dt, w, &lay);
    if (st != COSA_OK)
        return st;
    if (!Phi || ld < lay.dim)
        return COSA_EINVAL;
    st = ref_discretize(sys, dt, w);
    if (st != COSA_OK)
        return st;
    size_t nx = lay.nx, ny = lay.ny, dim = lay.dim;
    dense_zero(dim, dim, Phi, ld);
    /* eq 36/37: x_{n+1} = A*_d x_n,  y_{n+1} = C* A*_d x_n;  history shift. */
    dense_copy(nx, nx, w->Adstar, nx, Phi, ld);
    dense_gemm('N', 'N', ny, nx, nx, 1.0, w->Cstar, ny, w->Adstar, nx, 0.0, Phi + lay.off_y, ld);
    set_history_shift(&lay, Phi, ld);
    return COSA_OK;
}

/* T = [A*_d^p; C* A*_d^p; C* A*_d^(p-1); ...; C*; 0] (doc/method.md, section 8):
 * the information vector of the reference at state q is T q, and
 * Phi* T = T A*_d.  Built by the row recursion slot_{j-1} = slot_j A*_d, so
 * that the shift rows of Phi* T - T A*_d are rounding-level componentwise. */
cosa_status cosa_phi_ref_basis(const cosa_system *sys, const cosa_scheme *s, double dt,
                                 double *T, size_t ldt, cosa_phi_workspace *w)
{
    cosa_layout lay;
    cosa_status st = check_common(sys, s, dt, w, &lay);
    if (st != COSA_OK)
        return st;
    if (!T || ldt < lay.dim)
        return COSA_EINVAL;
    st = ref_discretize(sys, dt, w);
    if (st != COSA_OK)
        return st;
    const size_t nx = lay.nx, ny = lay.ny, p = lay.nhist - 1;
    const double *A = w->Adstar;
    double *Pk = w->Astar, *tmp = w->M; /* A*_d^k (w->Astar is free after the exponential) */
    dense_zero(lay.dim, nx, T, ldt);
    /* output slots: slot p = C*, slot j-1 = slot j A*_d */
    double *slot = T + lay.off_y + p * ny;
    dense_copy(ny, nx, w->Cstar, ny, slot, ldt);
    for (size_t j = p; j > 0; j--, slot -= ny) {
        dense_gemm('N', 'N', ny, nx, nx, 1.0, slot, ldt, A, nx, 0.0, w->work_xy, ny);
        dense_copy(ny, nx, w->work_xy, ny, slot - ny, ldt);
    }
    /* state rows: A*_d^p */
    dense_identity(nx, Pk, nx);
    for (size_t k = 0; k < p; k++) {
        dense_gemm('N', 'N', nx, nx, nx, 1.0, Pk, nx, A, nx, 0.0, tmp, nx);
        dense_copy(nx, nx, tmp, nx, Pk, nx);
    }
    dense_copy(nx, nx, Pk, nx, T, ldt);
    if (!dense_isfinite(lay.dim, nx, T, ldt))
        return COSA_ENOTCONVERGED;
    return COSA_OK;
}

cosa_status cosa_z0_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double *z0, cosa_phi_workspace *w)
{
    cosa_layout lay;
    cosa_status st = check_common(sys, s, dt, w, &lay);
    if (st != COSA_OK)
        return st;
    if (!x0 || !z0)
        return COSA_EINVAL;
    if (!dense_isfinite(lay.nx, 1, x0, lay.nx))
        return COSA_ENONFINITE;
    /* z0 = T x0: one code path with the reference basis */
    st = cosa_phi_ref_basis(sys, s, dt, w->Tref, lay.dim, w);
    if (st != COSA_OK)
        return st;
    dense_gemv(lay.dim, lay.nx, 1.0, w->Tref, lay.dim, x0, 0.0, z0);
    if (!dense_isfinite(lay.dim, 1, z0, lay.dim))
        return COSA_ENOTCONVERGED;
    return COSA_OK;
}

cosa_status cosa_discretize(const cosa_system *sys, int p, double dt, double *Ad, double *Q,
                            cosa_phi_workspace *w)
{
    if (!sys || !w || !Ad || !Q)
        return COSA_EINVAL;
    if (!(dt > 0.0) || !isfinite(dt) || p < 0)
        return COSA_ERANGE;
    if (!phi_workspace_fits(w, sys, p))
        return COSA_EWORKSPACE;
    cosa_status st = cosa_disc_compute(sys, p, dt, w->dw);
    if (st != COSA_OK)
        return st;
    size_t nx = sys->nx, nu = sys->nu;
    memcpy(Ad, w->Ad, nx * nx * sizeof(double));
    memcpy(Q, w->Q, (size_t)(p + 1) * nx * nu * sizeof(double));
    return COSA_OK;
}
