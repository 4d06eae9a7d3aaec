/* unit_fmu_me.c -- a Model Exchange FMU (FMI 3.0 or 2.0) behind the FMU unit
 * (unit_fmu.c): cosa integrates the FMU's state derivatives itself with one
 * of the project's integrators (integrator.c; CVODE BDF by default), the
 * input polynomial of the macro step applied at every right-hand side
 * evaluation.
 *
 * The right-hand side at (t, x, u) is fmi3SetTime / fmi2SetTime,
 * SetContinuousStates, the inputs through SetFloat64 / SetReal, then
 * GetContinuousStateDerivatives / GetDerivatives; the outputs are read the
 * same way, so the model (eval) and its Jacobians are available at any
 * point (no second instance, unlike co-simulation).  After initialisation
 * and after every macro step the FMU runs its event iteration if it asks
 * for one (fmi3UpdateDiscreteStates / fmi2NewDiscreteStates until no
 * update is needed), then returns to Continuous-Time Mode; after every
 * macro step fmi3/fmi2CompletedIntegratorStep is called once (the macro
 * step is one "integrator step" towards the FMU: CVODE's internal steps
 * are not reported).  Events inside a macro step split it: a time event
 * the FMU announced (nextEventTime) ends a part there; a state event (an
 * event indicator whose domain z > 0 changes over a part) is located by
 * bisection on the time, each trial integrating afresh from the part's
 * start, to a bracket of EVENT_TTOL relative; Event Mode runs at the
 * bracket's right end (where the domain has changed), and the step goes
 * on from there with the states the FMU may have reset. */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"
#include "td/integrator.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the integrator of every ME FMU unit: CVODE BDF, relative tolerance
 * FMU_ME_RTOL, absolute tolerances scaled by the states' magnitudes
 * (cosa_integrator.atol <= 0) */
#define FMU_ME_RTOL 1e-10
/* state events: the bracket's width, relative to max(1, |t|) (the event
 * time is then known to ~1e-13 s at t ~ 1 s: below the integrator's own
 * error), and the most events inside one macro step */
#define EVENT_TTOL 1e-13
#define EVENTS_PER_STEP_MAX 1000

struct fmu_me {
    cosa_ode ode;
    cosa_integrator cfg;
    const integrator_type *it;
    void *istate;
    struct integ_problem pb;
    double *z0, *z1, *zm;      /* nevent: indicators at a part's start, end, a trial */
    double *xsave, *xc, *xe, *xm; /* nx: the unit's state; part start, end, trial */
    double t_poly;             /* the input polynomial's origin (the step's start) */
};

static int v3(const fmu_unit *f) { return f->fmu->desc.version == 3; }

/* Move the instance to (t, x, uin); 0 or the FMU's status > 1 with *fn. */
static int me_point(fmu_unit *f, double t, const double *x, const double *uin, const char **fn)
{
    const cosa_fmu *m = f->fmu;
    const size_t nx = m->desc.nstate, nu = m->desc.nin_step;
    int s;
    if (v3(f)) {
        if ((s = m->f3.SetTime(f->inst, t)) > 1)
            return *fn = "fmi3SetTime", s;
        if (nx && (s = m->f3.SetContinuousStates(f->inst, x, nx)) > 1)
            return *fn = "fmi3SetContinuousStates", s;
        if (nu && uin && (s = m->f3.SetFloat64(f->inst, f->vu, nu, uin, nu)) > 1)
            return *fn = "fmi3SetFloat64 (inputs)", s;
    } else {
        if ((s = m->f2.SetTime(f->inst, t)) > 1)
            return *fn = "fmi2SetTime", s;
        if (nx && (s = m->f2.SetContinuousStates(f->inst, x, nx)) > 1)
            return *fn = "fmi2SetContinuousStates", s;
        if (nu && uin && (s = m->f2.SetReal(f->inst, f->vu, nu, uin)) > 1)
            return *fn = "fmi2SetReal (inputs)", s;
    }
    return 0;
}

