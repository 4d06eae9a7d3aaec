/* unit.c -- the generic co-simulation unit (cosa/td.h, "Units"): state,
 * input polynomial, step with commit on success, outputs, model evaluation,
 * Jacobians (analytic or central differences) and snapshots.  What differs
 * between kinds of units is behind a cosa_unit_type; the built-in types live
 * in unit_linear.c and unit_ode.c. */
#include "td/unit_impl.h"
#include "core/carve.h"
#include "core/dense.h"

#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOEF (COSA_UNIT_DEGMAX + 1)
#define NDER (COSA_UNIT_DERMAX + 1)

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
    u->t_event = INFINITY; /* no time event announced */
    u->nx = nx;
    u->nu = nu;
    u->ny = ny;
    size_t total = 5 * nx + nu * (NCOEF + 2) + 2 * ny + 1;
    /* jA (nx x nx) is allocated when first needed (unit_model_derivatives):
     * long banded chains never need it */
    total += 3 * nx + 2 * nu * NCOEF + (nx + nu) * NDER + nx * nu + ny * nx + ny * nu;
    double *q = calloc(total, sizeof(double));
    if (!q) {
        free(u);
        return COSA_ENOMEM;
    }
    COSA_CARVE(u->x, q, nx);
    COSA_CARVE(u->coef, q, nu * NCOEF);
    COSA_CARVE(u->uwork, q, nu);
    COSA_CARVE(u->xnew, q, nx);
    COSA_CARVE(u->fdx, q, nx);
    COSA_CARVE(u->fdu, q, nu);
    COSA_CARVE(u->fdf1, q, nx);
    COSA_CARVE(u->fdf2, q, nx);
    COSA_CARVE(u->fdg1, q, ny);
    COSA_CARVE(u->fdg2, q, ny);
    COSA_CARVE(u->xprev, q, nx);
    COSA_CARVE(u->scoef, q, nu * NCOEF);
    COSA_CARVE(u->xbak, q, nx);
    COSA_CARVE(u->cbak, q, nu * NCOEF);
    COSA_CARVE(u->xder, q, nx * NDER);
    COSA_CARVE(u->uder, q, nu * NDER);
    u->jA = NULL;
    COSA_CARVE(u->jB, q, nx * nu);
    COSA_CARVE(u->jC, q, ny * nx);
    COSA_CARVE(u->jD, q, ny * nu);
    COSA_CARVE(u->xmid, q, nx);
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
    free(u->jA);
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
    u->stepped = 0;
    u->end_asked = 0;
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

/* Remember a successful step of h from state x0 under the input polynomial
 * c0 (about the step's start): it fixes the state derivatives. */
static void record_step(cosa_unit *u, double h, const double *x0, const double *c0)
{
    if (u->nx && x0 != u->xprev)
        memcpy(u->xprev, x0, u->nx * sizeof(double));
    if (u->nu && c0 != u->scoef)
        memcpy(u->scoef, c0, u->nu * NCOEF * sizeof(double));
    u->sdeg = u->deg;
    u->h_last = h;
    u->stepped = 1;
}

cosa_status cosa_unit_do_step(cosa_unit *u, double h)
{
    if (!u)
        return COSA_EINVAL;
    if (!isfinite(h) || !(h > 0.0))
        return COSA_ERANGE;
    shift_input(u);
    u->msg[0] = '\0';
    u->h_done = h; /* a type that stops early sets less (cosa_unit_step_stopped) */
    u->pending = 0;
    cosa_status st = u->type->step(u, h, u->xnew);
    if (st != COSA_OK)
        return st;
    const double hd = u->h_done;
    if (!dense_isfinite(u->nx, 1, u->xnew, u->nx)) {
        cosa_unit_fail(u, "%s: the state is not finite at t = %.17g", u->type->name, u->t + hd);
        return COSA_ENONFINITE;
    }
    record_step(u, hd, u->x, u->coef);
    u->count.steps++;
    if (u->nx)
        memcpy(u->x, u->xnew, u->nx * sizeof *u->x);
    u->t += hd;
    return COSA_OK;
}

/* The state at the middle of a step of h from the current point: the type's
 * own (step_mid), else a first step of h/2, committed so that the second
 * half starts there; then the output there into ymid.  On return with
 * COSA_OK the unit is either still at t_c (xnew holds the end of the step)
 * or at t_c + h/2 (*half = 1). */
static cosa_status mid_sample(cosa_unit *u, double h, double *ymid, int *half)
{
    cosa_status st;
    *half = 0;
    if (u->type->step_mid) {
        st = u->type->step_mid(u, h, u->xmid, u->xnew);
        if (st == COSA_OK && !dense_isfinite(u->nx, 1, u->xnew, u->nx))
            st = COSA_ENONFINITE;
    } else {
        st = u->type->step(u, 0.5 * h, u->xmid);
        *half = 1;
    }
    if (st == COSA_OK && !dense_isfinite(u->nx, 1, u->xmid, u->nx))
        st = COSA_ENONFINITE;
    if (st == COSA_ENONFINITE)
        cosa_unit_fail(u, "%s: the state is not finite at t = %.17g", u->type->name,
                       u->t + (*half ? 0.5 * h : h));
    if (st != COSA_OK)
        return st;
    if (u->ny) {
        cosa_unit_input_at(u, 0.5 * h, u->uwork);
        st = u->type->eval(u, u->t + 0.5 * h, u->xmid, u->uwork, NULL, ymid);
        if (st == COSA_OK && !dense_isfinite(u->ny, 1, ymid, u->ny)) {
            cosa_unit_fail(u, "%s: output not finite at t = %.17g", u->type->name,
                           u->t + 0.5 * h);
            st = COSA_ENONFINITE;
        }
    }
    return st;
}

