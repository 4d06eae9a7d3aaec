/* fmu_event.c -- Event Mode of an FMI 3.0 co-simulation FMU unit (FMI 3.0
 * co-simulation concepts, "Handling Early Return and Events"): after an
 * early return or an event signalled by fmi3DoStep (eventHandlingNeeded),
 * and after fmi3ExitInitializationMode of an instance with eventModeUsed,
 * the importer calls fmi3EnterEventMode, then fmi3UpdateDiscreteStates
 * until discreteStatesNeedUpdate is false (the event iteration at one
 * Newtonian time, super-dense time steps), then fmi3EnterStepMode.  The
 * last update's nextEventTime (when defined) is the FMU's next time event:
 * the master makes it a communication point. */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"

#include <math.h>
#include <stdio.h>

/* The event iteration: updates until none is needed; *t_next the last
 * nextEventTime (INFINITY when not defined), *xchanged when an update
 * changed the continuous states. */
static cosa_status event_iterate(cosa_unit *u, fmu_unit *f, double t, double *t_next,
                                 int *xchanged)
{
    const fmu_functions3 *fn = &f->fmu->f3;
    *t_next = INFINITY;
    *xchanged = 0;
    for (int k = 0; k < COSA_FMU_EVENT_ITER_MAX; k++) {
        fmi3Boolean again = false, term = false, nominals = false, values = false,
                    defined = false;
        fmi3Float64 next = 0.0;
        const int s = fn->UpdateDiscreteStates(f->inst, &again, &term, &nominals, &values,
                                               &defined, &next);
        if (s > 1)
            return fmu_unit_fail(u, "fmi3UpdateDiscreteStates", t, s);
        fmu_unit_warned(f, "fmi3UpdateDiscreteStates", t, s);
        if (term && cosa_unit_end_allowed(u)) {
            /* the run ends here (unit_end.c): the event's update is done */
            cosa_unit_ask_end(u);
            cosa_unit_fail(u, "FMU %s asked to end the simulation at t = %.15g "
                              "(terminateSimulation)", f->name, t);
            *xchanged |= values != 0;
            *t_next = INFINITY;
            return COSA_OK;
        }
        if (term) {
            cosa_unit_fail(u, "FMU %s: fmi3UpdateDiscreteStates at t = %.17g asked for "
                              "termination (not supported)", f->name, t);
            return COSA_EFMU;
        }
        *xchanged |= values != 0;
        *t_next = defined ? next : INFINITY;
        if (!again)
            return COSA_OK;
    }
    cosa_unit_fail(u, "FMU %s: the event iteration at t = %.17g did not settle: "
                      "fmi3UpdateDiscreteStates still asked for an update after %d calls",
                   f->name, t, COSA_FMU_EVENT_ITER_MAX);
    return COSA_EUNSUPPORTED;
}

cosa_status fmu_clocks_start(cosa_unit *u, double t)
{
    fmu_unit *f = cosa_unit_impl(u);
    const char *fn = "";
    char why[400];
    /* the tick grid starts at t = 0, where cosa's runs start: an instance
     * made later (the unit's state set at t, a reference start) keeps it */
    const int s = fmu_clock_sched_init(&f->clk, f->fmu, f->inst, 0.0, &fn, why, sizeof why);
    if (s == 0)
        return COSA_OK;
    if (s == -1)
        snprintf(f->why, sizeof f->why, "FMU %s: %s", f->name, why);
    else if (s == -2)
        snprintf(f->why, sizeof f->why, "FMU %s: out of memory", f->name);
    else {
        fmu_unit_fail(u, fn, t, s);
        snprintf(f->why, sizeof f->why, "%s", cosa_unit_message(u));
    }
    return s == -1 ? COSA_EUNSUPPORTED : s == -2 ? COSA_ENOMEM : COSA_EFMU;
}

/* The clocks in Event Mode at t (the co-simulation concepts, "Clock
 * Support"): fmi3SetClock for the input clocks that tick at t, and their
 * clocked inputs, before the updates (enter = 0, the Event Mode that follows initialisation: none --
 * the inputs are still their start values; the step from t activates a
 * tick due there with the step's inputs). */
