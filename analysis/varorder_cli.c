/* varorder_cli.c -- the shared set-up of `cosa simulate --coupling ...` and
 * `cosa estimate` (variable-order paper, issue 11): option parsing with
 * one-line errors, the model's units with its coupling variables
 * (cosa_odesys_coupling; u = L y without), position/velocity flags from the
 * kick flags, and the reference callback. */
#include "config.h"
#include "varorder_cli.h"
#include "sim_blackbox.h"
#include "fmu_notes.h"
#include "sim_fmu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void vo_cli_opts_init(struct vo_cli_opts *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->control = o->ctl_vars = o->jacobian = -1;
    o->kmax = o->corr_max = -1;
    o->ctl_rtol = o->atol_x = o->atol_v = o->atol_u = o->rtol_u = o->sf = o->rmin = o->rmax =
        o->hmin = o->corr_tol = NAN;
    o->rtol = o->atol = o->micro = o->refrtol = o->tend = o->t0 = NAN;
    o->start = -1;
}

/* the names of cosa_vo_control and cosa_vo_jacobian, in their order */
static const char *const control_names[] = {"none", "step", "order", NULL};
static const char *const jacobian_names[] = {"fd", "los", "exact", NULL};
static const char *const ctl_vars_names[] = {"all", "coupling", NULL};

#define VO(f) offsetof(struct vo_cli_opts, f)
const opt_row vo_cli_rows[] = {
    {.kind = OPTK_STRING, .name = "coupling", .off = VO(coupling), .arg = "explicit|implicit",
     .help = "explicit (sect. 3.1) or implicit predictor/corrector (sect. 3.2) coupling of the "
             "coupling variables u"},
    {.kind = OPTK_STRING, .name = "estimator", .off = VO(estimator), .arg = "E",
     .help = "exlocal, exmilne, exslocal (explicit); immilne, imslocal (implicit): the local "
             "error estimate of sect. 4"},
    {.kind = OPTK_ENUM, .name = "corrector-jacobian", .off = VO(jacobian), .arg = "fd|los|exact",
     .names = jacobian_names, .flags = OPTF_OR_LIST,
     .help = "implicit: the corrector's interface Jacobian by forward differences (one "
             "integration per unit input), low-order sensitivities or exact (linear units) "
             "(fd); --jacobian is its deprecated spelling"},
    {.kind = OPTK_POSITIVE, .name = "corr-tol", .off = VO(corr_tol), .arg = "TOL",
     .help = "corrector: stop at max |du| / max(|u|, 1e-3 max|u|) <= TOL (1e-10)"},
    {.kind = OPTK_INT, .name = "corr-max", .off = VO(corr_max), .arg = "N", .imin = 1,
     .imax = 1000, .help = "corrector iterations before the step fails (10)"},
    {.kind = OPTK_INT, .name = "kmax", .off = VO(kmax), .arg = "K", .imin = 0,
     .imax = COSA_VO_KMAX, .help = "largest degree, 0..8 (5)"},
    {.kind = OPTK_POSITIVE, .name = "ctl-rtol", .off = VO(ctl_rtol), .arg = "R",
     .help = "controller tolerance rtol (1e-5)"},
    {.kind = OPTK_POSITIVE, .name = "ctl-atol-x", .off = VO(atol_x), .arg = "A",
     .help = "positions' atol (1e-3 R)"},
    {.kind = OPTK_POSITIVE, .name = "ctl-atol-v", .off = VO(atol_v), .arg = "A",
     .help = "velocities' atol (R)"},
    {.kind = OPTK_POSITIVE, .name = "ctl-atol-u", .off = VO(atol_u), .arg = "A",
     .help = "coupling variables' atol (1e2 R)"},
    {.kind = OPTK_POSITIVE, .name = "ctl-rtol-u", .off = VO(rtol_u), .arg = "R",
     .help = "coupling variables' rtol (R)"},
    {.kind = OPTK_POSITIVE, .name = "sf", .off = VO(sf), .arg = "SF", .help = "safety factor (6)"},
    {.kind = OPTK_POSITIVE, .name = "rmin", .off = VO(rmin), .arg = "R",
     .help = "smallest step ratio, below 1 (0.5)"},
    {.kind = OPTK_POSITIVE, .name = "rmax", .off = VO(rmax), .arg = "R",
     .help = "largest step ratio, above 1 (2)"},
    {.kind = OPTK_POSITIVE, .name = "hmin", .off = VO(hmin), .arg = "H",
     .help = "smallest step, > 0 (1e-12)"},
    {.kind = OPTK_ENUM, .name = "ctl-vars", .off = VO(ctl_vars), .arg = "all|coupling",
     .names = ctl_vars_names, .flags = OPTF_OR_LIST,
     .help = "states in the error norm: all, or the coupling bodies'"},
    {.kind = OPTK_SIZE, .name = "max-attempts", .off = VO(max_attempts), .arg = "N",
     .help = "stop a run after N attempted macro steps (status max-steps; default 1e7)"},
    {.kind = OPTK_SIZE, .name = "threads", .off = VO(threads), .arg = "N",
     .imax = CLI_THREADS_MAX,
     .help = "OpenMP threads (1..4096) for the units of a step (default: one per core; "
             "waiting threads sleep, doc/performance.md; the result does not depend on it)"},
    {0}};

