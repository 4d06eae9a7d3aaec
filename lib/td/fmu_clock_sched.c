/* fmu_clock_sched.c -- the importer's side of FMI 3.0 clocks in
 * co-simulation (the co-simulation concepts' "Clock Support"): periodic
 * input clocks are activated by the importer at their ticks in Event Mode
 * (fmi3SetClock before fmi3UpdateDiscreteStates), output clocks are read
 * with fmi3GetClock after it.  The tick times are t_k = t0 + shift + k T
 * with the integer counter k (no accumulated sums), so that the k-th tick
 * is the same double however the run got there. */
#include "td/fmu_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fmu_clock_sched_free(fmu_clock_sched *c)
{
    if (!c)
        return;
    free(c->interval);
    free(c->shift);
    free(c->ticks);
    free(c->last);
    free(c->at);
    free(c->vr);
    free(c->val);
    memset(c, 0, sizeof *c);
}

void fmu_clock_sched_forget(fmu_clock_sched *c)
{
    for (size_t i = 0; c && c->last && i < c->n; i++) {
        c->last[i] = -INFINITY;
        c->at[i] = NAN;
    }
}

/* Intervals and shifts the FMU tells (fixed, calculated, tunable clocks). */
static int ask_intervals(fmu_clock_sched *c, const cosa_fmu *m, void *inst, const char **fn)
{
    const fmu_description *d = &m->desc;
    for (size_t i = 0; i < d->nclock; i++) {
        const cosa_fmu_clock *k = &d->clocks[i];
        if (k->causality != COSA_FMU_INPUT || !k->periodic ||
            k->interval_variability == COSA_FMU_CLOCK_CONSTANT)
            continue;
        fmi3IntervalQualifier q = fmi3IntervalNotYetKnown;
        int s = m->f3.GetIntervalDecimal(inst, &d->clocks[i].vr, 1, &c->interval[i], &q);
        if (s > 1) {
            *fn = "fmi3GetIntervalDecimal";
            return s;
        }
        if (q == fmi3IntervalNotYetKnown)
            c->interval[i] = NAN;
        c->shift[i] = k->shift;
        if (m->f3.GetShiftDecimal && (s = m->f3.GetShiftDecimal(inst, &d->clocks[i].vr, 1,
                                                                 &c->shift[i])) > 1) {
            *fn = "fmi3GetShiftDecimal";
            return s;
        }
    }
    return 0;
}

/* Whether cosa can drive clock k; why says what it cannot. */
static int drivable(const cosa_fmu *m, const cosa_fmu_clock *k, char *why, size_t whysize)
{
    if (k->causality == COSA_FMU_OUTPUT && !m->f3.GetClock) {
        snprintf(why, whysize, "output clock '%.60s' but the binary does not export "
                 "fmi3GetClock", k->name);
        return 0;
    }
    if (k->causality != COSA_FMU_INPUT)
        return 1;
    if (!k->periodic && k->interval_variability != COSA_FMU_CLOCK_TRIGGERED) {
        snprintf(why, whysize, "input clock '%.60s' is %s: cosa activates periodic and "
                 "triggered input clocks only", k->name,
                 cosa_fmu_interval_variability_name(k->interval_variability));
        return 0;
    }
    if (!m->f3.SetClock || (k->periodic && k->interval_variability != COSA_FMU_CLOCK_CONSTANT &&
                            !m->f3.GetIntervalDecimal)) {
        snprintf(why, whysize, "input clock '%.60s' but the binary does not export %s",
                 k->name, !m->f3.SetClock ? "fmi3SetClock" : "fmi3GetIntervalDecimal");
        return 0;
    }
    return 1;
}

