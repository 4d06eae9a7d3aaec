/* event_fmu.c -- FMI 3.0 co-simulation test FMUs with events for cosa's
 * event handling (README "Events"); one model per build:
 *   -DMODEL_BALL    a bouncing ball: h'' = -g, at h = 0 (falling) the
 *                   velocity becomes -e v.  doStep integrates in closed form
 *                   (h + v tau - g tau^2 / 2) and finds the crossing time
 *                   exactly: tau* = (v + sqrt(v^2 + 2 g h)) / g.  With
 *                   eventModeUsed and earlyReturnAllowed it returns early
 *                   there (eventHandlingNeeded); the bounce itself happens
 *                   in Event Mode (fmi3UpdateDiscreteStates).  Otherwise it
 *                   bounces inside the step.  States h (vr 1), v (vr 3),
 *                   outputs h, v; parameters g (5), e (6).
 *   -DMODEL_STEP    a time event: y = 0 for t < T, then y = A (T vr 2, A
 *                   vr 3, output y vr 1); nextEventTime = T after the
 *                   initialisation; no early return: the importer is to
 *                   step to T, where doStep signals the event.
 *   -DMODEL_FILTER  x' = (u - x) / tau, y = x, the exact zero-order-hold
 *                   update x(t+h) = u + (x - u) e^{-h/tau} (u vr 1, y vr 2,
 *                   x vr 3, der(x) vr 4, tau vr 5); u is asked for at the
 *                   step's end through intermediate update (a held input:
 *                   the held value; a polynomial: its end value, held).
 * Variants: -DNOSETTLE (the ball's event iteration never settles),
 * -DRUDE (the ball returns early even when that was not allowed), -DASK (the
 * ball offers the early return through the intermediate-update callback,
 * canReturnEarly, and returns early only when the importer asks).
 * The ball also exports the FMI 3.0 Model Exchange functions (a
 * ModelExchange element selects them: ballme_fmi3.fmu): derivatives (v,
 * -g), one event indicator h (DBL_MIN just after a bounce, so that leaving
 * the ground is no event), the bounce in Event Mode when h <= 0 falling.
 * Written for cosa's tests only. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"
typedef void (*log3_fn)(void *env, int status, const char *category, const char *message);
typedef void (*update3_fn)(void *env, double t, bool setRequested, bool getAllowed,
                           bool stepFinished, bool canReturnEarly, bool *earlyReturnRequested,
                           double *earlyReturnTime);
enum { OK = 0, ERR = 3 };
#define NV 8

typedef struct {
    double v[NV];       /* by value reference                     */
    double t;
    int ev_used, early_ok, pending, me;
    void *env;
    log3_fn log;
    update3_fn update;
} model;

static void say(model *m, const char *msg)
{
    if (m->log)
        m->log(m->env, OK, "logEvents", msg);
}

EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool ev_used,
                                         bool early_ok, const uint32_t *req, size_t nreq,
                                         void *env, log3_fn log, void *update)
{
    (void)name, (void)token, (void)res, (void)visible, (void)logging, (void)req, (void)nreq;
    model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ev_used = ev_used;
    m->early_ok = early_ok;
    m->env = env;
    m->log = log;
    m->update = (update3_fn)update;
#if defined(MODEL_BALL)
    m->v[1] = 1.0, m->v[3] = 0.0, m->v[5] = 9.81, m->v[6] = 0.7;
#elif defined(MODEL_STEP)
    m->v[2] = 0.35, m->v[3] = 1.0;
#else
    m->v[5] = 0.2;
#endif
    return m;
}

EXPORT void fmi3FreeInstance(void *inst) { free(inst); }
FMI3_ENTER_INIT_SETS(((model *)c)->t)
EXPORT int fmi3ExitInitializationMode(void *inst)
{
#if defined(MODEL_STEP)
    model *m = inst;
    m->v[1] = m->t >= m->v[2] ? m->v[3] : 0.0;
#else
    (void)inst;
#endif
    return OK;
}
EXPORT int fmi3Terminate(void *inst) { (void)inst; return OK; }
EXPORT int fmi3EnterEventMode(void *inst)
{
#if defined(MODEL_BALL)
    model *m = inst;
    if (m->me && m->v[1] <= 0.0 && m->v[3] < 0.0) /* Model Exchange: the crossing */
        m->pending = 1;
#else
    (void)inst;
#endif
    return OK;
}
EXPORT int fmi3EnterStepMode(void *inst) { (void)inst; return OK; }

EXPORT int fmi3UpdateDiscreteStates(void *inst, bool *again, bool *term, bool *nominals,
                                    bool *values, bool *next_defined, double *next)
{
    model *m = inst;
    *again = *term = *nominals = *values = *next_defined = false;
    *next = 0.0;
#if defined(MODEL_BALL)
    if (m->pending) { /* the bounce */
        m->v[3] = -m->v[6] * m->v[3];
        m->v[1] = 0.0;
        *values = true;
        say(m, "bounce");
    }
#ifdef NOSETTLE
    *again = true;
#endif
#elif defined(MODEL_STEP)
    if (m->t >= m->v[2] - 1e-9 * (1.0 + fabs(m->v[2]))) /* at T to rounding */
        m->v[1] = m->v[3];
    else
        *next_defined = true, *next = m->v[2];
#endif
    m->pending = 0;
    return OK;
}

#if defined(MODEL_BALL)
/* Free flight over tau from (h, v). */
static void fly(model *m, double tau)
{
    const double g = m->v[5];
    m->v[1] += m->v[3] * tau - 0.5 * g * tau * tau;
    m->v[3] -= g * tau;
}

