/* run.c -- one run description, one entry point, one result (issue 23
 * item 2): cosa_run validates the description once, with the
 * configuration's own check (run_impl.h), runs the configuration behind
 * its entry point's check (td_*_exec: the same run, not checked again) and fills
 * cosa_run_result from its result -- the status and reason of the one
 * failure policy (README "Failures"), the loop's figures, the units'
 * counters, the errors against the reference and the wall times.  The
 * configurations are entries of a table. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cosa/td.h"
#include "td/run_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *cosa_run_status_name(cosa_run_status s)
{
    static const char *const names[] = {"ok",    "diverged", "failed",
                                        "limit", "hmin",     "reference-failed",
                                        "terminated"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : NULL;
}

void cosa_run_opts_default(cosa_run_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->kind = COSA_RUN_FIXED;
    cosa_scheme_parse("zoh", &o->scheme);
    o->defect.in_order = 1;
    o->defect.out_order = 1;
    o->defect.control = COSA_DEFECT_BOTH;
    cosa_vo_opts_default(&o->vo);
}

void cosa_run_result_free(cosa_run_result *r)
{
    if (!r)
        return;
    cosa_cosim_result_free(r->fixed);
    cosa_defect_result_free(r->defect);
    cosa_vo_result_free(r->vo);
    free(r->units);
    free(r);
}

/* What a configuration's result says of its end: the reason text (without
 * the unit: run_finish names it) and the time it stopped. */
struct run_end {
    const char *reason;
    double t;
};

/* ---- the configurations ------------------------------------------------------------- */

/* The fixed run's options: o->fixed, with the steps of the horizon o->tend
 * (fixed.nsteps 0) at the macro step H by the one fixed-step rule
 * (cosa_end_clip_steps). */
static cosa_status fixed_opts(const cosa_run_opts *o, double H, cosa_cosim_opts *fo)
{
    *fo = o->fixed;
    if (o->fixed.nsteps || o->tend == 0.0)
        return COSA_OK;
    double h_last;
    const double n = cosa_end_clip_steps(o->tend, H, &h_last);
    if (!isfinite(o->tend) || !(n >= 1.0) || n > 1e15)
        return COSA_ERANGE; /* no whole step in the horizon, or beyond counting */
    fo->nsteps = (size_t)n;
    fo->h_last = h_last;
    return COSA_OK;
}

/* Without a reference trajectory (ref->traj NULL) a fixed run starts at
 * t = 0 from the units' own states (start_initial) on cosa_reftraj_none at
 * o->H, long enough for the check. */
static cosa_status fixed_noref(cosa_unitset *set, const cosa_run_opts *o, cosa_reftraj **traj,
                               cosa_cosim_opts *fo)
{
    cosa_status st = fixed_opts(o, o->H, fo);
    if (st != COSA_OK)
        return st;
    fo->start_initial = 1;
    const size_t n = (size_t)(o->scheme.order > 0 ? o->scheme.order : 0) + fo->nsteps + 1;
    return cosa_reftraj_none(set, NULL, o->H, n, traj);
}

static cosa_status check_fixed(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref)
{
    cosa_cosim_opts fo;
    cosa_status st;
    if (ref->traj)
        return (st = fixed_opts(o, ref->traj->H, &fo)) != COSA_OK
                   ? st
                   : td_cosim_check(set, &o->scheme, ref->traj, &fo);
    if (!(o->H > 0.0) || !isfinite(o->H))
        return COSA_EINVAL; /* neither a reference nor a macro step */
    cosa_reftraj *traj = NULL;
    st = fixed_noref(set, o, &traj, &fo);
    if (st == COSA_OK)
        st = td_cosim_check(set, &o->scheme, traj, &fo);
    cosa_reftraj_free(traj);
    return st;
}

