/* evolve.c -- the one run loop of the time domain (evolve.h): propose ->
 * estimate -> decide -> commit, or reject and retry; and the parts every
 * configuration shares (the fixed-step controller, the master and the
 * iteration as steppers). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "td/evolve.h"
#include "td/stepping_impl.h"
#include "td/end_clip.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <time.h>

/* The committed attempt a to every observer; *halt when one asks to stop. */
static cosa_status observe(const evolve_config *c, const evolve_attempt *a, int *halt)
{
    for (size_t i = 0; i < c->nobservers; i++) {
        const evolve_observer *o = &c->observers[i];
        cosa_status st = o->committed ? o->committed(o->ctx, a, halt) : COSA_OK;
        if (st != COSA_OK)
            return st;
    }
    return COSA_OK;
}

/* The attempt a and its decision to every observer. */
static cosa_status observe_attempt(const evolve_config *c, const evolve_attempt *a,
                                   const evolve_decision *d)
{
    for (size_t i = 0; i < c->nobservers; i++) {
        const evolve_observer *o = &c->observers[i];
        cosa_status st = o->attempted ? o->attempted(o->ctx, a, d) : COSA_OK;
        if (st != COSA_OK)
            return st;
    }
    return COSA_OK;
}

/* A time event ahead of the stepper inside the planned attempt (beyond
 * rounding of its end, 16 eps |tn|) cuts it there. */
static void cut_at_event(const evolve_config *c, evolve_attempt *a)
{
    a->cut = 0;
    if (!c->stepper->next_event)
        return;
    const double te = c->stepper->next_event(c->stepper_ctx);
    if (te > a->t && te < a->tn - 16.0 * DBL_EPSILON * fabs(a->tn)) {
        a->tn = te;
        a->h = te - a->t;
        a->last = 0;
        a->cut = 1;
    }
}

/* A proposal the stepper stopped early (an event) ends there. */
static void cut_where_stopped(const evolve_config *c, evolve_attempt *a)
{
    double t;
    if (a->fail != COSA_OK || !c->stepper->reached || !c->stepper->reached(c->stepper_ctx, &t))
        return;
    if (t > a->t && t < a->tn) {
        a->tn = t;
        a->h = t - a->t;
        a->last = 0;
        a->cut = 1;
    }
}

/* One attempt: the proposal (a failure is recorded in a->fail when the
 * policy says it is one) and, when it succeeded, its estimate. */
static cosa_status attempt(const evolve_config *c, evolve_attempt *a)
{
    a->fail = COSA_OK;
    a->fail_estimate = 0;
    a->err = 0.0;
    cosa_status st = c->stepper->propose(c->stepper_ctx, a);
    if (st != COSA_OK) {
        if (!c->is_failure || !c->is_failure(st))
            return st;
        a->fail = st;
        return COSA_OK;
    }
    if (c->estimator)
        return c->estimator->estimate(c->estimator_ctx, a);
    return COSA_OK;
}