cosa_status cosa_unit_do_step_sampled(cosa_unit *u, double h, double *ymid)
{
    if (!u || (u->ny && !ymid))
        return COSA_EINVAL;
    if (!isfinite(h) || !(h > 0.0))
        return COSA_ERANGE;
    shift_input(u);
    u->msg[0] = '\0';
    const double t0 = u->t;
    if (u->nx)
        memcpy(u->xbak, u->x, u->nx * sizeof(double));
    if (u->nu)
        memcpy(u->cbak, u->coef, u->nu * NCOEF * sizeof(double));
    int half;
    cosa_status st = mid_sample(u, h, ymid, &half);
    if (st == COSA_OK && half) {
        /* second half from the midpoint, the input re-expanded about it */
        if (u->nx)
            memcpy(u->x, u->xmid, u->nx * sizeof(double));
        u->t = t0 + 0.5 * h;
        shift_input(u);
        st = u->type->step(u, h - 0.5 * h, u->xnew);
        if (st == COSA_OK && !dense_isfinite(u->nx, 1, u->xnew, u->nx)) {
            cosa_unit_fail(u, "%s: the state is not finite at t = %.17g", u->type->name,
                           t0 + h);
            st = COSA_ENONFINITE;
        }
    }
    if (st != COSA_OK) {
        /* back to the start: time, state and input as on entry */
        if (u->nx)
            memcpy(u->x, u->xbak, u->nx * sizeof(double));
        if (u->nu)
            memcpy(u->coef, u->cbak, u->nu * NCOEF * sizeof(double));
        u->t = t0;
        u->t_in = t0;
        return st;
    }
    record_step(u, h, u->xbak, u->cbak);
    u->count.steps++;
    /* the input polynomial stays expanded about t0 + h/2 after two halves;
     * put it back about t0 (exactly as on entry) so both routes leave the
     * same coefficients */
    if (u->nu)
        memcpy(u->coef, u->cbak, u->nu * NCOEF * sizeof(double));
    u->t_in = t0;
    if (u->nx)
        memcpy(u->x, u->xnew, u->nx * sizeof *u->x);
    u->t = t0 + h;
    return COSA_OK;
}

int cosa_unit_last_step(const cosa_unit *u, double *h, const double **xprev)
{
    if (!u || !u->stepped)
        return 0;
    if (h)
        *h = u->h_last;
    if (xprev)
        *xprev = u->xprev;
    return 1;
}

void unit_poly_derivs(size_t nu, int deg, const double *c, double tau, int n, double *out)
{
    for (int j = 0; j <= n; j++)
        for (size_t k = 0; k < nu; k++) {
            double s = 0.0;
            for (int m = deg; m >= j; m--) {
                double f = 1.0; /* m! / (m - j)! */
                for (int i = 0; i < j; i++)
                    f *= (double)(m - i);
                s = s * tau + f * c[k + (size_t)m * nu];
            }
            out[k + (size_t)j * nu] = s;
        }
}

cosa_status unit_model_derivatives(cosa_unit *u, int n, const double *uder, double *xder)
{
    const size_t nx = u->nx, nu = u->nu;
    if (n < 1 || nx == 0)
        return COSA_OK;
    cosa_status st = u->type->eval(u, u->t, xder, uder, xder + nx, NULL);
    if (st != COSA_OK || n < 2)
        return st;
    if (!u->jA && !(u->jA = calloc(nx * nx, sizeof *u->jA)))
        return COSA_ENOMEM;
    st = cosa_unit_jacobian(u, u->t, xder, uder, 0, u->jA, nu ? u->jB : NULL, NULL, NULL);
    for (int j = 2; j <= n && st == COSA_OK; j++) {
        double *xj = xder + (size_t)j * nx;
        dense_gemv(nx, nx, 1.0, u->jA, nx, xj - nx, 0.0, xj);
        if (nu)
            dense_gemv(nx, nu, 1.0, u->jB, nx, uder + (size_t)(j - 1) * nu, 1.0, xj);
    }
    return st;
}

