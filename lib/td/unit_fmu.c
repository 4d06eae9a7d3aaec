/* unit_fmu.c -- an FMI 3.0 / 2.0 co-simulation FMU behind the unit seam
 * (cosa_unit_type).
 *
 * The unit's state x is the FMU's continuous states (the variables whose
 * derivatives ModelStructure lists), read after every step.  Setting a
 * state (cosa_unit_set_state: the master's start) instantiates the FMU
 * afresh: the states' start values are set to x, recorded start values
 * (cosa_unit_fmu_set_start) are applied, and the FMU is initialised at the
 * unit's time.  A step sets the input polynomial -- its value at t_c for
 * degree 0; for degree p >= 1 an FMI 2.0 FMU with canInterpolateInputs gets
 * the derivatives 1..p through fmi2SetRealInputDerivatives, anything else is
 * refused with the missing capability named -- then calls doStep and reads
 * the states.  The model (eval) and its Jacobians are available only at the
 * FMU's current point (its time and state): an FMU cannot be set to another
 * state without its FMU-state functions; the Jacobians come from the
 * directional derivatives (unknowns: state derivatives and outputs; knowns:
 * states and inputs).  Snapshots use get/set FMU state when the FMU can.
 * Any FMU call that returns Discard, Error or Fatal (or doStep asking for
 * an event, termination or an early return, reporting a lastSuccessfulTime
 * other than t + h, or never asking for the inputs of a polynomial of
 * degree >= 1 through intermediate update) fails the step with one line:
 * the instance, the function, the time, the status and the last message
 * the FMU logged.  The first Warning is kept; with a logger (--fmu-log) the
 * FMU is instantiated with loggingOn and every message is passed on. */
#define _GNU_SOURCE
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_name(int s)
{
    static const char *const n[] = {"OK", "Warning", "Discard", "Error", "Fatal", "Pending"};
    return s >= 0 && s <= 5 ? n[s] : "unknown";
}

/* ---- logging callbacks: keep the last message ---------------------------- */
static void fmu_log3(void *env, fmi3Status status, fmi3String category, fmi3String message)
{
    fmu_unit *f = env;
    if (!f || !message)
        return;
    snprintf(f->log, sizeof f->log, "%s", message);
    if (f->logger)
        f->logger(f->log_user, f->name, (int)status, category ? category : "", message);
}

static void fmu_log2(fmi2ComponentEnvironment env, fmi2String name, fmi2Status status,
                 fmi2String category, fmi2String message, ...)
{
    fmu_unit *f = env;
    (void)name;
    if (!f || !message)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message, ap);
    va_end(ap);
    snprintf(f->log, sizeof f->log, "%.255s", text);
    if (f->logger)
        f->logger(f->log_user, f->name, (int)status, category ? category : "", text);
}

static void *alloc2(size_t n, size_t size) { return calloc(n, size); }

/* FMI 3.0 intermediate update: during a step the FMU asks for its inputs at
 * time t; they get the input polynomial's value there. */
static void fmu_update3(fmi3InstanceEnvironment env, fmi3Float64 t, fmi3Boolean set_requested,
                        fmi3Boolean get_allowed, fmi3Boolean step_finished,
                        fmi3Boolean can_return_early, fmi3Boolean *early_requested,
                        fmi3Float64 *early_time)
{
    fmu_unit *f = env;
    (void)get_allowed;
    (void)step_finished;
    if (early_requested)
        *early_requested = false;
    /* the FMU signals a point it can return early at (an internal event, a
     * clock about to tick): every event is a communication point of every
     * unit, so cosa asks for the early return there (README "Events") */
    if (f && can_return_early && f->early_allowed && early_requested) {
        *early_requested = true;
        if (early_time)
            *early_time = t;
    }
    if (!f || !f->unit || !set_requested ||
        !(f->fmu->desc.caps & COSA_FMU_CAP_INTERMEDIATE_UPDATE))
        return;
    /* a request inside the step: the input polynomial is applied there (one
     * at the step's start adds nothing to the value set before the step) */
    if (t > cosa_unit_time(f->unit))
        f->nupdate++;
    const size_t nu = f->fmu->desc.nin_step; /* clocked inputs: Event Mode only */
    cosa_unit_input_at(f->unit, t - cosa_unit_time(f->unit), f->uim);
    if (nu)
        f->fmu->f3.SetFloat64(f->inst, f->vu, nu, f->uim, nu);
}

/* One line for a failed FMU call (into the unit's message). */
cosa_status fmu_unit_fail(cosa_unit *u, const char *fn, double t, int status)
{
    fmu_unit *f = cosa_unit_impl(u);
    f->log[strcspn(f->log, "\n")] = '\0';
    cosa_unit_fail(u, "FMU %s: %s at t = %.17g returned %s%s%s", f->name, fn, t,
                   status_name(status), f->log[0] ? "; it logged: " : "", f->log);
    /* Discard (2): the FMU could not complete the step, its instance stays
     * usable -- a numerical result (README "Failures"); Error, Fatal: the
     * instance is broken -- an error */
    return status == 2 ? COSA_EDISCARD : COSA_EFMU;
}

static int v3(const fmu_unit *f) { return f->fmu->desc.version == 3; }

/* Status Warning (1) of a call: the first one is kept (one line), the run
 * goes on. */
void fmu_unit_warned(fmu_unit *f, const char *fn, double t, int status)
{
    if (status != 1 || f->warning[0])
        return;
    f->log[strcspn(f->log, "\n")] = '\0';
    snprintf(f->warning, sizeof f->warning, "FMU %s: %s at t = %.17g returned Warning%s%.300s",
             f->name, fn, t, f->log[0] ? "; it logged: " : "", f->log);
}

static void free_instance(fmu_unit *f)
{
    if (!f->inst)
        return;
    for (fmu_snapshot *w = f->snaps; w; w = w->next) /* their FMU states die with it */
        if (w->fs && w->serial == f->serial) {
            if (v3(f))
                f->fmu->f3.FreeFMUState(f->inst, &w->fs);
            else
                f->fmu->f2.FreeFMUstate(f->inst, &w->fs);
            w->fs = NULL;
        }
    if (v3(f)) {
        f->fmu->f3.Terminate(f->inst);
        f->fmu->f3.FreeInstance(f->inst);
    } else {
        f->fmu->f2.Terminate(f->inst);
        f->fmu->f2.FreeInstance(f->inst);
    }
    f->inst = NULL;
}

static int set_reals(fmu_unit *f, const unsigned *vr, size_t n, const double *v)
{
    if (n == 0)
        return 0;
    if (v3(f))
        return f->fmu->f3.SetFloat64(f->inst, vr, n, v, n);
    return f->fmu->f2.SetReal(f->inst, vr, n, v);
}

/* The recorded Integer/Boolean/String start values, one call each: the
 * FMU's status (> 1 a failure), or 3 when the FMU lacks the function. */