const opt_row vo_cli_control_rows[] = {
    {.kind = OPTK_ENUM, .name = "control", .off = VO(control), .arg = "none|step|order",
     .names = control_names, .flags = OPTF_OR_LIST,
     .help = "none (fixed H and k, default), step (the estimator's error chooses H), order "
             "(also k)"},
    {0}};

const opt_row vo_cli_unit_rows[] = {
    {.kind = OPTK_STRING, .name = "integrator", .off = VO(integrator), .arg = "I",
     .help = "exact (linear models, default; and the linear parameter sets of twomass-ff, "
             "chain-ff), cvode (default otherwise), cvode-adams, rk4, symplectic-euler, euler"},
    {.kind = OPTK_POSITIVE, .name = "rtol", .off = VO(rtol), .arg = "R",
     .help = "the units' CVODE relative tolerance"},
    {.kind = OPTK_POSITIVE, .name = "atol", .off = VO(atol), .arg = "A",
     .help = "the units' CVODE absolute tolerance"},
    {.kind = OPTK_POSITIVE, .name = "micro", .off = VO(micro), .arg = "H",
     .help = "micro step of rk4/euler/symplectic-euler"},
    {.kind = OPTK_POSITIVE, .name = "ref-rtol", .off = VO(refrtol), .arg = "R",
     .help = "CVODE reference of nonlinear models (1e-12)"},
    {0}};
#undef VO

int vo_cli_jacobian_old(const char *cmd, struct vo_cli_opts *o)
{
    if (!o->jacobian_old)
        return CLI_OK;
    if (o->jacobian >= 0) {
        cli_error(cmd, "option --corrector-jacobian given twice (--jacobian is its deprecated "
                       "spelling)");
        return CLI_EUSAGE;
    }
    for (int k = 0; jacobian_names[k]; k++)
        if (!strcmp(o->jacobian_old, jacobian_names[k])) {
            o->jacobian = k;
            return CLI_OK;
        }
    cli_error(cmd, "--jacobian must be fd, los or exact, got '%s'", o->jacobian_old);
    return CLI_EUSAGE;
}

void vo_cli_notes(const char *cmd, const struct vo_cli_opts *o, const struct vo_cli *r)
{
    if (o->jacobian_old)
        fprintf(stderr, "cosa: %s: note: --jacobian is deprecated; use --corrector-jacobian\n",
                cmd);
    if (r && r->nbb && r->refmode == VO_REF_FINE && (!o->ref || strcmp(o->ref, "fine")))
        fprintf(stderr, "cosa: %s: note: black box%s %s (no declared states): the reference is "
                        "the fine co-simulation (as --ref fine), compared on the states the "
                        "other units declare\n", cmd, r->nbb > 1 ? "es" : "", r->bbnames);
    if (r && r->kmax_capped_by[0])
        fprintf(stderr, "cosa: %s: note: --control order: kmax %d (FMU %s's %s caps the "
                        "input degree)\n", cmd, r->vo.kmax, r->kmax_capped_by,
                r->kmax_capped_interp ? "input interpolation"
                                      : "recommendedIntermediateInputSmoothness");
}

