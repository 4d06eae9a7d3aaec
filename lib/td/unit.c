/* unit.c -- the co-simulation unit interface (cosa.h, "Units"): state, input
 * polynomial, step, outputs, model evaluation, Jacobians (analytic or central
 * differences), and the Newton solver of the algebraic loop y = g(t, x, L y).
 * The unit types live in unit_linear.c and unit_ode.c. */
#include "td/unit_impl.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOEF (COSA_UNIT_DEGMAX + 1)

cosa_status cosa_unit_alloc(const struct cosa_unit_ops *ops, size_t nx, size_t nu, size_t ny,
                            cosa_unit **out)
{
    *out = NULL;
    cosa_unit *u = calloc(1, sizeof *u);
    if (!u)
        return COSA_ENOMEM;
    u->ops = ops;
    u->nx = nx;
    u->nu = nu;
    u->ny = ny;
    size_t total = 5 * nx + nu * (NCOEF + 2) + 2 * ny + 1;
    double *q = calloc(total, sizeof(double));
    if (!q) {
        free(u);
        return COSA_ENOMEM;
    }
#define CARVE(ptr, n) ((ptr) = q, q += (n))
    CARVE(u->x, nx);
    CARVE(u->coef, nu * NCOEF);
    CARVE(u->uwork, nu);
    CARVE(u->xnew, nx);
    CARVE(u->fdx, nx);
    CARVE(u->fdu, nu);
    CARVE(u->fdf1, nx);
    CARVE(u->fdf2, nx);
    CARVE(u->fdg1, ny);
    CARVE(u->fdg2, ny);
#undef CARVE
    *out = u;
    return COSA_OK;
}

void cosa_unit_free(cosa_unit *u)
{
    if (!u)
        return;
    if (u->ops && u->ops->destroy)
        u->ops->destroy(u);
    free(u->x);
    free(u);
}

void cosa_unit_fail(cosa_unit *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->msg, sizeof u->msg, fmt, ap);
    va_end(ap);
}

const char *cosa_unit_message(const cosa_unit *u) { return u ? u->msg : ""; }

size_t cosa_unit_nx(const cosa_unit *u) { return u ? u->nx : 0; }
size_t cosa_unit_nu(const cosa_unit *u) { return u ? u->nu : 0; }
size_t cosa_unit_ny(const cosa_unit *u) { return u ? u->ny : 0; }
int cosa_unit_is_linear(const cosa_unit *u) { return u && u->ops->linear; }

void cosa_unit_input_at(const cosa_unit *u, double tau, double *v)
{
    for (size_t k = 0; k < u->nu; k++) {
        double s = u->coef[k + (size_t)u->deg * u->nu];
        for (int m = u->deg - 1; m >= 0; m--)
            s = s * tau + u->coef[k + (size_t)m * u->nu];
        v[k] = s;
    }
}

/* Re-expand the input polynomial about the current time (Taylor shift by
 * d = t_c - t_in): c'_k = sum_{j >= k} binom(j, k) d^(j-k) c_j, done as
 * repeated synthetic division, exact up to rounding. */
static void shift_input(cosa_unit *u)
{
    double d = u->t - u->t_in;
    if (d != 0.0)
        for (size_t k = 0; k < u->nu; k++)
            for (int i = 0; i < u->deg; i++)
                for (int j = u->deg - 1; j >= i; j--)
                    u->coef[k + (size_t)j * u->nu] += d * u->coef[k + (size_t)(j + 1) * u->nu];
    u->t_in = u->t;
}

cosa_status cosa_unit_set_state(cosa_unit *u, double t, const double *x)
{
    if (!u || (u->nx && !x))
        return COSA_EINVAL;
    if (!isfinite(t) || !cosa_mat_isfinite(u->nx, 1, x, u->nx))
        return COSA_ENONFINITE;
    if (u->nx)
        memcpy(u->x, x, u->nx * sizeof *x);
    u->t = t;
    u->t_in = t;
    if (u->ops->reset)
        u->ops->reset(u);
    return COSA_OK;
}

