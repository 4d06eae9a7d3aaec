/* unit_linear.c -- a linear subsystem x' = A x + B u, y = C x + D u as a
 * co-simulation unit with exact steps.
 *
 * With the input polynomial u(t_c + tau) = sum_m c_m tau^m = sum_m a_m (tau/h)^m,
 * a_m = c_m h^m, variation of constants gives
 *   x(t_c + h) = e^{Ah} x + sum_m Q_m a_m,  Q_m = int_0^h e^{A(h-tau)} B (tau/h)^m dtau,
 * and (e^{Ah}, Q_0..Q_p) is one Van Loan exponential -- the same code that
 * builds Phi (cosa_disc_compute, cached while h and the degree stay the same).
 * A unit without states (nx = 0, a pure gain y = D u) has nothing to
 * integrate: a step only moves the time, and its Jacobian is D. */
#include "td/unit_impl.h"
#include "core/dense.h"
#include "core/discretize_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct linear_impl {
    cosa_system *sys;        /* the unit alone, L = 0; NULL if nx = 0 */
    cosa_disc_workspace *dw; /* allocated for degrees up to pmax     */
    int pmax;
    double *Dcopy;           /* nx = 0: D (ny x nu), as sys would hold it */
    const double *A, *B, *C, *D; /* views into sys (or Dcopy)        */
};

static void destroy(cosa_unit *u)
{
    struct linear_impl *li = u->impl;
    if (!li)
        return;
    cosa_disc_workspace_free(li->dw);
    cosa_system_free(li->sys);
    free(li->Dcopy);
    free(li);
    u->impl = NULL;
}

/* Make room for input polynomials of degree p. */
static cosa_status reserve(cosa_unit *u, int p)
{
    struct linear_impl *li = u->impl;
    if (li->dw && p <= li->pmax)
        return COSA_OK;
    cosa_disc_workspace *dw = cosa_disc_workspace_alloc(li->sys, p);
    if (!dw)
        return COSA_ENOMEM;
    cosa_disc_workspace_free(li->dw);
    li->dw = dw;
    li->pmax = p;
    return COSA_OK;
}

static cosa_status step(cosa_unit *u, double h, double *xnew)
{
    struct linear_impl *li = u->impl;
    const size_t nx = u->nx, nu = u->nu;
    if (nx == 0)
        return COSA_OK;
    cosa_status st = reserve(u, u->deg);
    if (st == COSA_OK)
        st = cosa_disc_compute(li->sys, u->deg, h, li->dw);
    if (st != COSA_OK) {
        cosa_unit_fail(u, "linear unit: discretisation at h = %.17g failed: %s", h,
                       cosa_strerror(st));
        return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
    }
    const double *Ad = cosa_disc_Ad(li->dw), *Q = cosa_disc_Q(li->dw);
    dense_gemv(nx, nx, 1.0, Ad, nx, u->x, 0.0, xnew);
    double hm = 1.0;
    for (int m = 0; m <= u->deg && nu; m++) {
        for (size_t k = 0; k < nu; k++)
            u->uwork[k] = u->coef[k + (size_t)m * nu] * hm;
        dense_gemv(nx, nu, 1.0, Q + (size_t)m * nx * nu, nx, u->uwork, 1.0, xnew);
        hm *= h;
    }
    return COSA_OK;
}

static cosa_status eval(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y)
{
    struct linear_impl *li = u->impl;
    const size_t nx = u->nx, nu = u->nu, ny = u->ny;
    if (xdot && nx) {
        dense_gemv(nx, nx, 1.0, li->A, nx, x, 0.0, xdot);
        if (nu)
            dense_gemv(nx, nu, 1.0, li->B, nx, uin, 1.0, xdot);
    }
    if (y) {
        for (size_t k = 0; k < ny; k++)
            y[k] = 0.0;
        if (nx)
            dense_gemv(ny, nx, 1.0, li->C, ny, x, 0.0, y);
        if (nu)
            dense_gemv(ny, nu, 1.0, li->D, ny, uin, 1.0, y);
    }
    return COSA_OK;
}

