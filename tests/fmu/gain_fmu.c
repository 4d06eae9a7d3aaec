/* gain_fmu.c -- a test FMU without continuous states for the FMU importer:
 * y = k u (direct feedthrough only), as an FMI 3.0 and an FMI 2.0
 * co-simulation FMU (one binary exports both APIs).  Value references: 1 u
 * (input), 2 y (output), 3 gain.k (parameter); the model descriptions add
 * variables of other types that cosa does not read.  The input over a step
 * is the importer's: FMI 3.0 asks for it at the end of the step through the
 * intermediate-update callback, FMI 2.0 adds the input derivatives set by
 * fmi2SetRealInputDerivatives (the polynomial's value at t + h).
 * Build-time variants for the importer's tests:
 *   -DRESOURCE     k is read from resources/gain.txt at instantiation (FMI
 *                  3.0: resourcePath + "gain.txt"; FMI 2.0: the file://
 *                  URI fmuResourceLocation + "/gain.txt"); without it the
 *                  instantiation fails (NULL) and says why through the logger
 *   -DWARN_AT=T    every doStep reaching t >= T logs a message and returns
 *                  Warning
 *   -DLAST_FACTOR=F  fmi3DoStep reports lastSuccessfulTime = t + F h
 *                  without asking for an early return (F = 1: correct)
 * Parameter t_stop (value reference 7, default +inf; the gainterm variants'
 * model descriptions declare it): the step reaching t + h >= t_stop (to
 * 1e-9 h) completes and asks to end the simulation -- FMI 3.0 sets
 * terminateSimulation, FMI 2.0 returns Discard with fmi2Terminated = true
 * and fmi2LastSuccessfulTime = t + h.
 * With loggingOn the instantiation logs "gain FMU instantiated with k = K".
 * Written for cosa's tests only. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_export.h"
#ifndef LAST_FACTOR
#define LAST_FACTOR 1.0
#endif
#ifndef WARN_AT
#define WARN_AT -1.0
#endif
enum { VR_U = 1, VR_Y = 2, VR_K = 3, VR_TSTOP = 7, MAXDER = 3 };

typedef void (*log3_fn)(void *env, int status, const char *category, const char *message);
typedef void (*update3_fn)(void *env, double t, bool setRequested, bool getAllowed,
                           bool stepFinished, bool canReturnEarly, bool *earlyReturnRequested,
                           double *earlyReturnTime);
typedef struct {
    void (*logger)(void *, const char *, int, const char *, const char *, ...);
    void *(*alloc)(size_t, size_t);
    void (*free)(void *);
    void (*step_finished)(void *, int);
    void *env;
} callbacks2;

typedef struct {
    double t, u, k, t_stop, uder[MAXDER];
    int term;              /* the last step asked to end      */
    int nder;
    int version;           /* 3 or 2                          */
    void *env;             /* 3.0: instance environment       */
    log3_fn log3;
    update3_fn update;
    callbacks2 cb2;        /* 2.0                             */
    char name[64];
} gain;

static void say(gain *g, int status, const char *category, const char *fmt, double v)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, v);
    if (g->version == 3 && g->log3)
        g->log3(g->env, status, category, msg);
    else if (g->version == 2 && g->cb2.logger)
        g->cb2.logger(g->cb2.env, g->name, status, category, "%s", msg);
}

/* k from the resources directory (a path); 0, or -1 */
static int read_gain(const char *dir, double *k)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%sgain.txt", dir,
             dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/");
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    const int ok = fscanf(f, "%lf", k) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

/* the path of a file:// URI, %XX decoded; 0, or -1 */
static int uri_path(const char *uri, char *out, size_t size)
{
    if (!uri || strncmp(uri, "file://", 7) != 0)
        return -1;
    size_t n = 0;
    for (const char *c = uri + 7; *c && n + 1 < size; c++) {
        unsigned x;
        if (*c == '%' && sscanf(c + 1, "%2x", &x) == 1) {
            out[n++] = (char)x;
            c += 2;
        } else
            out[n++] = *c;
    }
    out[n] = '\0';
    return 0;
}

static gain *create(int version, const char *name, const char *res, int logging, void *env,
                    log3_fn log3, const callbacks2 *cb2)
{
    gain *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->version = version;
    g->k = 1.0;
    g->t_stop = INFINITY;
    g->env = env;
    g->log3 = log3;
    if (cb2)
        g->cb2 = *cb2;
    snprintf(g->name, sizeof g->name, "%s", name ? name : "");
#ifdef RESOURCE
    char dir[4096];
    const int have = version == 3 ? (res != NULL && snprintf(dir, sizeof dir, "%s", res) > 0)
                                  : uri_path(res, dir, sizeof dir) == 0;
    if (!have || read_gain(dir, &g->k) != 0) {
        say(g, 3, "logStatusError", "gain FMU: cannot read gain.txt from its resources", 0.0);
        free(g);
        return NULL;
    }
#else
    (void)res;
    (void)read_gain;
    (void)uri_path;
#endif
    if (logging)
        say(g, 0, "logEvents", "gain FMU instantiated with k = %g", g->k);
    return g;
}

