/* disc_fmu.c -- test FMUs for discrete signals (doc/ssp.md "Discrete
 * signals"): two first-order lags x' = (u - x)/tau, y = x, integrated
 * exactly under a held input (x(t + h) = u + (x(t) - u) exp(-h/tau)), one
 * binary exporting FMI 3.0 and 2.0.
 *   default (dsrc): also an Int32 (2.0: Integer) output mode = floor(2 t)
 *     and a Boolean output on = (t >= 0.7), at the FMU's own time t;
 *   -DDISC_SINK (dsink): also an Int32 input gear and a Boolean input lock,
 *     and a Float64 output acc, the integral of gear + 10 lock over the
 *     steps taken: acc += h (gear + 10 lock) per step, with the values set
 *     before the step (a hidden accumulator, no declared state).
 * Float64 (2.0: Real) signals of other variabilities, declared by the
 * descriptions drsrc/drsink only (tests/fmu/dr*_fmi[23].xml, the same
 * binaries): dsrc's outputs volt = 12 [t >= 0.4] (discrete, a step at the
 * FMU's own time) and k = 2.5 (constant); dsink's inputs v (continuous)
 * and w (discrete) and output racc += h (v + w) per step, with the values
 * set before the step.  Value references 13 volt / v, 14 k / w, 15 racc.
 * The FMI 3.0 descriptions dsrc64/dsink64 (Makefile.am) declare mode an Enumeration and
 * gear an Int64: the same values through fmi3GetInt64/SetInt64.
 * Value references: 1 x, 2 der(x), 3 u, 4 y, 5 tau, 10 mode / gear,
 * 11 on / lock, 12 acc.  Get/set FMU state copy the instance.  Written for
 * cosa's tests only. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"

#ifndef TAU
#define TAU 0.5
#endif
enum { VR_X = 1, VR_DX = 2, VR_U = 3, VR_Y = 4, VR_TAU = 5, VR_I = 10, VR_B = 11, VR_ACC = 12,
       VR_R1 = 13, VR_R2 = 14, VR_RACC = 15 };

typedef struct {
    double t, x, u, tau, acc, v, w, racc;
    int32_t gear;
    bool lock;
} disc;

static disc *create(const char *token)
{
    if (!token || strcmp(token, "{cosa-test-disc}") != 0)
        return NULL;
    disc *d = calloc(1, sizeof *d);
    if (d)
        d->tau = TAU;
    return d;
}

static void step(disc *d, double h)
{
    d->x = d->u + (d->x - d->u) * exp(-h / d->tau);
#ifdef DISC_SINK
    d->acc += h * ((double)d->gear + (d->lock ? 10.0 : 0.0));
    d->racc += h * (d->v + d->w);
#endif
    d->t += h;
}

static int get_real(const disc *d, unsigned vr, double *v)
{
    switch (vr) {
    case VR_X: case VR_Y: *v = d->x; return 0;
    case VR_DX: *v = (d->u - d->x) / d->tau; return 0;
    case VR_U: *v = d->u; return 0;
    case VR_TAU: *v = d->tau; return 0;
#ifdef DISC_SINK
    case VR_ACC: *v = d->acc; return 0;
    case VR_R1: *v = d->v; return 0;
    case VR_R2: *v = d->w; return 0;
    case VR_RACC: *v = d->racc; return 0;
#else
    case VR_R1: *v = d->t >= 0.4 ? 12.0 : 0.0; return 0;
    case VR_R2: *v = 2.5; return 0;
#endif
    default: return 3;
    }
}

static int set_real(disc *d, unsigned vr, double v)
{
    if (vr == VR_X)
        d->x = v;
    else if (vr == VR_U)
        d->u = v;
    else if (vr == VR_TAU)
        d->tau = v;
#ifdef DISC_SINK
    else if (vr == VR_R1)
        d->v = v;
    else if (vr == VR_R2)
        d->w = v;
#endif
    else
        return 3;
    return 0;
}

static int get_int(const disc *d, unsigned vr, int32_t *v)
{
#ifdef DISC_SINK
    if (vr != VR_I)
        return 3;
    *v = d->gear;
#else
    if (vr != VR_I)
        return 3;
    *v = (int32_t)floor(2.0 * d->t);
#endif
    return 0;
}

static int get_bool(const disc *d, unsigned vr, bool *v)
{
    if (vr != VR_B)
        return 3;
#ifdef DISC_SINK
    *v = d->lock;
#else
    *v = d->t >= 0.7;
#endif
    return 0;
}

static int set_int(disc *d, unsigned vr, int32_t v)
{
#ifdef DISC_SINK
    if (vr == VR_I) {
        d->gear = v;
        return 0;
    }
#else
    (void)d; (void)vr; (void)v;
#endif
    return 3;
}

static int set_bool(disc *d, unsigned vr, bool v)
{
#ifdef DISC_SINK
    if (vr == VR_B) {
        d->lock = v;
        return 0;
    }
#else
    (void)d; (void)vr; (void)v;
#endif
    return 3;
}

/* ---- FMI 3.0 ---- */
EXPORT const char *fmi3GetVersion(void) { return "3.0"; }
EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, void *log, void *intermediate)
{
    (void)name; (void)res; (void)visible; (void)logging; (void)eventMode; (void)earlyReturn;
    (void)req; (void)nreq; (void)env; (void)log; (void)intermediate;
    return create(token);
}
EXPORT void fmi3FreeInstance(void *c) { free(c); }
FMI3_ENTER_INIT_SETS(((disc *)c)->t)
EXPORT int fmi3ExitInitializationMode(void *c) { return ((disc *)c)->tau > 0.0 ? 0 : 3; }
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    disc *d = c;
    *event = *term = *early = false;
    if (!(h > 0.0) || fabs(t - d->t) > 1e-9 * (1.0 + fabs(t)))
        return 3;
    d->t = t;
    step(d, h);
    *last = d->t;
    return 0;
}
FMI3_FLOAT64_VIA(get_real, set_real, (disc *)c)
EXPORT int fmi3GetInt32(void *c, const uint32_t *vr, size_t n, int32_t *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++)
        if (get_int(c, vr[i], &v[i]))
            return 3;
    return 0;
}
EXPORT int fmi3SetInt32(void *c, const uint32_t *vr, size_t n, const int32_t *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++)
        if (set_int(c, vr[i], v[i]))
            return 3;
    return 0;
}
/* Int64 and Enumeration variables (the *64 descriptions: mode an Enumeration, gear an
 * Int64) through the same values */