cosa_status fmu_me_eval(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const size_t nx = m->desc.nstate, ny = m->desc.nout;
    const char *fn = "";
    int s = me_point(f, t, x, uin, &fn);
    if (s <= 1 && xdot && nx) {
        s = v3(f) ? m->f3.GetContinuousStateDerivatives(f->inst, xdot, nx)
                  : m->f2.GetDerivatives(f->inst, xdot, nx);
        fn = v3(f) ? "fmi3GetContinuousStateDerivatives" : "fmi2GetDerivatives";
    }
    if (s <= 1 && y && ny) {
        s = v3(f) ? m->f3.GetFloat64(f->inst, f->vy, ny, y, ny)
                  : m->f2.GetReal(f->inst, f->vy, ny, y);
        fn = v3(f) ? "fmi3GetFloat64 (outputs)" : "fmi2GetReal (outputs)";
    }
    if (s > 1)
        return fmu_unit_fail(u, fn, t, s);
    fmu_unit_warned(f, fn, t, s);
    return COSA_OK;
}

/* the integrator's view: f and g of a cosa_ode (user data: the unit); the
 * inputs are the polynomial's value at t, taken about the step's start
 * (the integrator may run a part of the step from a later time) */
static int me_rhs(double t, const double *x, const double *uin, double *xdot, void *ud)
{
    cosa_unit *u = ud;
    fmu_unit *f = cosa_unit_impl(u);
    (void)uin;
    cosa_unit_input_at(u, t - f->me->t_poly, f->uim);
    return fmu_me_eval(u, t, x, f->uim, xdot, NULL) == COSA_OK ? 0 : -1;
}

static int me_out(double t, const double *x, const double *uin, double *y, void *ud)
{
    return fmu_me_eval(ud, t, x, uin, NULL, y) == COSA_OK ? 0 : -1;
}

cosa_status fmu_me_create(cosa_unit *u)
{
    fmu_unit *f = cosa_unit_impl(u);
    const fmu_description *d = &f->fmu->desc;
    struct fmu_me *me = calloc(1, sizeof *me);
    if (!me || !(me->z0 = calloc(3 * d->nevent + 4 * d->nstate + 1, sizeof *me->z0))) {
        free(me);
        return COSA_ENOMEM;
    }
    me->z1 = me->z0 + d->nevent;
    me->zm = me->z1 + d->nevent;
    me->xsave = me->zm + d->nevent;
    me->xc = me->xsave + d->nstate;
    me->xe = me->xc + d->nstate;
    me->xm = me->xe + d->nstate;
    me->ode = (cosa_ode){.nx = d->nstate, .nu = d->nin, .ny = d->nout, .f = me_rhs,
                         .g = me_out, .user_data = u};
    me->cfg = (cosa_integrator){.kind = COSA_INTEGRATOR_CVODE_BDF, .rtol = FMU_ME_RTOL};
    me->it = integrator_lookup(me->cfg.kind);
    me->pb = (struct integ_problem){u, &me->ode, &me->cfg};
    f->me = me;
    if (me->it->alloc && me->it->alloc(me->it, &me->pb, &me->istate) != COSA_OK)
        return COSA_ENOMEM;
    return COSA_OK;
}

cosa_status fmu_me_set_integrator(cosa_unit *u, const cosa_integrator *cfg)
{
    fmu_unit *f = cosa_unit_impl(u);
    struct fmu_me *me = f->me;
    const integrator_type *it = integrator_lookup(cfg->kind);
    if (!it)
        return COSA_EINVAL; /* exact: no integrator of an ODE */
    if (it->needs_kick) {
        cosa_unit_fail(u, "FMU %s: the %s integrator needs to know which states are "
                          "velocities; a model-exchange FMU does not say (use cvode, "
                          "cvode-adams, rk4 or euler)", f->name, it->name);
        return COSA_EUNSUPPORTED;
    }
    void *state = NULL;
    me->cfg = *cfg;
    if (it->alloc && it->alloc(it, &me->pb, &state) != COSA_OK)
        return COSA_ENOMEM;
    if (me->it->free)
        me->it->free(me->istate);
    me->it = it;
    me->istate = state;
    return COSA_OK;
}

void fmu_me_free(fmu_unit *f)
{
    struct fmu_me *me = f->me;
    if (!me)
        return;
    if (me->it && me->it->free)
        me->it->free(me->istate);
    free(me->z0);
    free(me);
    f->me = NULL;
}

