/* unit_ode.c -- a nonlinear subsystem x' = f(t, x, u), y = g(t, x, u) (C
 * callbacks, cosa_ode) as a co-simulation unit, advanced over each macro
 * step by one of the integrators of the table in integrator.c (CVODE BDF or
 * Adams, RK4, symplectic Euler, forward Euler).  The unit type knows nothing
 * of any particular method: it holds the integrator's descriptor and state. */
#include "td/unit_impl.h"
#include "td/integrator.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ode_impl {
    cosa_ode ode;             /* copy; kick points to our copy            */
    unsigned char *kick;      /* nx flags or NULL                          */
    cosa_integrator cfg;
    const integrator_type *it;
    void *istate;             /* the integrator's state                    */
    struct integ_problem pb;  /* what the integrator sees (points into us) */
    double *jA, *jB, *jC, *jD;/* Jacobian scratch                          */
    double *buf;
};

static void destroy(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    if (!oi)
        return;
    if (oi->it && oi->it->free)
        oi->it->free(oi->istate);
    free(oi->kick);
    free(oi->buf);
    free(oi);
    u->impl = NULL;
}

static cosa_status callback_failed(cosa_unit *u, const char *what, int rc, double t)
{
    cosa_unit_fail(u, "%s returned %d at t = %.17g", what, rc, t);
    return COSA_ENOTCONVERGED;
}

static cosa_status eval(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y)
{
    struct ode_impl *oi = u->impl;
    int rc;
    if (xdot && (rc = oi->ode.f(t, x, uin, xdot, oi->ode.user_data)) != 0)
        return callback_failed(u, "f", rc, t);
    if (y && (rc = oi->ode.g(t, x, uin, y, oi->ode.user_data)) != 0)
        return callback_failed(u, "g", rc, t);
    return COSA_OK;
}

static cosa_status jac(cosa_unit *u, double t, const double *x, const double *uin, double *A,
                       double *B, double *C, double *D)
{
    struct ode_impl *oi = u->impl;
    int rc = oi->ode.jac(t, x, uin, A ? A : oi->jA, B ? B : oi->jB, C ? C : oi->jC,
                         D ? D : oi->jD, oi->ode.user_data);
    return rc ? callback_failed(u, "jacobian", rc, t) : COSA_OK;
}

static cosa_status step(cosa_unit *u, double h, double *xnew)
{
    if (u->nx == 0)
        return COSA_OK;
    struct ode_impl *oi = u->impl;
    return oi->it->step(oi->it, &oi->pb, oi->istate, h, xnew);
}

static void reset(cosa_unit *u)
{
    struct ode_impl *oi = u->impl;
    if (oi->it->reset)
        oi->it->reset(oi->istate);
}

/* Snapshots keep the integrator's carried state (CVODE: tolerance scales). */
static cosa_status save_state(cosa_unit *u, void **blob)
{
    struct ode_impl *oi = u->impl;
    if (!oi->it->saved_len)
        return COSA_OK;
    if (!*blob && !(*blob = calloc(oi->it->saved_len(&oi->pb) + 1, sizeof(double))))
        return COSA_ENOMEM;
    oi->it->save(oi->istate, *blob);
    return COSA_OK;
}

static cosa_status restore_state(cosa_unit *u, const void *blob)
{
    struct ode_impl *oi = u->impl;
    if (oi->it->saved_len && blob)
        oi->it->restore(oi->istate, blob);
    return COSA_OK;
}

static void free_state(cosa_unit *u, void *blob) { free(blob); }

/* Forward Euler's numerical solution is a line over the step (one micro
 * step of H; with more micro steps, the step's chord): x' = (x_{k+1} - x_k) / H,
 * x^(j) = 0 for j >= 2 (defect paper eqs 45-47).  Before the first step the
 * slope is that of the coming step, f(t_c, x, u(t_c)). */
static cosa_status line_derivatives(cosa_unit *u, int n, const double *uder, double *xder)
{
    const size_t nx = u->nx;
    double h;
    const double *xprev;
    if (cosa_unit_last_step(u, &h, &xprev)) {
        for (size_t i = 0; i < nx; i++)
            xder[nx + i] = (xder[i] - xprev[i]) / h;
    } else {
        cosa_status st = eval(u, u->t, xder, uder, xder + nx, NULL);
        if (st != COSA_OK)
            return st;
    }
    for (size_t k = 2 * nx; k < (size_t)(n + 1) * nx; k++)
        xder[k] = 0.0;
    return COSA_OK;
}

