/* simulate.c -- the one-call API's `cosa simulate` (fixed macro step): the
 * units of the case's model (FMU subsystems run the FMU itself), the
 * reference `simulate` would choose, and one cosa_run -- the command's
 * defaults throughout (integrator, micro step dt/100, MBCorr linearised at
 * the end of the step for FMUs, the FMUs' own event mode where they have
 * one), so the figures are the command's. */
#include "api_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_FINE_FACTOR 64 /* fine reference: dt / 64 (cosa simulate's) */

/* Everything a run holds until it is over. */
struct sim {
    const cosa_case *c;
    cosa_scheme s;
    cosa_system *sys;
    cosa_odesys *os;
    double *x0;
    size_t nsub, ny;
    cosa_integrator integ;
    cosa_model_units *mu;
    cosa_reftraj *ref;
    cosa_master_opts mopt;
    int fine;
};

/* 0 when a unit of an FMU subsystem is nonlinear or affine (the linearised
 * network is then no reference; cosa simulate's rule). */
static int network_linear(const cosa_model *m, const double *par, size_t nsub)
{
    for (size_t i = 0; i < nsub; i++) {
        cosa_linearity lin;
        if (!cosa_model_file_fmu_capability(m, i) ||
            cosa_model_file_fmu_linearity(m, par, i, &lin) != COSA_OK)
            continue;
        if (lin.is_nonlinear || lin.is_affine)
            return 0;
    }
    return 1;
}

/* The model's forms and x0: the linear system where there is one, else
 * the ODE form. */
static cosa_status sim_forms(struct sim *r, char *err, size_t errsize)
{
    const cosa_case *c = r->c;
    cosa_status st;
    size_t nx;
    if (cosa_model_is_linear(c->model)) {
        cosa_scheme s0;
        if ((st = api_system(c, "p0", &s0, &r->sys, NULL, err, errsize)) != COSA_OK)
            return st;
        r->nsub = cosa_system_nsub(r->sys);
        r->ny = cosa_system_ny(r->sys);
        nx = cosa_system_nx(r->sys);
    } else {
        size_t k;
        char msg[256];
        if (cosa_model_check(c->model, c->par, &k, msg, sizeof msg) != COSA_OK)
            return api_fail(err, errsize, COSA_EPARAM, "model '%s': %s", c->model->name, msg);
        if ((st = c->model->create_ode(c->model, c->par, &r->os)) != COSA_OK) {
            r->os = NULL;
            return api_model_failed(c, st, err, errsize);
        }
        if (cosa_odesys_coupling(r->os))
            return api_fail(err, errsize, COSA_EUNSUPPORTED,
                            "model '%s' couples its units through coupling variables u = phi(y) "
                            "(a force/force split): run it with cosa simulate --coupling",
                            c->model->name);
        r->nsub = cosa_odesys_nsub(r->os);
        r->ny = cosa_odesys_ny(r->os);
        nx = cosa_odesys_nx(r->os);
    }
    if (r->ny == 0)
        return api_fail(err, errsize, COSA_EUNSUPPORTED,
                        "model '%s' has no outputs: accuracy (NRMSE) and time-domain runs are "
                        "undefined (stability: cosa point, limit --criterion stable, map, curve)",
                        c->model->name);
    if (r->sys && (st = cosa_scheme_check(&r->s, r->sys)) != COSA_OK)
        return api_fail(err, errsize, st, "scheme: %s", cosa_strerror(st));
    return api_x0(c, nx, &r->x0, err, errsize);
}

