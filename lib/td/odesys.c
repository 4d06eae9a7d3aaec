/* odesys.c -- coupled nonlinear systems: ODE subsystems x' = f(t, x, u),
 * y = g(t, x, u) with u = L y (eq 4), and the adapter that presents every
 * linear coupled system (built-in or file model) as such a set. */
#include "cosa/td.h"
#include "core/dense.h"
#include "td/unit_impl.h"

#include <stdlib.h>
#include <string.h>

struct cosa_odesys {
    size_t nsub, nx, nu, ny;
    cosa_ode *subs;          /* copies; kick points into kicks   */
    unsigned char *kicks;    /* nx flags, concatenated           */
    double *L;               /* nu x ny                          */
    cosa_coupling cpl;       /* nc = 0: none                     */
    int banded;              /* monolithic bandwidths set        */
    int linear;              /* declared linear (set_linear)     */
    size_t blo, bup;
    double *cS;              /* nu x nc (owned)                  */
    void *data;
    void (*data_free)(void *);
};

void cosa_odesys_free(cosa_odesys *s)
{
    if (!s)
        return;
    if (s->data_free)
        s->data_free(s->data);
    free(s->subs);
    free(s->kicks);
    free(s->L);
    free(s->cS);
    free(s);
}

cosa_status cosa_odesys_set_coupling(cosa_odesys *s, const cosa_coupling *c)
{
    if (!s || !c || !c->nc || !c->phi || (s->nu && !c->S))
        return COSA_EINVAL;
    double *S = calloc(s->nu * c->nc + 1, sizeof *S);
    if (!S)
        return COSA_ENOMEM;
    if (s->nu)
        memcpy(S, c->S, s->nu * c->nc * sizeof *S);
    free(s->cS);
    s->cS = S;
    s->cpl = *c;
    s->cpl.S = S;
    return COSA_OK;
}

const cosa_coupling *cosa_odesys_coupling(const cosa_odesys *s)
{
    return s && s->cpl.nc ? &s->cpl : NULL;
}

void *cosa_odesys_data(const cosa_odesys *s) { return s ? s->data : NULL; }

cosa_status cosa_odesys_set_linear(cosa_odesys *s)
{
    if (!s)
        return COSA_EINVAL;
    s->linear = 1;
    return COSA_OK;
}

int cosa_odesys_is_linear(const cosa_odesys *s) { return s && s->linear; }

cosa_status cosa_odesys_set_band(cosa_odesys *s, size_t lower, size_t upper)
{
    if (!s)
        return COSA_EINVAL;
    s->banded = 1;
    s->blo = lower;
    s->bup = upper;
    return COSA_OK;
}

int cosa_odesys_band(const cosa_odesys *s, size_t *lower, size_t *upper)
{
    if (!s || !s->banded)
        return 0;
    if (lower)
        *lower = s->blo;
    if (upper)
        *upper = s->bup;
    return 1;
}

cosa_status cosa_odesys_create(cosa_odesys **out, size_t nsub, const cosa_ode *subs,
                               const double *L, void *data, void (*data_free)(void *))
{
    cosa_status st = COSA_OK;
    cosa_odesys *s = NULL;
    if (!out) {
        st = COSA_EINVAL;
        goto fail;
    }
    *out = NULL;
    if (nsub == 0 || !subs) {
        st = COSA_EINVAL;
        goto fail;
    }
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < nsub; i++) {
        const cosa_ode *o = &subs[i];
        if ((o->nx && !o->f) || (o->ny && !o->g)) {
            st = COSA_EINVAL;
            goto fail;
        }
        nx += o->nx;
        nu += o->nu;
        ny += o->ny;
    }
    if (nu && ny && !L) {
        st = COSA_EINVAL;
        goto fail;
    }
    if (nu && ny && !dense_isfinite(nu, ny, L, nu)) {
        st = COSA_ENONFINITE;
        goto fail;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        st = COSA_ENOMEM;
        goto fail;
    }
    s->data = data;
    s->data_free = data_free;
    data_free = NULL; /* owned by s from here on */
    s->nsub = nsub;
    s->nx = nx;
    s->nu = nu;
    s->ny = ny;
    s->subs = calloc(nsub, sizeof *s->subs);
    s->kicks = calloc(nx + 1, 1);
    s->L = calloc(nu * ny + 1, sizeof(double));
    if (!s->subs || !s->kicks || !s->L) {
        st = COSA_ENOMEM;
        goto fail;
    }
    if (nu && ny)
        memcpy(s->L, L, nu * ny * sizeof(double));
    size_t ox = 0;
    for (size_t i = 0; i < nsub; i++) {
        s->subs[i] = subs[i];
        if (subs[i].kick) {
            memcpy(s->kicks + ox, subs[i].kick, subs[i].nx);
            s->subs[i].kick = s->kicks + ox;
        }
        ox += subs[i].nx;
    }
    *out = s;
    return COSA_OK;
fail:
    if (data_free)
        data_free(data);
    cosa_odesys_free(s);
    return st;
}