static int set_texts(fmu_unit *f, const char **fn)
{
    for (size_t i = 0; i < f->ntstart; i++) {
        const struct fmu_text_start *t = &f->tstarts[i];
        const unsigned vr = t->vr;
        int s = 3;
        if (v3(f)) {
            const fmi3Boolean b = t->ival != 0;
            const fmi3String sv = t->sval;
            *fn = t->kind == 'i' ? "fmi3SetInt32 (start values)"
                  : t->kind == 'b' ? "fmi3SetBoolean (start values)" : "fmi3SetString (start values)";
            if (t->kind == 'i' && f->fmu->f3.SetInt32)
                s = f->fmu->f3.SetInt32(f->inst, &vr, 1, &t->ival, 1);
            else if (t->kind == 'b' && f->fmu->f3.SetBoolean)
                s = f->fmu->f3.SetBoolean(f->inst, &vr, 1, &b, 1);
            else if (t->kind == 's' && f->fmu->f3.SetString)
                s = f->fmu->f3.SetString(f->inst, &vr, 1, &sv, 1);
        } else {
            const fmi2String sv = t->sval;
            *fn = t->kind == 'i' ? "fmi2SetInteger (start values)"
                  : t->kind == 'b' ? "fmi2SetBoolean (start values)" : "fmi2SetString (start values)";
            if (t->kind == 'i' && f->fmu->f2.SetInteger)
                s = f->fmu->f2.SetInteger(f->inst, &vr, 1, &t->ival);
            else if (t->kind == 'b' && f->fmu->f2.SetBoolean)
                s = f->fmu->f2.SetBoolean(f->inst, &vr, 1, &t->ival);
            else if (t->kind == 's' && f->fmu->f2.SetString)
                s = f->fmu->f2.SetString(f->inst, &vr, 1, &sv);
        }
        if (s > 1)
            return s;
    }
    return 0;
}

static int get_reals(fmu_unit *f, const unsigned *vr, size_t n, double *v)
{
    if (n == 0)
        return 0;
    if (v3(f))
        return f->fmu->f3.GetFloat64(f->inst, vr, n, v, n);
    return f->fmu->f2.GetReal(f->inst, vr, n, v);
}

/* A new instance at time t with states x: start values, initialisation. */
static void instantiate(cosa_unit *u)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const double t = cosa_unit_time(u);
    free_instance(f);
    fmu_clock_sched_free(&f->clk);
    f->serial++;
    f->bad = 0;
    f->log[0] = '\0';
    const char *fn = v3(f) ? "fmi3InstantiateCoSimulation" : "fmi2Instantiate";
    /* the resources directory: 3.0 a path ending in '/', 2.0 a file:// URI */
    /* events on: eventModeUsed, and earlyReturnAllowed where the FMU can
     * return early (the callback is then always given) */
    f->event_mode_used = v3(f) && f->events && (m->desc.caps & COSA_FMU_CAP_EVENT_MODE);
    f->early_allowed = f->event_mode_used && (m->desc.caps & COSA_FMU_CAP_EARLY_RETURN);
    const int iu = (m->desc.caps & COSA_FMU_CAP_INTERMEDIATE_UPDATE) != 0;
    f->me_next = INFINITY;
    if (f->me) {
        fn = v3(f) ? "fmi3InstantiateModelExchange" : "fmi2Instantiate (ModelExchange)";
        f->inst = fmu_me_instantiate(f, (void *)fmu_log3, &f->cb2);
    } else if (v3(f))
        f->inst = m->f3.InstantiateCoSimulation(
            f->name, m->desc.token ? m->desc.token : "", m->res3, false, f->logger != NULL,
            f->event_mode_used, f->early_allowed, f->vu, iu ? m->desc.nin_step : 0, f, fmu_log3,
            iu || f->early_allowed ? fmu_update3 : NULL);
    else
        f->inst = m->f2.Instantiate(f->name, fmi2CoSimulation, m->desc.token ? m->desc.token : "",
                                    m->res2, &f->cb2, fmi2False,
                                    f->logger ? fmi2True : fmi2False);
    int s = 0;
    if (!f->inst) {
        snprintf(f->why, sizeof f->why, "FMU %s: %s returned NULL%s%s", f->name, fn,
                 f->log[0] ? "; it logged: " : "", f->log);
        f->bad = 1;
        return;
    }
    /* recorded start values (parameters), then the states */
    if ((s = set_reals(f, f->starts_vr, f->nstart, f->starts)) > 1)
        fn = v3(f) ? "fmi3SetFloat64 (start values)" : "fmi2SetReal (start values)";
    else if ((s = set_texts(f, &fn)) > 1)
        ;
    else if ((s = set_reals(f, f->vx, cosa_unit_nx(u), cosa_unit_state(u))) > 1)
        fn = v3(f) ? "fmi3SetFloat64 (states)" : "fmi2SetReal (states)";
    else if (v3(f)) {
        if ((s = m->f3.EnterInitializationMode(f->inst, false, 0.0, t, false, 0.0)) > 1)
            fn = "fmi3EnterInitializationMode";
        else if (!f->init_hold && (s = m->f3.ExitInitializationMode(f->inst)) > 1)
            fn = "fmi3ExitInitializationMode";
        else if (f->me) {
            if (!f->init_hold && fmu_me_initialised(f, t, f->tmp) != 0) {
                f->bad = 1; /* f->why says why */
                return;
            }
        } else if (!f->init_hold && f->event_mode_used && m->desc.nclock &&
                 fmu_clocks_start(u, t) != COSA_OK) {
            f->bad = 1; /* f->why says why */
            return;
        } else if (!f->init_hold && f->event_mode_used && fmu_event_mode(u, t, 0, NULL) != COSA_OK) {
            /* eventModeUsed: the instance is in Event Mode now */
            snprintf(f->why, sizeof f->why, "%s", cosa_unit_message(u));
            f->bad = 1;
            return;
        }
    } else {
        if ((s = m->f2.SetupExperiment(f->inst, fmi2False, 0.0, t, fmi2False, 0.0)) > 1)
            fn = "fmi2SetupExperiment";
        else if ((s = m->f2.EnterInitializationMode(f->inst)) > 1)
            fn = "fmi2EnterInitializationMode";
        else if (!f->init_hold && (s = m->f2.ExitInitializationMode(f->inst)) > 1)
            fn = "fmi2ExitInitializationMode";
        else if (f->me && !f->init_hold && fmu_me_initialised(f, t, f->tmp) != 0) {
            f->bad = 1; /* f->why says why */
            return;
        }
    }
    if (s > 1) {
        f->log[strcspn(f->log, "\n")] = '\0';
        snprintf(f->why, sizeof f->why, "FMU %s: %s at t = %.17g returned %s%s%s", f->name, fn,
                 t, status_name(s), f->log[0] ? "; it logged: " : "", f->log);
        f->bad = 1;
    }
    fmu_unit_warned(f, v3(f) ? "fmi3 instantiation and initialisation"
                    : "fmi2 instantiation and initialisation", t, s);
}

static cosa_status ready(cosa_unit *u)
{
    fmu_unit *f = cosa_unit_impl(u);
    if (!f->inst && !f->bad)
        instantiate(u);
    if (f->bad) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    return COSA_OK;
}

