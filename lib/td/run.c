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

#include <float.h>
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
    /* the controller's parameters: the variable-order engine's defaults
     * (cosa_vo_opts_default), the defect run's step floor */
    cosa_vo_opts v;
    cosa_vo_opts_default(&v);
    o->tol = v.rtol;
    o->safety = v.sf;
    o->rmin = v.rmin;
    o->rmax = v.rmax;
    o->hmin = COSA_DEFECT_HMIN;
    cosa_scheme_parse("zoh", &o->scheme);
    o->defect.in_order = 1;
    o->defect.out_order = 1;
    o->defect.control = COSA_DEFECT_BOTH;
    o->vo = (cosa_run_vo_opts){.coupling = v.coupling, .kmax = v.kmax, .atol_x = v.atol_x,
                               .atol_v = v.atol_v, .atol_u = v.atol_u, .rtol_u = v.rtol_u,
                               .jacobian = v.jacobian, .corr_tol = v.corr_tol,
                               .corr_max = v.corr_max, .store_max = v.store_max};
}

void cosa_run_result_free(cosa_run_result *r)
{
    if (!r)
        return;
    cosa_cosim_result_free(r->fixed);
    cosa_defect_result_free(r->defect);
    cosa_vo_result_free(r->vo);
    free(r->units);
    free(r->t);
    free(r->y);
    free(r->x);
    free(r);
}

/* ---- the description ------------------------------------------------------------- */

static int finite_pos(double v) { return isfinite(v) && v > 0.0; }

/* A plain scheme: Jacobi, no corrections, no iteration (the extrapolation
 * degree alone). */
static int scheme_plain(const cosa_scheme *s)
{
    return s->exec == COSA_JACOBI && s->corr == 0 && !s->implicit && !s->q_extra &&
           s->iterations == 0 && !s->seq && !s->model;
}

/* What every configuration checks of the loop's settings: the start, the
 * horizon, the step, the controller's parameters (whichever configuration
 * reads them: a NaN is refused, not carried), the observers. */
static cosa_status check_common(const cosa_run_opts *o)
{
    if (!isfinite(o->t0) || !finite_pos(o->tend) || !(o->H >= 0.0) || !isfinite(o->H) ||
        !finite_pos(o->tol) || !finite_pos(o->safety) || !(o->rmin > 0.0 && o->rmin < 1.0) ||
        !(o->rmax > 1.0) || !isfinite(o->rmax) || !finite_pos(o->hmin))
        return COSA_ERANGE;
    if (o->t0 != 0.0)
        return COSA_EUNSUPPORTED; /* every configuration starts its units at 0 */
    if (o->nobservers && !o->observers)
        return COSA_EINVAL;
    return COSA_OK;
}

/* The units' own stacked state (the start of a run without a reference). */
static cosa_status units_state(cosa_unitset *set, double **x)
{
    const size_t nx = cosa_unitset_nx(set);
    if (!(*x = calloc(nx + 1, sizeof **x)))
        return COSA_ENOMEM;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < cosa_unitset_count(set) && st == COSA_OK; i++) {
        size_t ox;
        if ((st = cosa_unitset_offsets(set, i, &ox, NULL, NULL)) == COSA_OK)
            st = cosa_unit_get_state(cosa_unitset_unit(set, i), NULL, *x + ox);
    }
    if (st != COSA_OK) {
        free(*x);
        *x = NULL;
    }
    return st;
}

/* What a configuration's result says of its end: the reason text (without
 * the unit: run_finish names it) and the time it stopped. */
struct run_end {
    const char *reason;
    double t;
};

/* ---- FIXED ------------------------------------------------------------------------- */

/* The preset's options from the description, at the macro step H: the
 * steps of the horizon by the one fixed-step rule (cosa_end_clip_steps). */
