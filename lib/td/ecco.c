/* ecco.c -- ECCO, libcosim's energy-conservation-based co-simulation step
 * control (Sadjina et al., "Energy conservation and power bonds in
 * co-simulations", and libcosim's ecco_algorithm), as a step controller of
 * the one run loop (evolve.h) over the master with held inputs.
 *
 * After each macro step [t, t + h] every power bond gives two powers:
 * P_a = input_a output_a and P_b = input_b output_b, inputs at the values
 * the units held over the step, outputs at its end.  Their residual
 * |P_a - P_b| h is the energy the coupling created or lost in the step.
 * With the largest as the energy level E, the scaled error is
 *     err = sqrt( sum_i (|P_a - P_b|_i h / (atol + rtol E))^2 / nbonds )
 * and the PI law gives the next step
 *     h' = clamp( clamp(s err^-(ki+kp) err_prev^kp, rate_min, rate_max) h,
 *                 hmin, hmax ).
 * As in libcosim: the first step is not adjusted (the second one is taken
 * with h0 too), err_prev starts at 1, a zero error (this or the previous
 * one) keeps the step and becomes err_prev, and steps are integer
 * nanoseconds: the new step is truncated to whole nanoseconds, and h as a
 * double is the difference of the step's end and start times, each
 * converted from nanoseconds.  cosa's loop keeps the time in nanoseconds
 * as well (t_ns), so the times and steps are libcosim's to the bit. */
#include "cosa/td.h"
#include "td/evolve.h"
#include "td/osp_clock.h"
#include "td/failure.h"
#include "td/unit_impl.h"
#include "td/unitset_impl.h"
#include "td/master_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libcosim's conversions: osp_clock.h */

cosa_status cosa_ecco_reset(const cosa_ecco_params *p, cosa_ecco_state *s)
{
    if (!p || !s)
        return COSA_EINVAL;
    const double v[] = {p->h0, p->hmin, p->hmax, p->safety, p->rate_min, p->rate_max,
                        p->kp, p->ki, p->rtol, p->atol};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        if (!isfinite(v[i]))
            return COSA_ENONFINITE;
    memset(s, 0, sizeof *s);
    s->h_ns = osp_to_ns(p->h0);
    s->hmin_ns = osp_to_ns(p->hmin);
    s->hmax_ns = osp_to_ns(p->hmax);
    s->prev_err = 1.0;
    /* libcosim's checks (min > 0, min <= h0 <= max), and what the law needs */
    if (!(s->hmin_ns > 0 && s->hmin_ns <= s->h_ns && s->h_ns <= s->hmax_ns) ||
        !(p->rate_min > 0.0 && p->rate_min <= p->rate_max) || !(p->safety > 0.0) ||
        p->rtol < 0.0 || p->atol < 0.0 || !(p->rtol + p->atol > 0.0))
        return COSA_ERANGE;
    return COSA_OK;
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : hi < v ? hi : v; }

cosa_status cosa_ecco_adjust(const cosa_ecco_params *p, cosa_ecco_state *s, long long t_ns,
                             size_t n, const double *residual, double *err)
{
    if (!p || !s || (n && !residual))
        return COSA_EINVAL;
    if (err)
        *err = NAN;
    if (++s->steps < 2 || n == 0) /* libcosim adjusts from the second step on */
        return COSA_OK;
    const double dt = osp_to_s(t_ns + s->h_ns) - osp_to_s(t_ns);
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(residual[i]))
            return COSA_ENONFINITE;
        rmax = fmax(rmax, residual[i]);
    }
    const double level = rmax * dt;
    double ms = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double q = residual[i] * dt / (p->atol + p->rtol * level);
        ms += q * q;
    }
    const double e = sqrt(ms / (double)n);
    if (err)
        *err = e;
    if (s->prev_err == 0.0 || e == 0.0) {
        s->prev_err = e;
        return COSA_OK;
    }
    const double gain = clampd(p->safety * pow(e, -p->ki - p->kp) * pow(s->prev_err, p->kp),
                               p->rate_min, p->rate_max);
    s->prev_err = e;
    long long h = osp_to_ns(gain * dt);
    h = h < s->hmin_ns ? s->hmin_ns : s->hmax_ns < h ? s->hmax_ns : h;
    s->h_ns = h;
    return COSA_OK;
}

/* ---- the run ------------------------------------------------------------- */

struct ecco_run {
    const cosa_ecco_params *p;
    cosa_ecco_state st;
    cosa_master *m;
    const cosa_unitset *set;
    const cosa_power_bond *bonds;
    size_t nbond, nu, ny;
    long long t_ns, tend_ns, step_ns; /* the clock; the attempt's step */
    double *u, *y, *res;              /* nu held inputs, ny outputs, nbond */
    cosa_ecco_result *r;
    size_t cap;
};

