/* twomass_fmu.c -- test FMUs for the FMU importer: one subsystem of the
 * two-mass oscillator of the MBCorr paper (eq 27) as an FMI 3.0 and an FMI
 * 2.0 co-simulation FMU (one binary exports both APIs; the zip's
 * modelDescription.xml picks one).  Compiled with -DSUBSYSTEM=1 or 2:
 *
 *   I:  m1 s1'' = -c1 s1 - d1 s1' + Fk             input Fk, outputs s1, v1
 *   II: m2 s2'' = -c2 s2 - d2 s2' - Fk,
 *       Fk = ck (s2 - s1) + dk (v2 - v1)            inputs s1, v1, output Fk
 *   II with -DNONLINEAR: the damping of eq 43 (MBCorr paper section 5),
 *       Fk = ck (s2 - s1) + d_eff(w) w, w = v2 - v1,
 *       d_eff(w) = max(min(dk |w|^(nd - 1), dkmax), dkmin), nd = ND_DEFAULT
 *   I with -DAFFINE: a constant force F0 on mass 1 (parameter F0, default
 *       F0_DEFAULT = -98.1 N: gravity on m1 = 10 kg), an affine model
 *       m1 s1'' = -c1 s1 - d1 s1' + Fk + F0
 *
 * doStep integrates with classical RK4 on 100 equal substeps under the
 * input held or, when derivatives were set (2.0: SetRealInputDerivatives),
 * under that polynomial.  With -DEULER_STEP=h it is a fixed-step FMU
 * instead: forward Euler at the internal step h, counted from the start
 * time, taking every internal step that ends within the communication
 * step (the state lags when the step is not a multiple of h), so that over
 * a held input its discrete transition is exactly I + h A.  With also
 * -DOUTPUT_LAG it computes its outputs only inside doStep, from the state
 * and input at the start of its last internal step (as the OSP quarter
 * truck's FMUs do: outputs are a by-product of the last right-hand-side
 * evaluation), frozen in between; at initialisation from the start state
 * and the inputs then set.  Directional derivatives (exact: the model is
 * linear) and get/set FMU state are provided.  Variables (value references):
 * 1 s, 2 v (states), 3 der(s), 4 der(v), 5.. inputs, then outputs and
 * parameters as listed in the tables below.  The same binary also exports
 * the Model Exchange functions of both versions (the importer integrates
 * rhs() itself; a ModelExchange element in the zip's modelDescription.xml
 * selects them); with -DME_TIME_EVENT=T it asks for one time event at T
 * (a no-op Event Mode: the importer must stop there and go on).  Written
 * for cosa's tests only; not an example of a complete FMU (no state events,
 * no logging categories). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef SUBSYSTEM
#define SUBSYSTEM 1
#endif
#include "fmi3_export.h"

enum { NX = 2, NSUB = 100, NPAR = 8, MAXIN = 2, MAXDER = 3 };
#ifndef ND_DEFAULT
#define ND_DEFAULT 1.5
#endif
#ifndef F0_DEFAULT
#define F0_DEFAULT -98.1
#endif
#if SUBSYSTEM == 1
enum { NU = 1, NY = 2 };
/* parameters: m1 c1 d1, F0 of the affine variant (and unused slots) */
#ifdef AFFINE
static const double par_default[NPAR] = {10.0, 1e6, 1.0, F0_DEFAULT, 0.0, 0.0, 0.0, 0.0};
#else
static const double par_default[NPAR] = {10.0, 1e6, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
#endif
static const double x_default[NX] = {0.0, 100.0};
#else
enum { NU = 2, NY = 1 };
/* parameters: m2 c2 d2 ck dk, and nd dkmin dkmax of the nonlinear variant */
static const double par_default[NPAR] = {10.0, 1e7, 2.0, 2e5, 500.0, ND_DEFAULT, 10.0, 1e4};
static const double x_default[NX] = {0.0, -100.0};
#endif
/* value references */
enum { VR_S = 1, VR_V = 2, VR_DS = 3, VR_DV = 4, VR_U0 = 5, VR_Y0 = 5 + NU, VR_P0 = 5 + NU + NY,
       VR_END = VR_P0 + NPAR };

typedef struct {
    double t, x[NX], u[NU], uder[NU][MAXDER], p[NPAR];
    int nder; /* input derivatives set for the coming step (orders 1..nder) */
    long nint; /* -DEULER_STEP: internal steps taken since t0 */
    double ylag[NY]; /* -DOUTPUT_LAG: the outputs as the last doStep left them */
    double t0;
    /* FMI 3.0 intermediate update: asks the importer for the inputs at time
     * t (it sets them through fmi3SetFloat64) before every use of them */
    void (*refresh)(void *ctx, double t);
    void *rctx;
} model;

#if SUBSYSTEM == 2 && defined(NONLINEAR)
/* eq 43: ck (s2 - s1) + d_eff(w) w */
static double coupling_nl(const double *p, const double *x, const double *u)
{
    const double w = x[1] - u[1];
    double d = p[4] * pow(fabs(w), p[5] - 1.0);
    if (!(d > p[6]))
        d = p[6];
    else if (!(d < p[7]))
        d = p[7];
    return p[3] * (x[0] - u[0]) + d * w;
}
#endif

static void rhs(const model *m, const double *x, const double *u, double *dx)
{
    const double *p = m->p;
#if SUBSYSTEM == 1
    dx[0] = x[1];
#ifdef AFFINE
    dx[1] = (-p[1] * x[0] - p[2] * x[1] + u[0] + p[3]) / p[0];
#else
    dx[1] = (-p[1] * x[0] - p[2] * x[1] + u[0]) / p[0];
#endif
#elif defined(NONLINEAR)
    const double fk = coupling_nl(p, x, u);
    dx[0] = x[1];
    dx[1] = (-p[1] * x[0] - p[2] * x[1] - fk) / p[0];
#else
    const double fk = p[3] * (x[0] - u[0]) + p[4] * (x[1] - u[1]);
    dx[0] = x[1];
    dx[1] = (-p[1] * x[0] - p[2] * x[1] - fk) / p[0];
#endif
}

static void outputs_now(const model *m, double *y);

static void outputs(const model *m, double *y)
{
#ifdef OUTPUT_LAG
    memcpy(y, m->ylag, sizeof m->ylag);
#else
    outputs_now(m, y);
#endif
}

/* the outputs at state x and inputs u */
static void outputs_xu(const model *m, const double *x, const double *u, double *y)
{
#if SUBSYSTEM == 1
    y[0] = x[0];
    y[1] = x[1];
#elif defined(NONLINEAR)
    y[0] = coupling_nl(m->p, x, u);
#else
    y[0] = m->p[3] * (x[0] - u[0]) + m->p[4] * (x[1] - u[1]);
#endif
}

static void outputs_now(const model *m, double *y) { outputs_xu(m, m->x, m->u, y); }

/* input at time t0 + s of a step from t0: the polynomial set by the
 * derivatives, or what the importer sets on request (intermediate update) */
static void input_at(model *m, double s, double *u)
{
    if (m->refresh)
        m->refresh(m->rctx, m->t + s);
    for (int i = 0; i < NU; i++) {
        double v = m->u[i], f = 1.0;
        for (int k = 1; k <= m->nder; k++) {
            f *= s / k;
            v += m->uder[i][k - 1] * f;
        }
        u[i] = v;
    }
}

#ifdef EULER_STEP
/* forward Euler at the fixed internal step EULER_STEP: x += h f(x, u), u at
 * the start of each internal step; the internal time is t0 + nint h (an
 * integer count, no drift) */
static void step(model *m, double h)
{
    const double hf = EULER_STEP, tend = m->t + h;
    if (m->nint == 0)
        m->t0 = m->t;
    while (m->t0 + (double)(m->nint + 1) * hf <= tend + 1e-6 * hf) {
        double dx[NX], u[NU];
        input_at(m, m->t0 + (double)m->nint * hf - m->t, u);
        rhs(m, m->x, u, dx);
#ifdef OUTPUT_LAG
        outputs_xu(m, m->x, u, m->ylag); /* at this internal step's start */
#endif
        for (int i = 0; i < NX; i++)
            m->x[i] += hf * dx[i];
        m->nint++;
    }
    double u[NU];
    input_at(m, h, u);
    memcpy(m->u, u, sizeof u);
    m->nder = 0;
    m->t = tend;
}
#else
static void step(model *m, double h)
{
    const double dt = h / NSUB;
    for (int n = 0; n < NSUB; n++) {
        double k[4][NX], xs[NX], u[NU];
        const double s0 = n * dt;
        input_at(m, s0, u);
        rhs(m, m->x, u, k[0]);
        input_at(m, s0 + dt / 2, u);
        for (int i = 0; i < NX; i++)
            xs[i] = m->x[i] + dt / 2 * k[0][i];
        rhs(m, xs, u, k[1]);
        for (int i = 0; i < NX; i++)
            xs[i] = m->x[i] + dt / 2 * k[1][i];
        rhs(m, xs, u, k[2]);
        input_at(m, s0 + dt, u);
        for (int i = 0; i < NX; i++)
            xs[i] = m->x[i] + dt * k[2][i];
        rhs(m, xs, u, k[3]);
        for (int i = 0; i < NX; i++)
            m->x[i] += dt / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    /* the input at the end of the step becomes the held value */
    double u[NU];
    input_at(m, h, u);
    memcpy(m->u, u, sizeof u);
    m->nder = 0;
    m->t += h;
}
#endif

static int get(const model *m, unsigned vr, double *v)
{
    double dx[NX], y[NY];
    rhs(m, m->x, m->u, dx);
    outputs(m, y);
    if (vr == VR_S || vr == VR_V)
        *v = m->x[vr - VR_S];
    else if (vr == VR_DS || vr == VR_DV)
        *v = dx[vr - VR_DS];
    else if (vr >= VR_U0 && vr < VR_Y0)
        *v = m->u[vr - VR_U0];
    else if (vr >= VR_Y0 && vr < VR_P0)
        *v = y[vr - VR_Y0];
    else if (vr >= VR_P0 && vr < VR_END)
        *v = m->p[vr - VR_P0];
    else
        return -1;
    return 0;
}

static int set(model *m, unsigned vr, double v)
{
    if (vr == VR_S || vr == VR_V)
        m->x[vr - VR_S] = v;
    else if (vr >= VR_U0 && vr < VR_Y0)
        m->u[vr - VR_U0] = v;
    else if (vr >= VR_P0 && vr < VR_END)
        m->p[vr - VR_P0] = v;
    else
        return -1;
    return 0;
}

/* d(unknown)/d(known), analytic (the model is linear): unknowns der(s),
 * der(v) and the outputs, knowns s, v and the inputs. */
static int partial(const model *m, unsigned unknown, unsigned known, double *d)
{
    const double *p = m->p;
    /* J[row][col]: rows der(s), der(v), outputs; columns s, v, inputs */
    double J[2 + NY][NX + NU] = {{0}};
    J[0][1] = 1.0;
#if SUBSYSTEM == 1
    J[1][0] = -p[1] / p[0];
    J[1][1] = -p[2] / p[0];
    J[1][2] = 1.0 / p[0];
    J[2][0] = 1.0;
    J[3][1] = 1.0;
#else
    J[1][0] = (-p[1] - p[3]) / p[0];
    J[1][1] = (-p[2] - p[4]) / p[0];
    J[1][2] = p[3] / p[0];
    J[1][3] = p[4] / p[0];
    J[2][0] = p[3];
    J[2][1] = p[4];
    J[2][2] = -p[3];
    J[2][3] = -p[4];
#endif
    int r = -1, c = -1;
    if (unknown == VR_DS || unknown == VR_DV)
        r = (int)(unknown - VR_DS);
    else if (unknown >= VR_Y0 && unknown < VR_P0)
        r = 2 + (int)(unknown - VR_Y0);
    if (known == VR_S || known == VR_V)
        c = (int)(known - VR_S);
    else if (known >= VR_U0 && known < VR_Y0)
        c = NX + (int)(known - VR_U0);
    if ((unknown == VR_S || unknown == VR_V) && c >= 0) {
        /* a state asked as an unknown (a state that is an output): 0, as the
         * Reference FMUs answer -- cosa must not believe it */
        *d = 0.0;
        return 0;
    }
    if (r < 0 || c < 0)
        return -1;
    *d = J[r][c];
    return 0;
}

static model *create(void)
{
    model *m = calloc(1, sizeof *m);
    if (m) {
        memcpy(m->p, par_default, sizeof m->p);
        memcpy(m->x, x_default, sizeof m->x);
#ifdef OUTPUT_LAG
        outputs_now(m, m->ylag);
#endif
    }
    return m;
}

/* ---- FMI 3.0 ----------------------------------------------------------- */
typedef void (*log3_fn)(void *env, int status, const char *category, const char *message);
typedef void (*update3_fn)(void *env, double t, bool setRequested, bool getAllowed,
                           bool stepFinished, bool canReturnEarly, bool *earlyReturnRequested,
                           double *earlyReturnTime);
typedef struct {
    model m;
    void *env;
    log3_fn log;
    update3_fn update;
    double fail_at; /* FAIL_STATUS at the first doStep reaching it (negative: never) */
} inst3;

#ifndef FAIL_STATUS
#define FAIL_STATUS 0
#endif
#ifndef FAIL_AT
#define FAIL_AT -1.0
#endif

EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

EXPORT void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
                                         bool visible, bool logging, bool eventMode,
                                         bool earlyReturn, const uint32_t *req, size_t nreq,
                                         void *env, log3_fn log, update3_fn intermediate)
{
    (void)name; (void)visible; (void)logging; (void)req; (void)nreq;
    if (!token || strcmp(token, "{cosa-test-twomass}") != 0 || eventMode || earlyReturn)
        return NULL;
    /* the resources directory: an absolute path ending in '/' (FMI 3.0); some
     * exporters read it unconditionally */
    if (!res || res[0] != '/' || res[strlen(res) - 1] != '/')
        return NULL;
    inst3 *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    model *m = create();
    if (!m) {
        free(c);
        return NULL;
    }
    c->m = *m;
    free(m);
    c->env = env;
    c->log = log;
    c->update = intermediate;
    c->fail_at = FAIL_AT;
    return c;
}

/* Model Exchange (FMI 3.0): the same instance, rhs() as the derivatives */
EXPORT void *fmi3InstantiateModelExchange(const char *name, const char *token, const char *res,
                                          bool visible, bool logging, void *env, log3_fn log)
{
    (void)name; (void)visible; (void)logging;
    if (!token || strcmp(token, "{cosa-test-twomass}") != 0 || !res || res[0] != '/')
        return NULL;
    inst3 *c = calloc(1, sizeof *c);
    model *m = create();
    if (!c || !m) {
        free(c);
        free(m);
        return NULL;
    }
    c->m = *m;
    free(m);
    c->env = env;
    c->log = log;
    c->fail_at = -1.0;
    return c;
}
#ifndef ME_TIME_EVENT
#define ME_TIME_EVENT -1.0
#endif
/* the next time event after t (ME_TIME_EVENT once), for both versions */
static int me_next_event(const model *m, double *tn)
{
    *tn = ME_TIME_EVENT;
    return ME_TIME_EVENT >= 0.0 && m->t < ME_TIME_EVENT - 1e-12;
}
EXPORT int fmi3EnterEventMode(void *c) { (void)c; return 0; }
EXPORT int fmi3UpdateDiscreteStates(void *c, bool *need, bool *term, bool *nominals,
                                    bool *values, bool *next_defined, double *next)
{
    *need = *term = *nominals = *values = false;
    *next_defined = me_next_event(&((inst3 *)c)->m, next);
    return 0;
}
EXPORT int fmi3EnterContinuousTimeMode(void *c) { (void)c; return 0; }
EXPORT int fmi3CompletedIntegratorStep(void *c, bool noSet, bool *enter, bool *term)
{
    (void)c; (void)noSet;
    *enter = *term = false;
    return 0;
}
EXPORT int fmi3SetTime(void *c, double t)
{
    ((inst3 *)c)->m.t = t;
    return 0;
}
EXPORT int fmi3SetContinuousStates(void *c, const double *x, size_t n)
{
    if (n != NX)
        return 3;
    memcpy(((inst3 *)c)->m.x, x, sizeof ((inst3 *)c)->m.x);
    return 0;
}
EXPORT int fmi3GetContinuousStates(void *c, double *x, size_t n)
{
    if (n != NX)
        return 3;
    memcpy(x, ((inst3 *)c)->m.x, sizeof ((inst3 *)c)->m.x);
    return 0;
}
EXPORT int fmi3GetContinuousStateDerivatives(void *c, double *dx, size_t n)
{
    if (n != NX)
        return 3;
    rhs(&((inst3 *)c)->m, ((inst3 *)c)->m.x, ((inst3 *)c)->m.u, dx);
    return 0;
}
EXPORT int fmi3GetEventIndicators(void *c, double *z, size_t n)
{
    (void)c; (void)z;
    return n == 0 ? 0 : 3;
}
EXPORT int fmi3GetNumberOfEventIndicators(void *c, size_t *n)
{
    (void)c;
    *n = 0;
    return 0;
}

EXPORT void fmi3FreeInstance(void *c) { free(c); }
FMI3_ENTER_INIT_SETS(((inst3 *)c)->m.t)
EXPORT int fmi3ExitInitializationMode(void *c)
{
#ifdef OUTPUT_LAG
    outputs_now(&((inst3 *)c)->m, ((inst3 *)c)->m.ylag);
#endif
    (void)c;
    return 0;
}
EXPORT int fmi3Terminate(void *c) { (void)c; return 0; }

static void refresh3(void *ctx, double t)
{
    inst3 *c = ctx;
    bool early = false;
    double et = t;
    c->update(c->env, t, true, false, false, false, &early, &et);
}

#ifndef OMIT_DOSTEP
EXPORT int fmi3DoStep(void *ci, double t, double h, bool noSet, bool *event, bool *term,
                      bool *early, double *last)
{
    (void)noSet;
    inst3 *c = ci;
    *event = *term = *early = false;
    if (c->fail_at >= 0.0 && t + h >= c->fail_at) {
        if (c->log)
            c->log(c->env, FAIL_STATUS, "logStatusError", "test FMU fails as configured");
        *last = t;
        return FAIL_STATUS;
    }
    if (!(h > 0.0) || fabs(t - c->m.t) > 1e-9 * (1.0 + fabs(t)))
        return 3; /* fmi3Error */
#ifndef NO_REFRESH /* -DNO_REFRESH: declares intermediate update, never asks (the importer
                      must notice that its input polynomial was not applied) */
    if (c->update) { /* the inputs come from the importer during the step */
        c->m.refresh = refresh3;
        c->m.rctx = c;
    }
#endif
    step(&c->m, h);
    c->m.refresh = NULL;
    *last = c->m.t;
    return 0;
}
#endif /* OMIT_DOSTEP: a binary without it, for the importer's error test */

