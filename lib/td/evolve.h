/* evolve.h -- the time domain's one run loop (private): propose -> estimate
 * -> decide -> commit, or reject and retry (the counterpart of GSL's
 * gsl_odeiv2_evolve_apply, ARKODE's ARKodeEvolve, libcosim's
 * execution::step).  What varies between runs is data: a stepper (the
 * input builder and the proposal: extrapolation of order p, held
 * multi-rate inputs, given polynomials, iterated steps with rollback), an
 * error estimator (none, the defects, the variable-order estimators), a
 * step controller (the clock and the decision: fixed, PI, order and step)
 * and observers of the committed steps.  Each is a const ops table with a
 * context of its configuration; the loop itself knows no paper. */
#ifndef COSA_TD_EVOLVE_H
#define COSA_TD_EVOLVE_H

#include "cosa/td.h"

#include <stddef.h>

/* How a run ended (EVOLVE_GO: the controller plans another attempt). */
typedef enum evolve_end {
    EVOLVE_GO = 0,
    EVOLVE_DONE,   /* the end of the horizon                             */
    EVOLVE_FAILED, /* a failed step the controller does not retry        */
    EVOLVE_LIMIT,  /* the step or attempt limit before the end           */
    EVOLVE_HMIN,   /* the next step below the floor                      */
    EVOLVE_HALTED  /* an observer asked to stop (e.g. a divergence test) */
} evolve_end;

/* One attempt [t, tn] as the loop's parts see it. */
typedef struct evolve_attempt {
    size_t k;          /* steps committed before this attempt          */
    size_t attempts;   /* attempts before this one                     */
    double t, h, tn;   /* the attempt (tn: the controller's clock)     */
    int last;          /* ends the horizon when accepted               */
    cosa_status fail;  /* COSA_OK, or the failure of the attempt       */
    int fail_estimate; /* the failure came from the estimator          */
    double err;        /* the estimator's scaled error (0 without one) */
    int cut;           /* ended before the controller's tn: at a time
                          event or where the stepper stopped (an event);
                          tn, h are then the attempt's actual end, length */
    size_t cuts;       /* committed attempts that were cut               */
    int off;           /* the last committed attempt was cut             */
    int clipped;       /* shortened to end at the horizon (evolve_clip_to_end) */
} evolve_attempt;

/* The controller's decision on an attempt. */
typedef struct evolve_decision {
    int accept;     /* commit (else reject: restore and retry)           */
    evolve_end end; /* EVOLVE_GO, or why the run stops after this attempt */
} evolve_decision;

/* The stepper: builds the inputs of the attempt and proposes it on the
 * units; commit and reject (restore the units) end it. */
typedef struct evolve_stepper {
    const char *name;
    cosa_status (*propose)(void *ctx, const evolve_attempt *a);
    cosa_status (*commit)(void *ctx, const evolve_attempt *a);
    cosa_status (*reject)(void *ctx, const evolve_attempt *a);
    size_t (*failed_unit)(void *ctx); /* the failing unit (NULL: not known) */
    /* events (optional): the earliest time event ahead (INFINITY: none) --
     * the loop cuts the next attempt there; and after a proposal whether it
     * stopped before its tn, and where (*t) -- the attempt ends there, and
     * commit commits it at that time */
    double (*next_event)(void *ctx);
    int (*reached)(void *ctx, double *t);
} evolve_stepper;

/* The error estimator: measures a proposal (a->err); a failure of the
 * measurement that is a result sets a->fail. */
typedef struct evolve_estimator {
    const char *name;
    cosa_status (*estimate)(void *ctx, evolve_attempt *a);
} evolve_estimator;

/* The step controller: plan sets the next attempt's a->h, a->tn, a->last
 * (or returns why the run ends); decide accepts or rejects an attempt and
 * chooses the next step (kept in its context); update (optional) takes the
 * decision over once the attempt is committed or rejected and observed
 * (ARKODE's controller update after a step). */
typedef struct evolve_controller {
    const char *name;
    evolve_end (*plan)(void *ctx, evolve_attempt *a);
    cosa_status (*decide)(void *ctx, const evolve_attempt *a, evolve_decision *d);
    cosa_status (*update)(void *ctx, const evolve_attempt *a, const evolve_decision *d);
} evolve_controller;

/* An observer (either callback may be NULL): attempted sees every attempt
 * with its decision before it is committed or rejected; committed sees the
 * committed steps (after the stepper's commit), and setting *halt stops
 * the run (EVOLVE_HALTED). */
typedef struct evolve_observer {
    cosa_status (*committed)(void *ctx, const evolve_attempt *a, int *halt);
    void *ctx;
    cosa_status (*attempted)(void *ctx, const evolve_attempt *a, const evolve_decision *d);
} evolve_observer;