static void fmu_reset(cosa_unit *u)
{
    instantiate(u);
    fmu_me_reset(cosa_unit_impl(u));
}

/* fmi3DoStep from t over h, and what it answers: termination is refused;
 * an event (eventHandlingNeeded) or an early return only where the instance
 * was told they may happen (eventModeUsed, earlyReturnAllowed: else
 * COSA_EFMU, resp. COSA_EUNSUPPORTED for an early return that was not
 * allowed); *last = the time reached, *event = Event Mode is due there.
 * Without an early return lastSuccessfulTime must be t + h (to rounding: an
 * FMU that sums its internal steps of the step differs from t + h by a few
 * ulps per internal step, so |last - (t + h)| <= 1e-9 h + 4 eps |t + h|
 * admits up to ~1e6 internal steps; an early return that close counts as
 * reaching t + h); with poly (an input polynomial of degree >= 1 through
 * intermediate update) the FMU must have asked for its inputs inside a
 * complete step at least once, else the polynomial was never applied and
 * the step was a ZOH step. */
static cosa_status do_step3(cosa_unit *u, double t, double h, int poly, double *last_out,
                            int *event_out)
{
    fmu_unit *f = cosa_unit_impl(u);
    fmi3Boolean event = false, term = false, early = false;
    fmi3Float64 last = t;
    f->nupdate = 0;
    const int s = f->fmu->f3.DoStep(f->inst, t, h, false, &event, &term, &early, &last);
    if (s > 1)
        return fmu_unit_fail(u, "fmi3DoStep", t, s);
    fmu_unit_warned(f, "fmi3DoStep", t, s);
    if (early && !f->early_allowed) {
        cosa_unit_fail(u, "FMU %s: fmi3DoStep at t = %.17g returned early (lastSuccessfulTime "
                          "= %.17g) although cosa did not allow it (earlyReturnAllowed = false%s)",
                       f->name, t, last, f->events ? "" : "; events off");
        return COSA_EUNSUPPORTED;
    }
    const double tol = 1e-9 * h + 4.0 * DBL_EPSILON * fabs(t + h);
    /* an end the run accepts (unit_end.c): the step completed to t + h */
    const int end = term && cosa_unit_end_allowed(u) && !early && fabs(last - (t + h)) <= tol;
    if ((term && !end) || (event && !f->event_mode_used)) {
        cosa_unit_fail(u, "FMU %s: fmi3DoStep at t = %.17g asked for %s (not supported)",
                       f->name, t, event && !term ? "event handling" : "termination");
        return COSA_EFMU;
    }
    if (end) {
        cosa_unit_ask_end(u);
        cosa_unit_fail(u, "FMU %s asked to end the simulation at t = %.15g "
                          "(terminateSimulation)", f->name, t + h);
    }
    if (early && last < t + h - tol && last >= t) {
        *last_out = last;
        *event_out = 1;
        return COSA_OK;
    }
    if (!(fabs(last - (t + h)) <= tol) && last < t + h && !early) {
        /* no early return, yet short of t + h: the FMU did not advance there
         * (a fixed-step FMU stops on its own grid) */
        const double hf = f->fmu->desc.fixed_step;
        char fx[160] = "";
        if (hf > 0.0)
            snprintf(fx, sizeof fx, "; it takes fixed internal steps of %.15g s "
                                    "(fixedInternalStepSize)", hf);
        cosa_unit_fail(u, "FMU %s: fmi3DoStep from t = %.17g over %.17g returned no early "
                          "return but did not advance to t' = %.17g (lastSuccessfulTime = "
                          "%.17g%s)", f->name, t, h, t + h, last, fx);
        return COSA_EFMU;
    }
    if (!(fabs(last - (t + h)) <= tol)) {
        cosa_unit_fail(u, "FMU %s: fmi3DoStep from t = %.17g over %.17g returned "
                          "lastSuccessfulTime = %.17g, %s t + h = %.17g (%s)",
                       f->name, t, h, last, last < t + h ? "before" : "after", t + h,
                       last < t + h ? "an early return cosa did not allow" : "an overshoot");
        return COSA_EFMU;
    }
    if (poly && f->nupdate == 0) {
        cosa_unit_fail(u, "FMU %s: declares intermediate update but never asked for its inputs "
                          "during fmi3DoStep at t = %.17g, so an input polynomial of degree >= 1 "
                          "would run as ZOH; use zoh or p0", f->name, t);
        return COSA_EUNSUPPORTED;
    }
    *last_out = t + h;
    *event_out = event || early;
    return COSA_OK;
}

/* Clocks (fmu_clock_sched.c; README "Clocks"): the end of the part of a
 * step from tc towards tend -- the next input clock tick if it lies inside
 * (tc, tend) and is no tick at tend (fmu_clock_sched_due's rounding), else
 * tend. */
static double clock_part_end(const fmu_unit *f, double tc, double tend)
{
    const double tk = fmu_clock_sched_next(&f->clk, tc);
    return tk < tend && !fmu_clock_sched_due(&f->clk, tend, 0) ? tk : tend;
}

/* A tick due at the step's start that no Event Mode has activated (the
 * start time, or a master that did not stop there): Event Mode now, with
 * the step's inputs. */
static cosa_status clock_tick_now(cosa_unit *u, double t)
{
    fmu_unit *f = cosa_unit_impl(u);
    if (!fmu_clock_sched_due(&f->clk, t, 1))
        return COSA_OK;
    cosa_status st = fmu_event_mode(u, t, 1, NULL);
    if (st == COSA_OK)
        cosa_unit_counters_of(u)->events++;
    return st;
}

/* FMI 2.0: a Discard from fmi2DoStep with fmi2Terminated = true is the
 * FMU's request to end the simulation; where the run accepts it
 * (unit_end.c) and the step reached t + h (fmi2LastSuccessfulTime, when
 * the FMU tells it, to the rounding of do_step3), the step counts as
 * completed: 1.  Otherwise 0 (the Discard fails the step as before). */
static int step2_end(cosa_unit *u, double t, double h)
{
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_functions2 *f2 = &f->fmu->f2;
    fmi2Boolean term = fmi2False;
    if (!cosa_unit_end_allowed(u) || !f2->GetBooleanStatus ||
        f2->GetBooleanStatus(f->inst, fmi2Terminated, &term) > fmi2Warning || !term)
        return 0;
    fmi2Real last = t + h;
    if (f2->GetRealStatus && f2->GetRealStatus(f->inst, fmi2LastSuccessfulTime, &last) > fmi2Warning)
        last = t + h;
    if (!(fabs(last - (t + h)) <= 1e-9 * h + 4.0 * DBL_EPSILON * fabs(t + h)))
        return 0;
    cosa_unit_ask_end(u);
    cosa_unit_fail(u, "FMU %s asked to end the simulation at t = %.15g (terminateSimulation)",
                   f->name, t + h);
    return 1;
}

