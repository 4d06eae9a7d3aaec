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
 * are not reported).  State events inside a step are not located: an FMU
 * whose event indicators change sign over a macro step fails that step
 * with one line (see doc/model-exchange.md). */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"
#include "td/integrator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the integrator of every ME FMU unit: CVODE BDF, relative tolerance
 * FMU_ME_RTOL, absolute tolerances scaled by the states' magnitudes
 * (cosa_integrator.atol <= 0) */
#define FMU_ME_RTOL 1e-10

struct fmu_me {
    cosa_ode ode;
    cosa_integrator cfg;
    const integrator_type *it;
    void *istate;
    struct integ_problem pb;
    double *z0, *z1;           /* nevent: indicators before and after a step */
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

/* the integrator's view: f and g of a cosa_ode (user data: the unit) */
static int me_rhs(double t, const double *x, const double *uin, double *xdot, void *ud)
{
    return fmu_me_eval(ud, t, x, uin, xdot, NULL) == COSA_OK ? 0 : -1;
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
    if (!me || !(me->z0 = calloc(2 * d->nevent + 1, sizeof *me->z0))) {
        free(me);
        return COSA_ENOMEM;
    }
    me->z1 = me->z0 + d->nevent;
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

/* One macro step from the unit's (t, x) over h into xnew. */
cosa_status fmu_me_step(cosa_unit *u, double h, double *xnew)
{
    fmu_unit *f = cosa_unit_impl(u);
    struct fmu_me *me = f->me;
    const cosa_fmu *m = f->fmu;
    const double t = cosa_unit_time(u);
    const size_t nx = m->desc.nstate, nev = m->desc.nevent;
    if (f->me_next < t + h && f->me_next > t) {
        cosa_unit_fail(u, "FMU %s: a time event at t = %.17g inside the step from t = %.17g "
                          "(model-exchange time events are handled at communication points "
                          "only; choose a dt that reaches it)", f->name, f->me_next, t);
        return COSA_EUNSUPPORTED;
    }
    cosa_unit_input_at(u, 0.0, f->uim);
    cosa_status st = fmu_me_eval(u, t, cosa_unit_state(u), f->uim, NULL, NULL);
    if (st == COSA_OK)
        st = indicators(u, me->z0);
    if (st == COSA_OK && nx)
        st = me->it->step(me->it, &me->pb, me->istate, h, xnew);
    if (st != COSA_OK)
        return st;
    cosa_unit_input_at(u, h, f->uim);
    if ((st = fmu_me_eval(u, t + h, xnew, f->uim, NULL, NULL)) != COSA_OK ||
        (st = indicators(u, me->z1)) != COSA_OK)
        return st;
    for (size_t i = 0; i < nev; i++)
        if ((me->z0[i] > 0.0) != (me->z1[i] > 0.0)) {
            cosa_unit_fail(u, "FMU %s: event indicator %zu changes sign in the step from "
                              "t = %.17g over %.17g (state events of model-exchange FMUs are "
                              "not located yet)", f->name, i, t, h);
            return COSA_EUNSUPPORTED;
        }
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
    const char *fn = v3(f) ? "fmi3CompletedIntegratorStep" : "fmi2CompletedIntegratorStep";
    if (s > 1)
        return fmu_unit_fail(u, fn, t + h, s);
    /* a time event reached, or a step event: Event Mode at t + h */
    const double tol = 1e-9 * h + 4.0 * 2.220446049250313e-16 * fabs(t + h);
    if (!term && (enter || f->me_next <= t + h + tol)) {
        s = v3(f) ? m->f3.EnterEventMode(f->inst) : m->f2.EnterEventMode(f->inst);
        fn = v3(f) ? "fmi3EnterEventMode" : "fmi2EnterEventMode";
        if (s <= 1)
            s = me_event_iteration(f, xnew, &fn);
        if (s == -1) {
            cosa_unit_fail(u, "FMU %s: the event iteration at t = %.17g did not settle",
                           f->name, t + h);
            return COSA_EUNSUPPORTED;
        }
        term = s == -2;
        if (s > 1)
            return fmu_unit_fail(u, fn, t + h, s);
        cosa_unit_counters_of(u)->events++;
    }
    if (term) {
        cosa_unit_fail(u, "FMU %s: asked for termination at t = %.17g (not supported)", f->name,
                       t + h);
        return COSA_EFMU;
    }
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