EXPORT int fmi3GetInt64(void *c, const uint32_t *vr, size_t n, int64_t *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++) {
        int32_t x;
        if (get_int(c, vr[i], &x))
            return 3;
        v[i] = x;
    }
    return 0;
}
EXPORT int fmi3SetInt64(void *c, const uint32_t *vr, size_t n, const int64_t *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++)
        if (v[i] < INT32_MIN || v[i] > INT32_MAX || set_int(c, vr[i], (int32_t)v[i]))
            return 3;
    return 0;
}
EXPORT int fmi3GetBoolean(void *c, const uint32_t *vr, size_t n, bool *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++)
        if (get_bool(c, vr[i], &v[i]))
            return 3;
    return 0;
}
EXPORT int fmi3SetBoolean(void *c, const uint32_t *vr, size_t n, const bool *v, size_t nv)
{
    if (nv != n)
        return 3;
    for (size_t i = 0; i < n; i++)
        if (set_bool(c, vr[i], v[i]))
            return 3;
    return 0;
}
FMI3_STATE_FUNCTIONS(disc)

/* ---- FMI 2.0 ---- */
EXPORT const char *fmi2GetVersion(void) { return "2.0"; }
EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid, const char *res,
                             const void *cb, int visible, int logging)
{
    (void)name; (void)res; (void)cb; (void)visible; (void)logging;
    return type == 1 ? create(guid) : NULL;
}
EXPORT void fmi2FreeInstance(void *c) { free(c); }
EXPORT int fmi2SetupExperiment(void *c, int tolDef, double tol, double t0, int stopDef,
                               double stop)
{
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    ((disc *)c)->t = t0;
    return 0;
}
EXPORT int fmi2EnterInitializationMode(void *c) { (void)c; return 0; }
EXPORT int fmi2ExitInitializationMode(void *c) { return ((disc *)c)->tau > 0.0 ? 0 : 3; }
EXPORT int fmi2Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi2DoStep(void *c, double t, double h, int noSet)
{
    (void)noSet;
    disc *d = c;
    if (!(h > 0.0) || fabs(t - d->t) > 1e-9 * (1.0 + fabs(t)))
        return 3;
    d->t = t;
    step(d, h);
    return 0;
}
EXPORT int fmi2GetReal(void *c, const unsigned *vr, size_t n, double *v)
{
    for (size_t i = 0; i < n; i++)
        if (get_real(c, vr[i], &v[i]))
            return 3;
    return 0;
}
EXPORT int fmi2SetReal(void *c, const unsigned *vr, size_t n, const double *v)
{
    for (size_t i = 0; i < n; i++)
        if (set_real(c, vr[i], v[i]))
            return 3;
    return 0;
}
EXPORT int fmi2GetInteger(void *c, const unsigned *vr, size_t n, int *v)
{
    for (size_t i = 0; i < n; i++) {
        int32_t x;
        if (get_int(c, vr[i], &x))
            return 3;
        v[i] = x;
    }
    return 0;
}
EXPORT int fmi2SetInteger(void *c, const unsigned *vr, size_t n, const int *v)
{
    for (size_t i = 0; i < n; i++)
        if (set_int(c, vr[i], v[i]))
            return 3;
    return 0;
}
EXPORT int fmi2GetBoolean(void *c, const unsigned *vr, size_t n, int *v)
{
    for (size_t i = 0; i < n; i++) {
        bool x;
        if (get_bool(c, vr[i], &x))
            return 3;
        v[i] = x;
    }
    return 0;
}
EXPORT int fmi2SetBoolean(void *c, const unsigned *vr, size_t n, const int *v)
{
    for (size_t i = 0; i < n; i++)
        if (set_bool(c, vr[i], v[i] != 0))
            return 3;
    return 0;
}
EXPORT int fmi2GetFMUstate(void *c, void **state)
{
    disc *s = *state ? *state : malloc(sizeof *s);
    if (!s)
        return 3;
    *s = *(disc *)c;
    *state = s;
    return 0;
}
EXPORT int fmi2SetFMUstate(void *c, void *state)
{
    *(disc *)c = *(disc *)state;
    return 0;
}
EXPORT int fmi2FreeFMUstate(void *c, void **state)
{
    (void)c;
    free(*state);
    *state = NULL;
    return 0;
}