/* The FMI 3.0 step over [t, t + h] with events: fmi3DoStep from the time
 * reached until t + h, in parts ending at the input clock ticks inside.
 * An early end, an event or a tick stops the step there when the caller
 * accepts it (cosa_unit_step_stopped: the master makes it a communication
 * point); otherwise Event Mode runs inside the step and the step goes on
 * from there, the inputs at the polynomial's value there.  A tick at the
 * step's end is reported as pending Event Mode there.  At most
 * COSA_FMU_EVENT_ITER_MAX events without progress in time. */
static cosa_status step3_events(cosa_unit *u, double t, double h, int poly)
{
    fmu_unit *f = cosa_unit_impl(u);
    const size_t nu = f->fmu->desc.nin_step; /* clocked inputs: in Event Mode */
    double tc = t;
    int stuck = 0;
    cosa_status st = clock_tick_now(u, t);
    if (st != COSA_OK)
        return st;
    for (;;) {
        double last = tc;
        int ev = 0;
        const double tend = clock_part_end(f, tc, t + h);
        /* the first call over h itself: (t + h) - t need not be h */
        const double hs = tc == t && tend == t + h ? h : tend - tc;
        st = do_step3(u, tc, hs, poly && tc == t, &last, &ev);
        if (st != COSA_OK)
            return st;
        const int reached = last == tc + hs;
        const int full = reached && tend == t + h, tick = reached && tend < t + h;
        if (!reached)
            cosa_unit_counters_of(u)->early_returns++;
        if (full && !ev && fmu_clock_sched_due(&f->clk, last, 1) && cosa_unit_step_may_stop(u))
            cosa_unit_step_stopped(u, h, 1); /* the tick at the end: Event Mode pending */
        if (!ev && !tick)
            return COSA_OK;
        if (cosa_unit_step_may_stop(u) && last > t) {
            cosa_unit_step_stopped(u, full ? h : last - t, 1);
            return COSA_OK;
        }
        cosa_unit_input_at(u, last - t, f->uim);
        int s = set_reals(f, f->vu, nu, f->uim);
        if (s > 1)
            return fmu_unit_fail(u, "fmi3SetFloat64 (inputs)", last, s);
        if ((st = fmu_event_mode(u, last, 1, NULL)) != COSA_OK)
            return st;
        cosa_unit_counters_of(u)->events++;
        if (full)
            return COSA_OK;
        stuck = last > tc ? 0 : stuck + 1;
        if (stuck > COSA_FMU_EVENT_ITER_MAX) {
            cosa_unit_fail(u, "FMU %s: fmi3DoStep returned early at t = %.17g %d times "
                              "without progress", f->name, last, stuck);
            return COSA_EUNSUPPORTED;
        }
        tc = last;
    }
}

