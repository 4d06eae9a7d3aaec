/* varorder_cli.c -- the shared set-up of `cosa simulate --coupling ...` and
 * `cosa estimate` (variable-order paper, issue 11): option parsing with
 * one-line errors, the model's units with its coupling variables
 * (cosa_odesys_coupling; u = L y without), position/velocity flags from the
 * kick flags, and the reference callback. */
#include "config.h"
#include "varorder_cli.h"
#include "fmu_notes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum {
    VO_COUPLING = 1300, VO_ESTIMATOR, VO_CONTROL, VO_KMAX, VO_CTL_RTOL, VO_ATOL_X, VO_ATOL_V,
    VO_ATOL_U, VO_SF, VO_RMIN, VO_RMAX, VO_HMIN, VO_CTL_VARS, VO_JACOBIAN, VO_CORR_TOL,
    VO_CORR_MAX, VO_THREADS, VO_TEND, VO_INTEGRATOR, VO_RTOL, VO_ATOL, VO_MICRO, VO_REFRTOL,
    VO_OUTPUT, VO_NAME, VO_PLOT, VO_T0, VO_RTOL_U, VO_MAXATT, VO_CORR_JAC
};

const struct option vo_cli_options[] = {
    {"coupling", required_argument, NULL, VO_COUPLING},
    {"estimator", required_argument, NULL, VO_ESTIMATOR},
    {"control", required_argument, NULL, VO_CONTROL},
    {"kmax", required_argument, NULL, VO_KMAX},
    {"ctl-rtol", required_argument, NULL, VO_CTL_RTOL},
    {"ctl-atol-x", required_argument, NULL, VO_ATOL_X},
    {"ctl-atol-v", required_argument, NULL, VO_ATOL_V},
    {"ctl-atol-u", required_argument, NULL, VO_ATOL_U},
    {"ctl-rtol-u", required_argument, NULL, VO_RTOL_U},
    {"max-attempts", required_argument, NULL, VO_MAXATT},
    {"sf", required_argument, NULL, VO_SF},
    {"rmin", required_argument, NULL, VO_RMIN},
    {"rmax", required_argument, NULL, VO_RMAX},
    {"hmin", required_argument, NULL, VO_HMIN},
    {"ctl-vars", required_argument, NULL, VO_CTL_VARS},
    {"corrector-jacobian", required_argument, NULL, VO_CORR_JAC},
    {"jacobian", required_argument, NULL, VO_JACOBIAN}, /* deprecated */
    {"corr-tol", required_argument, NULL, VO_CORR_TOL},
    {"corr-max", required_argument, NULL, VO_CORR_MAX},
    {"threads", required_argument, NULL, VO_THREADS},
    {"tend", required_argument, NULL, VO_TEND},
    {"integrator", required_argument, NULL, VO_INTEGRATOR},
    {"rtol", required_argument, NULL, VO_RTOL},
    {"atol", required_argument, NULL, VO_ATOL},
    {"micro", required_argument, NULL, VO_MICRO},
    {"ref-rtol", required_argument, NULL, VO_REFRTOL},
    {"output", required_argument, NULL, VO_OUTPUT},
    {"name", required_argument, NULL, VO_NAME},
    {"plot", required_argument, NULL, VO_PLOT},
    {"t0", required_argument, NULL, VO_T0},
    CLI_PROGRESS_OPTION,
    {0, 0, 0, 0}};

int vo_cli_jacobian(const char *cmd, struct vo_cli_opts *o, const char *opt, const char *arg)
{
    if (o->jacobian_opt && strcmp(o->jacobian_opt, opt)) {
        cli_error(cmd, "option --corrector-jacobian given twice (--jacobian is its deprecated "
                       "spelling)");
        return CLI_EUSAGE;
    }
    o->jacobian = arg;
    o->jacobian_opt = opt;
    return CLI_OK;
}

void vo_cli_notes(const char *cmd, const struct vo_cli_opts *o)
{
    if (o->jacobian_opt && !strcmp(o->jacobian_opt, "--jacobian"))
        fprintf(stderr, "cosa: %s: note: --jacobian is deprecated; use --corrector-jacobian\n",
                cmd);
}

