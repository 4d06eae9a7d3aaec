/* unit.c -- the generic co-simulation unit (cosa/td.h, "Units"): state,
 * input polynomial, step with commit on success, outputs, model evaluation,
 * Jacobians (analytic or central differences) and snapshots.  What differs
 * between kinds of units is behind a cosa_unit_type; the built-in types live
 * in unit_linear.c and unit_ode.c. */
#include "td/unit_impl.h"
#include "core/dense.h"

#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOEF (COSA_UNIT_DEGMAX + 1)

cosa_status cosa_unit_create(const cosa_unit_type *type, size_t nx, size_t nu, size_t ny,
                             void *impl, cosa_unit **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!type || !type->step || !type->eval || type->max_input_degree < 0 ||
        type->max_input_degree > COSA_UNIT_DEGMAX)
        return COSA_EINVAL;
    cosa_unit *u = calloc(1, sizeof *u);
    if (!u)
        return COSA_ENOMEM;
    u->type = type;
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
    u->impl = impl;
    *out = u;
    return COSA_OK;
}

void cosa_unit_free(cosa_unit *u)
{
    if (!u)
        return;
    if (u->type->destroy)
        u->type->destroy(u);
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
int cosa_unit_is_linear(const cosa_unit *u)
{
    return u && (u->type->caps & COSA_UNIT_LINEAR) != 0;
}
const cosa_unit_type *cosa_unit_get_type(const cosa_unit *u) { return u ? u->type : NULL; }
unsigned cosa_unit_caps(const cosa_unit *u) { return u ? u->type->caps : 0u; }
void *cosa_unit_impl(const cosa_unit *u) { return u ? u->impl : NULL; }
double cosa_unit_time(const cosa_unit *u) { return u ? u->t : NAN; }
const double *cosa_unit_state(const cosa_unit *u) { return u ? u->x : NULL; }
int cosa_unit_input_degree(const cosa_unit *u) { return u ? u->deg : 0; }

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
    if (!isfinite(t) || !dense_isfinite(u->nx, 1, x, u->nx))
        return COSA_ENONFINITE;
    if (u->nx)
        memcpy(u->x, x, u->nx * sizeof *x);
    u->t = t;
    u->t_in = t;
    if (u->type->reset)
        u->type->reset(u);
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
    if (deg < 0 || deg > u->type->max_input_degree)
        return COSA_ERANGE;
    if (!dense_isfinite(u->nu, (size_t)deg + 1, der, u->nu))
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
    cosa_status st = u->type->step(u, h, u->xnew);
    if (st != COSA_OK)
        return st;
    if (!dense_isfinite(u->nx, 1, u->xnew, u->nx)) {
        cosa_unit_fail(u, "%s: the state is not finite at t = %.17g", u->type->name, u->t + h);
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
    cosa_status st = u->type->eval(u, u->t, u->x, u->uwork, NULL, y);
    if (st == COSA_OK && !dense_isfinite(u->ny, 1, y, u->ny)) {
        cosa_unit_fail(u, "%s: output not finite at t = %.17g", u->type->name, u->t);
        st = COSA_ENONFINITE;
    }
    return st;
}

static int args_ok(const cosa_unit *u, double t, const double *x, const double *uin)
{
    return isfinite(t) && dense_isfinite(u->nx, 1, x, u->nx) &&
           dense_isfinite(u->nu, 1, uin, u->nu);
}

cosa_status cosa_unit_eval(cosa_unit *u, double t, const double *x, const double *uin,
                           double *xdot, double *y)
{
    if (!u || (u->nx && !x) || (u->nu && !uin))
        return COSA_EINVAL;
    if (!args_ok(u, t, x, uin))
        return COSA_ENONFINITE;
    return u->type->eval(u, t, x, uin, u->nx ? xdot : NULL, u->ny ? y : NULL);
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
        cosa_status st = u->type->eval(u, t, u->fdx, u->fdu, Jf ? u->fdf1 : NULL,
                                      Jg ? u->fdg1 : NULL);
        if (st == COSA_OK) {
            z[j] = z0[j] - d;
            st = u->type->eval(u, t, u->fdx, u->fdu, Jf ? u->fdf2 : NULL, Jg ? u->fdg2 : NULL);
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
    if (u->type->jacobian && !force_fd)
        st = u->type->jacobian(u, t, x, uin, A, B, C, D);
    else {
        st = COSA_OK;
        if (A || C)
            st = fd_columns(u, t, x, uin, 0, A, C);
        if (st == COSA_OK && (B || D))
            st = fd_columns(u, t, x, uin, 1, B, D);
    }
    if (st != COSA_OK)
        return st;
    if ((A && !dense_isfinite(u->nx, u->nx, A, u->nx)) ||
        (B && !dense_isfinite(u->nx, u->nu, B, u->nx)) ||
        (C && !dense_isfinite(u->ny, u->nx, C, u->ny)) ||
        (D && !dense_isfinite(u->ny, u->nu, D, u->ny))) {
        cosa_unit_fail(u, "%s: Jacobian not finite at t = %.17g", u->type->name, t);
        return COSA_ENONFINITE;
    }
    return COSA_OK;
}

/* ------------------------------------------------------------------------ */
/* Snapshots                                                                */
/* ------------------------------------------------------------------------ */

struct cosa_unit_snapshot {
    double t, t_in;
    int deg;
    double *buf;  /* x (nx), coef (nu x (COSA_UNIT_DEGMAX+1)) */
    void *blob;   /* the type's own state (save_state)        */
};

cosa_status cosa_unit_save(cosa_unit *u, cosa_unit_snapshot **snap)
{
    if (!u || !snap)
        return COSA_EINVAL;
    if (!(u->type->caps & COSA_UNIT_CAN_SAVE_STATE))
        return COSA_EUNSUPPORTED;
    cosa_unit_snapshot *sn = *snap;
    const size_t ncoef = u->nu * NCOEF;
    if (!sn) {
        sn = calloc(1, sizeof *sn);
        if (!sn || !(sn->buf = calloc(u->nx + ncoef + 1, sizeof(double)))) {
            free(sn);
            return COSA_ENOMEM;
        }
    }
    sn->t = u->t;
    sn->t_in = u->t_in;
    sn->deg = u->deg;
    if (u->nx)
        memcpy(sn->buf, u->x, u->nx * sizeof(double));
    if (ncoef)
        memcpy(sn->buf + u->nx, u->coef, ncoef * sizeof(double));
    if (u->type->save_state) {
        cosa_status st = u->type->save_state(u, &sn->blob);
        if (st != COSA_OK) {
            if (!*snap)
                cosa_unit_snapshot_free(u, sn);
            return st;
        }
    }
    *snap = sn;
    return COSA_OK;
}

cosa_status cosa_unit_restore(cosa_unit *u, const cosa_unit_snapshot *snap)
{
    if (!u || !snap)
        return COSA_EINVAL;
    if (!(u->type->caps & COSA_UNIT_CAN_SAVE_STATE))
        return COSA_EUNSUPPORTED;
    if (u->type->restore_state) {
        cosa_status st = u->type->restore_state(u, snap->blob);
        if (st != COSA_OK)
            return st;
    }
    u->t = snap->t;
    u->t_in = snap->t_in;
    u->deg = snap->deg;
    if (u->nx)
        memcpy(u->x, snap->buf, u->nx * sizeof(double));
    if (u->nu)
        memcpy(u->coef, snap->buf + u->nx, u->nu * NCOEF * sizeof(double));
    return COSA_OK;
}

void cosa_unit_snapshot_free(cosa_unit *u, cosa_unit_snapshot *snap)
{
    if (!snap)
        return;
    if (snap->blob && u && u->type->free_state)
        u->type->free_state(u, snap->blob);
    free(snap->buf);
    free(snap);
}