void *fmu_me_instantiate(fmu_unit *f, void *log3, const fmi2CallbackFunctions *cb2)
{
    const cosa_fmu *m = f->fmu;
    const char *token = m->desc.token ? m->desc.token : "";
    if (v3(f))
        return m->f3.InstantiateModelExchange(f->name, token, m->res3, false, f->logger != NULL,
                                              f, (fmi3LogMessageCallback)log3);
    return m->f2.Instantiate(f->name, fmi2ModelExchange, token, m->res2, cb2, fmi2False,
                             f->logger ? fmi2True : fmi2False);
}

/* Event Mode at t (the instance entered it): the discrete-state iteration,
 * then Continuous-Time Mode; the states are read into x (nx) when the FMU
 * says they changed.  0, or the FMU's status > 1 with *fn; -1 when the
 * iteration does not settle; -2 termination asked for. */
static int me_event_iteration(fmu_unit *f, double *x, const char **fn)
{
    const cosa_fmu *m = f->fmu;
    const size_t nx = m->desc.nstate;
    int s = 0, changed = 0;
    for (int k = 0;; k++) {
        if (k > COSA_FMU_EVENT_ITER_MAX)
            return -1;
        int need, term, vchanged;
        if (v3(f)) {
            fmi3Boolean nd = false, tr = false, nom = false, vc = false, ne = false;
            fmi3Float64 tn = 0.0;
            s = m->f3.UpdateDiscreteStates(f->inst, &nd, &tr, &nom, &vc, &ne, &tn);
            *fn = "fmi3UpdateDiscreteStates";
            need = nd, term = tr, vchanged = vc;
            f->me_next = ne ? tn : INFINITY;
        } else {
            fmi2EventInfo ei = {0};
            s = m->f2.NewDiscreteStates(f->inst, &ei);
            *fn = "fmi2NewDiscreteStates";
            need = ei.newDiscreteStatesNeeded, term = ei.terminateSimulation;
            vchanged = ei.valuesOfContinuousStatesChanged;
            f->me_next = ei.nextEventTimeDefined ? ei.nextEventTime : INFINITY;
        }
        if (s > 1)
            return s;
        if (term)
            return -2;
        changed |= vchanged;
        if (!need)
            break;
    }
    s = v3(f) ? m->f3.EnterContinuousTimeMode(f->inst) : m->f2.EnterContinuousTimeMode(f->inst);
    *fn = v3(f) ? "fmi3EnterContinuousTimeMode" : "fmi2EnterContinuousTimeMode";
    if (s > 1)
        return s;
    if (changed && x && nx) {
        s = v3(f) ? m->f3.GetContinuousStates(f->inst, x, nx)
                  : m->f2.GetContinuousStates(f->inst, x, nx);
        *fn = v3(f) ? "fmi3GetContinuousStates" : "fmi2GetContinuousStates";
    }
    return s > 1 ? s : 0;
}

/* After fmi3/fmi2ExitInitializationMode (the instance is in Event Mode):
 * the event iteration, Continuous-Time Mode, the states as initialised
 * into x.  One line in f->why on failure. */
int fmu_me_initialised(fmu_unit *f, double t, double *x)
{
    const char *fn = "";
    const int s = me_event_iteration(f, NULL, &fn);
    if (s == 0 && f->fmu->desc.nstate) {
        const int g = v3(f) ? f->fmu->f3.GetContinuousStates(f->inst, x, f->fmu->desc.nstate)
                            : f->fmu->f2.GetContinuousStates(f->inst, x, f->fmu->desc.nstate);
        if (g > 1) {
            snprintf(f->why, sizeof f->why, "FMU %s: %s at t = %.17g failed (status %d)",
                     f->name, v3(f) ? "fmi3GetContinuousStates" : "fmi2GetContinuousStates", t, g);
            return -1;
        }
    }
    if (s == 0)
        return 0;
    snprintf(f->why, sizeof f->why, "FMU %s: %s at t = %.17g %s", f->name, fn, t,
             s == -1 ? "did not settle (event iteration)"
             : s == -2 ? "asked for termination" : "failed");
    return -1;
}

static cosa_status indicators(cosa_unit *u, double *z)
{
    fmu_unit *f = cosa_unit_impl(u);
    const size_t n = f->fmu->desc.nevent;
    if (!n)
        return COSA_OK;
    const int s = v3(f) ? f->fmu->f3.GetEventIndicators(f->inst, z, n)
                        : f->fmu->f2.GetEventIndicators(f->inst, z, n);
    return s > 1 ? fmu_unit_fail(u, v3(f) ? "fmi3GetEventIndicators" : "fmi2GetEventIndicators",
                                 cosa_unit_time(u), s)
                 : COSA_OK;
}