static cosa_status fmu_step(cosa_unit *u, double h, double *xnew)
{
    cosa_status st = ready(u);
    if (st != COSA_OK)
        return st;
    fmu_unit *f = cosa_unit_impl(u);
    if (f->me) /* cosa integrates (any input polynomial) */
        return fmu_me_step(u, h, xnew);
    const cosa_fmu *m = f->fmu;
    const double t = cosa_unit_time(u);
    const int deg = cosa_unit_input_degree(u);
    const size_t nu = cosa_unit_nu(u);
    /* degree >= 1: FMI 2.0 input derivatives, or FMI 3.0 intermediate update
     * with every input settable then */
    int im = v3(f) && (m->desc.caps & COSA_FMU_CAP_INTERMEDIATE_UPDATE);
    for (size_t i = 0; im && i < nu; i++)
        im = m->desc.vars[m->desc.inputs[i]].intermediate_update;
    if (deg > 0 && nu > 0 && !im && !(m->desc.caps & COSA_FMU_CAP_INTERPOLATE_INPUTS)) {
        cosa_unit_fail(u, "FMU %s: an input polynomial of degree %d needs %s; use zoh or p0",
                       f->name, deg,
                       v3(f) ? "the intermediate-update callback (providesIntermediateUpdate, "
                               "inputs intermediateUpdate=\"true\")"
                             : "canInterpolateInputs (fmi2SetRealInputDerivatives)");
        return COSA_EUNSUPPORTED;
    }
    /* the input polynomial's value and derivatives at t_c (columns 0..deg) */
    unit_poly_derivs(nu, deg, u->coef, t - u->t_in, v3(f) ? 0 : deg, f->uder);
    int s = set_reals(f, f->vu, m->desc.nin_step, f->uder); /* not the clocked inputs */
    if (s > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3SetFloat64 (inputs)" : "fmi2SetReal (inputs)", t, s);
    for (int k = 1; k <= deg && nu > 0 && !v3(f); k++) {
        for (size_t i = 0; i < nu && s <= 1; i++)
            s = m->f2.SetRealInputDerivatives(f->inst, &f->vu[i], 1, &k, &f->uder[i + k * nu]);
        if (s > 1)
            return fmu_unit_fail(u, "fmi2SetRealInputDerivatives", t, s);
    }
    if (v3(f) && m->desc.nclock && !f->event_mode_used) {
        cosa_unit_fail(u, "FMU %s has clocks (%s%s): clocks need event mode (--events on)",
                       f->name, m->desc.clocks[0].name, m->desc.nclock > 1 ? ", ..." : "");
        return COSA_EUNSUPPORTED;
    }
    if (v3(f)) {
        st = step3_events(u, t, h, deg > 0 && nu > 0 && im);
        if (st != COSA_OK)
            return st;
    } else {
        s = m->f2.DoStep(f->inst, t, h, fmi2True);
        if (s == fmi2Discard && step2_end(u, t, h))
            s = fmi2OK;
        if (s > 1 || s == fmi2Pending)
            return fmu_unit_fail(u, "fmi2DoStep", t, s);
        fmu_unit_warned(f, "fmi2DoStep", t, s);
    }
    s = get_reals(f, f->vx, cosa_unit_nx(u), xnew);
    if (s > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3GetFloat64 (states)" : "fmi2GetReal (states)", t + h, s);
    fmu_unit_warned(f, v3(f) ? "fmi3GetFloat64 (states)" : "fmi2GetReal (states)", t + h, s);
    return COSA_OK;
}

/* Whether t is the unit's current time: exactly, or for a unit without
 * states (a black box, whose state a second instance cannot reproduce, or
 * a static FMU) within the rounding of t accumulated over steps (64 ulp):
 * the variable-order engine's macro points are sums of its own steps. */
static int at_unit_time(const cosa_unit *u, double t)
{
    const double tu = cosa_unit_time(u);
    return t == tu ||
           (!cosa_unit_nx(u) && fabs(t - tu) <= 64.0 * DBL_EPSILON * fmax(fabs(t), fabs(tu)));
}

/* The unit that evaluates the model at (t, x): u itself at its current
 * time and state; elsewhere a second instance of the FMU (the helper,
 * created when first needed), instantiated afresh at time t with the
 * states' start values x and the recorded start values -- which assumes
 * that the continuous states and parameters determine the FMU's state (no
 * hidden discrete state).  *at = NULL on failure (u's message says why). */
static cosa_status point_unit(cosa_unit *u, double t, const double *x, cosa_unit **at)
{
    fmu_unit *f = cosa_unit_impl(u);
    const size_t nx = cosa_unit_nx(u);
    *at = NULL;
    if (f->me || (at_unit_time(u, t) && (!nx || memcmp(x, cosa_unit_state(u), nx * sizeof *x) == 0))) {
        /* (Model Exchange: any point; the caller sets it) */
        cosa_status st = ready(u);
        if (st == COSA_OK)
            *at = u;
        return st;
    }
    cosa_status st = COSA_OK;
    if (!f->helper) {
        char name[96];
        snprintf(name, sizeof name, "%s (second instance)", f->name);
        st = cosa_unit_fmu_create(f->fmu, name, &f->helper);
        if (st == COSA_OK && f->logger)
            st = cosa_unit_fmu_set_logger(f->helper, f->logger, f->log_user);
        if (st == COSA_OK && f->nstart) {
            fmu_unit *h = cosa_unit_impl(f->helper);
            h->starts_vr = malloc(f->nstart * sizeof *h->starts_vr);
            h->starts = malloc(f->nstart * sizeof *h->starts);
            if (!h->starts_vr || !h->starts)
                st = COSA_ENOMEM;
            else {
                memcpy(h->starts_vr, f->starts_vr, f->nstart * sizeof *h->starts_vr);
                memcpy(h->starts, f->starts, f->nstart * sizeof *h->starts);
                h->nstart = f->nstart;
            }
        }
        if (st == COSA_OK && f->ntstart) {
            fmu_unit *h = cosa_unit_impl(f->helper);
            if (!(h->tstarts = calloc(f->ntstart, sizeof *h->tstarts)))
                st = COSA_ENOMEM;
            for (size_t i = 0; st == COSA_OK && i < f->ntstart; i++, h->ntstart++) {
                h->tstarts[i] = f->tstarts[i];
                if (f->tstarts[i].sval && !(h->tstarts[i].sval = strdup(f->tstarts[i].sval)))
                    st = COSA_ENOMEM;
            }
        }
        if (st != COSA_OK) {
            cosa_unit_fail(u, "%s", f->helper && cosa_unit_message(f->helper)[0]
                                        ? cosa_unit_message(f->helper)
                                        : "FMU: cannot create a second instance");
            cosa_unit_free(f->helper);
            f->helper = NULL;
            return st == COSA_ENOMEM ? st : COSA_EFMU;
        }
    }
    /* re-instantiated at (t, x) unless it is there already */
    if (!(t == cosa_unit_time(f->helper) &&
          (!nx || memcmp(x, cosa_unit_state(f->helper), nx * sizeof *x) == 0)))
        st = cosa_unit_set_state(f->helper, t, x);
    if (st == COSA_OK)
        st = ready(f->helper);
    if (st != COSA_OK) {
        cosa_unit_fail(u, "%s", cosa_unit_message(f->helper));
        return st;
    }
    *at = f->helper;
    return COSA_OK;
}

static cosa_status fmu_eval(cosa_unit *u, double t, const double *x, const double *uin,
                            double *xdot, double *y)
{
    cosa_unit *at;
    cosa_status st = point_unit(u, t, x, &at);
    if (st != COSA_OK)
        return st;
    if (at != u) {
        st = fmu_eval(at, t, x, uin, xdot, y);
        if (st != COSA_OK)
            cosa_unit_fail(u, "%s", cosa_unit_message(at));
        return st;
    }
    fmu_unit *f = cosa_unit_impl(u);
    if (f->me)
        return fmu_me_eval(u, t, x, uin, xdot, y);
    int s = set_reals(f, f->vu, f->fmu->desc.nin_step, uin); /* not the clocked inputs */
    if (s > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3SetFloat64 (inputs)" : "fmi2SetReal (inputs)", t, s);
    if (xdot && (s = get_reals(f, f->vdx, cosa_unit_nx(u), xdot)) > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3GetFloat64 (derivatives)" : "fmi2GetReal (derivatives)", t,
                    s);
    if (y && (s = get_reals(f, f->vy, cosa_unit_ny(u), y)) > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3GetFloat64 (outputs)" : "fmi2GetReal (outputs)", t, s);
    fmu_unit_warned(f, v3(f) ? "fmi3GetFloat64" : "fmi2GetReal", t, s);
    return COSA_OK;
}

/* One column of the Jacobians: the directional derivative along known vr
 * (seed 1) of the unknowns vr[] (n) into col. */
static int ddir(fmu_unit *f, const unsigned *unk, size_t n, unsigned known, double *col)
{
    const double one = 1.0;
    if (n == 0)
        return 0;
    if (v3(f))
        return f->fmu->f3.GetDirectionalDerivative(f->inst, unk, n, &known, 1, &one, 1, col, n);
    return f->fmu->f2.GetDirectionalDerivative(f->inst, unk, n, &known, 1, &one, col);
}

/* Rows of (J_x, J_u) (n x nx, n x nu, ld n; either may be NULL) for the
 * unknowns vk (n) that are a state vx or an input vu themselves: e_j. */
static void alias_rows(const unsigned *vk, size_t n, const unsigned *vx, size_t nx,
                       const unsigned *vu, size_t nu, double *Jx, double *Ju)
{
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < nx + nu; j++) {
            if ((j < nx ? vx[j] : vu[j - nx]) != vk[r])
                continue;
            for (size_t c = 0; Jx && c < nx; c++)
                Jx[r + c * n] = j == c ? 1.0 : 0.0;
            for (size_t c = 0; Ju && c < nu; c++)
                Ju[r + c * n] = j == nx + c ? 1.0 : 0.0;
            break;
        }
}

static cosa_status fmu_jacobian(cosa_unit *u, double t, const double *x, const double *uin,
                                double *A, double *B, double *C, double *D)
{
    fmu_unit *f = cosa_unit_impl(u);
    if (!(f->fmu->desc.caps & COSA_FMU_CAP_DIRECTIONAL)) {
        cosa_unit_fail(u, "FMU %s provides no directional derivatives", f->name);
        return COSA_EUNSUPPORTED;
    }
    cosa_unit *at;
    cosa_status st = point_unit(u, t, x, &at);
    if (st == COSA_OK && at != u) {
        st = fmu_jacobian(at, t, x, uin, A, B, C, D);
        if (st != COSA_OK)
            cosa_unit_fail(u, "%s", cosa_unit_message(at));
        return st;
    }
    if (st == COSA_OK)
        st = fmu_eval(u, t, x, uin, NULL, NULL); /* sets the inputs */
    if (st != COSA_OK)
        return st;
    const size_t nx = cosa_unit_nx(u), nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
    const char *fn = v3(f) ? "fmi3GetDirectionalDerivative" : "fmi2GetDirectionalDerivative";
    for (size_t j = 0; j < nx; j++) {
        int s = A ? ddir(f, f->vdx, nx, f->vx[j], A + j * nx) : 0;
        if (s <= 1 && C)
            s = ddir(f, f->vy, ny, f->vx[j], C + j * ny);
        if (s > 1)
            return fmu_unit_fail(u, fn, t, s);
    }
    for (size_t j = 0; j < nu; j++) {
        int s = B ? ddir(f, f->vdx, nx, f->vu[j], B + j * nx) : 0;
        if (s <= 1 && D)
            s = ddir(f, f->vy, ny, f->vu[j], D + j * ny);
        if (s > 1)
            return fmu_unit_fail(u, fn, t, s);
    }
    /* an unknown that is a known itself (an output that is a state, a state
     * derivative aliased to a state: the same value reference) has the unit
     * row there -- some FMUs answer 0 for it (the Reference FMUs' VanDerPol) */
    alias_rows(f->vdx, nx, f->vx, nx, f->vu, nu, A, B);
    alias_rows(f->vy, ny, f->vx, nx, f->vu, nu, C, D);
    return COSA_OK;
}


static cosa_status fmu_save(cosa_unit *u, void **blob)
{
    cosa_status st = ready(u);
    if (st != COSA_OK)
        return st;
    fmu_unit *f = cosa_unit_impl(u);
    fmu_snapshot *w = *blob;
    if (!w) {
        if (!(w = calloc(1, sizeof *w)))
            return COSA_ENOMEM;
        w->next = f->snaps;
        if (f->snaps)
            f->snaps->prev = w;
        f->snaps = w;
    }
    /* the clocks' activations belong to the state (sized once per snapshot) */
    if (f->clk.n && w->nclk != f->clk.n) {
        double *l = realloc(w->clk_last, f->clk.n * sizeof *l);
        if (!l)
            return COSA_ENOMEM;
        w->clk_last = l;
        w->nclk = f->clk.n;
    }
    if (f->clk.n)
        memcpy(w->clk_last, f->clk.last, f->clk.n * sizeof *w->clk_last);
    /* (an earlier instance's FMU state was freed with it: fs is NULL then) */
    const int s = v3(f) ? f->fmu->f3.GetFMUState(f->inst, &w->fs)
                        : f->fmu->f2.GetFMUstate(f->inst, &w->fs);
    w->serial = f->serial;
    *blob = w;
    return s > 1 ? fmu_unit_fail(u, v3(f) ? "fmi3GetFMUState" : "fmi2GetFMUstate", cosa_unit_time(u), s)
                 : COSA_OK;
}

static cosa_status fmu_restore(cosa_unit *u, const void *blob)
{
    cosa_status st = ready(u);
    if (st != COSA_OK)
        return st;
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_snapshot *w = blob;
    if (!w || w->serial != f->serial) {
        cosa_unit_fail(u, "FMU %s: a snapshot of an earlier instance (the unit's state was set "
                          "since) cannot be restored", f->name);
        return COSA_EFMU;
    }
    const int s = v3(f) ? f->fmu->f3.SetFMUState(f->inst, w->fs)
                        : f->fmu->f2.SetFMUstate(f->inst, w->fs);
    fmu_clock_sched_forget(&f->clk);
    if (f->clk.n && w->nclk == f->clk.n) /* the clocks' activations as they were then */
        memcpy(f->clk.last, w->clk_last, f->clk.n * sizeof *f->clk.last);
    return s > 1 ? fmu_unit_fail(u, v3(f) ? "fmi3SetFMUState" : "fmi2SetFMUstate", cosa_unit_time(u), s)
                 : COSA_OK;
}

static void fmu_free_state(cosa_unit *u, void *blob)
{
    fmu_unit *f = cosa_unit_impl(u);
    fmu_snapshot *w = blob;
    if (!w)
        return;
    if (w->fs && f->inst && w->serial == f->serial) {
        if (v3(f))
            f->fmu->f3.FreeFMUState(f->inst, &w->fs);
        else
            f->fmu->f2.FreeFMUstate(f->inst, &w->fs);
    }
    if (w->prev)
        w->prev->next = w->next;
    else
        f->snaps = w->next;
    if (w->next)
        w->next->prev = w->prev;
    free(w->clk_last);
    free(w);
}

/* Event Mode at the unit's time (the master, after a step that stopped at
 * an event): the states are read again. */
static cosa_status fmu_event_update(cosa_unit *u)
{
    cosa_status st = ready(u);
    if (st != COSA_OK)
        return st;
    fmu_unit *f = cosa_unit_impl(u);
    if (!f->event_mode_used)
        return COSA_OK;
    /* the inputs at t' as the master set them (a clock tick samples them) */
    cosa_unit_input_at(u, 0.0, f->uim);
    const int s = set_reals(f, f->vu, f->fmu->desc.nin_step, f->uim); /* clocked: at their ticks */
    if (s > 1)
        return fmu_unit_fail(u, "fmi3SetFloat64 (inputs)", cosa_unit_time(u), s);
    st = fmu_event_mode(u, cosa_unit_time(u), 1, u->x);
    if (st == COSA_OK)
        cosa_unit_counters_of(u)->events++;
    return st;
}

static void fmu_destroy(cosa_unit *u)
{
    fmu_unit *f = cosa_unit_impl(u);
    if (!f)
        return;
    free_instance(f);
    fmu_me_free(f);
    fmu_clock_sched_free(&f->clk);
    free(f->links);
    free(f->driven);
    cosa_unit_free(f->helper);
    free(f->vx);
    free(f->tmp);
    free(f->uim);
    free(f->uder);
    free(f->starts_vr);
    free(f->starts);
    for (size_t i = 0; i < f->ntstart; i++)
        free(f->tstarts[i].sval);
    free(f->tstarts);
    free(f);
}

/* The type, in four flavours: with or without FMU-state functions (index
 * bit 0) and directional derivatives (bit 1).  Without the latter the
 * generic layer's central differences run: over the inputs they work (the
 * algebraic loop needs D), over the states they meet eval's refusal. */
static const cosa_unit_type fmu_types[4] = {
    {"fmu", COSA_UNIT_CAN_EVAL, COSA_UNIT_DEGMAX, fmu_step, fmu_eval, NULL, fmu_reset, NULL,
     NULL, NULL, fmu_destroy, NULL, NULL, fmu_event_update},
    {"fmu", COSA_UNIT_CAN_EVAL | COSA_UNIT_CAN_SAVE_STATE, COSA_UNIT_DEGMAX, fmu_step, fmu_eval,
     NULL, fmu_reset, fmu_save, fmu_restore, fmu_free_state, fmu_destroy, NULL, NULL,
     fmu_event_update},
    {"fmu", COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN, COSA_UNIT_DEGMAX, fmu_step, fmu_eval,
     fmu_jacobian, fmu_reset, NULL, NULL, NULL, fmu_destroy, NULL, NULL, fmu_event_update},
    {"fmu", COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN | COSA_UNIT_CAN_SAVE_STATE,
     COSA_UNIT_DEGMAX, fmu_step, fmu_eval, fmu_jacobian, fmu_reset, fmu_save, fmu_restore,
     fmu_free_state, fmu_destroy, NULL, NULL, fmu_event_update}};

/* Model Exchange (unit_fmu_me.c): snapshots always (the unit keeps the
 * continuous states, the integrator its tolerance scales); with or without
 * directional derivatives (index bit 1). */
static const cosa_unit_type fmu_me_types[2] = {
    {"fmu", COSA_UNIT_CAN_EVAL | COSA_UNIT_CAN_SAVE_STATE, COSA_UNIT_DEGMAX, fmu_step, fmu_eval,
     NULL, fmu_reset, fmu_me_save, fmu_me_restore, fmu_me_free_state, fmu_destroy, NULL, NULL,
     fmu_event_update},
    {"fmu", COSA_UNIT_CAN_EVAL | COSA_UNIT_HAS_JACOBIAN | COSA_UNIT_CAN_SAVE_STATE,
     COSA_UNIT_DEGMAX, fmu_step, fmu_eval, fmu_jacobian, fmu_reset, fmu_me_save, fmu_me_restore,
     fmu_me_free_state, fmu_destroy, NULL, NULL, fmu_event_update}};

cosa_status cosa_unit_fmu_create(cosa_fmu *fmu, const char *instance_name, cosa_unit **out)
{
    if (out)
        *out = NULL;
    if (!fmu || !out)
        return COSA_EINVAL;
    const fmu_description *d = &fmu->desc;
    fmu_unit *f = calloc(1, sizeof *f);
    if (!f)
        return COSA_ENOMEM;
    f->fmu = fmu;
    snprintf(f->name, sizeof f->name, "%s", instance_name ? instance_name : d->identifier);
    const size_t nx = d->nstate, nu = d->nin, ny = d->nout;
    size_t nmax = nx > nu ? nx : nu;
    nmax = ny > nmax ? ny : nmax;
    f->vx = malloc((2 * nx + nu + ny + 1) * sizeof *f->vx);
    f->tmp = malloc((nmax + 1) * sizeof *f->tmp);
    f->uim = malloc((nu + 1) * sizeof *f->uim);
    f->uder = malloc((nu * (COSA_UNIT_DEGMAX + 1) + 1) * sizeof *f->uder);
    if (!f->vx || !f->tmp || !f->uim || !f->uder) {
        free(f->vx);
        free(f->tmp);
        free(f->uim);
        free(f->uder);
        free(f);
        return COSA_ENOMEM;
    }
    f->vdx = f->vx + nx;
    f->vu = f->vdx + nx;
    f->vy = f->vu + nu;
    for (size_t i = 0; i < nx; i++) {
        f->vx[i] = d->vars[d->states[i]].vr;
        f->vdx[i] = d->vars[d->derivs[i]].vr;
    }
    for (size_t i = 0; i < nu; i++)
        f->vu[i] = d->vars[d->inputs[i]].vr;
    for (size_t i = 0; i < ny; i++)
        f->vy[i] = d->vars[d->outputs[i]].vr;
    f->cb2 = (fmi2CallbackFunctions){fmu_log2, alloc2, free, NULL, f};
    const int me = (d->caps & COSA_FMU_CAP_MODEL_EXCHANGE) != 0;
    const cosa_unit_type *type =
        me ? &fmu_me_types[(d->caps & COSA_FMU_CAP_DIRECTIONAL) ? 1 : 0]
           : &fmu_types[((d->caps & COSA_FMU_CAP_GET_SET_STATE) ? 1 : 0) +
                        ((d->caps & COSA_FMU_CAP_DIRECTIONAL) ? 2 : 0)];
    cosa_status st = cosa_unit_create(type, nx, nu, ny, f, out);
    if (st != COSA_OK) {
        free(f->vx);
        free(f->tmp);
        free(f->uim);
        free(f->uder);
        free(f);
        return st;
    }
    f->unit = *out;
    if (me && (st = fmu_me_create(*out)) != COSA_OK) {
        cosa_unit_free(*out);
        *out = NULL;
        return st;
    }
    /* the unit starts at t = 0 with the FMU's own start values of the states */
    double *x0 = calloc(nx + 1, sizeof *x0);
    if (!x0) {
        cosa_unit_free(*out);
        *out = NULL;
        return COSA_ENOMEM;
    }
    for (size_t i = 0; i < nx; i++)
        x0[i] = d->vars[d->states[i]].has_start ? d->vars[d->states[i]].start : 0.0;
    st = cosa_unit_set_state(*out, 0.0, x0);
    free(x0);
    if (st == COSA_OK && f->bad) {
        st = COSA_EFMU;
        cosa_unit_fail(*out, "%s", f->why);
    }
    return st;
}

/* A start value changed: the helper unit made again (with it) when needed,
 * and it takes effect now: a fresh instance at the unit's time and state. */
static cosa_status restart(cosa_unit *u, fmu_unit *f)
{
    cosa_unit_free(f->helper);
    f->helper = NULL;
    instantiate(u);
    if (f->bad) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    return COSA_OK;
}

cosa_status cosa_unit_fmu_set_start(cosa_unit *u, const char *name, double value)
{
    if (!u || !name || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    if (!isfinite(value))
        return COSA_ENONFINITE;
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_description *d = &f->fmu->desc;
    long k = -1;
    for (size_t i = 0; i < d->nvar && k < 0; i++)
        if (strcmp(d->vars[i].name, name) == 0)
            k = (long)i;
    if (k < 0)
        return COSA_EPARAM;
    size_t j = 0;
    while (j < f->nstart && f->starts_vr[j] != d->vars[k].vr)
        j++;
    if (j == f->nstart) {
        unsigned *v2 = realloc(f->starts_vr, (f->nstart + 1) * sizeof *v2);
        if (!v2)
            return COSA_ENOMEM;
        f->starts_vr = v2;
        double *s2 = realloc(f->starts, (f->nstart + 1) * sizeof *s2);
        if (!s2)
            return COSA_ENOMEM;
        f->starts = s2;
        f->nstart++;
    }
    f->starts_vr[j] = d->vars[k].vr;
    f->starts[j] = value;
    return restart(u, f);
}

/* value as a start value of kind 'i', 'b' or 's' into t; 0, or -1 when it
 * is not one (an integer out of range, a Boolean other than true/false/1/0). */
static int text_value(char kind, const char *value, struct fmu_text_start *t)
{
    t->kind = kind;
    if (kind == 's')
        return (t->sval = strdup(value)) ? 0 : -2;
    if (kind == 'b') {
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
            t->ival = 1;
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
            t->ival = 0;
        else
            return -1;
        return 0;
    }
    char *end;
    errno = 0;
    const long v = strtol(value, &end, 10);
    if (end == value || *end || errno || v < INT32_MIN || v > INT32_MAX)
        return -1;
    t->ival = (int)v;
    return 0;
}

cosa_status cosa_unit_fmu_set_start_text(cosa_unit *u, const char *name, const char *value)
{
    if (!u || !name || !value || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu_other *o = NULL;
    for (size_t i = 0; i < cosa_fmu_nother(f->fmu) && !o; i++)
        if (strcmp(cosa_fmu_other_at(f->fmu, i)->name, name) == 0)
            o = cosa_fmu_other_at(f->fmu, i);
    if (!o)
        return COSA_EPARAM;
    const char kind = strcmp(o->type, "Integer") == 0 || strcmp(o->type, "Int32") == 0 ? 'i'
                      : strcmp(o->type, "Boolean") == 0                              ? 'b'
                      : strcmp(o->type, "String") == 0                               ? 's'
                                                                                     : 0;
    if (!kind)
        return COSA_EUNSUPPORTED;
    const cosa_fmu *m = f->fmu;
    const int have = v3(f) ? (kind == 'i' ? m->f3.SetInt32 != NULL
                              : kind == 'b' ? m->f3.SetBoolean != NULL : m->f3.SetString != NULL)
                           : (kind == 'i' ? m->f2.SetInteger != NULL
                              : kind == 'b' ? m->f2.SetBoolean != NULL : m->f2.SetString != NULL);
    if (!have) {
        cosa_unit_fail(u, "FMU %s: cannot set %s = %s: it does not export fmi%d%s", f->name, name,
                       value, v3(f) ? 3 : 2,
                       kind == 'i' ? (v3(f) ? "SetInt32" : "SetInteger")
                       : kind == 'b' ? "SetBoolean" : "SetString");
        return COSA_EUNSUPPORTED;
    }
    struct fmu_text_start t = {.vr = o->vr};
    const int r = text_value(kind, value, &t);
    if (r)
        return r == -2 ? COSA_ENOMEM : COSA_ERANGE;
    size_t j = 0;
    while (j < f->ntstart && f->tstarts[j].vr != o->vr)
        j++;
    if (j == f->ntstart) {
        struct fmu_text_start *n2 = realloc(f->tstarts, (f->ntstart + 1) * sizeof *n2);
        if (!n2) {
            free(t.sval);
            return COSA_ENOMEM;
        }
        f->tstarts = n2;
        f->ntstart++;
    } else
        free(f->tstarts[j].sval);
    f->tstarts[j] = t;
    return restart(u, f);
}

cosa_status cosa_unit_fmu_linearize(cosa_unit *u, int force_fd, double *A, double *B, double *C,
                                    double *D)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step || !A || !B || !C || !D)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_description *d = &f->fmu->desc;
    const size_t nu = cosa_unit_nu(u);
    /* an FMU without continuous states (a gain, a table): D only */
    double *uin = calloc(nu + 1, sizeof *uin);
    if (!uin)
        return COSA_ENOMEM;
    for (size_t j = 0; j < nu; j++)
        if (d->vars[d->inputs[j]].has_start)
            uin[j] = d->vars[d->inputs[j]].start;
    /* directional derivatives, or the generic central differences (states
     * perturbed through the second instance, inputs at the current point) */
    cosa_status st = cosa_unit_jacobian(u, cosa_unit_time(u), cosa_unit_state(u), uin,
                                        force_fd || !(d->caps & COSA_FMU_CAP_DIRECTIONAL), A, B,
                                        C, D);
    free(uin);
    return st;
}

cosa_status cosa_unit_fmu_set_logger(cosa_unit *u, cosa_fmu_log_fn *fn, void *user)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    f->logger = fn;
    f->log_user = user;
    if (f->helper) /* made again, with the logger, when needed */
        f->helper = (cosa_unit_free(f->helper), NULL);
    instantiate(u); /* loggingOn is an argument of the instantiation */
    if (f->bad) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    return COSA_OK;
}

const char *cosa_unit_fmu_warning(const cosa_unit *u)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return NULL;
    const fmu_unit *f = cosa_unit_impl(u);
    /* the unit's own, else its second instance's */
    return f->warning[0] || !f->helper ? f->warning : cosa_unit_fmu_warning(f->helper);
}

/* ---- Initialization Mode for the initialization loop (lib/td/fmu_init.c) -- */

cosa_status cosa_unit_fmu_init_enter(cosa_unit *u, double t, const double *x)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    f->init_hold = 1; /* setting the state instantiates afresh: it stays there */
    cosa_status st = cosa_unit_set_state(u, t, x);
    if (st == COSA_OK && f->bad) {
        cosa_unit_fail(u, "%s", f->why);
        st = COSA_EFMU;
    }
    if (st != COSA_OK)
        f->init_hold = 0;
    return st;
}