cosa_status cosa_unit_get_state(const cosa_unit *u, double *t, double *x)
{
    if (!u)
        return COSA_EINVAL;
    if (t)
        *t = u->t;
    if (x && u->nx)
        memcpy(x, u->x, u->nx * sizeof *x);
    return COSA_OK;
}

cosa_status cosa_unit_set_input(cosa_unit *u, int deg, const double *der)
{
    if (!u || (u->nu && !der))
        return COSA_EINVAL;
    if (deg < 0 || deg > COSA_UNIT_DEGMAX)
        return COSA_ERANGE;
    if (!cosa_mat_isfinite(u->nu, (size_t)deg + 1, der, u->nu))
        return COSA_ENONFINITE;
    double fact = 1.0;
    for (int m = 0; m <= deg; m++) {
        if (m > 1)
            fact *= m;
        for (size_t k = 0; k < u->nu; k++)
            u->coef[k + (size_t)m * u->nu] = der[k + (size_t)m * u->nu] / fact;
    }
    u->deg = deg;
    u->t_in = u->t;
    return COSA_OK;
}

cosa_status cosa_unit_do_step(cosa_unit *u, double h)
{
    if (!u)
        return COSA_EINVAL;
    if (!isfinite(h) || !(h > 0.0))
        return COSA_ERANGE;
    shift_input(u);
    u->msg[0] = '\0';
    cosa_status st = u->ops->step(u, h, u->xnew);
    if (st != COSA_OK)
        return st;
    if (!cosa_mat_isfinite(u->nx, 1, u->xnew, u->nx)) {
        cosa_unit_fail(u, "%s: the state is not finite at t = %.17g", u->ops->name, u->t + h);
        return COSA_ENONFINITE;
    }
    if (u->nx)
        memcpy(u->x, u->xnew, u->nx * sizeof *u->x);
    u->t += h;
    return COSA_OK;
}

cosa_status cosa_unit_get_output(cosa_unit *u, double *y)
{
    if (!u || (u->ny && !y))
        return COSA_EINVAL;
    if (!u->ny)
        return COSA_OK;
    cosa_unit_input_at(u, u->t - u->t_in, u->uwork);
    cosa_status st = u->ops->eval(u, u->t, u->x, u->uwork, NULL, y);
    if (st == COSA_OK && !cosa_mat_isfinite(u->ny, 1, y, u->ny)) {
        cosa_unit_fail(u, "%s: output not finite at t = %.17g", u->ops->name, u->t);
        st = COSA_ENONFINITE;
    }
    return st;
}

static int args_ok(const cosa_unit *u, double t, const double *x, const double *uin)
{
    return isfinite(t) && cosa_mat_isfinite(u->nx, 1, x, u->nx) &&
           cosa_mat_isfinite(u->nu, 1, uin, u->nu);
}

cosa_status cosa_unit_eval(cosa_unit *u, double t, const double *x, const double *uin,
                           double *xdot, double *y)
{
    if (!u || (u->nx && !x) || (u->nu && !uin))
        return COSA_EINVAL;
    if (!args_ok(u, t, x, uin))
        return COSA_ENONFINITE;
    return u->ops->eval(u, t, x, uin, u->nx ? xdot : NULL, u->ny ? y : NULL);
}

/* Central-difference step for entry j of z (length n): the scale is |z_j|,
 * at least 1e-3 ||z||_inf, or 1 if z is zero; the step is made exactly
 * representable (z_j + d - z_j == d). */
static double fd_step(size_t n, const double *z, size_t j)
{
    double zmax = 0.0;
    for (size_t i = 0; i < n; i++)
        zmax = fmax(zmax, fabs(z[i]));
    double scale = fmax(fabs(z[j]), 1e-3 * zmax);
    if (scale == 0.0)
        scale = 1.0;
    double d = cbrt(DBL_EPSILON) * scale;
    volatile double tmp = z[j] + d;
    return tmp - z[j];
}