/* The integrator from (t0, x0) over h into xout: the unit's time and state
 * are moved there for the integrator, and put back. */
static cosa_status me_advance(cosa_unit *u, double t0, const double *x0, double h, double *xout)
{
    struct fmu_me *me = ((fmu_unit *)cosa_unit_impl(u))->me;
    const size_t nx = u->nx;
    const double t = u->t;
    memcpy(me->xsave, u->x, nx * sizeof *u->x);
    u->t = t0;
    memcpy(u->x, x0, nx * sizeof *u->x);
    cosa_status st = me->it->step(me->it, &me->pb, me->istate, h, xout);
    u->t = t;
    memcpy(u->x, me->xsave, nx * sizeof *u->x);
    return st;
}

/* The FMU at (t, x) with the inputs of the step there, and its event
 * indicators into z. */
static cosa_status me_indicators_at(cosa_unit *u, double t, const double *x, double *z)
{
    fmu_unit *f = cosa_unit_impl(u);
    cosa_unit_input_at(u, t - f->me->t_poly, f->uim);
    cosa_status st = fmu_me_eval(u, t, x, f->uim, NULL, NULL);
    return st == COSA_OK ? indicators(u, z) : st;
}

/* Whether the domain z > 0 of an indicator differs between a and b. */
static int crossed(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((a[i] > 0.0) != (b[i] > 0.0))
            return 1;
    return 0;
}

/* Event Mode at (t, x) (the FMU is at that point): the event iteration; x
 * takes the states the FMU may have reset. */
static cosa_status me_event(cosa_unit *u, double t, double *x)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    int s = v3(f) ? m->f3.EnterEventMode(f->inst) : m->f2.EnterEventMode(f->inst);
    const char *fn = v3(f) ? "fmi3EnterEventMode" : "fmi2EnterEventMode";
    if (s <= 1)
        s = me_event_iteration(f, x, &fn);
    if (s == -1) {
        cosa_unit_fail(u, "FMU %s: the event iteration at t = %.17g did not settle", f->name, t);
        return COSA_EUNSUPPORTED;
    }
    if (s == -2) {
        cosa_unit_fail(u, "FMU %s: asked for termination at t = %.17g (not supported)", f->name,
                       t);
        return COSA_EFMU;
    }
    if (s > 1)
        return fmu_unit_fail(u, fn, t, s);
    cosa_unit_counters_of(u)->events++;
    return COSA_OK;
}

/* A state event in the part from (tc, xc) to te (the domain changed there):
 * bisection until the bracket [lo, hi] is EVENT_TTOL wide; *thi, xhi = the
 * right end (the domain changed) and its states. */
static cosa_status me_locate(cosa_unit *u, double tc, const double *xc, double te,
                             const double *xe, double *thi, double *xhi)
{
    struct fmu_me *me = ((fmu_unit *)cosa_unit_impl(u))->me;
    const size_t nx = u->nx, nev = ((fmu_unit *)cosa_unit_impl(u))->fmu->desc.nevent;
    double lo = tc, hi = te;
    memcpy(xhi, xe, nx * sizeof *xhi);
    for (int k = 0; k < 200 && hi - lo > EVENT_TTOL * fmax(1.0, fabs(hi)); k++) {
        const double mid = lo + 0.5 * (hi - lo);
        cosa_status st = me_advance(u, tc, xc, mid - tc, me->xm);
        if (st == COSA_OK)
            st = me_indicators_at(u, mid, me->xm, me->zm);
        if (st != COSA_OK)
            return st;
        if (crossed(me->z0, me->zm, nev)) {
            hi = mid;
            memcpy(xhi, me->xm, nx * sizeof *xhi);
        } else
            lo = mid;
    }
    *thi = hi;
    return COSA_OK;
}

/* One macro step from the unit's (t, x) over h into xnew, in parts ending
 * at the events inside. */