/* Time to the next crossing of h = 0 falling (inf if none ahead). */
static double crossing(const model *m)
{
    const double h = m->v[1], v = m->v[3], g = m->v[5];
    const double d = v * v + 2.0 * g * h;
    if (d < 0.0)
        return INFINITY;
    const double tau = (v + sqrt(d)) / g;
    return tau > 0.0 ? tau : INFINITY;
}
#endif

EXPORT int fmi3DoStep(void *inst, double t, double H, bool nosetprior, bool *event, bool *term,
                      bool *early, double *last)
{
    model *m = inst;
    (void)nosetprior;
    *event = *term = *early = false;
    if (fabs(t - m->t) > 1e-9 * (1.0 + fabs(t)))
        return ERR;
    const double tend = t + H;
#if defined(MODEL_BALL)
    double tc = t;
    for (;;) {
        const double tau = crossing(m);
        if (!(tc + tau < tend)) {
            fly(m, tend - tc);
            break;
        }
        fly(m, tau);
        tc += tau;
#ifdef RUDE
        const int stop = 1;
#elif defined(ASK)
        /* asks the importer through the intermediate-update callback
         * (canReturnEarly at the crossing) and returns early only when asked
         * to; else it bounces inside the step */
        bool asked = false;
        double t_ask = tc;
        if (m->update && m->early_ok)
            m->update(m->env, tc, false, true, true, true, &asked, &t_ask);
        const int stop = m->ev_used && m->early_ok && asked && t_ask <= tc;
#else
        const int stop = m->ev_used && m->early_ok;
#endif
        if (stop) {
            m->v[1] = 0.0;
            m->pending = 1;
            m->t = tc;
            *event = m->ev_used;
            *early = true;
            *last = tc;
            return OK;
        }
        m->v[3] = -m->v[6] * m->v[3]; /* the bounce inside the step */
        m->v[1] = 0.0;
    }
#elif defined(MODEL_STEP)
    /* the switch: inside the step without event mode; at the end with it */
    const double T = m->v[2], tol = 1e-9 * (1.0 + fabs(T));
    if (m->t < T - tol && tend >= T - tol) {
        if (m->ev_used)
            *event = true;
        else if (tend >= T)
            m->v[1] = m->v[3];
    }
#else
    /* the input: the importer's value at the step's end when it gives one
     * (a held input has that value over the whole step) */
    bool no = false;
    double dummy = 0.0;
    if (m->update)
        m->update(m->env, tend, true, false, false, false, &no, &dummy);
    const double tau = m->v[5], u = m->v[1];
    m->v[3] = u + (m->v[3] - u) * exp(-H / tau);
    m->v[2] = m->v[3];
#endif
    m->t = tend;
    *last = tend;
    return OK;
}

EXPORT int fmi3GetFloat64(void *inst, const uint32_t *vr, size_t n, double *val, size_t nv)
{
    model *m = inst;
    (void)nv;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NV)
            return ERR;
#if defined(MODEL_BALL)
        if (vr[i] == 2 || vr[i] == 4) { /* der(h) = v, der(v) = -g */
            val[i] = vr[i] == 2 ? m->v[3] : -m->v[5];
            continue;
        }
#elif defined(MODEL_FILTER)
        if (vr[i] == 4) {
            val[i] = (m->v[1] - m->v[3]) / m->v[5];
            continue;
        }
        if (vr[i] == 2) {
            val[i] = m->v[3];
            continue;
        }
#endif
        val[i] = m->v[vr[i]];
    }
    return OK;
}

EXPORT int fmi3SetFloat64(void *inst, const uint32_t *vr, size_t n, const double *val, size_t nv)
{
    model *m = inst;
    (void)nv;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= NV)
            return ERR;
        m->v[vr[i]] = val[i];
    }
    return OK;
}

FMI3_STATE_FUNCTIONS(model)

#if defined(MODEL_BALL)
/* ---- Model Exchange (FMI 3.0) -------------------------------------------- */
EXPORT void *fmi3InstantiateModelExchange(const char *name, const char *token, const char *res,
                                          bool visible, bool logging, void *env, log3_fn log)
{
    model *m = fmi3InstantiateCoSimulation(name, token, res, visible, logging, true, false,
                                           NULL, 0, env, log, NULL);
    if (m)
        m->me = 1;
    return m;
}
EXPORT int fmi3EnterContinuousTimeMode(void *inst) { (void)inst; return OK; }
EXPORT int fmi3CompletedIntegratorStep(void *inst, bool noSet, bool *enter, bool *term)
{
    (void)inst, (void)noSet;
    *enter = *term = false;
    return OK;
}
EXPORT int fmi3SetTime(void *inst, double t)
{
    ((model *)inst)->t = t;
    return OK;
}
EXPORT int fmi3SetContinuousStates(void *inst, const double *x, size_t n)
{
    model *m = inst;
    if (n != 2)
        return ERR;
    m->v[1] = x[0], m->v[3] = x[1];
    return OK;
}
EXPORT int fmi3GetContinuousStates(void *inst, double *x, size_t n)
{
    const model *m = inst;
    if (n != 2)
        return ERR;
    x[0] = m->v[1], x[1] = m->v[3];
    return OK;
}
EXPORT int fmi3GetContinuousStateDerivatives(void *inst, double *dx, size_t n)
{
    const model *m = inst;
    if (n != 2)
        return ERR;
    dx[0] = m->v[3], dx[1] = -m->v[5];
    return OK;
}
EXPORT int fmi3GetEventIndicators(void *inst, double *z, size_t n)
{
    const model *m = inst;
    if (n != 1)
        return ERR;
    z[0] = m->v[1] <= 0.0 && m->v[3] > 0.0 ? DBL_MIN : m->v[1];
    return OK;
}
EXPORT int fmi3GetNumberOfEventIndicators(void *inst, size_t *n)
{
    (void)inst;
    *n = 1;
    return OK;
}
#endif