int vo_cli_extra(void *ctx, int opt, const char *arg)
{
    struct vo_cli_opts *o = ctx;
    const char **slot = NULL;
    switch (opt) {
    case VO_JACOBIAN:
    case VO_CORR_JAC:
        return vo_cli_jacobian(o->cmd, o, opt == VO_JACOBIAN ? "--jacobian"
                                                             : "--corrector-jacobian", arg)
                   ? -1 : 0;
    case VO_COUPLING: slot = &o->coupling; break;
    case VO_ESTIMATOR: slot = &o->estimator; break;
    case VO_CONTROL: slot = &o->control; break;
    case VO_KMAX: slot = &o->kmax; break;
    case VO_CTL_RTOL: slot = &o->ctl_rtol; break;
    case VO_ATOL_X: slot = &o->atol_x; break;
    case VO_ATOL_V: slot = &o->atol_v; break;
    case VO_ATOL_U: slot = &o->atol_u; break;
    case VO_RTOL_U: slot = &o->rtol_u; break;
    case VO_MAXATT: slot = &o->max_attempts; break;
    case VO_SF: slot = &o->sf; break;
    case VO_RMIN: slot = &o->rmin; break;
    case VO_RMAX: slot = &o->rmax; break;
    case VO_HMIN: slot = &o->hmin; break;
    case VO_CTL_VARS: slot = &o->ctl_vars; break;
    case VO_CORR_TOL: slot = &o->corr_tol; break;
    case VO_CORR_MAX: slot = &o->corr_max; break;
    case VO_THREADS: slot = &o->threads; break;
    case VO_TEND: slot = &o->tend; break;
    case VO_INTEGRATOR: slot = &o->integrator; break;
    case VO_RTOL: slot = &o->rtol; break;
    case VO_ATOL: slot = &o->atol; break;
    case VO_MICRO: slot = &o->micro; break;
    case VO_REFRTOL: slot = &o->refrtol; break;
    case VO_OUTPUT: slot = &o->output; break;
    case VO_NAME: slot = &o->name; break;
    case VO_PLOT: slot = &o->plot; break;
    case VO_T0: slot = &o->t0; break;
    default: return 1;
    }
    *slot = arg;
    return 0;
}

const char vo_cli_help[] =
    "  --coupling explicit|implicit  explicit (sect. 3.1) or implicit predictor/corrector\n"
    "                        (sect. 3.2) coupling of the coupling variables u\n"
    "  --scheme zoh|foh|soh|pK  the (initial) polynomial degree k of u\n"
    "  --estimator E         exlocal, exmilne, exslocal (explicit); immilne, imslocal\n"
    "                        (implicit): the local error estimate of sect. 4\n"
    "  --corrector-jacobian fd|los|exact  implicit: the corrector's interface Jacobian\n"
    "                        by forward differences (one integration per unit input),\n"
    "                        low-order sensitivities or exact (linear units) (fd);\n"
    "                        --jacobian is its deprecated spelling\n"
    "  --corr-tol TOL        corrector: stop at max |du| / max(|u|, 1e-3 max|u|) <= TOL\n"
    "                        (1e-10)\n"
    "  --corr-max N          corrector iterations before the step fails (10)\n"
    "  --kmax K              largest degree, 0..8 (5)\n"
    "  --ctl-rtol R          controller tolerance rtol (1e-5)\n"
    "  --ctl-atol-x A        positions' atol (1e-3 R); --ctl-atol-v A velocities' (R);\n"
    "  --ctl-atol-u A        coupling variables' (1e2 R); --ctl-rtol-u R their rtol (R)\n"
    "  --sf SF --rmin R --rmax R --hmin H  safety factor (6), step ratio limits (0.5,\n"
    "                        2), smallest step (1e-12)\n"
    "  --ctl-vars all|coupling  states in the error norm: all, or the coupling bodies'\n"
    "  --integrator I        exact (linear models, default; and the linear parameter\n"
    "                        sets of twomass-ff, chain-ff), cvode (default otherwise),\n"
    "                        cvode-adams, rk4, symplectic-euler, euler\n"
    "  --rtol R --atol A --micro H  the units' integrator settings\n"
    "  --ref-rtol R          CVODE reference of nonlinear models (1e-12)\n"
    "  --max-attempts N      stop a run after N attempted macro steps (status\n"
    "                        max-steps; default 1e7)\n"
    "  --threads N           OpenMP threads (1..4096) for the units of a step\n"
    "                        (default: one per core; waiting threads sleep, README\n"
    "                        'Threads'; the result\n"
    "                        does not depend on it)\n";