cosa_status fmu_me_step(cosa_unit *u, double h, double *xnew)
{
    fmu_unit *f = cosa_unit_impl(u);
    struct fmu_me *me = f->me;
    const cosa_fmu *m = f->fmu;
    const double t = cosa_unit_time(u), tend = t + h;
    const size_t nx = m->desc.nstate, nev = m->desc.nevent;
    /* a time or part end this close to the step's end is the step's end (a
     * time summed from step lengths drifts by a few ulps per step) */
    const double tol = 1e-9 * h + 4.0 * DBL_EPSILON * fabs(tend);
    me->t_poly = t;
    double tc = t;
    memcpy(me->xc, cosa_unit_state(u), nx * sizeof *me->xc);
    cosa_status st = me_indicators_at(u, tc, me->xc, me->z0);
    for (int nevents = 0; st == COSA_OK; nevents++) {
        if (nevents > EVENTS_PER_STEP_MAX) {
            cosa_unit_fail(u, "FMU %s: more than %d events in the step from t = %.17g (a "
                              "chattering event?)", f->name, EVENTS_PER_STEP_MAX, t);
            return COSA_EUNSUPPORTED;
        }
        const int timed = f->me_next > tc && f->me_next < tend - tol;
        const double te = timed ? f->me_next : tend;
        if (nx)
            st = me_advance(u, tc, me->xc, te == tend && tc == t ? h : te - tc, me->xe);
        else
            memcpy(me->xe, me->xc, nx * sizeof *me->xe);
        if (st == COSA_OK)
            st = me_indicators_at(u, te, me->xe, me->z1);
        if (st != COSA_OK)
            return st;
        double tev = te;
        if (crossed(me->z0, me->z1, nev)) { /* a state event first */
            if ((st = me_locate(u, tc, me->xc, te, me->xe, &tev, me->xe)) != COSA_OK ||
                (st = me_indicators_at(u, tev, me->xe, me->z1)) != COSA_OK)
                return st;
        } else if (!timed)
            break; /* the step's end */
        if ((st = me_event(u, tev, me->xe)) != COSA_OK)
            return st;
        tc = tev;
        memcpy(me->xc, me->xe, nx * sizeof *me->xc);
        st = me_indicators_at(u, tc, me->xc, me->z0);
    }
    if (st != COSA_OK)
        return st;
    memcpy(xnew, me->xe, nx * sizeof *xnew);
    int enter = 0, term = 0, s;
    if (v3(f)) {
        fmi3Boolean e = false, tr = false;
        s = m->f3.CompletedIntegratorStep(f->inst, true, &e, &tr);
        enter = e, term = tr;
    } else {
        fmi2Boolean e = 0, tr = 0;
        s = m->f2.CompletedIntegratorStep(f->inst, fmi2True, &e, &tr);
        enter = e, term = tr;
    }
    if (s > 1)
        return fmu_unit_fail(u, v3(f) ? "fmi3CompletedIntegratorStep"
                                       : "fmi2CompletedIntegratorStep", tend, s);
    if (term) {
        cosa_unit_fail(u, "FMU %s: asked for termination at t = %.17g (not supported)", f->name,
                       tend);
        return COSA_EFMU;
    }
    /* a step event, or a time event at the step's end: Event Mode there */
    if (enter || f->me_next <= tend + tol)
        return me_event(u, tend, xnew);
    return COSA_OK;
}

void fmu_me_reset(fmu_unit *f)
{
    if (f->me && f->me->it->reset)
        f->me->it->reset(f->me->istate);
}

/* Snapshots: the unit layer keeps (t, x); the integrator's carried state
 * (CVODE: its tolerance scales) is kept here. */
cosa_status fmu_me_save(cosa_unit *u, void **blob)
{
    struct fmu_me *me = ((fmu_unit *)cosa_unit_impl(u))->me;
    if (!me->it->saved_len)
        return COSA_OK;
    if (!*blob && !(*blob = calloc(me->it->saved_len(&me->pb) + 1, sizeof(double))))
        return COSA_ENOMEM;
    me->it->save(me->istate, *blob);
    return COSA_OK;
}

cosa_status fmu_me_restore(cosa_unit *u, const void *blob)
{
    struct fmu_me *me = ((fmu_unit *)cosa_unit_impl(u))->me;
    if (me->it->saved_len && blob)
        me->it->restore(me->istate, blob);
    return COSA_OK;
}

void fmu_me_free_state(cosa_unit *u, void *blob)
{
    (void)u;
    free(blob);
}