/* The units; the FMUs' input smoothness, events and initialization loop. */
static cosa_status sim_units(struct sim *r, char *err, size_t errsize)
{
    const cosa_model *m = r->c->model;
    const double *par = r->c->par;
    cosa_model_units_opts uo = {.integ = &r->integ, .sys = r->sys, .os = r->os};
    if (r->s.corr & COSA_CORR_OUTPUT)
        uo.need |= COSA_MODEL_UNITS_NEED_JACOBIAN;
    cosa_model_units_error e;
    cosa_status st = cosa_model_units_create(m, par, &uo, &r->mu, &e);
    if (st != COSA_OK) {
        r->mu = NULL;
        return api_fail(err, errsize, st, "the units: %s",
                        e.msg[0] ? e.msg : cosa_strerror(st));
    }
    if (cosa_model_file_nclock_link(m))
        return api_fail(err, errsize, COSA_EUNSUPPORTED,
                        "model '%s' has clock connections: run it with cosa simulate", m->name);
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    for (size_t i = 0; i < r->nsub; i++) {
        if (!fmus[i])
            continue;
        cosa_fmu_capability cap;
        char why[256];
        cosa_fmu_capability_get(fmus[i], &cap);
        const char *name = m->sub_name ? m->sub_name(m, par, i) : "?";
        if (cosa_fmu_smoothness_check(&cap, cosa_unit_nu(units[i]), &r->s, why, sizeof why) !=
            COSA_OK)
            return api_fail(err, errsize, COSA_EUNSUPPORTED,
                            "FMU %s: %s; use a scheme of order <= %d", name, why,
                            cosa_fmu_smoothness_degree(cap.smoothness));
        /* the default --events: an FMU with event mode runs it where it can */
        if (!(cosa_fmu_caps(fmus[i]) & COSA_FMU_CAP_EVENT_MODE))
            continue;
        st = cosa_unit_fmu_set_events(units[i], 1);
        if (st == COSA_EUNSUPPORTED && !cosa_unit_fmu_events(units[i]))
            continue; /* it runs without event mode */
        if (st != COSA_OK)
            return api_fail(err, errsize, st, "events: %s", cosa_unit_message(units[i]));
        r->mopt.events = 1;
    }
    if (r->mopt.events && (r->s.implicit || r->s.exec != COSA_JACOBI || r->s.corr))
        return api_fail(err, errsize, COSA_EUNSUPPORTED,
                        "the FMUs' event points need a plain Jacobi scheme without corrections");
    if (cosa_model_units_nfmu(r->mu)) {
        const size_t ny = cosa_unitset_ny(cosa_model_units_set(r->mu));
        double *y = calloc(ny + 1, sizeof *y);
        cosa_fmu_init_result res = {0};
        st = y ? cosa_fmu_init_loop(cosa_model_units_set(r->mu), 0.0, r->x0, y, NULL, &res)
               : COSA_ENOMEM;
        free(y);
        if (st != COSA_OK)
            return api_fail(err, errsize, st, "the initialization of the FMUs: %s",
                            cosa_strerror(st));
        if (res.loop)
            return api_fail(err, errsize, COSA_EUNSUPPORTED,
                            "FMUs in an algebraic loop: run them with cosa simulate");
        r->mopt.lin_at_end = 1;
        r->mopt.step_gains = cosa_model_units_step_gains(r->mu);
        r->fine = !network_linear(m, par, r->nsub) || r->mopt.events ||
                  cosa_model_file_input_offset(m); /* u = L y + c: not linearised */
    }
    return COSA_OK;
}

/* The fine reference's scheme: SOH, or the highest input degree every FMU
 * accepts (cosa simulate's). */
static const char *fine_scheme(const struct sim *r)
{
    return cosa_fmu_fine_scheme(cosa_model_units_fmus(r->mu), r->nsub);
}

static cosa_status sim_reference(struct sim *r, double dt, size_t nsamples, char *desc,
                                 size_t size, char *err, size_t errsize)
{
    cosa_unitset *set = cosa_model_units_set(r->mu);
    cosa_status st;
    if (r->fine) {
        if ((double)nsamples * SIM_FINE_FACTOR > 1e9)
            return api_fail(err, errsize, COSA_ERANGE,
                            "the fine reference needs %zu x %d fine steps: too many (at most 1e9)",
                            nsamples, SIM_FINE_FACTOR);
        cosa_scheme fs;
        const char *fname = fine_scheme(r);
        cosa_scheme_parse(fname, &fs);
        st = cosa_reftraj_cosim(set, &fs, r->x0, dt, nsamples, SIM_FINE_FACTOR, &r->ref);
        snprintf(desc, size, "fine co-simulation %s dt/%d%s",
                 fname[0] == 's' ? "SOH" : fname[0] == 'f' ? "FOH" : "ZOH", SIM_FINE_FACTOR,
                 r->ref && r->ref->loop ? ", the algebraic loop solved at every point" : "");
    } else if (r->sys && !cosa_unitset_input_offset(set)) { /* (no u = L y + c in sys) */
        st = cosa_reftraj_exact(r->sys, r->x0, dt, nsamples, &r->ref);
        snprintf(desc, size, "exact%s", cosa_model_units_nfmu(r->mu)
                                            ? " (the linearised network: --ref fine for "
                                              "nonlinear FMUs)" : "");
    } else {
        st = cosa_reftraj_cvode(set, r->x0, dt, nsamples, 1e-12, &r->ref);
        snprintf(desc, size, "cvode-bdf rtol %g", 1e-12);
    }
    if (st != COSA_OK) {
        r->ref = NULL;
        return api_fail(err, errsize, st, "the %s reference failed: %s",
                        r->fine ? "fine" : "monolithic", cosa_strerror(st));
    }
    return COSA_OK;
}