static int dbl(const char *cmd, const char *opt, const char *text, double *v, int positive)
{
    if (!text)
        return CLI_OK;
    if (positive)
        return cli_positive(cmd, opt, text, v);
    if (cli_parse_double(text, v) != 0 || !isfinite(*v)) {
        cli_error(cmd, "%s must be a %snumber, got '%s'", opt, positive ? "positive finite " : "",
                  text);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

static int integer(const char *cmd, const char *opt, const char *text, int lo, int hi, int *v)
{
    if (!text)
        return CLI_OK;
    size_t s;
    if (cli_parse_size(text, &s) != 0 && strcmp(text, "0") != 0) {
        cli_error(cmd, "%s must be an integer in %d..%d, got '%s'", opt, lo, hi, text);
        return CLI_EUSAGE;
    }
    if (strcmp(text, "0") == 0)
        s = 0;
    if ((long long)s < lo || (long long)s > hi) {
        cli_error(cmd, "%s must be an integer in %d..%d, got '%s'", opt, lo, hi, text);
        return CLI_EUSAGE;
    }
    *v = (int)s;
    return CLI_OK;
}

void vo_cli_free(struct vo_cli *r)
{
    if (!r)
        return;
    cosa_model_units_free(r->mu); /* the units and their set */
    cosa_odesys_free(r->os);
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

cosa_status vo_cli_ref(void *ctx, size_t n, const double *t, size_t nsel, const size_t *sel,
                       double *X)
{
    struct vo_cli *r = ctx;
    cosa_reftraj *ref = NULL;
    const double t0 = vo_cli_now();
    cosa_status st = r->sys && !sel
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
    if (o->control) {
        if (!strcmp(o->control, "none"))
            v->control = COSA_VO_CONTROL_NONE;
        else if (!strcmp(o->control, "step"))
            v->control = COSA_VO_CONTROL_STEP;
        else if (!strcmp(o->control, "order"))
            v->control = COSA_VO_CONTROL_ORDER;
        else {
            cli_error(cmd, "--control must be none, step or order, got '%s'", o->control);
            return CLI_EUSAGE;
        }
    }
    if (v->control != COSA_VO_CONTROL_NONE && !v->estimator) {
        cli_error(cmd, "--control %s needs an --estimator", o->control);
        return CLI_EUSAGE;
    }
    if ((rc = integer(cmd, "--kmax", o->kmax, 0, COSA_VO_KMAX, &v->kmax)) != CLI_OK)
        return rc;
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
 * --max-attempts, --threads. */
static int vo_setup_control(const char *cmd, const struct vo_cli_opts *o, struct vo_cli *r)
{
    cosa_vo_opts *v = &r->vo;
    int rc;
    if ((rc = dbl(cmd, "--ctl-rtol", o->ctl_rtol, &v->rtol, 1)) != CLI_OK)
        return rc;
    v->atol_x = 1e-3 * v->rtol;
    v->atol_v = v->rtol;
    v->atol_u = 1e2 * v->rtol;
    if ((rc = dbl(cmd, "--ctl-atol-x", o->atol_x, &v->atol_x, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--ctl-atol-v", o->atol_v, &v->atol_v, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--ctl-atol-u", o->atol_u, &v->atol_u, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--ctl-rtol-u", o->rtol_u, &v->rtol_u, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--sf", o->sf, &v->sf, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--rmin", o->rmin, &v->rmin, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--rmax", o->rmax, &v->rmax, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--hmin", o->hmin, &v->hmin, 0)) != CLI_OK ||
        (rc = dbl(cmd, "--corr-tol", o->corr_tol, &v->corr_tol, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--ref-rtol", o->refrtol, &r->refrtol, 1)) != CLI_OK ||
        (rc = integer(cmd, "--corr-max", o->corr_max, 1, 1000, &v->corr_max)) != CLI_OK)
        return rc;
    if (!(v->rmin < 1.0)) {
        cli_error(cmd, "--rmin must be below 1, got %g", v->rmin);
        return CLI_EUSAGE;
    }
    if (!(v->rmax > 1.0)) {
        cli_error(cmd, "--rmax must be above 1, got %g", v->rmax);
        return CLI_EUSAGE;
    }
    if (!(v->hmin >= 0.0)) {
        cli_error(cmd, "--hmin must be >= 0, got %g", v->hmin);
        return CLI_EUSAGE;
    }
    if (o->ctl_vars && strcmp(o->ctl_vars, "all") && strcmp(o->ctl_vars, "coupling")) {
        cli_error(cmd, "--ctl-vars must be all or coupling, got '%s'", o->ctl_vars);
        return CLI_EUSAGE;
    }
    v->ctl_coupling = o->ctl_vars && !strcmp(o->ctl_vars, "coupling");
    if (o->jacobian) {
        if (!strcmp(o->jacobian, "fd"))
            v->jacobian = COSA_VO_JAC_FD;
        else if (!strcmp(o->jacobian, "los"))
            v->jacobian = COSA_VO_JAC_LOS;
        else if (!strcmp(o->jacobian, "exact"))
            v->jacobian = COSA_VO_JAC_EXACT;
        else {
            cli_error(cmd, "%s must be fd, los or exact, got '%s'", o->jacobian_opt, o->jacobian);
            return CLI_EUSAGE;
        }
    }
    if (o->max_attempts && (cli_parse_size(o->max_attempts, &v->max_attempts) != 0 ||
                            v->max_attempts == 0)) {
        cli_error(cmd, "--max-attempts must be a positive integer, got '%s'", o->max_attempts);
        return CLI_EUSAGE;
    }
    if (o->threads) {
        size_t nt = 1;
        if ((rc = cli_threads(cmd, o->threads, &nt)) != CLI_OK)
            return rc;
#ifdef _OPENMP
        omp_set_num_threads((int)nt);
#endif
    }
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
    if ((rc = dbl(cmd, "--tend", o->tend, &r->vo.tend, 1)) != CLI_OK)
        return rc;
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
                  o->jacobian_opt);
        return CLI_EUSAGE;
    }
    int rc;
    if ((rc = dbl(cmd, "--rtol", o->rtol, &integ->rtol, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--atol", o->atol, &integ->atol, 1)) != CLI_OK ||
        (rc = dbl(cmd, "--micro", o->micro, &integ->hmicro, 1)) != CLI_OK)
        return rc;
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
        (rc = vo_setup_integrator(cmd, o, r, &integ)) != CLI_OK)
        return rc;
    return vo_setup_units(cmd, r, &integ);
}