cosa_status cosa_unit_get_output_derivatives(cosa_unit *u, int n, double *dy)
{
    if (!u || (u->ny && !dy))
        return COSA_EINVAL;
    if (n < 0 || n > COSA_UNIT_DERMAX)
        return COSA_ERANGE;
    const size_t nx = u->nx, nu = u->nu, ny = u->ny;
    if (!ny)
        return COSA_OK;
    /* x^(j): the last step's input polynomial continued to t_c, or the
     * current input before any step */
    if (nx)
        memcpy(u->xder, u->x, nx * sizeof(double));
    cosa_status st = COSA_OK;
    if (n >= 1 && nx) {
        if (u->stepped)
            unit_poly_derivs(nu, u->sdeg, u->scoef, u->h_last, n - 1, u->uder);
        else
            unit_poly_derivs(nu, u->deg, u->coef, u->t - u->t_in, n - 1, u->uder);
        st = u->type->state_derivatives ? u->type->state_derivatives(u, n, u->uder, u->xder)
                                        : unit_model_derivatives(u, n, u->uder, u->xder);
        if (st == COSA_OK && !dense_isfinite(nx, (size_t)n + 1, u->xder, nx)) {
            cosa_unit_fail(u, "%s: state derivatives not finite at t = %.17g",
                           u->type->name, u->t);
            st = COSA_ENONFINITE;
        }
        if (st != COSA_OK)
            return st;
    }
    /* u^(j) of the input currently set */
    unit_poly_derivs(nu, u->deg, u->coef, u->t - u->t_in, n, u->uder);
    st = u->type->eval(u, u->t, u->x, u->uder, NULL, dy);
    if (st == COSA_OK && n >= 1)
        st = cosa_unit_jacobian(u, u->t, u->x, u->uder, 0, NULL, NULL, nx ? u->jC : NULL,
                                nu ? u->jD : NULL);
    for (int j = 1; j <= n && st == COSA_OK; j++) {
        double *yj = dy + (size_t)j * ny;
        for (size_t k = 0; k < ny; k++)
            yj[k] = 0.0;
        if (nx)
            dense_gemv(ny, nx, 1.0, u->jC, ny, u->xder + (size_t)j * nx, 0.0, yj);
        if (nu)
            dense_gemv(ny, nu, 1.0, u->jD, ny, u->uder + (size_t)j * nu, 1.0, yj);
    }
    if (st == COSA_OK && !dense_isfinite(ny, (size_t)n + 1, dy, ny)) {
        cosa_unit_fail(u, "%s: output derivatives not finite at t = %.17g", u->type->name,
                       u->t);
        st = COSA_ENONFINITE;
    }
    return st;
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
/* The step for entry zj of a vector whose largest |entry| is zmax. */
static double fd_step_scaled(double zmax, double zj)
{
    double scale = fmax(fabs(zj), 1e-3 * zmax);
    if (scale == 0.0)
        scale = 1.0;
    double d = cbrt(DBL_EPSILON) * scale;
    volatile double tmp = zj + d;
    return tmp - zj;
}

double unit_fd_step(size_t n, const double *z, size_t j)
{
    double zmax = 0.0;
    for (size_t i = 0; i < n; i++)
        zmax = fmax(zmax, fabs(z[i]));
    return fd_step_scaled(zmax, z[j]);
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
    double zmax = 0.0; /* once, not per column: long units */
    for (size_t i = 0; i < n; i++)
        zmax = fmax(zmax, fabs(z0[i]));
    for (size_t j = 0; j < n; j++) {
        double d = fd_step_scaled(zmax, z0[j]);
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
    int stepped, sdeg; /* the last-step record                  */
    double h_last;
    double *buf;  /* x (nx), coef (nu x (COSA_UNIT_DEGMAX+1)),
                     xprev (nx), scoef (as coef)              */
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
        if (!sn || !(sn->buf = calloc(2 * (u->nx + ncoef) + 1, sizeof(double)))) {
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
    sn->stepped = u->stepped;
    sn->sdeg = u->sdeg;
    sn->h_last = u->h_last;
    if (u->nx)
        memcpy(sn->buf + u->nx + ncoef, u->xprev, u->nx * sizeof(double));
    if (ncoef)
        memcpy(sn->buf + 2 * u->nx + ncoef, u->scoef, ncoef * sizeof(double));
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
    u->count.restores++;
    u->end_asked = 0; /* a rolled-back step's request is void */
    u->t = snap->t;
    u->t_in = snap->t_in;
    u->deg = snap->deg;
    if (u->nx)
        memcpy(u->x, snap->buf, u->nx * sizeof(double));
    const size_t ncoef = u->nu * NCOEF;
    if (ncoef)
        memcpy(u->coef, snap->buf + u->nx, ncoef * sizeof(double));
    u->stepped = snap->stepped;
    u->sdeg = snap->sdeg;
    u->h_last = snap->h_last;
    if (u->nx)
        memcpy(u->xprev, snap->buf + u->nx + ncoef, u->nx * sizeof(double));
    if (ncoef)
        memcpy(u->scoef, snap->buf + 2 * u->nx + ncoef, ncoef * sizeof(double));
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

void cosa_unit_get_counters(const cosa_unit *u, cosa_unit_counters *c)
{
    if (!c)
        return;
    if (u)
        *c = u->count;
    else
        memset(c, 0, sizeof *c);
}

void cosa_unit_counters_reset(cosa_unit *u)
{
    if (u)
        memset(&u->count, 0, sizeof u->count);
}

cosa_unit_counters *cosa_unit_counters_of(cosa_unit *u) { return u ? &u->count : NULL; }