/* The midpoint of the step's line. */
static cosa_status line_step_mid(cosa_unit *u, double h, double *xmid, double *xnew)
{
    cosa_status st = step(u, h, xnew);
    if (st != COSA_OK)
        return st;
    for (size_t i = 0; i < u->nx; i++)
        xmid[i] = 0.5 * (u->x[i] + xnew[i]);
    return COSA_OK;
}

#define ODE_OPS                                                                          \
    .name = "ODE unit", .max_input_degree = COSA_UNIT_DEGMAX, .step = step, .eval = eval, \
    .reset = reset, .save_state = save_state, .restore_state = restore_state,           \
    .free_state = free_state, .destroy = destroy

#define LINE_OPS .state_derivatives = line_derivatives, .step_mid = line_step_mid

/* [analytic Jacobian][line output] */
static const cosa_unit_type ode_types[2][2] = {
    {{.caps = COSA_UNIT_CAN_EVAL | COSA_UNIT_CAN_SAVE_STATE, .jacobian = NULL, ODE_OPS},
     {.caps = COSA_UNIT_CAN_EVAL | COSA_UNIT_CAN_SAVE_STATE, .jacobian = NULL, ODE_OPS,
      LINE_OPS}},
    {{.caps = COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN | COSA_UNIT_CAN_SAVE_STATE,
      .jacobian = jac, ODE_OPS},
     {.caps = COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN | COSA_UNIT_CAN_SAVE_STATE,
      .jacobian = jac, ODE_OPS, LINE_OPS}},
};

cosa_status cosa_unit_ode_create(const cosa_ode *ode, const cosa_integrator *integ,
                                 cosa_unit **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!ode || !integ || (ode->nx && !ode->f) || (ode->ny && !ode->g))
        return COSA_EINVAL;
    const integrator_type *it = integrator_lookup(integ->kind);
    if (!it)
        return COSA_EUNSUPPORTED;
    if (it->needs_kick && ode->nx && !ode->kick)
        return COSA_EUNSUPPORTED;
    if (!isfinite(integ->rtol) || !isfinite(integ->atol) || !isfinite(integ->hmicro))
        return COSA_ENONFINITE;
    if (it->adaptive && !(integ->rtol > 0.0))
        return COSA_ERANGE;
    struct ode_impl *oi = calloc(1, sizeof *oi);
    if (!oi)
        return COSA_ENOMEM;
    cosa_unit *u = NULL;
    /* a banded subsystem never forms its dense df/dx: generic finite
     * differences for the Jacobians the master asks for (columns of g, f) */
    cosa_status st = cosa_unit_create(&ode_types[ode->jac != NULL && !ode->banded]
                                                [it->line_output != 0],
                                      ode->nx, ode->nu, ode->ny, oi, &u);
    if (st != COSA_OK) {
        free(oi);
        return st;
    }
    const size_t nx = ode->nx, nu = ode->nu, ny = ode->ny;
    oi->ode = *ode;
    oi->cfg = *integ;
    oi->it = it;
    const size_t nxx = ode->banded ? 0 : nx * nx;
    oi->buf = calloc(nxx + nx * nu + ny * nx + ny * nu + 1, sizeof(double));
    if (!oi->buf)
        goto nomem;
    double *q = oi->buf;
    oi->jA = q, q += nxx;
    oi->jB = q, q += nx * nu;
    oi->jC = q, q += ny * nx;
    oi->jD = q;
    if (ode->kick) {
        oi->kick = malloc(nx + 1);
        if (!oi->kick)
            goto nomem;
        memcpy(oi->kick, ode->kick, nx);
        oi->ode.kick = oi->kick;
    }
    oi->pb = (struct integ_problem){.u = u, .ode = &oi->ode, .cfg = &oi->cfg};
    if (it->alloc && (st = it->alloc(it, &oi->pb, &oi->istate)) != COSA_OK) {
        cosa_unit_free(u);
        return st;
    }
    *out = u;
    return COSA_OK;
nomem:
    cosa_unit_free(u);
    return COSA_ENOMEM;
}