FMI3_FLOAT64_VIA(get, set, &((inst3 *)c)->m)

FMI3_STATE_OF(model, ((inst3 *)c)->m)

EXPORT int fmi3GetDirectionalDerivative(void *c, const uint32_t *unk, size_t nunk,
                                        const uint32_t *kn, size_t nkn, const double *seed,
                                        size_t nseed, double *sens, size_t nsens)
{
    if (nseed != nkn || nsens != nunk)
        return 3;
    for (size_t i = 0; i < nunk; i++) {
        sens[i] = 0.0;
        for (size_t j = 0; j < nkn; j++) {
            double d;
            if (partial(&((inst3 *)c)->m, unk[i], kn[j], &d))
                return 3;
            sens[i] += d * seed[j];
        }
    }
    return 0;
}

/* ---- FMI 2.0 ----------------------------------------------------------- */
typedef struct {
    void (*logger)(void *, const char *, int, const char *, const char *, ...);
    void *(*alloc)(size_t, size_t);
    void (*free)(void *);
    void (*step_finished)(void *, int);
    void *env;
} callbacks2;

EXPORT const char *fmi2GetVersion(void) { return "2.0"; }
EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }

EXPORT void *fmi2Instantiate(const char *name, int type, const char *guid, const char *res,
                             const callbacks2 *cb, int visible, int logging)
{
    (void)name; (void)visible; (void)logging; (void)cb;
    /* 0: Model Exchange, 1: Co-Simulation */
    if ((type != 0 && type != 1) || !guid || strcmp(guid, "{cosa-test-twomass}") != 0)
        return NULL;
    /* the resources directory as a file URI (FMI 2.0 fmuResourceLocation) */
    if (!res || strncmp(res, "file:///", 8) != 0 || res[strlen(res) - 1] != '/')
        return NULL;
    return create();
}
EXPORT void fmi2FreeInstance(void *c) { free(c); }
EXPORT int fmi2SetupExperiment(void *c, int tolDef, double tol, double t0, int stopDef,
                               double stop)
{
    (void)tolDef; (void)tol; (void)stopDef; (void)stop;
    ((model *)c)->t = t0;
    return 0;
}
EXPORT int fmi2EnterInitializationMode(void *c) { (void)c; return 0; }
EXPORT int fmi2ExitInitializationMode(void *c)
{
#ifdef OUTPUT_LAG
    outputs_now(c, ((model *)c)->ylag);
#endif
    (void)c;
    return 0;
}
EXPORT int fmi2Terminate(void *c) { (void)c; return 0; }
EXPORT int fmi2DoStep(void *c, double t, double h, int noSet)
{
    (void)noSet;
    model *m = c;
    if (FAIL_AT >= 0.0 && t + h >= FAIL_AT)
        return FAIL_STATUS;
    if (!(h > 0.0) || fabs(t - m->t) > 1e-9 * (1.0 + fabs(t)))
        return 3;
    step(m, h);
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
    model *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] < VR_U0 || vr[i] >= VR_Y0 || order[i] < 1 || order[i] > MAXDER)
            return 3;
        m->uder[vr[i] - VR_U0][order[i] - 1] = v[i];
        if (order[i] > m->nder)
            m->nder = order[i];
    }
    return 0;
}
EXPORT int fmi2GetFMUstate(void *c, void **state)
{
    model *s = *state ? *state : malloc(sizeof *s);
    if (!s)
        return 3;
    *s = *(model *)c;
    *state = s;
    return 0;
}
EXPORT int fmi2SetFMUstate(void *c, void *state)
{
    *(model *)c = *(model *)state;
    return 0;
}
EXPORT int fmi2FreeFMUstate(void *c, void **state)
{
    (void)c;
    free(*state);
    *state = NULL;
    return 0;
}
EXPORT int fmi2GetDirectionalDerivative(void *c, const unsigned *unk, size_t nunk,
                                        const unsigned *kn, size_t nkn, const double *dk,
                                        double *du)
{
    for (size_t i = 0; i < nunk; i++) {
        du[i] = 0.0;
        for (size_t j = 0; j < nkn; j++) {
            double d;
            if (partial(c, unk[i], kn[j], &d))
                return 3;
            du[i] += d * dk[j];
        }
    }
    return 0;
}