/* The output names "SUB.NAME" (the trajectory file's y.* columns). */
static cosa_status sim_names(const struct sim *r, cosa_case_sim *out)
{
    const cosa_model *m = r->c->model;
    const double *par = r->c->par;
    cosa_unitset *set = cosa_model_units_set(r->mu);
    out->ny = cosa_unitset_ny(set);
    if (!(out->yname = calloc(out->ny + 1, sizeof *out->yname)))
        return COSA_ENOMEM;
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        size_t ox, ou, oy;
        cosa_unitset_offsets(set, i, &ox, &ou, &oy);
        const char *sub = m->sub_name ? m->sub_name(m, par, i) : NULL;
        for (size_t j = 0; j < cosa_unit_ny(cosa_unitset_unit(set, i)); j++) {
            const char *nm = m->output_name ? m->output_name(m, par, oy + j) : NULL;
            char b[256];
            const size_t ls = sub ? strlen(sub) : 0;
            if (!nm)
                snprintf(b, sizeof b, "y%zu", oy + j + 1);
            else if (!sub || (strncmp(nm, sub, ls) == 0 && nm[ls] == '.'))
                snprintf(b, sizeof b, "%s", nm);
            else
                snprintf(b, sizeof b, "%s.%s", sub, nm);
            if (!(out->yname[oy + j] = strdup(b)))
                return COSA_ENOMEM;
        }
    }
    return COSA_OK;
}

static void sim_release(struct sim *r)
{
    cosa_reftraj_free(r->ref);
    cosa_model_units_free(r->mu);
    cosa_system_free(r->sys);
    cosa_odesys_free(r->os);
    free(r->x0);
}

/* The run description and the number of macro steps: floor(tend / dt) full
 * ones and *h_last, the short last step to tend (0: none; cosa simulate's
 * rule, end_clip.h); one-line errors. */
static cosa_status sim_check(struct sim *r, const char *scheme, double dt, double *tend,
                             const cosa_case_sim_opts *o, size_t *N, double *h_last, char *err,
                             size_t errsize)
{
    char b1[32], b2[32];
    cosa_status st = api_scheme(scheme, &r->s, err, errsize);
    if (st != COSA_OK)
        return st;
    if (r->s.implicit || r->s.q_extra)
        return api_fail(err, errsize, COSA_EUNSUPPORTED,
                        "iterative schemes (imp:, gs-imp:, /Q) are not in the one-call API yet: "
                        "run them with cosa simulate");
    if (o && (unsigned)o->ref > COSA_CASE_REF_NONE)
        return api_fail(err, errsize, COSA_EINVAL, "unknown reference %d", (int)o->ref);
    if (!(dt > 0.0) || !isfinite(dt) || isnan(*tend) || isinf(*tend))
        return api_fail(err, errsize, COSA_ERANGE, "dt must be positive and tend finite");
    if (*tend <= 0.0)
        *tend = r->c->model->tend;
    const double nsteps = cosa_end_clip_steps(*tend, dt, h_last);
    if (nsteps < 1)
        return api_fail(err, errsize, COSA_ERANGE,
                        "dt %s is longer than the horizon tend %s: no macro step to run",
                        cosa_number_text(b1, sizeof b1, dt),
                        cosa_number_text(b2, sizeof b2, *tend));
    if (nsteps > 1e8)
        return api_fail(err, errsize, COSA_ERANGE,
                        "tend / dt = %.3g macro steps: too many (at most 1e8)", nsteps);
    *N = (size_t)nsteps;
    return COSA_OK;
}

/* The short last step h_last, unless the run cannot take it (a scheme that
 * assumes equal steps, an FMU whose fixed internal step does not divide
 * it): then 0, and the run ends at the last full step (cosa simulate's
 * rule; the command says so in a note). */
static double sim_end_clip(const struct sim *r, double h_last)
{
    const cosa_cosim_opts co = {0};
    if (!(h_last > 0.0) || cosa_end_clip_refusal(&r->s, &co))
        return 0.0;
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    for (size_t i = 0; i < r->nsub; i++) {
        cosa_fmu_capability cap;
        char why[200];
        if (!fmus[i])
            continue;
        cosa_fmu_capability_get(fmus[i], &cap);
        if (cosa_fmu_step_check(&cap, h_last, why, sizeof why) != COSA_OK)
            return 0.0;
    }
    return h_last;
}