static cosa_status fill_fixed(const cosa_run_opts *o, double H, cosa_cosim_opts *fo)
{
    double h_last;
    const double n = cosa_end_clip_steps(o->tend, H, &h_last);
    if (!(n >= 1.0) || n > 1e15)
        return COSA_ERANGE; /* no whole step in the horizon, or beyond counting */
    if (o->max_steps && n + (h_last > 0.0) > (double)o->max_steps)
        return COSA_ERANGE;
    const cosa_run_fixed_opts *f = &o->fixed;
    *fo = (cosa_cosim_opts){.nsteps = (size_t)n, .h_last = h_last, .master = f->master,
                            .diverge_factor = f->diverge_factor, .observers = o->observers,
                            .nobservers = o->nobservers, .defects = f->defects,
                            .defect_out_order = f->defect_out_order,
                            .start_initial = o->start_initial, .energy = f->energy,
                            .iter = f->iter, .cancel = o->cancel};
    return COSA_OK;
}

/* The macro step of a run on the reference trajectory traj: the
 * description's H, 0 meaning the trajectory's; another value must be the
 * trajectory's to the rounding of a step computed two ways (4 eps). */
static cosa_status fixed_H(const cosa_run_opts *o, const cosa_reftraj *traj, double *H)
{
    *H = traj->H;
    return o->H == 0.0 || fabs(o->H - traj->H) <= 4.0 * DBL_EPSILON * traj->H ? COSA_OK
                                                                             : COSA_EINVAL;
}

/* The preset's options and trajectory: the reference's, or, without one,
 * cosa_reftraj_none at H (*own, freed by the caller): the run starts at
 * t = 0 from the units' own states (start_initial). */
static cosa_status fixed_setup(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                               const cosa_reftraj **traj, cosa_reftraj **own, cosa_cosim_opts *fo)
{
    *own = NULL;
    if (o->controller || o->estimator || o->max_attempts)
        return COSA_EUNSUPPORTED; /* fixed steps of H, no estimate, no retry */
    cosa_status st;
    double H;
    if (ref && ref->traj) {
        *traj = ref->traj;
        return (st = fixed_H(o, ref->traj, &H)) != COSA_OK ? st : fill_fixed(o, H, fo);
    }
    if (o->H == 0.0)
        return COSA_ERANGE; /* neither a reference nor a macro step */
    if ((st = fill_fixed(o, o->H, fo)) != COSA_OK)
        return st;
    fo->start_initial = 1;
    const size_t n = (size_t)(o->scheme.order > 0 ? o->scheme.order : 0) + fo->nsteps + 1;
    st = cosa_reftraj_none(set, NULL, o->H, n, own);
    *traj = *own;
    return st;
}

static cosa_status check_fixed(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref)
{
    const cosa_reftraj *traj;
    cosa_reftraj *own;
    cosa_cosim_opts fo;
    cosa_status st = fixed_setup(set, o, ref, &traj, &own, &fo);
    if (st == COSA_OK)
        st = td_cosim_check(set, &o->scheme, traj, &fo);
    cosa_reftraj_free(own);
    return st;
}