/* Model Exchange (FMI 2.0) */
typedef struct {
    int new_discrete, terminate, nominals, values, next_defined;
    double next;
} event_info2;
EXPORT int fmi2EnterEventMode(void *c) { (void)c; return 0; }
EXPORT int fmi2NewDiscreteStates(void *c, event_info2 *ei)
{
    ei->new_discrete = ei->terminate = ei->nominals = ei->values = 0;
    ei->next_defined = me_next_event(c, &ei->next);
    return 0;
}
EXPORT int fmi2EnterContinuousTimeMode(void *c) { (void)c; return 0; }
EXPORT int fmi2CompletedIntegratorStep(void *c, int noSet, int *enter, int *term)
{
    (void)c; (void)noSet;
    *enter = *term = 0;
    return 0;
}
EXPORT int fmi2SetTime(void *c, double t)
{
    ((model *)c)->t = t;
    return 0;
}
EXPORT int fmi2SetContinuousStates(void *c, const double *x, size_t n)
{
    if (n != NX)
        return 3;
    memcpy(((model *)c)->x, x, sizeof ((model *)c)->x);
    return 0;
}
EXPORT int fmi2GetContinuousStates(void *c, double *x, size_t n)
{
    if (n != NX)
        return 3;
    memcpy(x, ((model *)c)->x, sizeof ((model *)c)->x);
    return 0;
}
EXPORT int fmi2GetDerivatives(void *c, double *dx, size_t n)
{
    if (n != NX)
        return 3;
    rhs(c, ((model *)c)->x, ((model *)c)->u, dx);
    return 0;
}
EXPORT int fmi2GetEventIndicators(void *c, double *z, size_t n)
{
    (void)c; (void)z;
    return n == 0 ? 0 : 3;
}