/* Columns of d(f, g)/dz by central differences, z = x (which = 0) or uin (1). */
static cosa_status fd_columns(cosa_unit *u, double t, const double *x, const double *uin,
                              int which, double *Jf, double *Jg)
{
    const size_t n = which == 0 ? u->nx : u->nu;
    double *z = which == 0 ? u->fdx : u->fdu;
    const double *z0 = which == 0 ? x : uin;
    if (u->nx) /* x, uin may be NULL when empty */
        memcpy(u->fdx, x, u->nx * sizeof *x);
    if (u->nu)
        memcpy(u->fdu, uin, u->nu * sizeof *uin);
    for (size_t j = 0; j < n; j++) {
        double d = fd_step(n, z0, j);
        z[j] = z0[j] + d;
        cosa_status st = u->ops->eval(u, t, u->fdx, u->fdu, Jf ? u->fdf1 : NULL,
                                      Jg ? u->fdg1 : NULL);
        if (st == COSA_OK) {
            z[j] = z0[j] - d;
            st = u->ops->eval(u, t, u->fdx, u->fdu, Jf ? u->fdf2 : NULL, Jg ? u->fdg2 : NULL);
        }
        z[j] = z0[j];
        if (st != COSA_OK)
            return st;
        for (size_t r = 0; Jf && r < u->nx; r++)
            Jf[r + j * u->nx] = (u->fdf1[r] - u->fdf2[r]) / (2.0 * d);
        for (size_t r = 0; Jg && r < u->ny; r++)
            Jg[r + j * u->ny] = (u->fdg1[r] - u->fdg2[r]) / (2.0 * d);
    }
    return COSA_OK;
}

cosa_status cosa_unit_jacobian(cosa_unit *u, double t, const double *x, const double *uin,
                               int force_fd, double *A, double *B, double *C, double *D)
{
    if (!u || (u->nx && !x) || (u->nu && !uin))
        return COSA_EINVAL;
    if (!args_ok(u, t, x, uin))
        return COSA_ENONFINITE;
    if (!u->nx)
        A = B = C = NULL;
    if (!u->nu)
        B = D = NULL;
    if (!u->ny)
        C = D = NULL;
    cosa_status st;
    if (u->ops->jac && !force_fd)
        st = u->ops->jac(u, t, x, uin, A, B, C, D);
    else {
        st = COSA_OK;
        if (A || C)
            st = fd_columns(u, t, x, uin, 0, A, C);
        if (st == COSA_OK && (B || D))
            st = fd_columns(u, t, x, uin, 1, B, D);
    }
    if (st != COSA_OK)
        return st;
    if ((A && !cosa_mat_isfinite(u->nx, u->nx, A, u->nx)) ||
        (B && !cosa_mat_isfinite(u->nx, u->nu, B, u->nx)) ||
        (C && !cosa_mat_isfinite(u->ny, u->nx, C, u->ny)) ||
        (D && !cosa_mat_isfinite(u->ny, u->nu, D, u->ny))) {
        cosa_unit_fail(u, "%s: Jacobian not finite at t = %.17g", u->ops->name, t);
        return COSA_ENONFINITE;
    }
    return COSA_OK;
}

/* ------------------------------------------------------------------------ */
/* Algebraic loop                                                           */
/* ------------------------------------------------------------------------ */

cosa_status cosa_loop_ws_init(struct cosa_loop_ws *w, size_t nunits, cosa_unit *const *units)
{
    memset(w, 0, sizeof *w);
    w->nunits = nunits;
    for (size_t i = 0; i < nunits; i++) {
        w->nx += units[i]->nx;
        w->nu += units[i]->nu;
        w->ny += units[i]->ny;
    }
    const size_t nu = w->nu, ny = w->ny;
    double *q = calloc(nu + ny + 2 * ny * nu + ny * ny + ny + 1, sizeof(double));
    w->ipiv = calloc(ny + 1, sizeof *w->ipiv);
    w->owner = q;
    if (!q || !w->ipiv) {
        cosa_loop_ws_free(w);
        return COSA_ENOMEM;
    }
    w->u = q;
    w->g = w->u + nu;
    w->D = w->g + ny;
    w->J = w->D + ny * nu;
    w->r = w->J + ny * ny;
    w->Di = w->r + ny;
    return COSA_OK;
}

void cosa_loop_ws_free(struct cosa_loop_ws *w)
{
    free(w->owner);
    free(w->ipiv);
    w->owner = NULL;
    w->ipiv = NULL;
}