static cosa_status run_fixed(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                             cosa_run_result *r, struct run_end *e)
{
    cosa_status st;
    if (ref->traj) {
        cosa_cosim_opts fo;
        if ((st = fixed_opts(o, ref->traj->H, &fo)) == COSA_OK)
            st = td_cosim_exec(set, &o->scheme, ref->traj, &fo, &r->fixed);
    } else {
        cosa_reftraj *traj = NULL;
        cosa_cosim_opts fo;
        st = fixed_noref(set, o, &traj, &fo);
        if (st == COSA_OK)
            st = td_cosim_exec(set, &o->scheme, traj, &fo, &r->fixed);
        cosa_reftraj_free(traj);
    }
    if (st != COSA_OK)
        return st;
    const cosa_cosim_result *c = r->fixed;
    r->run = c->run;
    r->e_global = c->e_global;
    r->defect_out = c->defect_out;
    r->defect_conn = c->defect_conn;
    e->reason = c->reason;
    e->t = c->diverged ? c->t_diverged : c->run.t_end;
    return COSA_OK;
}

static cosa_status check_defect(cosa_unitset *set, const cosa_run_opts *o,
                                const cosa_run_ref *ref)
{
    return td_defect_check(set, ref->x0, ref->exact, &o->defect);
}

/* The largest of n values, NaN if one is NaN (a figure not computed). */
static double max_of(size_t n, const double *a)
{
    double m = n ? -INFINITY : NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]))
            return NAN;
        m = fmax(m, a[i]);
    }
    return m;
}

static cosa_status run_defect(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                              cosa_run_result *r, struct run_end *e)
{
    cosa_status st = td_defect_exec(set, ref->x0, ref->exact, &o->defect, &r->defect);
    if (st != COSA_OK)
        return st;
    const cosa_defect_result *d = r->defect;
    r->run = d->run;
    r->e_output = max_of(d->ny, d->error);
    r->defect_out = max_of(d->ny, d->defect_out);
    r->defect_conn = max_of(d->nu, d->defect_conn);
    r->seconds_reference = d->seconds_reference;
    e->reason = d->reason;
    e->t = d->failed ? d->t_failed : d->t_end;
    return COSA_OK;
}

static cosa_status check_vo(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref)
{
    return td_vo_check(set, ref->fn, &o->vo);
}

/* The reference function of a variable-order run, timed. */
struct timed_ref {
    cosa_vo_ref_fn fn;
    void *ctx;
    double seconds;
};

static cosa_status timed_ref(void *ctx, size_t n, const double *t, size_t nsel,
                             const size_t *sel, double *X)
{
    struct timed_ref *tr = ctx;
    const double t0 = wall_seconds();
    cosa_status st = tr->fn(tr->ctx, n, t, nsel, sel, X);
    tr->seconds += wall_seconds() - t0;
    return st;
}

static cosa_status run_vo(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                          cosa_run_result *r, struct run_end *e)
{
    struct timed_ref tr = {ref->fn, ref->ctx, 0.0};
    cosa_status st = td_vo_exec(set, timed_ref, &tr, &o->vo, &r->vo);
    if (st != COSA_OK)
        return st;
    const cosa_vo_result *v = r->vo;
    r->run = v->run;
    r->e36_coupling = v->e36_coupling;
    r->e36_all = v->e36_all;
    r->e_end = v->e_end;
    r->seconds_reference = tr.seconds;
    if (v->status == COSA_VO_NOREF)
        r->status = COSA_RUN_STATUS_NOREF;
    e->reason = v->reason;
    e->t = v->t_end;
    return COSA_OK;
}

typedef struct run_config {
    const char *name;
    cosa_status (*check)(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref);
    cosa_status (*run)(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                       cosa_run_result *r, struct run_end *e);
} run_config;

static const run_config configs[COSA_RUN_KIND_COUNT] = {
    [COSA_RUN_FIXED] = {"fixed", check_fixed, run_fixed},
    [COSA_RUN_DEFECT] = {"defect", check_defect, run_defect},
    [COSA_RUN_VO] = {"vo", check_vo, run_vo},
};

const char *cosa_run_kind_name(cosa_run_kind k)
{
    return (unsigned)k < COSA_RUN_KIND_COUNT ? configs[k].name : NULL;
}

/* ---- the one result ------------------------------------------------------------------ */

