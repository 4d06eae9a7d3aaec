/* loop_fmu.c -- a test FMU for initialization loops (README "FMU import",
 * initialization loops): a feedthrough y = a u + b and a first-order filter
 * of the same input, x' = (u - x) / tau, as an FMI 3.0 co-simulation FMU.
 * Two of them coupled output to input form an algebraic loop: with
 * |a1 a2| < 1 it has the fixed point y1 = (a1 b2 + b1) / (1 - a1 a2); with
 * a1 a2 = 1 and b1 + b2 != 0 it has none.  The input over a step is the
 * importer's: the value set before it and, through the intermediate-update
 * callback, the values at t + h/2 and t + h, i.e. the quadratic q through
 * them (exact for input polynomials of degree <= 2); the filter steps
 * exactly for it, x(t + h) = p(t + h) + (x(t) - p(t)) exp(-h / tau) with the
 * particular solution p = q - tau q' + tau^2 q''.  For a held input this is
 * the zero-order-hold response u + (x(t) - u) exp(-h / tau).
 * Value references: 1 u (input), 2 y (output), 3 x (state), 4 der(x),
 * 5 a, 6 b, 7 tau (parameters).  Outputs and derivatives may be read in
 * Initialization Mode, as the standard allows; with loggingOn the FMU logs
 * the input it has when it leaves Initialization Mode.  Written for cosa's tests
 * only. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"
enum { VR_U = 1, VR_Y, VR_X, VR_DX, VR_A, VR_B, VR_TAU };

typedef void (*log3_fn)(void *env, int status, const char *category, const char *message);
typedef void (*update3_fn)(void *env, double t, bool setRequested, bool getAllowed,
                           bool stepFinished, bool canReturnEarly, bool *earlyReturnRequested,
                           double *earlyReturnTime);
typedef struct {
    double t, u, x, a, b, tau;
    void *env;
    update3_fn update;
    log3_fn log;           /* with loggingOn: Initialization Mode is logged */
} loop;

EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, log3_fn log, update3_fn intermediate)
{
    (void)name; (void)res; (void)visible; (void)req; (void)nreq;
    (void)eventMode; /* no events: event mode and early returns are never used */
    (void)earlyReturn;
    if (!token || strcmp(token, "{cosa-test-loop}") != 0)
        return NULL;
    loop *l = calloc(1, sizeof *l);
    if (l) {
        l->a = 0.5;
        l->b = 1.0;
        l->tau = 0.1;
        l->env = env;
        l->update = intermediate;
        l->log = logging ? log : NULL;
    }
    return l;
}
EXPORT void fmi3FreeInstance(void *c) { free(c); }
FMI3_ENTER_INIT_SETS(((loop *)c)->t)
EXPORT int fmi3ExitInitializationMode(void *c)
{
    loop *l = c;
    if (l->log) { /* what the loop's iteration left in Initialization Mode */
        char msg[160];
        snprintf(msg, sizeof msg, "loop FMU leaves Initialization Mode with u = %.17g", l->u);
        l->log(l->env, 0, "logEvents", msg);
    }
    return 0;
}
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    loop *l = c;
    *event = *term = *early = false;
    /* q(s) = c0 + c1 s + c2 s^2 through u(t), u(t + h/2), u(t + h) */
    const double u0 = l->u;
    double um = u0, u1 = u0;
    if (l->update) {
        bool er = false;
        double et = t + h;
        l->update(l->env, t + h / 2, true, false, false, false, &er, &et);
        um = l->u;
        l->update(l->env, t + h, true, false, false, false, &er, &et);
        u1 = l->u;
    }
    const double c1 = (4.0 * um - 3.0 * u0 - u1) / h, c2 = 2.0 * (u1 - 2.0 * um + u0) / (h * h);
    const double tau = l->tau, p0 = u0 - tau * c1 + 2.0 * tau * tau * c2;
    const double p1 = u1 - tau * (c1 + 2.0 * c2 * h) + 2.0 * tau * tau * c2;
    l->x = p1 + (l->x - p0) * exp(-h / tau);
    l->t = t + h;
    *last = t + h;
    return 0;
}

static int get(const loop *l, unsigned vr, double *v)
{
    switch (vr) {
    case VR_U: *v = l->u; return 0;
    case VR_Y: *v = l->a * l->u + l->b; return 0;
    case VR_X: *v = l->x; return 0;
    case VR_DX: *v = (l->u - l->x) / l->tau; return 0;
    case VR_A: *v = l->a; return 0;
    case VR_B: *v = l->b; return 0;
    case VR_TAU: *v = l->tau; return 0;
    default: return -1;
    }
}

static int set(loop *l, unsigned vr, double v)
{
    switch (vr) {
    case VR_U: l->u = v; return 0;
    case VR_X: l->x = v; return 0;
    case VR_A: l->a = v; return 0;
    case VR_B: l->b = v; return 0;
    case VR_TAU: l->tau = v; return 0;
    default: return -1;
    }
}

FMI3_FLOAT64_VIA(get, set, c)
FMI3_STATE_FUNCTIONS(loop)