/* The clocked inputs of the clocks just activated (their value references
 * in f->clk.vr[0..nact)): their values at t from the input polynomial,
 * u = L y(t) as the master set it (the concepts: clocked inputs are set in
 * Event Mode while their clock is active).  0 or the FMU's status. */
static int clocked_inputs(cosa_unit *u, fmu_unit *f, double t, size_t nact)
{
    const fmu_description *d = &f->fmu->desc;
    if (nact == 0 || d->nin == d->nin_step)
        return 0;
    cosa_unit_input_at(u, t - cosa_unit_time(u), f->uim);
    int s = 0;
    for (size_t j = d->nin_step; j < d->nin && s <= 1; j++) {
        const cosa_fmu_var *v = &d->vars[d->inputs[j]];
        int on = 0;
        for (size_t c = 0; c < v->nclocks && !on; c++)
            for (size_t a = 0; a < nact && !on; a++)
                on = f->clk.vr[a] == d->clocks[v->clocks[c]].vr;
        if (on)
            s = f->fmu->f3.SetFloat64(f->inst, &v->vr, 1, &f->uim[j], 1);
    }
    return s;
}

static cosa_status clocks_activate(cosa_unit *u, fmu_unit *f, double t, int enter)
{
    size_t nact = 0;
    int s = enter && f->clk.n ? fmu_clock_sched_activate(&f->clk, f->fmu, f->inst, t,
                                                          &nact) : 0;
    if (s > 1)
        return fmu_unit_fail(u, "fmi3SetClock", t, s);
    fmu_unit_warned(f, "fmi3SetClock", t, s);
    if ((s = clocked_inputs(u, f, t, nact)) > 1)
        return fmu_unit_fail(u, "fmi3SetFloat64 (clocked inputs)", t, s);
    fmu_unit_warned(f, "fmi3SetFloat64 (clocked inputs)", t, s);
    return COSA_OK;
}

cosa_status fmu_event_mode(cosa_unit *u, double t, int enter, double *x)
{
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_functions3 *fn = &f->fmu->f3;
    int s;
    if (enter) {
        if ((s = fn->EnterEventMode(f->inst)) > 1)
            return fmu_unit_fail(u, "fmi3EnterEventMode", t, s);
        fmu_unit_warned(f, "fmi3EnterEventMode", t, s);
    }
    double t_next;
    int xchanged;
    cosa_status st = clocks_activate(u, f, t, enter);
    if (st == COSA_OK)
        st = event_iterate(u, f, t, &t_next, &xchanged);
    if (st != COSA_OK)
        return st;
    /* the output clocks' activation after the updates */
    if (f->clk.n && (s = fmu_clock_sched_collect(&f->clk, f->fmu, f->inst, t)) > 1)
        return fmu_unit_fail(u, "fmi3GetClock", t, s);
    fmu_clock_links_fire(u, t);
    if ((s = fn->EnterStepMode(f->inst)) > 1)
        return fmu_unit_fail(u, "fmi3EnterStepMode", t, s);
    fmu_unit_warned(f, "fmi3EnterStepMode", t, s);
    /* the states after the event (a bounce reverses the velocity) */
    const size_t nx = cosa_unit_nx(u);
    if (nx && x && (s = fn->GetFloat64(f->inst, f->vx, nx, x, nx)) > 1)
        return fmu_unit_fail(u, "fmi3GetFloat64 (states after the event)", t, s);
    /* a next event at or before t is no event ahead; the next clock tick is
     * one (a time event) */
    const double tick = !enter && fmu_clock_sched_due(&f->clk, t, 1)
                            ? t /* a tick at the start: due now, with the inputs at t */
                            : fmu_clock_sched_next(&f->clk, t);
    cosa_unit_set_next_event(u, fmin(t_next > t ? t_next : INFINITY, tick));
    return COSA_OK;
}