/* Room for point k of the record (doubling). */
static cosa_status record_room(struct ecco_run *e, size_t k)
{
    cosa_ecco_result *r = e->r;
    if (k < e->cap)
        return COSA_OK;
    const size_t cap = e->cap ? 2 * e->cap : 1024;
    double *t = realloc(r->t, cap * sizeof *t);
    if (t)
        r->t = t;
    double *h = t ? realloc(r->h, cap * sizeof *h) : NULL;
    if (h)
        r->h = h;
    double *er = h ? realloc(r->err, cap * sizeof *er) : NULL;
    if (er)
        r->err = er;
    double *y = er ? realloc(r->y, cap * (e->ny + 1) * sizeof *y) : NULL;
    if (!y)
        return COSA_ENOMEM;
    r->y = y;
    e->cap = cap;
    return COSA_OK;
}

static evolve_end ecco_plan(void *ctx, evolve_attempt *a)
{
    struct ecco_run *e = ctx;
    /* libcosim's execution::simulate_until: at least one step, then on
     * while tend - t >= 1 % of the step just taken (the steps are never cut
     * at tend: the last one may end past it, by less than itself) */
    if (!osp_until_more(e->r->n, e->t_ns, e->tend_ns, e->step_ns))
        return EVOLVE_DONE;
    e->step_ns = e->st.h_ns;
    a->t = osp_to_s(e->t_ns);
    a->tn = osp_to_s(e->t_ns + e->step_ns);
    a->h = a->tn - a->t;
    a->last = !osp_until_more(1, e->t_ns + e->step_ns, e->tend_ns, e->step_ns);
    /* the inputs the units hold over this step: libcosim's transfer of the
     * raw outputs after the last step, u = L y_n */
    if (cosa_master_get(e->m, NULL, NULL, NULL, e->y, NULL, NULL) != COSA_OK)
        return EVOLVE_FAILED;
    cosa_unitset_couple(e->set, 0, e->nu, 1, e->y, e->ny ? e->ny : 1, e->u, e->nu ? e->nu : 1);
    return cosa_master_set_inputs(e->m, 0, e->u) == COSA_OK ? EVOLVE_GO : EVOLVE_FAILED;
}

static cosa_status ecco_decide(void *ctx, const evolve_attempt *a, evolve_decision *d)
{
    (void)ctx;
    d->accept = a->fail == COSA_OK;
    d->end = d->accept ? EVOLVE_GO : EVOLVE_FAILED;
    return COSA_OK;
}

/* A bond variable's value: held input or output at the step's end. */
static double bond_value(const struct ecco_run *e, const cosa_power_bond *b, int k)
{
    return b->input[k] ? e->u[b->index[k]] : e->y[b->index[k]];
}

static cosa_status ecco_update(void *ctx, const evolve_attempt *a, const evolve_decision *d)
{
    struct ecco_run *e = ctx;
    (void)a;
    if (!d->accept)
        return COSA_OK;
    cosa_status st = cosa_master_get(e->m, NULL, NULL, NULL, e->y, NULL, NULL);
    for (size_t i = 0; st == COSA_OK && i < e->nbond; i++) {
        const cosa_power_bond *b = &e->bonds[i];
        e->res[i] = fabs(bond_value(e, b, 0) * bond_value(e, b, 1) -
                         bond_value(e, b, 2) * bond_value(e, b, 3));
    }
    const long long t0 = e->t_ns;
    double err = NAN;
    if (st == COSA_OK)
        st = cosa_ecco_adjust(e->p, &e->st, t0, e->nbond, e->res, &err);
    e->t_ns += e->step_ns;
    cosa_ecco_result *r = e->r;
    const size_t k = r->n;
    if (st == COSA_OK && (st = record_room(e, k + 1)) == COSA_OK) {
        r->h[k] = osp_to_s(t0 + e->step_ns) - osp_to_s(t0);
        r->err[k] = err;
        r->t[k + 1] = osp_to_s(e->t_ns);
        memcpy(r->y + (k + 1) * e->ny, e->y, e->ny * sizeof *e->y);
        if (isnan(r->t_hmax) && e->step_ns == e->st.hmax_ns)
            r->t_hmax = osp_to_s(t0);
        r->n = k + 1;
    }
    return st;
}

static const evolve_controller controller_ecco = {"ecco", ecco_plan, ecco_decide, ecco_update};

void cosa_ecco_result_free(cosa_ecco_result *r)
{
    if (!r)
        return;
    free(r->t);
    free(r->h);
    free(r->err);
    free(r->y);
    free(r);
}

