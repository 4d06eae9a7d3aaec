/* sampler_fmu.c -- a clocked test FMU for the FMU importer (FMI 3.0
 * co-simulation with clocks, README "FMU import"): a sampled controller.
 * An input clock `tick` (periodic, intervalVariability constant,
 * intervalDecimal T = 0.1) is activated by the importer at t_k = k T; in
 * that Event Mode the FMU samples its continuous input u and sets its
 * clocked output y_k = -K u(t_k), held until the next tick.  Every fifth
 * tick (k = 0, 5, 10, ...) the output clock `alarm` (triggered, ticking
 * with `tick`) ticks too, and its clocked output `count` is the number of
 * alarm ticks so far.  Value references: 1 u (input), 2 y (output, clocks
 * tick), 3 K (parameter, start 2), 4 count (output, clocks alarm), 10 tick,
 * 11 alarm.  The FMU checks the importer: a tick at a time other than k T,
 * a step across a tick that was not activated, getting an input clock, or
 * a clock call outside Event Mode returns Error with a logged message.
 * Without eventModeUsed every fmi3DoStep fails (clocks need Event Mode).
 * -DTRIGGERED: `tick` is a triggered input clock (sampler_trig.xml): a tick
 * at any time is accepted and the steps are not checked against k T.
 * -DCLOCKED_INPUT: u is a clocked input of `tick` (sampler_cin.xml,
 * variability discrete): setting it other than in Event Mode with `tick`
 * activated returns Error; the control law uses the value set there.
 * Written for cosa's tests only. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"
enum { VR_U = 1, VR_Y = 2, VR_K = 3, VR_COUNT = 4, VR_TICK = 10, VR_ALARM = 11 };
enum { MODE_INIT, MODE_EVENT, MODE_STEP };
#define PERIOD 0.1
#define ALARM_EVERY 5

typedef void (*log3_fn)(void *env, int status, const char *category, const char *message);

typedef struct {
    double t, u, y, k, count;
    long ticks;        /* ticks of `tick` so far: the next is at ticks * PERIOD */
    int mode;
    bool active;       /* `tick` activated in this Event Mode               */
    bool alarm;        /* `alarm` ticks in this Event Mode (until read)     */
    bool event_mode_used;
    void *env;
    log3_fn log;
} sampler;

/* The time of tick k, as the importer computes it: a counter times the
 * interval (no accumulated sums). */
static double tick_time(long k) { return (double)k * PERIOD; }

/* two times of the same tick: the importer's k T, or its time summed from
 * step lengths (one rounding per step): 1e-9 T + 4 eps |t| */
static int same_time(double a, double b)
{
    return fabs(a - b) <= 1e-9 * PERIOD + 4.0 * 2.220446049250313e-16 * fabs(a);
}

static int error(sampler *s, const char *fmt, double t)
{
    char msg[200];
    snprintf(msg, sizeof msg, fmt, t);
    if (s->log)
        s->log(s->env, 3, "logStatusError", msg);
    return 3;
}

EXPORT const char *fmi3GetVersion(void) { return "3.0"; }
EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, log3_fn log, void *intermediate)
{
    (void)name; (void)res; (void)visible; (void)logging; (void)earlyReturn;
    (void)req; (void)nreq; (void)intermediate;
    if (!token || strcmp(token, "{cosa-test-sampler}") != 0)
        return NULL;
    sampler *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->event_mode_used = eventMode;
    s->k = 2.0;
    s->env = env;
    s->log = log;
    return s;
}
EXPORT void fmi3FreeInstance(void *c) { free(c); }
EXPORT int fmi3EnterInitializationMode(void *c, bool tolDef, double tol, double t0, bool stopDef,
                                       double stop)
{
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    sampler *s = c;
    s->t = t0;
    s->mode = MODE_INIT;
    /* the first tick at or after t0 */
    s->ticks = (long)ceil(t0 / PERIOD - 1e-9);
    return 0;
}
/* with eventModeUsed, Initialization Mode is left into Event Mode */
EXPORT int fmi3ExitInitializationMode(void *c)
{
    sampler *s = c;
    s->mode = s->event_mode_used ? MODE_EVENT : MODE_STEP;
    return 0;
}
EXPORT int fmi3EnterEventMode(void *c)
{
    sampler *s = c;
    if (s->mode == MODE_INIT)
        return error(s, "sampler FMU: fmi3EnterEventMode in Initialization Mode (t = %g)", s->t);
    s->mode = MODE_EVENT;
    return 0;
}
EXPORT int fmi3EnterStepMode(void *c)
{
    sampler *s = c;
    if (s->mode != MODE_EVENT)
        return error(s, "sampler FMU: fmi3EnterStepMode outside Event Mode (t = %g)", s->t);
    if (s->active)
        return error(s, "sampler FMU: tick activated at t = %g but no fmi3UpdateDiscreteStates",
                     s->t);
    s->mode = MODE_STEP;
    s->alarm = false;
    return 0;
}
EXPORT int fmi3UpdateDiscreteStates(void *c, bool *again, bool *term, bool *nominals,
                                    bool *values, bool *nextDefined, double *next)
{
    sampler *s = c;
    *again = *term = *nominals = *values = *nextDefined = false;
    *next = 0.0;
    if (s->mode != MODE_EVENT)
        return error(s, "sampler FMU: fmi3UpdateDiscreteStates outside Event Mode (t = %g)",
                     s->t);
    if (s->active) { /* the control law on the sample u(t_k) */
        s->y = -s->k * s->u;
        if (s->ticks % ALARM_EVERY == 0) {
            s->alarm = true;
            s->count += 1.0;
        }
        s->ticks++;
        s->active = false;
    }
    return 0;
}
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    sampler *s = c;
    *event = *term = *early = false;
    *last = t;
    if (!s->event_mode_used)
        return error(s, "sampler FMU: clocks need eventModeUsed (fmi3DoStep at t = %g)", t);
    if (s->mode != MODE_STEP)
        return error(s, "sampler FMU: fmi3DoStep outside Step Mode (t = %g)", t);
    const double due = tick_time(s->ticks);