static cosa_status run_fixed(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                             cosa_run_result *r, struct run_end *e)
{
    const cosa_reftraj *traj;
    cosa_reftraj *own;
    cosa_cosim_opts fo;
    cosa_status st = fixed_setup(set, o, ref, &traj, &own, &fo);
    if (st == COSA_OK)
        st = td_cosim_exec(set, &o->scheme, traj, &fo, &r->fixed);
    cosa_reftraj_free(own);
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

/* ---- DEFECT ------------------------------------------------------------------------ */

/* The preset's options: fixed steps of H without a controller; with one,
 * the tolerance tol and the first step H. */
static cosa_status fill_defect(const cosa_run_opts *o, cosa_defect_opts *d)
{
    if (!scheme_plain(&o->scheme) || o->scheme.order != 0 || o->estimator || o->cancel ||
        o->max_attempts)
        return COSA_EUNSUPPORTED; /* Taylor inputs (defect.in_order); the defects estimate */
    const int ctl = o->controller != NULL;
    *d = (cosa_defect_opts){.in_order = o->defect.in_order, .out_order = o->defect.out_order,
                            .H = ctl ? 0.0 : o->H, .tol = ctl ? o->tol : 0.0,
                            .h0 = ctl ? o->H : 0.0, .tend = o->tend,
                            .control = o->defect.control, .controller = o->controller,
                            .max_steps = o->max_steps, .hmin = o->hmin,
                            .observers = o->observers, .nobservers = o->nobservers};
    return COSA_OK;
}

/* The start: the reference's x0, else the units' own states (*own). */
static cosa_status defect_x0(cosa_unitset *set, const cosa_run_ref *ref, const double **x0,
                             double **own)
{
    *own = NULL;
    *x0 = ref ? ref->x0 : NULL;
    if (*x0)
        return COSA_OK;
    cosa_status st = units_state(set, own);
    *x0 = *own;
    return st;
}

static cosa_status check_defect(cosa_unitset *set, const cosa_run_opts *o,
                                const cosa_run_ref *ref)
{
    cosa_defect_opts d;
    cosa_status st = fill_defect(o, &d);
    if (st != COSA_OK)
        return st;
    /* the start is the reference's or the units' own: either exists */
    const double one = 0.0;
    return td_defect_check(set, ref && ref->x0 ? ref->x0 : &one, ref ? ref->exact : NULL, &d);
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
    cosa_defect_opts dopt;
    const double *x0;
    double *own = NULL;
    cosa_status st = fill_defect(o, &dopt);
    if (st == COSA_OK && (st = defect_x0(set, ref, &x0, &own)) == COSA_OK)
        st = td_defect_exec(set, x0, ref ? ref->exact : NULL, &dopt, &r->defect);
    free(own);
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

/* ---- VO ---------------------------------------------------------------------------- */

/* The preset's options: the degree k is the scheme's extrapolation order;
 * the controller "order" controls degree and step, any other the step. */
static cosa_status fill_vo(const cosa_run_opts *o, cosa_vo_opts *v)
{
    if (!scheme_plain(&o->scheme) || o->cancel || o->max_steps)
        return COSA_EUNSUPPORTED;
    const cosa_controller_type *ct = o->controller;
    const cosa_run_vo_opts *b = &o->vo;
    cosa_vo_opts_default(v);
    v->coupling = b->coupling;
    v->k = o->scheme.order;
    v->kmax = b->kmax;
    v->H = o->H;
    v->tend = o->tend;
    v->estimator = o->estimator;
    v->control = !ct                                      ? COSA_VO_CONTROL_NONE
                 : ct == cosa_controller_lookup("order") ? COSA_VO_CONTROL_ORDER
                                                           : COSA_VO_CONTROL_STEP;
    v->controller = ct;
    v->rtol = o->tol;
    v->atol_x = b->atol_x;
    v->atol_v = b->atol_v;
    v->atol_u = b->atol_u;
    v->rtol_u = b->rtol_u;
    v->sf = o->safety;
    v->rmin = o->rmin;
    v->rmax = o->rmax;
    v->hmin = o->hmin;
    v->ctl_coupling = b->ctl_coupling;
    v->jacobian = b->jacobian;
    v->corr_tol = b->corr_tol;
    v->corr_max = b->corr_max;
    v->is_vel = b->is_vel;
    v->max_attempts = o->max_attempts;
    v->store_max = b->store_max;
    v->observers = o->observers;
    v->nobservers = o->nobservers;
    v->start_initial = o->start_initial;
    return COSA_OK;
}

/* Without a reference function: x(0) is the units' own state and every
 * other time is unknown, NaN -- the engine's error figures are NaN then,
 * and its divergence bound comes from x(0) alone (1e6 x its largest
 * magnitude; none when it is 0), as a fixed run's without a reference. */
struct own_ref {
    size_t nx;
    double *x0;
};

static cosa_status own_ref_fn(void *ctx, size_t n, const double *t, size_t nsel,
                              const size_t *sel, double *X)
{
    const struct own_ref *w = ctx;
    const size_t m = sel ? nsel : w->nx;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < m; i++)
            X[i + k * m] = t[k] == 0.0 ? w->x0[sel ? sel[i] : i] : NAN;
    return COSA_OK;
}

static cosa_status check_vo(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref)
{
    cosa_vo_opts v;
    cosa_status st = fill_vo(o, &v);
    if (st != COSA_OK)
        return st;
    if (!(ref && ref->fn) && !o->start_initial)
        return COSA_EINVAL; /* the start-up samples come from a reference */
    return td_vo_check(set, ref && ref->fn ? ref->fn : own_ref_fn, &v);
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
    cosa_vo_opts v;
    struct own_ref own = {cosa_unitset_nx(set), NULL};
    const int noref = !(ref && ref->fn);
    struct timed_ref tr = {noref ? own_ref_fn : ref->fn, noref ? (void *)&own : ref->ctx, 0.0};
    cosa_status st = fill_vo(o, &v);
    if (st == COSA_OK && noref)
        st = units_state(set, &own.x0);
    if (st == COSA_OK)
        st = td_vo_exec(set, timed_ref, &tr, &v, &r->vo);
    free(own.x0);
    if (st != COSA_OK)
        return st;
    const cosa_vo_result *vr = r->vo;
    r->run = vr->run;
    r->e36_coupling = vr->e36_coupling;
    r->e36_all = vr->e36_all;
    r->e_end = vr->e_end;
    r->seconds_reference = noref ? NAN : tr.seconds;
    if (vr->status == COSA_VO_NOREF)
        r->status = COSA_RUN_STATUS_NOREF;
    e->reason = vr->reason;
    e->t = vr->t_end;
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

/* The trajectory's arrays: npoints times, ny outputs, nx states. */
static cosa_status traj_alloc(cosa_run_result *r, size_t npoints, size_t ny, size_t nx)
{
    r->npoints = npoints;
    r->ny = ny;
    r->nx = nx;
    r->t = malloc(npoints * sizeof *r->t + 1);
    r->y = malloc(ny * npoints * sizeof *r->y + 1);
    r->x = nx ? malloc(nx * npoints * sizeof *r->x) : NULL;
    return r->t && r->y && (r->x || !nx) ? COSA_OK : COSA_ENOMEM;
}

/* The common trajectory from the configuration's own result: copies of its
 * accepted points (a diverged fixed run's points up to ndone; a defect
 * run's start has no recorded outputs: NaN). */
static cosa_status run_trajectory(cosa_run_result *r)
{
    cosa_status st = COSA_OK;
    if (r->fixed) {
        const cosa_cosim_result *c = r->fixed;
        const size_t n = c->ndone + 1;
        if ((st = traj_alloc(r, n, c->ny, c->nx)) != COSA_OK)
            return st;
        memcpy(r->t, c->t, n * sizeof *r->t);
        memcpy(r->y, c->y, c->ny * n * sizeof *r->y);
        if (c->nx)
            memcpy(r->x, c->x, c->nx * n * sizeof *r->x);
    } else if (r->defect) {
        const cosa_defect_result *d = r->defect;
        const size_t n = d->nsteps + 1, ny = d->ny, nc = ny * (size_t)(d->out_order + 1);
        if ((st = traj_alloc(r, n, ny, 0)) != COSA_OK)
            return st;
        r->t[0] = 0.0;
        for (size_t i = 0; i < ny; i++)
            r->y[i] = NAN;
        for (size_t k = 0; k < d->nsteps; k++) {
            r->t[k + 1] = d->t[k];
            memcpy(r->y + (k + 1) * ny, d->coef + k * nc, ny * sizeof *r->y); /* y^(0) */
        }
    } else if (r->vo) {
        const cosa_vo_result *v = r->vo;
        const size_t n = v->t ? v->steps + 1 : 0, nx = v->all_stored ? v->nx : 0;
        if ((st = traj_alloc(r, n, v->ny, nx)) != COSA_OK)
            return st;
        if (n)
            memcpy(r->t, v->t, n * sizeof *r->t);
        if (n && v->ny)
            memcpy(r->y, v->y, v->ny * n * sizeof *r->y);
        if (n && nx)
            memcpy(r->x, v->x, nx * n * sizeof *r->x);
    }
    return st;
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
    if (!set || !o || (unsigned)o->kind >= COSA_RUN_KIND_COUNT)
        return COSA_EINVAL;
    const run_config *c = &configs[o->kind];
    cosa_status st = check_common(o);
    if (st == COSA_OK)
        st = c->check(set, o, ref);
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
    if ((st = c->run(set, o, ref, r, &e)) != COSA_OK || (st = run_finish(r, set, &e)) != COSA_OK ||
        (st = run_trajectory(r)) != COSA_OK) {
        cosa_run_result_free(r);
        return st;
    }
    r->seconds_total = wall_seconds() - t0;
    *out = r;
    return COSA_OK;
}