/* Newton on r(y) = y - g(t, x, L y):  (I - D L) dy = r,  y <- y - dy, with
 * D = dg/du (block diagonal) at the current iterate.  Converged one
 * iteration after ||dy||_inf <= 1e-10 ||y||_inf (quadratic convergence then
 * leaves rounding-level changes), or when dy = 0. */
cosa_status cosa_units_loop_solve_ws(size_t nunits, cosa_unit *const *units, const double *L,
                                     double t, const double *x, double *y,
                                     struct cosa_loop_ws *w)
{
    const size_t nu = w->nu, ny = w->ny;
    if (ny == 0)
        return COSA_OK;
    int last = 0;
    for (int it = 0; it < 50; it++) {
        if (nu)
            cosa_gemv(nu, ny, 1.0, L, nu, y, 0.0, w->u);
        cosa_mat_zero(ny, nu, w->D, ny);
        size_t ox = 0, ou = 0, oy = 0;
        for (size_t i = 0; i < nunits; i++) {
            cosa_unit *un = units[i];
            double *Di = NULL;
            if (un->nu && un->ny) {
                /* D_i goes into the stacked D through a contiguous scratch */
                Di = w->Di;
                cosa_status st = cosa_unit_jacobian(un, t, x + ox, w->u + ou, 0, NULL, NULL,
                                                    NULL, Di);
                if (st != COSA_OK)
                    return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
                cosa_mat_copy(un->ny, un->nu, Di, un->ny, w->D + oy + ou * ny, ny);
            }
            cosa_status st = cosa_unit_eval(un, t, x + ox, w->u + ou, NULL, w->g + oy);
            if (st != COSA_OK)
                return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
            ox += un->nx;
            ou += un->nu;
            oy += un->ny;
        }
        double ynorm = 0.0, dnorm = 0.0;
        for (size_t k = 0; k < ny; k++)
            w->r[k] = y[k] - w->g[k];
        cosa_mat_identity(ny, w->J, ny);
        if (nu)
            cosa_gemm('N', 'N', ny, ny, nu, -1.0, w->D, ny, L, nu, 1.0, w->J, ny);
        if (!cosa_mat_isfinite(ny, 1, w->r, ny) || !cosa_mat_isfinite(ny, ny, w->J, ny))
            return COSA_ENOTCONVERGED;
        if (cosa_lu(ny, w->J, ny, w->ipiv) != 0)
            return COSA_EALGLOOP;
        cosa_lu_solve(ny, 1, w->J, ny, w->ipiv, w->r, ny);
        for (size_t k = 0; k < ny; k++) {
            y[k] -= w->r[k];
            ynorm = fmax(ynorm, fabs(y[k]));
            dnorm = fmax(dnorm, fabs(w->r[k]));
        }
        if (!isfinite(ynorm) || !isfinite(dnorm))
            return COSA_ENOTCONVERGED;
        if (last || dnorm == 0.0)
            return COSA_OK;
        if (dnorm <= 1e-10 * ynorm)
            last = 1;
    }
    return COSA_ENOTCONVERGED;
}

cosa_status cosa_units_loop_solve(size_t nunits, cosa_unit *const *units, const double *L,
                                  double t, const double *x, double *y)
{
    if (!units || nunits == 0)
        return COSA_EINVAL;
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < nunits; i++) {
        if (!units[i])
            return COSA_EINVAL;
        nx += units[i]->nx;
        nu += units[i]->nu;
        ny += units[i]->ny;
    }
    if ((nx && !x) || (ny && !y) || (nu && ny && !L))
        return COSA_EINVAL;
    if (!isfinite(t) || !cosa_mat_isfinite(nx, 1, x, nx) || !cosa_mat_isfinite(ny, 1, y, ny) ||
        (nu && ny && !cosa_mat_isfinite(nu, ny, L, nu)))
        return COSA_ENONFINITE;
    struct cosa_loop_ws w;
    cosa_status st = cosa_loop_ws_init(&w, nunits, units);
    if (st == COSA_OK)
        st = cosa_units_loop_solve_ws(nunits, units, L, t, x, y, &w);
    cosa_loop_ws_free(&w);
    return st;
}