static int get(const gain *g, unsigned vr, double *v)
{
    if (vr == VR_U)
        *v = g->u;
    else if (vr == VR_Y)
        *v = g->k * g->u;
    else if (vr == VR_K)
        *v = g->k;
    else if (vr == VR_TSTOP)
        *v = g->t_stop;
    else
        return -1;
    return 0;
}

static int set(gain *g, unsigned vr, double v)
{
    if (vr == VR_U)
        g->u = v;
    else if (vr == VR_K)
        g->k = v;
    else if (vr == VR_TSTOP)
        g->t_stop = v;
    else
        return -1;
    return 0;
}

/* the step's status: Warning (1) from WARN_AT on, with a message */
static int finish(gain *g, double t, double h)
{
    g->t = t + h;
    g->term = t + h >= g->t_stop - 1e-9 * h;
    if (WARN_AT >= 0.0 && t + h >= WARN_AT) {
        say(g, 1, "logStatusWarning", "gain FMU warns as configured (t = %g)", t + h);
        return 1;
    }
    return 0;
}

/* ---- FMI 3.0 ----------------------------------------------------------- */
EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, log3_fn log, update3_fn intermediate)
{
    (void)visible; (void)req; (void)nreq;
    if (!token || strcmp(token, "{cosa-test-gain}") != 0 || eventMode || earlyReturn)
        return NULL;
    gain *g = create(3, name, res, logging, env, log, NULL);
    if (g)
        g->update = intermediate;
    return g;
}
EXPORT void fmi3FreeInstance(void *c) { free(c); }
FMI3_ENTER_INIT_SETS(((gain *)c)->t)
EXPORT int fmi3ExitInitializationMode(void *c) { (void)c; return 0; }
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    gain *g = c;
    *event = *term = *early = false;
    if (g->update) { /* the input at the end of the step */
        bool er = false;
        double et = t + h;
        g->update(g->env, t + h, true, false, false, false, &er, &et);
    }
    const int s = finish(g, t, h);
    *term = g->term;
    *last = t + LAST_FACTOR * h;
    return s;
}
FMI3_FLOAT64_VIA(get, set, c)
FMI3_STATE_FUNCTIONS(gain)

/* ---- FMI 2.0 ----------------------------------------------------------- */
EXPORT const char *fmi2GetVersion(void) { return "2.0"; }
EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid, const char *res,
                             const callbacks2 *cb, int visible, int logging)
{
    (void)visible;
    if (type != 1 || !guid || strcmp(guid, "{cosa-test-gain}") != 0)
        return NULL;
    return create(2, name, res, logging, NULL, NULL, cb);
}
EXPORT void fmi2FreeInstance(void *c) { free(c); }
EXPORT int fmi2SetupExperiment(void *c, int tolDef, double tol, double t0, int stopDef,
                               double stop)
{
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    ((gain *)c)->t = t0;
    return 0;
}
EXPORT int fmi2EnterInitializationMode(void *c) { (void)c; return 0; }
EXPORT int fmi2ExitInitializationMode(void *c) { (void)c; return 0; }
EXPORT int fmi2Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi2DoStep(void *c, double t, double h, int noSet)
{
    (void)noSet;
    gain *g = c;
    /* the input polynomial's value at t + h from its derivatives */
    double f = 1.0;
    for (int k = 1; k <= g->nder; k++) {
        f *= h / k;
        g->u += g->uder[k - 1] * f;
    }
    g->nder = 0;
    const int s = finish(g, t, h);
    return g->term ? 2 : s; /* Discard: see fmi2GetBooleanStatus */
}
/* after a Discard: fmi2Terminated (3), fmi2LastSuccessfulTime (2) */
EXPORT int fmi2GetBooleanStatus(void *c, int kind, int *v)
{
    if (kind != 3)
        return 2;
    *v = ((gain *)c)->term;
    return 0;
}
EXPORT int fmi2GetRealStatus(void *c, int kind, double *v)
{
    if (kind != 2)
        return 2;
    *v = ((gain *)c)->t;
    return 0;
}
EXPORT int fmi2GetReal(void *c, const unsigned *vr, size_t n, double *v)
{
    for (size_t i = 0; i < n; i++)
        if (get(c, vr[i], &v[i]))
            return 3;
    return 0;
}
EXPORT int fmi2SetReal(void *c, const unsigned *vr, size_t n, const double *v)
{
    for (size_t i = 0; i < n; i++)
        if (set(c, vr[i], v[i]))
            return 3;
    return 0;
}
EXPORT int fmi2SetRealInputDerivatives(void *c, const unsigned *vr, size_t n, const int *order,
                                       const double *v)
{
    gain *g = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] != VR_U || order[i] < 1 || order[i] > MAXDER)
            return 3;
        g->uder[order[i] - 1] = v[i];
        if (order[i] > g->nder)
            g->nder = order[i];
    }
    return 0;
}
EXPORT int fmi2GetFMUstate(void *c, void **state) { return fmi3GetFMUState(c, state); }
EXPORT int fmi2SetFMUstate(void *c, void *state) { return fmi3SetFMUState(c, state); }
EXPORT int fmi2FreeFMUstate(void *c, void **state) { return fmi3FreeFMUState(c, state); }