/* The bonds' indices against the set's sizes. */
static int bonds_ok(const cosa_power_bond *b, size_t n, size_t nu, size_t ny)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
            if (b[i].index[k] >= (b[i].input[k] ? nu : ny))
                return 0;
    return 1;
}

/* A unit's request to end the simulation (unit_end.c) stops the loop after
 * the accepted step that raised it. */
static cosa_status halt_on_end(void *ctx, const evolve_attempt *a, int *halt)
{
    (void)a;
    *halt = cosa_unitset_end_asked(ctx) != (size_t)-1;
    return COSA_OK;
}

cosa_status cosa_ecco_run(cosa_unitset *set, const double *x0, const cosa_ecco_params *p,
                          const cosa_power_bond *bonds, size_t nbond, double tend,
                          cosa_ecco_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || !x0 || !p || (nbond && !bonds))
        return COSA_EINVAL;
    struct ecco_run e = {.p = p, .set = set, .bonds = bonds, .nbond = nbond,
                         .nu = cosa_unitset_nu(set), .ny = cosa_unitset_ny(set)};
    cosa_status st = cosa_ecco_reset(p, &e.st);
    if (st != COSA_OK)
        return st;
    if (!isfinite(tend) || !(tend > 0.0) || !bonds_ok(bonds, nbond, e.nu, e.ny))
        return COSA_ERANGE;
    e.tend_ns = osp_to_ns(tend);
    cosa_unitset_counters_reset(set);
    e.r = calloc(1, sizeof *e.r);
    e.u = calloc(e.nu + e.ny + nbond + 1, sizeof *e.u);
    if (!e.r || !e.u || record_room(&e, 1) != COSA_OK) {
        cosa_ecco_result_free(e.r);
        free(e.u);
        return COSA_ENOMEM;
    }
    e.y = e.u + e.nu;
    e.res = e.y + e.ny;
    e.r->ny = e.ny;
    e.r->t_hmax = NAN;
    /* outputs at t = 0 consistent with u = L y (the algebraic loop solved:
     * libcosim's N initialization iterations reach the same point when no
     * cycle runs through direct feedthrough);
     * plain Jacobi, inputs given as L y_n held over the step (libcosim's
     * transfer of the raw outputs after every step; Taylor inputs would make
     * the outputs of feedthrough units consistent with the new inputs first) */
    const cosa_scheme s = {.order = 0, .corr = COSA_CORR_NONE, .alpha = 1.0,
                           .exec = COSA_JACOBI};
    const cosa_master_opts mo = {.extrapolation = COSA_EXTRAP_GIVEN};
    if ((st = cosa_master_create(set, &s, osp_to_s(e.st.h_ns), &mo, &e.m)) == COSA_OK &&
        (st = cosa_master_init_loop(e.m, 0.0, x0)) == COSA_OK)
        st = cosa_master_get(e.m, NULL, NULL, NULL, e.r->y, NULL, NULL);
    e.r->t[0] = 0.0;
    evolve_stats es;
    const evolve_observer ended = {.committed = halt_on_end, .ctx = set};
    const evolve_config c = {.stepper = &evolve_stepper_master_h, .stepper_ctx = e.m,
                             .controller = &controller_ecco, .controller_ctx = &e,
                             .observers = &ended, .nobservers = 1,
                             .is_failure = td_failure_is_result};
    cosa_unitset_allow_end(set, 1);
    if (st == COSA_OK)
        st = evolve_run(&c, &es);
    const size_t ie = cosa_unitset_end_asked(set); /* before allow_end clears it */
    cosa_unitset_allow_end(set, 0);
    if (st == COSA_OK) {
        e.r->run = es.run;
        if (es.end == EVOLVE_HALTED && ie != (size_t)-1) {
            e.r->terminated = 1;
            e.r->run.end = COSA_RUN_TERMINATED;
            snprintf(e.r->reason, sizeof e.r->reason, "%s",
                     cosa_unit_message(cosa_unitset_unit(set, ie)));
        }
        if (es.end == EVOLVE_FAILED) {
            const size_t iu = cosa_master_failed_unit(e.m);
            cosa_unit *un = cosa_unitset_unit(set, iu);
            e.r->failed = 1;
            snprintf(e.r->reason, sizeof e.r->reason, "%s",
                     un && cosa_unit_message(un)[0] ? cosa_unit_message(un)
                                                    : cosa_strerror(es.last.fail));
        }
    }
    cosa_master_free(e.m);
    free(e.u);
    if (st != COSA_OK) {
        cosa_ecco_result_free(e.r);
        return st;
    }
    *out = e.r;
    return COSA_OK;
}