static cosa_status jac(cosa_unit *u, double t, const double *x, const double *uin, double *A,
                       double *B, double *C, double *D)
{
    struct linear_impl *li = u->impl;
    if (A && u->nx)
        memcpy(A, li->A, u->nx * u->nx * sizeof *A);
    if (B && u->nx && u->nu)
        memcpy(B, li->B, u->nx * u->nu * sizeof *B);
    if (C && u->ny && u->nx)
        memcpy(C, li->C, u->ny * u->nx * sizeof *C);
    if (D && u->ny && u->nu)
        memcpy(D, li->D, u->ny * u->nu * sizeof *D);
    return COSA_OK;
}

/* The state of a linear unit is (t_c, x, input) only; its discretisation is
 * a cache keyed on the exact (A, B, h, degree), so snapshots need nothing of
 * the type. */
static const cosa_unit_type linear_type = {
    .name = "linear unit",
    .caps = COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN | COSA_UNIT_CAN_SAVE_STATE |
            COSA_UNIT_LINEAR,
    .max_input_degree = COSA_UNIT_DEGMAX,
    .step = step,
    .eval = eval,
    .jacobian = jac,
    .destroy = destroy,
};

cosa_status cosa_unit_linear_create(const cosa_subsystem *sub, cosa_unit **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!sub)
        return COSA_EINVAL;
    const size_t nx = sub->nx, nu = sub->nu, ny = sub->ny;
    if (nx == 0) {
        /* no cosa_system for a unit without states (it needs nx > 0):
         * validate D here as cosa_system_create would */
        if (ny && nu && !sub->D)
            return COSA_EINVAL;
        if (ny && nu && !dense_isfinite(ny, nu, sub->D, ny))
            return COSA_ENONFINITE;
    }
    cosa_unit *u = NULL;
    double *L = NULL;
    struct linear_impl *li = calloc(1, sizeof *li);
    if (!li)
        return COSA_ENOMEM;
    cosa_status st = cosa_unit_create(&linear_type, nx, nu, ny, li, &u);
    if (st != COSA_OK) {
        free(li);
        return st;
    }
    st = COSA_ENOMEM;
    if (nx == 0) {
        if (!(li->Dcopy = calloc(ny * nu + 1, sizeof(double))))
            goto fail;
        if (ny && nu)
            memcpy(li->Dcopy, sub->D, ny * nu * sizeof(double));
        li->A = li->B = li->C = li->D = li->Dcopy; /* A, B, C are empty */
    } else {
        if (!(L = calloc(nu * ny + 1, sizeof(double))))
            goto fail;
        /* validation of shapes and finiteness happens here */
        if ((st = cosa_system_create(&li->sys, 1, sub, L)) != COSA_OK)
            goto fail;
        li->A = cosa_system_A(li->sys);
        li->B = cosa_system_B(li->sys);
        li->C = cosa_system_C(li->sys);
        li->D = cosa_system_D(li->sys);
        if ((st = reserve(u, 0)) != COSA_OK)
            goto fail;
        free(L);
    }
    *out = u;
    return COSA_OK;
fail:
    free(L);
    cosa_unit_free(u);
    return st;
}

cosa_status cosa_unit_linear_from_system(const cosa_system *sys, size_t i, cosa_unit **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    size_t nx, nu, ny, ox, ou, oy;
    cosa_status st = cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &ox, &ou, &oy);
    if (st != COSA_OK)
        return st;
    const size_t NX = cosa_system_nx(sys), NY = cosa_system_ny(sys);
    double *buf = calloc(nx * nx + nx * nu + ny * nx + ny * nu + 1, sizeof(double));
    if (!buf)
        return COSA_ENOMEM;
    double *A = buf, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx;
    dense_copy(nx, nx, cosa_system_A(sys) + ox + ox * NX, NX, A, nx);
    dense_copy(nx, nu, cosa_system_B(sys) + ox + ou * NX, NX, B, nx);
    dense_copy(ny, nx, cosa_system_C(sys) + oy + ox * NY, NY, C, ny);
    dense_copy(ny, nu, cosa_system_D(sys) + oy + ou * NY, NY, D, ny);
    cosa_subsystem sub = {nx, nu, ny, A, B, C, D};
    st = cosa_unit_linear_create(&sub, out);
    free(buf);
    return st;
}
