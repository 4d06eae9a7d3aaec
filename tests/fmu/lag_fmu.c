/* lag_fmu.c -- a test FMU for the FMU importer's clock and event tests: a
 * first-order lag x' = (u - x)/tau, y = x, as an FMI 3.0 co-simulation FMU
 * that holds its input over a step and integrates exactly (zero-order
 * hold): x(t + h) = u + (x(t) - u) exp(-h/tau).  Value references: 1 x
 * (the state, local), 2 der(x), 3 u (input), 4 y (output), 5 tau
 * (parameter, start 0.5).  Get/set FMU state for the master's snapshots.
 * With -DFIXED_STEP=HF it steps as a fixed-step FMU does (doc/fixed-step-
 * fmus.md): forward Euler steps of HF, x += HF (u - x)/tau, as many as end
 * by t + h (to 1e-9 h), at grid times k HF; lastSuccessfulTime is the grid
 * time reached, and no early return (a step shorter than HF does not
 * advance).  Written for cosa's tests only. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"
enum { VR_X = 1, VR_DX = 2, VR_U = 3, VR_Y = 4, VR_TAU = 5 };

typedef struct {
    double t, x, u, tau;
    long k; /* FIXED_STEP: the grid steps taken, t = k FIXED_STEP */
} lag;

EXPORT const char *fmi3GetVersion(void) { return "3.0"; }
EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, void *log, void *intermediate)
{
    (void)name; (void)res; (void)visible; (void)logging; (void)eventMode; (void)earlyReturn;
    (void)req; (void)nreq; (void)env; (void)log; (void)intermediate;
    if (!token || strcmp(token, "{cosa-test-lag}") != 0)
        return NULL;
    lag *l = calloc(1, sizeof *l);
    if (l)
        l->tau = 0.5;
    return l;
}
EXPORT void fmi3FreeInstance(void *c) { free(c); }
FMI3_ENTER_INIT_SETS(((lag *)c)->t)
EXPORT int fmi3ExitInitializationMode(void *c) { return ((lag *)c)->tau > 0.0 ? 0 : 3; }
EXPORT int fmi3EnterEventMode(void *c) { (void)c; return 0; }
EXPORT int fmi3UpdateDiscreteStates(void *c, bool *again, bool *term, bool *nominals,
                                    bool *values, bool *nextDefined, double *next)
{
    (void)c; (void)next;
    *again = *term = *nominals = *values = *nextDefined = false;
    return 0;
}
EXPORT int fmi3EnterStepMode(void *c) { (void)c; return 0; }
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    lag *l = c;
    *event = *term = *early = false;
#ifdef FIXED_STEP
    (void)t;
    while ((double)(l->k + 1) * FIXED_STEP <= t + h + 1e-9 * h) {
        l->x += FIXED_STEP * (l->u - l->x) / l->tau;
        l->k++;
    }
    l->t = (double)l->k * FIXED_STEP;
    *last = l->t;
#else
    l->x = l->u + (l->x - l->u) * exp(-h / l->tau);
    l->t = t + h;
    *last = t + h;
#endif
    return 0;
}
EXPORT int fmi3GetFloat64(void *c, const uint32_t *vr, size_t n, double *v, size_t nv)
{
    const lag *l = c;
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_X || vr[i] == VR_Y)
            v[i] = l->x;
        else if (vr[i] == VR_DX)
            v[i] = (l->u - l->x) / l->tau;
        else if (vr[i] == VR_U)
            v[i] = l->u;
        else if (vr[i] == VR_TAU)
            v[i] = l->tau;
        else
            return 3;
    }
    return 0;
}
EXPORT int fmi3SetFloat64(void *c, const uint32_t *vr, size_t n, const double *v, size_t nv)
{
    lag *l = c;
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] == VR_X)
            l->x = v[i];
        else if (vr[i] == VR_U)
            l->u = v[i];
        else if (vr[i] == VR_TAU)
            l->tau = v[i];
        else
            return 3;
    }
    return 0;
}
FMI3_STATE_FUNCTIONS(lag)