cosa_status cosa_unit_fmu_init_exit(cosa_unit *u)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    if (!f->init_hold)
        return COSA_OK;
    f->init_hold = 0;
    if (!f->inst)
        return COSA_OK;
    const double t = cosa_unit_time(u);
    const int s = v3(f) ? f->fmu->f3.ExitInitializationMode(f->inst)
                        : f->fmu->f2.ExitInitializationMode(f->inst);
    if (s > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3ExitInitializationMode" : "fmi2ExitInitializationMode",
                             t, s);
    fmu_unit_warned(f, v3(f) ? "fmi3ExitInitializationMode" : "fmi2ExitInitializationMode", t, s);
    if (f->me && fmu_me_initialised(f, t, f->tmp) != 0) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    /* eventModeUsed: the instance is in Event Mode now (its clocks first) */
    if (f->event_mode_used && f->fmu->desc.nclock && fmu_clocks_start(u, t) != COSA_OK) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    return f->event_mode_used ? fmu_event_mode(u, t, 0, NULL) : COSA_OK;
}

/* ---- events (lib/td/fmu_event.c) ------------------------------------------ */

cosa_status cosa_unit_fmu_set_events(cosa_unit *u, int on)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    if (on && (!v3(f) || !(f->fmu->desc.caps & COSA_FMU_CAP_EVENT_MODE)))
        return COSA_EUNSUPPORTED;
    const fmu_functions3 *fn = &f->fmu->f3;
    if (on && (!fn->EnterEventMode || !fn->UpdateDiscreteStates || !fn->EnterStepMode)) {
        cosa_unit_fail(u, "FMU %s declares hasEventMode but its binary does not export %s",
                       f->name, !fn->EnterEventMode ? "fmi3EnterEventMode"
                                : !fn->UpdateDiscreteStates ? "fmi3UpdateDiscreteStates"
                                                            : "fmi3EnterStepMode");
        return COSA_EUNSUPPORTED;
    }
    f->events = on != 0;
    cosa_unit_set_events(u, f->events);
    instantiate(u); /* eventModeUsed is an argument of the instantiation */
    if (f->bad) {
        cosa_unit_fail(u, "%s", f->why);
        return COSA_EFMU;
    }
    return COSA_OK;
}

int cosa_unit_fmu_events(const cosa_unit *u)
{
    return u && cosa_unit_get_type(u)->step == fmu_step &&
           ((const fmu_unit *)cosa_unit_impl(u))->events;
}

cosa_status cosa_unit_fmu_set_integrator(cosa_unit *u, const cosa_integrator *cfg)
{
    if (!u || !cfg || cosa_unit_get_type(u)->step != fmu_step)
        return COSA_EINVAL;
    fmu_unit *f = cosa_unit_impl(u);
    return f->me ? fmu_me_set_integrator(u, cfg) : COSA_OK;
}

const char *cosa_unit_fmu_name(const cosa_unit *u)
{
    if (!u || cosa_unit_get_type(u)->step != fmu_step)
        return NULL;
    return ((const fmu_unit *)cosa_unit_impl(u))->name;
}