const char *cosa_run_end_name(cosa_run_end e)
{
    static const char *const names[] = {"ok",   "failed", "limit",
                                        "hmin", "halted", "terminated"};
    return (unsigned)e < sizeof names / sizeof *names ? names[e] : NULL;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The public figures of the run that ended with a, in s. */
static void run_stats(const evolve_config *c, const evolve_attempt *a, double hsum,
                      evolve_stats *s)
{
    static const cosa_run_end ends[] = {
        [EVOLVE_GO] = COSA_RUN_OK,         [EVOLVE_DONE] = COSA_RUN_OK,
        [EVOLVE_FAILED] = COSA_RUN_FAILED, [EVOLVE_LIMIT] = COSA_RUN_LIMIT,
        [EVOLVE_HMIN] = COSA_RUN_HMIN,     [EVOLVE_HALTED] = COSA_RUN_HALTED};
    cosa_run_stats *r = &s->run;
    r->end = ends[s->end];
    r->t_end = s->t;
    r->steps = s->steps;
    r->rejected = s->retried; /* a failed attempt that ends the run is no
                                 rejection (it counts in attempts) */
    r->attempts = s->attempts;
    r->rollbacks = s->retried; /* each retried attempt restarted from the
                                  step's start; a configuration adds its
                                  iterations' */
    r->corrector_iterations = 0;
    if (!s->steps)
        r->h_min = r->h_mean = r->h_max = NAN;
    else
        r->h_mean = hsum / (double)s->steps;
    const int failed = s->end == EVOLVE_FAILED && a->fail != COSA_OK;
    r->fail = failed ? a->fail : COSA_OK;
    r->t_fail = failed ? a->tn : NAN;
    r->fail_unit = failed && !a->fail_estimate && c->stepper->failed_unit
                       ? c->stepper->failed_unit(c->stepper_ctx)
                       : (size_t)-1;
}

cosa_status evolve_run(const evolve_config *c, evolve_stats *s)
{
    if (!c || !s || !c->stepper || !c->controller || (c->nobservers && !c->observers))
        return COSA_EINVAL;
    const double wall0 = wall_seconds();
    double hsum = 0.0, hmin = INFINITY, hmax = -INFINITY;
    evolve_attempt a = {.t = c->t0};
    evolve_end end;
    size_t rejected = 0, retried = 0;
    cosa_status st = COSA_OK;
    while ((end = c->controller->plan(c->controller_ctx, &a)) == EVOLVE_GO) {
        if (c->cancel && cosa_cancel_requested(c->cancel))
            return COSA_ECANCELLED;
        cut_at_event(c, &a);
        if ((st = attempt(c, &a)) != COSA_OK)
            return st;
        cut_where_stopped(c, &a);
        a.attempts++;
        evolve_decision d = {.accept = a.fail == COSA_OK, .end = EVOLVE_GO};
        if ((st = c->controller->decide(c->controller_ctx, &a, &d)) != COSA_OK ||
            (st = observe_attempt(c, &a, &d)) != COSA_OK)
            return st;
        if (d.accept) {
            int halt = 0;
            if ((st = c->stepper->commit(c->stepper_ctx, &a)) != COSA_OK ||
                (st = observe(c, &a, &halt)) != COSA_OK)
                return st;
            a.k++;
            a.t = a.tn;
            a.cuts += a.cut != 0;
            a.off = a.cut;
            hsum += a.h;
            hmin = fmin(hmin, a.h);
            hmax = fmax(hmax, a.h);
            if (halt && d.end == EVOLVE_GO)
                d.end = EVOLVE_HALTED;
        } else {
            if ((st = c->stepper->reject(c->stepper_ctx, &a)) != COSA_OK)
                return st;
            rejected++;
            retried += d.end == EVOLVE_GO;
        }
        if (c->controller->update &&
            (st = c->controller->update(c->controller_ctx, &a, &d)) != COSA_OK)
            return st;
        if (d.end != EVOLVE_GO) {
            end = d.end;
            break;
        }
    }
    *s = (evolve_stats){.end = end, .steps = a.k, .rejected = rejected, .retried = retried,
                        .attempts = a.attempts, .t = a.t, .last = a,
                        .run = {.h_min = hmin, .h_max = hmax}};
    run_stats(c, &a, hsum, s);
    s->run.seconds = wall_seconds() - wall0;
    return COSA_OK;
}

/* ---- fixed steps ------------------------------------------------------------------- */

int evolve_clip_to_end(evolve_attempt *a, double T, double rtol, int keep_h)
{
    a->clipped = 0;
    if (a->tn >= T - rtol * fabs(T)) {
        if (!keep_h || fabs((T - a->t) - a->h) > rtol * fabs(T)) {
            a->clipped = a->h > T - a->t;
            a->h = T - a->t;
        }
        a->tn = T;
        a->last = 1;
    }
    return a->last;
}

void evolve_fixed_steps(evolve_fixed *f, double t0, size_t i0, size_t n, double H,
                        double h_last)
{
    const double grid_end = t0 + (double)(i0 + n) * H;
    *f = (evolve_fixed){.n = n, .i0 = i0, .H = H, .t0 = t0, .tail = h_last > 0.0,
                        .tend = h_last > 0.0 ? grid_end + h_last : grid_end};
}

size_t evolve_fixed_horizon(evolve_fixed *f, double t0, double T, double H)
{
    double h_last;
    const double n = cosa_end_clip_steps(T, H, &h_last);
    *f = (evolve_fixed){.H = H, .t0 = t0, .tend = t0};
    if (!(n >= 1.0) && !(T > 0.0 && isfinite(T) && H > 0.0 && isfinite(H)))
        return 0;
    if (n < 1.0) /* shorter than one step: that one step, to the end */
        h_last = T;
    evolve_fixed_steps(f, t0, 0, (size_t)n, H, h_last);
    if (f->tail)
        f->tend = t0 + T; /* the end of the horizon itself */
    return f->n + (size_t)f->tail;
}

evolve_end evolve_fixed_plan(const evolve_fixed *f, evolve_attempt *a)
{
    const size_t g = a->k - a->cuts; /* grid points reached */
    if (g >= f->n + (size_t)f->tail)
        return EVOLVE_DONE;
    a->tn = g + 1 == f->n && !f->tail ? f->tend : f->t0 + (double)(f->i0 + g + 1) * f->H;
    a->h = a->off ? a->tn - a->t : f->H; /* after an event: to the next grid point */
    a->last = g + 1 == f->n && !f->tail;
    a->clipped = 0;
    if (g == f->n) /* the tail: the grid point past tend, clipped to it */
        evolve_clip_to_end(a, f->tend, 0.0, 0);
    return EVOLVE_GO;
}

static evolve_end fixed_plan(void *ctx, evolve_attempt *a)
{
    return evolve_fixed_plan(ctx, a);
}

cosa_status evolve_fixed_decide(void *ctx, const evolve_attempt *a, evolve_decision *d)
{
    (void)ctx;
    d->accept = a->fail == COSA_OK;
    d->end = d->accept ? EVOLVE_GO : EVOLVE_FAILED;
    return COSA_OK;
}

const evolve_controller evolve_controller_fixed = {"fixed", fixed_plan, evolve_fixed_decide,
                                                   NULL};

/* ---- the master and the iteration as steppers --------------------------------------- */

static cosa_status master_propose(void *ctx, const evolve_attempt *a)
{
    /* the short last step to the end of the horizon (end_clip.h) */
    if (a->clipped) {
        cosa_status st = cosa_master_set_last_step(ctx, a->h);
        if (st != COSA_OK)
            return st;
    }
    /* with events every attempt has its own length (cut, or after a cut) */
    else if (cosa_master_has_events(ctx)) {
        cosa_status st = cosa_master_set_step(ctx, a->h);
        if (st != COSA_OK)
            return st;
    }
    return cosa_master_propose(ctx, 0);
}

/* with events at the loop's clock (the proposal's end), else as always */
static cosa_status master_commit(void *ctx, const evolve_attempt *a)
{
    return cosa_master_commit_at(ctx, a->tn);
}

static cosa_status master_reject(void *ctx, const evolve_attempt *a)
{
    (void)a;
    return cosa_master_reject(ctx);
}

static size_t master_failed_unit(void *ctx) { return cosa_master_failed_unit(ctx); }

static double master_next_event(void *ctx) { return cosa_master_next_event(ctx); }
static int master_reached(void *ctx, double *t) { return cosa_master_reached(ctx, t, NULL); }

const evolve_stepper evolve_stepper_master = {"master",          master_propose,
                                              master_commit,     master_reject,
                                              master_failed_unit, master_next_event,
                                              master_reached};

static cosa_status master_h_propose(void *ctx, const evolve_attempt *a)
{
    cosa_status st = cosa_master_set_step(ctx, a->h);
    return st == COSA_OK ? cosa_master_propose(ctx, 0) : st;
}

const evolve_stepper evolve_stepper_master_h = {"master at a variable step", master_h_propose,
                                                master_commit, master_reject,
                                                master_failed_unit, NULL, NULL};

static cosa_status iter_propose_op(void *ctx, const evolve_attempt *a)
{
    if (a->clipped) /* iterations over equal steps only (end_clip.h) */
        return COSA_EUNSUPPORTED;
    return iter_propose(ctx);
}

static cosa_status iter_commit(void *ctx, const evolve_attempt *a)
{
    (void)a;
    return cosa_master_commit(cosa_iter_master(ctx));
}

static cosa_status iter_reject(void *ctx, const evolve_attempt *a)
{
    (void)a;
    return cosa_master_reject(cosa_iter_master(ctx));
}

static size_t iter_failed_unit(void *ctx) { return cosa_iter_failed_unit(ctx); }

const evolve_stepper evolve_stepper_iter = {"iteration", iter_propose_op, iter_commit,
                                            iter_reject, iter_failed_unit, NULL, NULL};