#ifdef TRIGGERED
    (void)due;
    if (0)
#else
    if (t + h > due && !same_time(t + h, due))
#endif
        return error(s, "sampler FMU: fmi3DoStep steps across the tick at t = %.17g without "
                        "activating it", due);
    s->t = t + h;
    *last = t + h;
    return 0;
}
EXPORT int fmi3SetClock(void *c, const uint32_t *vr, size_t n, const bool *v)
{
    sampler *s = c;
    if (s->mode != MODE_EVENT)
        return error(s, "sampler FMU: fmi3SetClock outside Event Mode (t = %g)", s->t);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != VR_TICK)
            return error(s, "sampler FMU: fmi3SetClock of a variable that is no input clock "
                            "(t = %g)", s->t);
        if (!v[i])
            continue;
#ifndef TRIGGERED
        if (!same_time(s->t, tick_time(s->ticks)))
            return error(s, "sampler FMU: tick activated at t = %.17g, which is not the next "
                            "tick time k T", s->t);
#endif
        s->active = true;
    }
    return 0;
}
EXPORT int fmi3GetClock(void *c, const uint32_t *vr, size_t n, bool *v)
{
    sampler *s = c;
    if (s->mode != MODE_EVENT)
        return error(s, "sampler FMU: fmi3GetClock outside Event Mode (t = %g)", s->t);
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != VR_ALARM)
            return error(s, "sampler FMU: fmi3GetClock of a variable that is no output clock "
                            "(t = %g)", s->t);
        v[i] = s->alarm;
        s->alarm = false; /* an output clock reads active once per tick */
    }
    return 0;
}
EXPORT int fmi3GetIntervalDecimal(void *c, const uint32_t *vr, size_t n, double *iv, int *q)
{
    sampler *s = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != VR_TICK)
            return error(s, "sampler FMU: fmi3GetIntervalDecimal of a clock without interval "
                            "(t = %g)", s->t);
        iv[i] = PERIOD;
        q[i] = 1; /* fmi3IntervalUnchanged */
    }
    return 0;
}
EXPORT int fmi3GetShiftDecimal(void *c, const uint32_t *vr, size_t n, double *sh)
{
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != VR_TICK)
            return error(c, "sampler FMU: fmi3GetShiftDecimal of a clock without shift "
                            "(t = %g)", ((sampler *)c)->t);
        sh[i] = 0.0;
    }
    return 0;
}
EXPORT int fmi3GetFloat64(void *c, const uint32_t *vr, size_t n, double *v, size_t nv)
{
    const sampler *s = c;
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_U)
            v[i] = s->u;
        else if (vr[i] == VR_Y)
            v[i] = s->y;
        else if (vr[i] == VR_K)
            v[i] = s->k;
        else if (vr[i] == VR_COUNT)
            v[i] = s->count;
        else
            return 3;
    }
    return 0;
}
EXPORT int fmi3SetFloat64(void *c, const uint32_t *vr, size_t n, const double *v, size_t nv)
{
    sampler *s = c;
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++) {
#ifdef CLOCKED_INPUT
        if (vr[i] == VR_U && !(s->mode == MODE_EVENT && s->active))
            return error(s, "sampler FMU: the clocked input u set at t = %g outside its clock "
                            "tick's activation in Event Mode", s->t);
#endif
        if (vr[i] == VR_U)
            s->u = v[i];
        else if (vr[i] == VR_K)
            s->k = v[i];
        else
            return 3;
    }
    return 0;
}
FMI3_STATE_FUNCTIONS(sampler)