/* The status from how the loop ended (the same rule in every configuration). */
static cosa_run_status status_of(cosa_run_end end)
{
    switch (end) {
    case COSA_RUN_OK: return COSA_RUN_STATUS_OK;
    case COSA_RUN_FAILED: return COSA_RUN_STATUS_FAILED;
    case COSA_RUN_LIMIT: return COSA_RUN_STATUS_LIMIT;
    case COSA_RUN_HMIN: return COSA_RUN_STATUS_HMIN;
    case COSA_RUN_HALTED: return COSA_RUN_STATUS_DIVERGED;
    case COSA_RUN_TERMINATED: return COSA_RUN_STATUS_TERMINATED;
    }
    return COSA_RUN_STATUS_FAILED;
}

/* The one-line reason: a failed unit by name (or index) and the end of
 * its step, then its own message (which names the call); otherwise the
 * time and the configuration's reason ("t = ..." already where it has one). */
static void reason_of(cosa_run_result *r, cosa_unitset *set, const struct run_end *e)
{
    const size_t iu = r->run.fail_unit;
    cosa_unit *u = r->status == COSA_RUN_STATUS_FAILED ? cosa_unitset_unit(set, iu) : NULL;
    if (r->status == COSA_RUN_STATUS_OK) {
        r->reason[0] = '\0';
    } else if (u) {
        const char *name = cosa_unitset_unit_name(set, iu), *msg = cosa_unit_message(u);
        char who[160];
        if (name)
            snprintf(who, sizeof who, "unit %s (%zu)", name, iu);
        else
            snprintf(who, sizeof who, "unit %zu", iu);
        snprintf(r->reason, sizeof r->reason, "%s, step to t = %.17g: %s", who, r->run.t_fail,
                 msg[0] ? msg : cosa_strerror(r->run.fail));
    } else if (!strncmp(e->reason, "t = ", 4)) {
        snprintf(r->reason, sizeof r->reason, "%s", e->reason);
    } else {
        snprintf(r->reason, sizeof r->reason, "t = %.17g: %s", r->t_stop,
                 e->reason[0] ? e->reason : cosa_strerror(r->run.fail));
    }
}

/* The result after the configuration ran: status, where, why, the units. */
static cosa_status run_finish(cosa_run_result *r, cosa_unitset *set, const struct run_end *e)
{
    if (r->status != COSA_RUN_STATUS_NOREF)
        r->status = status_of(r->run.end);
    r->fail_unit = r->status == COSA_RUN_STATUS_FAILED ? r->run.fail_unit : (size_t)-1;
    r->t_stop = r->status == COSA_RUN_STATUS_OK       ? NAN
                : r->status == COSA_RUN_STATUS_FAILED ? r->run.t_fail
                                                      : e->t;
    if (r->status == COSA_RUN_STATUS_FAILED && isnan(r->t_stop))
        r->t_stop = e->t;
    reason_of(r, set, e);
    r->seconds_loop = r->run.seconds;
    r->nunits = cosa_unitset_count(set);
    if (!(r->units = calloc(r->nunits + 1, sizeof *r->units)))
        return COSA_ENOMEM;
    for (size_t i = 0; i < r->nunits; i++)
        cosa_unit_get_counters(cosa_unitset_unit(set, i), &r->units[i]);
    return COSA_OK;
}

cosa_status cosa_run(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                     cosa_run_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || !o || !ref || (unsigned)o->kind >= COSA_RUN_KIND_COUNT)
        return COSA_EINVAL;
    const run_config *c = &configs[o->kind];
    cosa_status st = c->check(set, o, ref);
    if (st != COSA_OK)
        return st;
    const double t0 = wall_seconds();
    cosa_run_result *r = calloc(1, sizeof *r);
    if (!r)
        return COSA_ENOMEM;
    r->kind = o->kind;
    r->e_global = r->e_output = r->defect_out = r->defect_conn = NAN;
    r->e36_coupling = r->e36_all = r->e_end = r->seconds_reference = NAN;
    struct run_end e = {"", NAN};
    if ((st = c->run(set, o, ref, r, &e)) != COSA_OK || (st = run_finish(r, set, &e)) != COSA_OK) {
        cosa_run_result_free(r);
        return st;
    }
    r->seconds_total = wall_seconds() - t0;
    *out = r;
    return COSA_OK;
}
