/* control.c -- step-size controllers as a table of const descriptors (in the
 * manner of SUNDIALS' SUNAdaptController and GSL's gsl_odeiv2_control_type):
 * a controller turns the error measure of the step just taken into the next
 * step; the generic layer validates, owns the parameters and the type's few
 * doubles of state, and never allocates after create. */
#include "cosa/td.h"
#include "td/vo.h"
#include "td/control_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_STATE_MAX 4 /* doubles of state any type may keep */

struct cosa_controller {
    const cosa_controller_type *type;
    cosa_controller_params par;
    double state[CONTROL_STATE_MAX];
    int ready; /* reset was called */
};

/* ---- PI on the logarithm of the error (defect paper eq 39) --------------- */

static void pi_defaults(cosa_controller_params *p)
{
    /* eq 50 of the defect paper (issue 12): KP = 0.13, KI = 1/15, cap 2 H */
    p->kp = 0.13;
    p->ki = 1.0 / 15.0;
    p->grow = 2.0;
}

/* state[0] = I, the integral term: I_0 = ln h0 */
static cosa_status pi_reset(const cosa_controller_params *p, double *state, double h0)
{
    (void)p;
    state[0] = log(h0);
    return COSA_OK;
}

/* e = ln tol - ln eps; I' = I + KI e; H' = exp(I' + KP e);
 * H_next = min(H', grow H); I = I' + ln H_next - ln H' (anti-windup: the
 * integral forgets what the cap cut off). */
static cosa_status pi_next(const cosa_controller_params *p, double *state, double h,
                           double err, double *hnext, int *accept)
{
    const double e = log(p->tol) - log(err);
    const double I1 = state[0] + p->ki * e;
    const double Hp = exp(I1 + p->kp * e);
    const double Hn = fmin(Hp, p->grow * h);
    if (!isfinite(Hp) || !(Hp > 0.0))
        return COSA_ERANGE;
    state[0] = I1 + log(Hn) - log(Hp);
    *hnext = Hn;
    *accept = 1;
    return COSA_OK;
}

static const cosa_controller_type controller_pi = {
    .name = "pi",
    .nstate = 1,
    .defaults = pi_defaults,
    .reset = pi_reset,
    .next = pi_next,
};

/* ---- fixed step: the same loop without control ---------------------------- */

static void fixed_defaults(cosa_controller_params *p) { (void)p; }

static cosa_status fixed_reset(const cosa_controller_params *p, double *state, double h0)
{
    (void)p;
    state[0] = h0;
    return COSA_OK;
}

static cosa_status fixed_next(const cosa_controller_params *p, double *state, double h,
                              double err, double *hnext, int *accept)
{
    (void)p, (void)h, (void)err;
    *hnext = state[0];
    *accept = 1;
    return COSA_OK;
}

static const cosa_controller_type controller_fixed = {
    .name = "fixed",
    .nstate = 1,
    .defaults = fixed_defaults,
    .reset = fixed_reset,
    .next = fixed_next,
};

/* ---- the table and the generic layer --------------------------------------- */

static const cosa_controller_type *const table[] = {&controller_pi, &controller_fixed,
                                                    &vo_controller_order, &vo_controller_step};

size_t cosa_controller_type_count(void) { return sizeof table / sizeof table[0]; }

const cosa_controller_type *cosa_controller_type_at(size_t i)
{
    return i < cosa_controller_type_count() ? table[i] : NULL;
}

const cosa_controller_type *cosa_controller_lookup(const char *name)
{
    for (size_t i = 0; name && i < cosa_controller_type_count(); i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

cosa_status cosa_controller_defaults(const cosa_controller_type *type, double tol,
                                     cosa_controller_params *p)
{
    if (!type || !p)
        return COSA_EINVAL;
    memset(p, 0, sizeof *p);
    p->tol = tol;
    p->grow = INFINITY;
    if (type->defaults)
        type->defaults(p);
    return COSA_OK;
}

cosa_status cosa_controller_create(const cosa_controller_type *type,
                                   const cosa_controller_params *p, cosa_controller **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!type || !p || !type->reset || !type->next || type->nstate > CONTROL_STATE_MAX)
        return COSA_EINVAL;
    if (!isfinite(p->tol) || !isfinite(p->kp) || !isfinite(p->ki) || isnan(p->grow))
        return COSA_ENONFINITE;
    if (!(p->tol > 0.0) || !(p->grow > 1.0))
        return COSA_ERANGE;
    cosa_controller *c = calloc(1, sizeof *c);
    if (!c)
        return COSA_ENOMEM;
    c->type = type;
    c->par = *p;
    *out = c;
    return COSA_OK;
}

void cosa_controller_free(cosa_controller *c) { free(c); }

const cosa_controller_type *cosa_controller_get_type(const cosa_controller *c)
{
    return c ? c->type : NULL;
}

cosa_status cosa_controller_reset(cosa_controller *c, double h0)
{
    if (!c)
        return COSA_EINVAL;
    if (!isfinite(h0))
        return COSA_ENONFINITE;
    if (!(h0 > 0.0))
        return COSA_ERANGE;
    memset(c->state, 0, sizeof c->state);
    cosa_status st = c->type->reset(&c->par, c->state, h0);
    c->ready = st == COSA_OK;
    return st;
}

cosa_status cosa_controller_next(cosa_controller *c, double h, double err, double *hnext,
                                 int *accept)
{
    if (!c || !hnext || !c->ready)
        return COSA_EINVAL;
    if (!isfinite(h) || !isfinite(err))
        return COSA_ENONFINITE;
    if (!(h > 0.0) || !(err > 0.0))
        return COSA_ERANGE;
    int acc = 1;
    double hn = NAN;
    cosa_status st = c->type->next(&c->par, c->state, h, err, &hn, &acc);
    if (st == COSA_OK && !(isfinite(hn) && hn > 0.0))
        st = COSA_ERANGE;
    if (st != COSA_OK)
        return st;
    *hnext = hn;
    if (accept)
        *accept = acc;
    return COSA_OK;
}

cosa_status cosa_controller_decide(cosa_controller *c, const cosa_vo_control_input *in,
                                   const cosa_vo_history *hist, cosa_vo_decision *out)
{
    if (!c || !in || !out || !c->ready)
        return COSA_EINVAL;
    if (c->type->decide)
        return c->type->decide(&c->par, c->state, in, hist, out);
    /* a controller of the step alone: next() on the attempt's error norm */
    memset(out, 0, sizeof *out);
    out->k = in->k;
    out->r = NAN;
    const double err = in->state_est ? fmax(in->err_pos, in->err_vel) : in->err_u;
    if (in->corr_failed || !isfinite(err)) {
        out->accept = 0;
        out->H = 0.25 * in->H;
    } else {
        int acc = 1;
        cosa_status st = cosa_controller_next(c, in->H, fmax(err, 1e-16), &out->H, &acc);
        if (st != COSA_OK)
            return st;
        out->accept = acc;
    }
    out->stop = !(out->H > c->par.vo.hmin);
    return COSA_OK;
}

cosa_status cosa_controller_state(const cosa_controller *c, double *state)
{
    if (!c || !state)
        return COSA_EINVAL;
    for (int k = 0; k < c->type->nstate; k++)
        state[k] = c->state[k];
    return COSA_OK;
}