cosa_status cosa_case_simulate(const cosa_case *c, const char *scheme, double dt, double tend,
                               const cosa_case_sim_opts *opts, cosa_case_sim **out, char *err,
                               size_t errsize)
{
    api_clear(err, errsize);
    if (!c || !out)
        return api_fail(err, errsize, COSA_EINVAL, "no case or result pointer");
    *out = NULL;
    struct sim r = {.c = c};
    size_t N = 0;
    double h_last = 0.0;
    cosa_status st = sim_check(&r, scheme, dt, &tend, opts, &N, &h_last, err, errsize);
    if (st == COSA_OK)
        st = sim_forms(&r, err, errsize);
    if (st == COSA_OK && r.sys)
        st = api_dt("dt", dt, r.sys, err, errsize);
    const char *iname = opts && opts->integrator ? opts->integrator : r.sys ? "exact" : "cvode";
    if (st == COSA_OK && cosa_integrator_parse(iname, &r.integ) != COSA_OK)
        st = api_fail(err, errsize, COSA_EINVAL,
                      "unknown integrator '%s' (expected exact, cvode, cvode-adams, rk4, "
                      "symplectic-euler or euler)", iname);
    if (st == COSA_OK && r.integ.kind == COSA_INTEGRATOR_EXACT && !r.sys)
        st = api_fail(err, errsize, COSA_EUNSUPPORTED,
                      "integrator exact needs a linear model; '%s' is nonlinear", c->model->name);
    r.integ.hmicro = dt / 100.0;
    if (st == COSA_OK)
        st = sim_units(&r, err, errsize);
    if (st == COSA_OK)
        h_last = sim_end_clip(&r, h_last);
    if (st == COSA_OK && opts && opts->ref == COSA_CASE_REF_FINE)
        r.fine = 1;
    cosa_case_sim *res = st == COSA_OK ? calloc(1, sizeof *res) : NULL;
    if (st == COSA_OK && !res)
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    /* no reference (--ref none): the run starts from the units' own states
     * at t = 0 and computes no error figures (cosa_run with no reference) */
    const int noref = opts && opts->ref == COSA_CASE_REF_NONE;
    if (st == COSA_OK && noref)
        snprintf(res->reference, sizeof res->reference, "none");
    else if (st == COSA_OK)
        st = sim_reference(&r, dt, (size_t)r.s.order + N + 1, res->reference,
                           sizeof res->reference, err, errsize);
    if (st == COSA_OK) {
        cosa_run_opts ro;
        cosa_run_opts_default(&ro);
        ro.kind = COSA_RUN_FIXED;
        ro.scheme = r.s;
        /* defects sample mid-step outputs through unit snapshots (cosa
         * simulate's rule: every unit can save its state) */
        int defects = 1;
        cosa_unit *const *units = cosa_model_units_units(r.mu);
        for (size_t i = 0; i < r.nsub; i++)
            if (!(cosa_unit_caps(units[i]) & COSA_UNIT_CAN_SAVE_STATE))
                defects = 0;
        ro.fixed = (cosa_run_fixed_opts){.master = r.mopt, .defects = defects,
                                         .defect_out_order = 1};
        ro.cancel = c->cancel;
        ro.H = dt;
        /* the horizon: to tend, or to the last full step where the short
         * one is refused (sim_end_clip) */
        ro.tend = h_last > 0.0 ? tend : (double)N * dt;
        const cosa_run_ref ref = {.traj = noref ? NULL : r.ref};
        st = cosa_cancel_requested(c->cancel) /* during the reference */
                 ? COSA_ECANCELLED
                 : cosa_run(cosa_model_units_set(r.mu), &ro, &ref, &res->run);
        if (st == COSA_ECANCELLED) {
            api_fail(err, errsize, st, "%s", cosa_strerror(st));
            res->run = NULL;
        } else if (st != COSA_OK) {
            const char *why = "";
            for (size_t i = 0; i < r.nsub && !why[0]; i++)
                why = cosa_unit_message(units[i]);
            api_fail(err, errsize, st, "co-simulation failed: %s",
                     why[0] ? why : cosa_strerror(st));
            res->run = NULL;
        }
    }
    if (st == COSA_OK && sim_names(&r, res) != COSA_OK)
        st = api_fail(err, errsize, COSA_ENOMEM, "out of memory");
    sim_release(&r);
    if (st != COSA_OK) {
        cosa_case_sim_free(res);
        return st;
    }
    *out = res;
    return COSA_OK;
}

void cosa_case_sim_free(cosa_case_sim *s)
{
    if (!s)
        return;
    for (size_t k = 0; s->yname && k < s->ny; k++)
        free(s->yname[k]);
    free(s->yname);
    cosa_run_result_free(s->run);
    free(s);
}