size_t cosa_odesys_nsub(const cosa_odesys *s) { return s ? s->nsub : 0; }
size_t cosa_odesys_nx(const cosa_odesys *s) { return s ? s->nx : 0; }
size_t cosa_odesys_nu(const cosa_odesys *s) { return s ? s->nu : 0; }
size_t cosa_odesys_ny(const cosa_odesys *s) { return s ? s->ny : 0; }
const double *cosa_odesys_L(const cosa_odesys *s) { return s ? s->L : NULL; }
const cosa_ode *cosa_odesys_sub(const cosa_odesys *s, size_t i)
{
    return s && i < s->nsub ? &s->subs[i] : NULL;
}

/* ---- linear subsystems as ODEs ------------------------------------------ */

struct lin_ode {
    size_t nx, nu, ny;
    double *A, *B, *C, *D; /* column-major, ld = rows */
};

struct lin_data {
    size_t nsub;
    struct lin_ode *sub;
    double *buf;
    unsigned char *kick;
};

static void lin_data_free(void *p)
{
    struct lin_data *d = p;
    if (!d)
        return;
    free(d->sub);
    free(d->buf);
    free(d->kick);
    free(d);
}

static int lin_f(double t, const double *x, const double *u, double *out, void *ud)
{
    const struct lin_ode *o = ud;
    dense_gemv(o->nx, o->nx, 1.0, o->A, o->nx, x, 0.0, out);
    if (o->nu)
        dense_gemv(o->nx, o->nu, 1.0, o->B, o->nx, u, 1.0, out);
    return 0;
}

static int lin_g(double t, const double *x, const double *u, double *out, void *ud)
{
    const struct lin_ode *o = ud;
    for (size_t k = 0; k < o->ny; k++)
        out[k] = 0.0;
    if (o->nx)
        dense_gemv(o->ny, o->nx, 1.0, o->C, o->ny, x, 0.0, out);
    if (o->nu)
        dense_gemv(o->ny, o->nu, 1.0, o->D, o->ny, u, 1.0, out);
    return 0;
}

static int lin_jac(double t, const double *x, const double *u, double *A, double *B, double *C,
                   double *D, void *ud)
{
    const struct lin_ode *o = ud;
    memcpy(A, o->A, o->nx * o->nx * sizeof *A);
    memcpy(B, o->B, o->nx * o->nu * sizeof *B);
    memcpy(C, o->C, o->ny * o->nx * sizeof *C);
    memcpy(D, o->D, o->ny * o->nu * sizeof *D);
    return 0;
}

cosa_status cosa_odesys_from_linear(const cosa_system *sys, cosa_odesys **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!sys)
        return COSA_EINVAL;
    const size_t nsub = cosa_system_nsub(sys), NX = cosa_system_nx(sys),
                 NY = cosa_system_ny(sys);
    size_t total = 0;
    for (size_t i = 0; i < nsub; i++) {
        size_t nx, nu, ny, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &ox, &ou, &oy);
        total += nx * nx + nx * nu + ny * nx + ny * nu;
    }
    struct lin_data *d = calloc(1, sizeof *d);
    cosa_ode *odes = calloc(nsub, sizeof *odes);
    if (d) {
        d->nsub = nsub;
        d->sub = calloc(nsub, sizeof *d->sub);
        d->buf = calloc(total + 1, sizeof(double));
        d->kick = calloc(NX + 1, 1);
    }
    if (!d || !odes || !d->sub || !d->buf || !d->kick) {
        lin_data_free(d);
        free(odes);
        return COSA_ENOMEM;
    }
    double *q = d->buf;
    const size_t npos = cosa_system_kick_flags(sys, d->kick);
    for (size_t i = 0; i < nsub; i++) {
        size_t nx, nu, ny, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &ox, &ou, &oy);
        struct lin_ode *o = &d->sub[i];
        *o = (struct lin_ode){nx, nu, ny, q, q + nx * nx, q + nx * nx + nx * nu,
                              q + nx * nx + nx * nu + ny * nx};
        q += nx * nx + nx * nu + ny * nx + ny * nu;
        dense_copy(nx, nx, cosa_system_A(sys) + ox + ox * NX, NX, o->A, nx);
        dense_copy(nx, nu, cosa_system_B(sys) + ox + ou * NX, NX, o->B, nx);
        dense_copy(ny, nx, cosa_system_C(sys) + oy + ox * NY, NY, o->C, ny);
        dense_copy(ny, nu, cosa_system_D(sys) + oy + ou * NY, NY, o->D, ny);
        odes[i] = (cosa_ode){.nx = nx, .nu = nu, .ny = ny, .f = lin_f, .g = lin_g,
                             .jac = lin_jac, .kick = d->kick + ox, .user_data = o};
    }
    if (npos == 0)
        for (size_t i = 0; i < nsub; i++)
            odes[i].kick = NULL;
    cosa_status st = cosa_odesys_create(out, nsub, odes, cosa_system_L(sys), d, lin_data_free);
    free(odes);
    return st;
}
