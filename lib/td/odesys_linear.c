/* odesys_linear.c -- the linear coupled system of an ODE system that its
 * model declared linear at its parameter values (cosa_odesys_set_linear):
 * exact units and the exact reference for the linear parameter sets of
 * nonlinear models (twomass-ff with Cc = Dc = Acon = 0, chain-ff without
 * cubic terms, impulses and contacts). */
#include "cosa/td.h"

#include <stdlib.h>
#include <string.h>

/* Subsystem sub's matrices at x = 0, u = 0, t = 0 into A, B, C, D (owned by
 * the caller, sized nx*nx, nx*nu, ny*nx, ny*nu); checks f = g = 0 there. */
static cosa_status sub_matrices(const cosa_ode *sub, double *A, double *B, double *C, double *D,
                                double *zero, double *out)
{
    if (!sub->jac)
        return COSA_EUNSUPPORTED;
    if (sub->jac(0.0, zero, zero, A, B, C, D, sub->user_data) != 0)
        return COSA_ENOTCONVERGED;
    if (sub->nx) {
        if (sub->f(0.0, zero, zero, out, sub->user_data) != 0)
            return COSA_ENOTCONVERGED;
        for (size_t k = 0; k < sub->nx; k++)
            if (out[k] != 0.0)
                return COSA_EUNSUPPORTED; /* a forcing term: not x' = A x + B u */
    }
    if (sub->ny) {
        if (sub->g(0.0, zero, zero, out, sub->user_data) != 0)
            return COSA_ENOTCONVERGED;
        for (size_t k = 0; k < sub->ny; k++)
            if (out[k] != 0.0)
                return COSA_EUNSUPPORTED;
    }
    return COSA_OK;
}

cosa_status cosa_odesys_linear_system(const cosa_odesys *s, cosa_system **out)
{
    if (!s || !out)
        return COSA_EINVAL;
    *out = NULL;
    if (!cosa_odesys_is_linear(s))
        return COSA_EUNSUPPORTED;
    const size_t nsub = cosa_odesys_nsub(s);
    size_t nmat = 0, nvec = 1;
    for (size_t i = 0; i < nsub; i++) {
        const cosa_ode *o = cosa_odesys_sub(s, i);
        nmat += (o->nx + o->ny) * (o->nx + o->nu);
        nvec = nvec > o->nx + o->nu + o->ny ? nvec : o->nx + o->nu + o->ny;
    }
    cosa_subsystem *subs = calloc(nsub, sizeof *subs);
    double *mat = calloc(nmat + 1, sizeof *mat), *zero = calloc(2 * nvec, sizeof *zero);
    cosa_status st = subs && mat && zero ? COSA_OK : COSA_ENOMEM;
    double *p = mat;
    for (size_t i = 0; st == COSA_OK && i < nsub; i++) {
        const cosa_ode *o = cosa_odesys_sub(s, i);
        double *A = p, *B = A + o->nx * o->nx, *C = B + o->nx * o->nu, *D = C + o->ny * o->nx;
        p = D + o->ny * o->nu;
        subs[i] = (cosa_subsystem){o->nx, o->nu, o->ny, A, B, C, D};
        st = sub_matrices(o, A, B, C, D, zero, zero + nvec);
    }
    if (st == COSA_OK)
        st = cosa_system_create(out, nsub, subs, cosa_odesys_L(s));
    free(subs);
    free(mat);
    free(zero);
    return st;
}