/* A run description: the parts and their contexts, and the failure
 * policy: which statuses of a proposal are a failed step (a result the
 * controller decides on) rather than an error of the run (NULL: none). */
typedef struct evolve_config {
    const evolve_stepper *stepper;
    void *stepper_ctx;
    const evolve_estimator *estimator; /* NULL: none */
    void *estimator_ctx;
    const evolve_controller *controller;
    void *controller_ctx;
    const evolve_observer *observers;
    size_t nobservers;
    int (*is_failure)(cosa_status st);
    double t0;
    const cosa_cancel *cancel; /* checked before every attempt (NULL: none):
                                  evolve_run returns COSA_ECANCELLED once set */
} evolve_config;

/* What the loop counted: the public figures (run) and the last attempt
 * (the failed one, etc.). */
typedef struct evolve_stats {
    evolve_end end;
    size_t steps, rejected, attempts;
    size_t retried;      /* rejected attempts the loop went on from */
    double t;            /* the time reached */
    evolve_attempt last;
    cosa_run_stats run;
} evolve_stats;

/* The loop: COSA_OK with the run's end in *stats (a failed step is a
 * result), or the first error of a part. */
cosa_status evolve_run(const evolve_config *c, evolve_stats *stats);

/* The end clip, shared by every controller: an attempt planned to end at
 * or past T (or within rtol |T| before it) ends at T and is the last; its
 * step becomes T - t, unless keep_h and that differs from a->h by no more
 * than rounding (rtol |T|: a fixed step that reaches T up to the rounding
 * of t = k H stays H).  a->clipped says the step was shortened.  Returns
 * a->last. */
int evolve_clip_to_end(evolve_attempt *a, double T, double rtol, int keep_h);

/* Fixed steps, the one rule of every fixed-step run (doc/simulate.md "A
 * horizon that is not a multiple of dt"): n full steps of H from
 * t0 + i0 H, tn = t0 + (i0 + k + 1) H (a counter, not a sum), the last
 * of them ending at tend; with tail, one more, shorter step to tend (the
 * end clip, evolve_clip_to_end).  Every attempt is accepted and a failed
 * one ends the run.  Attempts cut at events (a->cut) are extra
 * communication points: the grid continues at the next grid point after
 * them (the step there is tn - t).  Build it with evolve_fixed_steps or
 * evolve_fixed_horizon; plan an attempt with evolve_fixed_plan (the plan of
 * evolve_controller_fixed, context an evolve_fixed, for configurations
 * with their own controller). */
typedef struct evolve_fixed {
    size_t n, i0;
    double H, t0;
    double tend; /* the end of the run: t0 + (i0 + n) H, or the tail's end */
    int tail;    /* one short step after the n full ones */
} evolve_fixed;
/* n full steps of H from t0 + i0 H, then (h_last > 0) one of h_last
 * (h_last < H: the caller checked it, cosa_end_clip_refusal). */
void evolve_fixed_steps(evolve_fixed *f, double t0, size_t i0, size_t n, double H,
                        double h_last);
/* The horizon [t0, t0 + T] at H: floor(T / H) full steps (T / H within
 * COSA_END_CLIP_RTOL of a whole number is that number, cosa_end_clip_steps)
 * and a short last one to t0 + T; T < H: one step of T.  The run ends at
 * t0 + n H for a whole number n of steps (as a counter; t0 + T to rounding),
 * else at t0 + T.  Returns the number of steps (the tail
 * counted); 0 for T or H not positive and finite. */
size_t evolve_fixed_horizon(evolve_fixed *f, double t0, double T, double H);
/* The next attempt of a fixed-step run that reached a (EVOLVE_DONE after
 * the last step). */
evolve_end evolve_fixed_plan(const evolve_fixed *f, evolve_attempt *a);
/* The decision of fixed steps (ctx unused): accept unless the step failed,
 * which ends the run (EVOLVE_FAILED); the plan says when it is done. */
cosa_status evolve_fixed_decide(void *ctx, const evolve_attempt *a, evolve_decision *d);
extern const evolve_controller evolve_controller_fixed;

/* The master as the stepper (its configured input builder: extrapolation,
 * Taylor, held multi-rate or given inputs), context a cosa_master; and the
 * iteration (iterate.c: iterated steps with rollback), context a cosa_iter.
 * A step's numerical failures (divergence) are failures. */
extern const evolve_stepper evolve_stepper_master;
/* The master at the attempt's macro step a->h (cosa_master_set_step: its
 * Taylor or given inputs), context a cosa_master. */
extern const evolve_stepper evolve_stepper_master_h;
extern const evolve_stepper evolve_stepper_iter;

/* The iteration's step without its commit (iterate.c). */
cosa_status iter_propose(cosa_iter *it);


#endif