/* value, if given (not NAN), into *v */
static void given(double value, double *v)
{
    if (!isnan(value))
        *v = value;
}

void vo_cli_free(struct vo_cli *r)
{
    if (!r)
        return;
    cosa_model_units_free(r->mu); /* the units and their set */
    cosa_odesys_free(r->os);
    cosa_reftraj_free(r->fine);
    cosa_system_free(r->sys);
    free(r->x0);
    free(r->is_vel);
    memset(r, 0, sizeof *r);
}

double vo_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The sample where t is one (within 1e-9 of the spacing h), else the cubic
 * through the four nearest samples -- its error, O(h^4 x''''), is far below
 * the fine co-simulation's own, O(h^(p+1)) for its scheme of order p <= 2. */
double vo_cli_fine_at(const cosa_reftraj *tr, int outputs, size_t i, double t)
{
    const double h = tr->H, q = t / h;
    const size_t n = tr->nsamples, ld = outputs ? tr->ny : tr->nx;
    const double *d = outputs ? tr->y : tr->x;
    const double qr = round(q);
    if (fabs(q - qr) <= 1e-9 && qr >= 0.0 && qr <= (double)(n - 1))
        return d[i + (size_t)qr * ld];
    size_t j0 = q < 1.0 ? 0 : (size_t)q - 1; /* the nodes j0 .. j0+3 */
    if (j0 + 4 > n)
        j0 = n >= 4 ? n - 4 : 0;
    const size_t m = n < 4 ? n : 4;
    double v = 0.0;
    for (size_t a = 0; a < m; a++) {
        double w = 1.0;
        for (size_t b = 0; b < m; b++)
            if (b != a)
                w *= (q - (double)(j0 + b)) / ((double)a - (double)b);
        v += w * d[i + (j0 + a) * ld];
    }
    return v;
}

/* --ref fine or none: the fine trajectory at the times t (the whole state,
 * or the nsel states sel), or x0 at t = 0 and nan after it. */
static cosa_status ref_sampled(const struct vo_cli *r, size_t n, const double *t, size_t nsel,
                               const size_t *sel, double *X)
{
    const size_t nx = r->nx, m = sel ? nsel : nx;
    for (size_t k = 0; k < n; k++) {
        if (r->refmode == VO_REF_FINE &&
            !(t[k] <= (double)(r->fine->nsamples - 1) * r->fine->H * (1.0 + 1e-9)))
            return COSA_ERANGE; /* beyond the horizon it was computed for */
        for (size_t j = 0; j < m; j++) {
            const size_t i = sel ? sel[j] : j;
            X[j + k * m] = r->refmode == VO_REF_FINE ? vo_cli_fine_at(r->fine, 0, i, t[k])
                           : t[k] == 0.0             ? r->x0[i]
                                                     : NAN;
        }
    }
    return COSA_OK;
}

cosa_status vo_cli_ref(void *ctx, size_t n, const double *t, size_t nsel, const size_t *sel,
                       double *X)
{
    struct vo_cli *r = ctx;
    if (r->refmode != VO_REF_MONOLITHIC)
        return ref_sampled(r, n, t, nsel, sel, X);
    cosa_reftraj *ref = NULL;
    const double t0 = vo_cli_now();
    /* the exact route's linear form has no coupling offset c (u = L y + c) */
    cosa_status st = r->sys && !sel && !cosa_unitset_input_offset(r->set)
                         ? cosa_reftraj_exact_at(r->sys, r->x0, n, t, &ref)
                         : cosa_reftraj_cvode_sel(r->set, r->x0, n, t, r->refrtol, sel ? nsel : 0,
                                                  sel, &ref);
    if (st != COSA_OK)
        return st;
    memcpy(X, ref->x, n * ref->nx * sizeof *X);
    cosa_reftraj_free(ref);
    r->ref_seconds += vo_cli_now() - t0;
    return COSA_OK;
}

#define VO_FINE_FACTOR 64 /* the fine reference's step is H0 / this (the fixed-step run's) */

int vo_cli_fine(const char *cmd, struct vo_cli *r)
{
    if (r->refmode != VO_REF_FINE)
        return CLI_OK;
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    const size_t nfmu = fmus ? r->nsub : 0;
    cosa_fmu_capability *cap = calloc(r->nsub + 1, sizeof *cap);
    const cosa_fmu_capability **caps = calloc(r->nsub + 1, sizeof *caps);
    if (!cap || !caps) {
        free(cap);
        free(caps);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    for (size_t i = 0; i < nfmu; i++)
        if (fmus[i]) {
            cosa_fmu_capability_get(fmus[i], &cap[i]);
            caps[i] = &cap[i];
        }
    /* as the fixed-step run: dt/64, or the largest dt/K, K <= 64, on every
     * fixed-step FMU's grid */
    const unsigned K = nfmu ? (unsigned)cosa_fmu_step_grid(caps, nfmu, r->vo.H, VO_FINE_FACTOR)
                            : VO_FINE_FACTOR;
    free(cap);
    free(caps);
    const char *fname = nfmu ? cosa_fmu_fine_scheme(fmus, nfmu) : "soh";
    cosa_scheme fs;
    cosa_scheme_parse(fname, &fs);
    /* the engine's horizon: t_s = (K+1) H0, then N H0 (fixed) or tend */
    const cosa_vo_opts *v = &r->vo;
    const int kk = v->control == COSA_VO_CONTROL_ORDER ? v->kmax : v->k;
    const double ts = (double)(kk + 1) * v->H;
    const double end = ts + (v->control == COSA_VO_CONTROL_NONE
                                 ? fmax(1.0, round(v->tend / v->H)) * v->H
                                 : v->tend);
    const double hf = v->H / K;
    if (!(end / hf < 1e9)) {
        cli_error(cmd, "--ref fine: %.3g fine steps of %g s: too many (at most 1e9)", end / hf,
                  hf);
        return CLI_EUSAGE;
    }
    const size_t ns = (size_t)ceil(end / hf * (1.0 + 1e-12)) + 3; /* 2 beyond the end */
    const double t0 = vo_cli_now();
    cosa_status st = cosa_reftraj_cosim(r->set, &fs, r->x0, hf, ns, 1, &r->fine);
    r->fine_seconds = vo_cli_now() - t0;
    r->ref_seconds += r->fine_seconds;
    if (st != COSA_OK) {
        const char *why = "";
        for (size_t i = 0; i < r->nsub && !why[0]; i++)
            why = cosa_unit_message(r->units[i]);
        cli_error(cmd, "the fine reference failed: %s", why[0] ? why : cosa_strerror(st));
        return st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
    }
    char sname[64]; /* "SOH", as the fixed-step run's 'reference' line */
    cosa_scheme_name(&fs, sname, sizeof sname);
    snprintf(r->refdesc, sizeof r->refdesc, "fine co-simulation %s dt/%u", sname, K);
    return CLI_OK;
}

/* The scheme (a plain degree), --coupling, --estimator, --control, --kmax. */
static int vo_setup_method(const char *cmd, cli_case *cs, const struct vo_cli_opts *o,
                           struct vo_cli *r)
{
    cosa_vo_opts *v = &r->vo;
    int rc;
    if ((rc = cli_case_scheme(cmd, cs, &r->scheme)) != CLI_OK)
        return rc;
    if (r->scheme.exec != COSA_JACOBI || r->scheme.corr != COSA_CORR_NONE ||
        r->scheme.implicit) {
        cli_error(cmd, "--coupling takes the schemes zoh, foh, soh or pK only (no gs:, imp: and "
                       "no +mbcorr/+ocorr/+ecorr)");
        return CLI_EUSAGE;
    }
    v->k = r->scheme.order;
    if (!o->coupling || (strcmp(o->coupling, "explicit") && strcmp(o->coupling, "implicit"))) {
        cli_error(cmd, "--coupling must be explicit or implicit, got '%s'",
                  o->coupling ? o->coupling : "");
        return CLI_EUSAGE;
    }
    v->coupling = o->coupling[0] == 'i' ? COSA_VO_IMPLICIT : COSA_VO_EXPLICIT;
    if (o->estimator) {
        v->estimator = cosa_vo_estimator_lookup(o->estimator);
        if (!v->estimator) {
            cli_error(cmd, "unknown --estimator '%s' (expected exlocal, exmilne, exslocal, "
                           "immilne or imslocal)", o->estimator);
            return CLI_EUSAGE;
        }
        if (cosa_vo_estimator_implicit(v->estimator) != (v->coupling == COSA_VO_IMPLICIT)) {
            cli_error(cmd, "--estimator %s is for the %s coupling, not --coupling %s",
                      o->estimator, cosa_vo_estimator_implicit(v->estimator) ? "implicit"
                                                                             : "explicit",
                      o->coupling);
            return CLI_EUSAGE;
        }
    }
    if (o->control >= 0)
        v->control = (cosa_vo_control_kind)o->control;
    if (v->control != COSA_VO_CONTROL_NONE && !v->estimator) {
        cli_error(cmd, "--control %s needs an --estimator", control_names[o->control]);
        return CLI_EUSAGE;
    }
    if (o->kmax >= 0)
        v->kmax = (int)o->kmax;
    if (v->k > v->kmax) {
        cli_error(cmd, "the scheme's degree %d is above --kmax %d", v->k, v->kmax);
        return CLI_EUSAGE;
    }
    if (v->estimator && !strcmp(cosa_vo_estimator_name(v->estimator), "exlocal") &&
        (v->control == COSA_VO_CONTROL_ORDER ? v->kmax : v->k) + 1 > COSA_UNIT_DEGMAX) {
        cli_error(cmd, "--estimator exlocal integrates degree k+1 inputs: k at most %d",
                  COSA_UNIT_DEGMAX - 1);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* The controller's tolerances and limits, --ctl-vars, --corrector-jacobian,
 * --max-attempts, --threads (the rows checked each value; what is left are
 * the relations the library cannot name an option for). */
static int vo_setup_control(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r)
{
    cosa_vo_opts *v = &r->vo;
    given(o->ctl_rtol, &v->rtol);
    v->atol_x = 1e-3 * v->rtol;
    v->atol_v = v->rtol;
    v->atol_u = 1e2 * v->rtol;
    given(o->atol_x, &v->atol_x);
    given(o->atol_v, &v->atol_v);
    given(o->atol_u, &v->atol_u);
    given(o->rtol_u, &v->rtol_u);
    given(o->sf, &v->sf);
    given(o->rmin, &v->rmin);
    given(o->rmax, &v->rmax);
    given(o->hmin, &v->hmin);
    given(o->corr_tol, &v->corr_tol);
    given(o->refrtol, &r->refrtol);
    if (o->corr_max > 0)
        v->corr_max = (int)o->corr_max;
    /* cosa_run refuses them too, as COSA_ERANGE: here with the option's name */
    if (!(v->rmin < 1.0)) {
        cli_error(cmd, "--rmin must be below 1, got %g", v->rmin);
        return CLI_EUSAGE;
    }
    if (!(v->rmax > 1.0)) {
        cli_error(cmd, "--rmax must be above 1, got %g", v->rmax);
        return CLI_EUSAGE;
    }
    v->ctl_coupling = o->ctl_vars == 1;
    if (o->jacobian >= 0)
        v->jacobian = (cosa_vo_jacobian)o->jacobian;
    if (o->max_attempts)
        v->max_attempts = o->max_attempts;
#ifdef _OPENMP
    if (o->threads)
        omp_set_num_threads((int)o->threads);
#endif
    return CLI_OK;
}

/* The model: --tend, its linear form, its ODE form (kick flags, coupling
 * variables), x0. */
static int vo_setup_model(const char *cmd, cli_case *cs, const struct vo_cli_opts *o,
                          struct vo_cli *r)
{
    int rc;
    if ((rc = cli_model_resolve(&cs->mod, cmd)) != CLI_OK)
        return rc;
    const cosa_model *m = r->m = cs->mod.model;
    r->par = cs->mod.par;
    /* FMU subsystems run the FMU itself; the reference is the linearised
     * network, which is one only for linear FMUs */
    char why[256];
    if (!fmu_network_linear(m, r->par, why, sizeof why)) {
        cli_error(cmd, "--coupling: %s: the variable-order engine's reference is the "
                       "linearised network (linear FMUs only)", why);
        return CLI_EUSAGE;
    }
    r->vo.tend = m->tend;
    given(o->tend, &r->vo.tend);
    if (cosa_model_is_linear(m) && (rc = cli_model_system(&cs->mod, cmd, &r->sys)) != CLI_OK)
        return rc;
    cosa_status st = m->create_ode ? m->create_ode(m, r->par, &r->os)
                                   : cosa_odesys_from_linear(r->sys, &r->os);
    if (st != COSA_OK) {
        cli_error(cmd, "model '%s': no ODE form (%s)", m->name, cosa_strerror(st));
        return st == COSA_EPARAM ? CLI_EUSAGE : CLI_EFAIL;
    }
    r->nsub = cosa_odesys_nsub(r->os);
    r->nx = cosa_odesys_nx(r->os);
    return cli_model_x0(&cs->mod, cmd, r->nx, &r->x0);
}

/* --integrator and its settings into integ. */
static int vo_setup_integrator(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r,
                               cosa_integrator *integ)
{
    const cosa_model *m = r->m;
    r->iname = o->integrator ? o->integrator : r->sys ? "exact" : "cvode";
    if (cosa_integrator_parse(r->iname, integ) != COSA_OK) {
        cli_error(cmd, "unknown integrator '%s' (expected exact, cvode, cvode-adams, rk4, "
                       "symplectic-euler or euler)", r->iname);
        return CLI_EUSAGE;
    }
    /* a nonlinear model at a linear parameter set (twomass-ff with Cc = Dc =
     * Acon = 0, ...): its linear system, for exact units and the exact
     * reference -- only when asked for, so that the default stays cvode */
    if (integ->kind == COSA_INTEGRATOR_EXACT && !r->sys && cosa_odesys_is_linear(r->os)) {
        cosa_status st = cosa_odesys_linear_system(r->os, &r->sys);
        if (st != COSA_OK) {
            cli_error(cmd, "model '%s': its linear system: %s", m->name, cosa_strerror(st));
            return st == COSA_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
        }
    }
    if (integ->kind == COSA_INTEGRATOR_EXACT && !r->sys) {
        cli_error(cmd, "--integrator exact needs a linear model; '%s' is nonlinear with these "
                       "parameters (use cvode, rk4, symplectic-euler or euler)", m->name);
        return CLI_EUSAGE;
    }
    if (r->vo.coupling == COSA_VO_IMPLICIT && r->vo.jacobian == COSA_VO_JAC_EXACT &&
        integ->kind != COSA_INTEGRATOR_EXACT) {
        cli_error(cmd, "%s exact needs linear units (--integrator exact on a linear model)",
                  o->jacobian_old ? "--jacobian" : "--corrector-jacobian");
        return CLI_EUSAGE;
    }
    given(o->rtol, &integ->rtol);
    given(o->atol, &integ->atol);
    given(o->micro, &integ->hmicro);
    return CLI_OK;
}

/* Positions and velocities (the kick flags), the units and their set with
 * the coupling variables (models/unitset_build.c). */
static int vo_setup_units(const char *cmd, struct vo_cli *r, const cosa_integrator *integ)
{
    r->is_vel = calloc(r->nx + 1, 1);
    if (!r->is_vel) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    size_t ox = 0;
    for (size_t i = 0; i < r->nsub; i++) {
        const cosa_ode *sub = cosa_odesys_sub(r->os, i);
        for (size_t k = 0; k < sub->nx; k++)
            r->is_vel[ox + k] = sub->kick ? sub->kick[k] : 1;
        ox += sub->nx;
    }
    r->vo.is_vel = r->is_vel;
    /* rejected steps and comparative integrations restore unit snapshots:
     * an FMU needs its state */
    const cosa_model_units_opts uo = {.integ = integ, .sys = r->sys, .os = r->os, .coupling = 1,
                                      .need = COSA_MODEL_UNITS_NEED_STATE};
    cosa_model_units_error e;
    cosa_status st = cosa_model_units_create(r->m, r->par, &uo, &r->mu, &e);
    if (st != COSA_OK && e.fmu) {
        if (e.missing)
            cli_error(cmd, "%s: --coupling needs the FMU's state (canGetAndSetFMUState): the "
                           "engine restores units to retry and compare steps", e.fmu);
        else
            cli_error(cmd, "%s: %s", e.fmu, e.msg);
        return e.missing || st == COSA_EFMU ? CLI_EUSAGE : CLI_EFAIL;
    }
    if (st != COSA_OK && e.sub < r->nsub) {
        cli_error(cmd, "cannot create unit %zu: %s", e.sub, cosa_strerror(st));
        return st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "cannot create the units: %s", cosa_strerror(st));
        return CLI_EFAIL;
    }
    r->set = cosa_model_units_set(r->mu);
    r->units = cosa_model_units_units(r->mu);
    /* black boxes run without states: the units' layout (x0 and the kick
     * flags without the identified states) */
    r->nbb = sim_blackbox_names(r->m, r->nsub, r->bbnames, sizeof r->bbnames);
    if (r->nbb && sim_blackbox_x0(cmd, r->sys, r->set, &r->x0, &r->is_vel) != CLI_OK)
        return CLI_EFAIL;
    r->nx = cosa_unitset_nx(r->set);
    r->vo.is_vel = r->is_vel;
    return CLI_OK;
}

/* Black boxes (doc/simulate-black-box.md "Modes"): `cosa estimate` takes a
 * step from the reference's states, which a black box hides; the error
 * estimators that compare states (z - z^) would measure the other units'
 * states alone -- refused; the start is the units' own (--start initial). */
static int vo_setup_blackbox(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r)
{
    if (!r->nbb)
        return CLI_OK;
    const char *s = r->nbb > 1 ? "es" : "", *d = r->nbb > 1 ? "" : "s";
    if (strcmp(cmd, "simulate")) {
        cli_error(cmd, "black box%s %s declare%s no states: cosa estimate starts its step on "
                       "the reference's states (cosa simulate --coupling runs black boxes)",
                  s, r->bbnames, d);
        return CLI_EUSAGE;
    }
    if (r->vo.estimator && cosa_vo_estimator_on_states(r->vo.estimator)) {
        cli_error(cmd, "--estimator %s compares the states of two integrations (z - z^), "
                       "which black box%s %s hide%s: use exslocal or imslocal (they compare "
                       "the coupling variables u)",
                  cosa_vo_estimator_name(r->vo.estimator), s, r->bbnames, d);
        return CLI_EUSAGE;
    }
    if (o->start == 0) {
        cli_error(cmd, "--start reference: black box%s %s declare%s no states for the "
                       "reference to start on (--start initial, the default with black boxes)",
                  s, r->bbnames, d);
        return CLI_EUSAGE;
    }
    r->vo.start_initial = 1;
    return CLI_OK;
}

/* --start, --ref: the start rule and the reference (the fine co-simulation
 * by default for black boxes, whose states no monolithic reference has). */
static int vo_setup_reference(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r)
{
    if (o->start == 1)
        r->vo.start_initial = 1;
    const char *ref = o->ref ? o->ref : "auto";
    if (!strcmp(ref, "none"))
        r->refmode = VO_REF_NONE;
    else if (!strcmp(ref, "fine") || (!strcmp(ref, "auto") && r->nbb))
        r->refmode = VO_REF_FINE;
    else if (strcmp(ref, "auto")) {
        cli_error(cmd, "--ref %s: with --coupling the reference is auto, fine or none", ref);
        return CLI_EUSAGE;
    }
    if (r->refmode == VO_REF_NONE)
        snprintf(r->refdesc, sizeof r->refdesc, "none");
    return CLI_OK;
}

/* The input smoothness rule (README "FMU import"; the fixed-step run's
 * sim_fmu_smoothness) on every polynomial the engine gives an FMU: the
 * degree k, k + 1 for exlocal's comparative integration, and kmax with
 * --control order (capped when --kmax was not given). */
static int vo_setup_smoothness(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r)
{
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    if (!fmus || !cosa_model_units_nfmu(r->mu))
        return CLI_OK;
    if (sim_fmu_no_clocks(cmd, fmus, r->m, r->par, r->nsub, "the variable-order engine") !=
        CLI_OK)
        return CLI_EUSAGE;
    char sname[64];
    cosa_scheme_name(&r->scheme, sname, sizeof sname);
    int rc = sim_fmu_smoothness(cmd, r->units, fmus, r->m, r->par, r->nsub, &r->scheme, sname);
    if (rc != CLI_OK)
        return rc;
    const int exl = r->vo.estimator && !strcmp(cosa_vo_estimator_name(r->vo.estimator), "exlocal");
    const int order = r->vo.control == COSA_VO_CONTROL_ORDER;
    for (size_t i = 0; i < r->nsub; i++) {
        if (!fmus[i] || !cosa_unit_nu(r->units[i]))
            continue;
        cosa_fmu_capability cap;
        cosa_fmu_capability_get(fmus[i], &cap);
        /* the degree the FMU takes at all (input interpolation; a black box
         * often holds its inputs), and the smoothness it recommends */
        const int cdeg = cap.input_degree_max;
        const int csm = cosa_fmu_smoothness_degree(cap.smoothness);
        const int cmax = cdeg < csm ? cdeg : csm;
        const char *name = r->m->sub_name ? r->m->sub_name(r->m, r->par, i) : NULL;
        cosa_scheme s = r->scheme; /* the largest degree the run can give the FMU */
        s.q_extra = 0;
        s.order = (order ? r->vo.kmax : r->vo.k) + exl;
        if (s.order <= cmax)
            continue;
        if (order && o->kmax < 0 && r->vo.k + exl <= cmax) { /* the default kmax: capped */
            r->vo.kmax = cmax - exl;
            snprintf(r->kmax_capped_by, sizeof r->kmax_capped_by, "%s", name ? name : "?");
            r->kmax_capped_interp = cdeg < csm;
            continue;
        }
        char why[256];
        if (s.order > cdeg)
            snprintf(why, sizeof why, "an input polynomial of degree %d needs input "
                     "interpolation: %s", s.order, cap.degree_why);
        else
            cosa_fmu_smoothness_check(&cap, cosa_unit_nu(r->units[i]), &s, why, sizeof why);
        if (exl && r->vo.k + 1 > cmax)
            cli_error(cmd, "--estimator exlocal integrates degree k+1 inputs: FMU %s: %s; use a "
                           "scheme of order <= %d", name ? name : "?", why, cmax - 1);
        else if (!order)
            cli_error(cmd, "--scheme %s: FMU %s: %s; use a scheme of degree <= %d", sname,
                      name ? name : "?", why, cmax);
        else
            cli_error(cmd, "--kmax %d: FMU %s: %s; use --kmax <= %d", r->vo.kmax,
                      name ? name : "?", why, cmax - exl);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int vo_cli_setup(const char *cmd, cli_case *cs, const struct vo_cli_opts *o, const char *dt_text,
                 struct vo_cli *r)
{
    memset(r, 0, sizeof *r);
    cosa_vo_opts_default(&r->vo);
    r->refrtol = 1e-12;
    int rc;
    if ((rc = vo_setup_method(cmd, cs, o, r)) != CLI_OK ||
        (rc = vo_setup_control(cmd, o, r)) != CLI_OK)
        return rc;
    if (dt_text && (rc = cli_case_dt(cmd, dt_text, &r->vo.H)) != CLI_OK)
        return rc;
    cosa_integrator integ;
    if ((rc = vo_setup_model(cmd, cs, o, r)) != CLI_OK ||
        (rc = vo_setup_integrator(cmd, o, r, &integ)) != CLI_OK ||
        (rc = vo_setup_units(cmd, r, &integ)) != CLI_OK ||
        (rc = vo_setup_blackbox(cmd, o, r)) != CLI_OK ||
        (rc = vo_setup_reference(cmd, o, r)) != CLI_OK)
        return rc;
    return vo_setup_smoothness(cmd, o, r);
}