int fmu_clock_sched_init(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t0,
                         const char **fn, char *why, size_t whysize)
{
    const fmu_description *d = &m->desc;
    fmu_clock_sched_free(c);
    for (size_t i = 0; i < d->nclock; i++)
        if (!drivable(m, &d->clocks[i], why, whysize))
            return -1;
    c->n = d->nclock;
    c->t0 = t0;
    const size_t n = c->n ? c->n : 1;
    c->interval = malloc(n * sizeof *c->interval);
    c->shift = malloc(n * sizeof *c->shift);
    c->ticks = calloc(n, sizeof *c->ticks);
    c->last = malloc(n * sizeof *c->last);
    c->at = malloc(n * sizeof *c->at);
    c->vr = malloc(n * sizeof *c->vr);
    c->val = malloc(n * sizeof *c->val);
    if (!c->interval || !c->shift || !c->ticks || !c->last || !c->at || !c->vr || !c->val) {
        fmu_clock_sched_free(c);
        return -2;
    }
    for (size_t i = 0; i < c->n; i++) {
        const cosa_fmu_clock *k = &d->clocks[i];
        const int periodic_in = k->causality == COSA_FMU_INPUT && k->periodic;
        c->interval[i] = periodic_in ? k->interval : NAN;
        c->shift[i] = periodic_in ? k->shift : NAN;
        c->last[i] = -INFINITY;
        c->at[i] = NAN;
    }
    const int s = ask_intervals(c, m, inst, fn);
    if (s != 0)
        return s;
    for (size_t i = 0; i < c->n; i++) {
        const cosa_fmu_clock *k = &d->clocks[i];
        if (k->causality == COSA_FMU_INPUT && k->periodic && !(c->interval[i] > 0.0 && isfinite(c->interval[i]) &&
                                                 c->shift[i] >= 0.0 && isfinite(c->shift[i]))) {
            snprintf(why, whysize, "input clock '%.60s': no interval > 0 (%s, interval %.17g, "
                     "shift %.17g)", k->name,
                     cosa_fmu_interval_variability_name(k->interval_variability), c->interval[i],
                     c->shift[i]);
            return -1;
        }
    }
    return 0;
}

/* How close a time t must be to a tick t_k to be that tick: t_k = t0 +
 * shift + k T is formed with two roundings, but the unit's time is a sum
 * of its step lengths, one rounding per step, so after n steps it differs
 * from the grid by up to n ulps; 1e-9 T + 4 eps |t| admits that drift for
 * up to ~1e6 steps at t/T <= 1e3 (as the lastSuccessfulTime check of
 * unit_fmu.c) and lies far below T, the distance between two ticks. */
static double tick_tol(double t, double T) { return 1e-9 * T + 4.0 * DBL_EPSILON * fabs(t); }

/* The first tick of clock i at or after t - tol (its counter k >= 0). */
static double tick_from(const fmu_clock_sched *c, size_t i, double t)
{
    const double T = c->interval[i], base = c->t0 + c->shift[i];
    double k = floor((t - base) / T) - 1.0;
    if (k < 0.0)
        k = 0.0;
    while (base + k * T < t - tick_tol(t, T))
        k += 1.0;
    return base + k * T;
}

double fmu_clock_sched_next(const fmu_clock_sched *c, double t)
{
    double next = INFINITY;
    for (size_t i = 0; c && i < c->n; i++) {
        if (!(c->interval[i] > 0.0))
            continue;
        double tk = tick_from(c, i, t);
        if (fabs(tk - t) <= tick_tol(t, c->interval[i]))
            tk = tick_from(c, i, tk + c->interval[i]);
        next = fmin(next, tk);
    }
    return next;
}

int fmu_clock_sched_due(const fmu_clock_sched *c, double t, int pending)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->interval[i] > 0.0 && (!pending || c->last[i] != t) &&
            fabs(tick_from(c, i, t) - t) <= tick_tol(t, c->interval[i]))
            return 1;
    return 0;
}

int fmu_clock_sched_activate(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t,
                             size_t *nact)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!(c->interval[i] > 0.0))
            continue;
        if (fabs(tick_from(c, i, t) - t) <= tick_tol(t, c->interval[i]) && c->last[i] != t) {
            c->last[i] = t;
            c->vr[n] = m->desc.clocks[i].vr;
            c->val[n++] = true;
            c->ticks[i]++;
        }
    }
    /* triggered input clocks asked for (at this communication point: the
     * master runs this Event Mode there; the asking unit's time may differ
     * from this one's by the rounding of their step sums) */
    for (size_t i = 0; i < c->n; i++)
        if (!isnan(c->at[i]) && m->desc.clocks[i].causality == COSA_FMU_INPUT) {
            c->at[i] = NAN;
            c->vr[n] = m->desc.clocks[i].vr;
            c->val[n++] = true;
            c->ticks[i]++;
        }
    *nact = n;
    return n ? m->f3.SetClock(inst, c->vr, n, c->val) : 0;
}

int fmu_clock_sched_collect(fmu_clock_sched *c, const cosa_fmu *m, void *inst, double t)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (m->desc.clocks[i].causality == COSA_FMU_OUTPUT)
            c->vr[n++] = m->desc.clocks[i].vr;
    if (n == 0)
        return 0;
    const int s = m->f3.GetClock(inst, c->vr, n, c->val);
    if (s > 1)
        return s;
    for (size_t i = 0, j = 0; i < c->n; i++)
        if (m->desc.clocks[i].causality == COSA_FMU_OUTPUT && c->val[j++]) {
            c->ticks[i]++;
            c->at[i] = t;
        }
    return s;
}
