/* cmd_defect.c -- `cosa defect`: defect-controlled co-simulation (defect
 * paper, Algorithm 1; issue 12 section 4) as a front end over the one
 * entry point cosa_run (its defect configuration): one run, or a sweep over the macro step H or the
 * tolerance tol, printed as `name value` lines or a table; -o writes CSV
 * data and gnuplot scripts (plots/defect_*.gp); --paper reproduces the
 * paper's Figs 4-10. */
#include "config.h"
#include "fmu_notes.h"
#include "sweep_cli.h"
#include "outfile.h"
#include "run_stats.h"
#include "sim_init.h"
#include "sim_blackbox.h"
#include "sim_fmu.h"
#include "csv_out.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const char cosa_plot_defect_sweep[];    /* plots/defect_sweep.gp    */
extern const char cosa_plot_defect_steps[];    /* plots/defect_steps.gp    */
extern const char cosa_plot_defect_response[]; /* plots/defect_response.gp */

#define DEFECT_ORDER_MAX 2          /* m, n in 0..2 (issue 12 section 3)   */
#define DEFECT_SWEEP_MAX 10000      /* points of a sweep                    */
#define DEFECT_FIXED_STEPS_MAX 1e7  /* T / H of a fixed-step run            */
#define NAME_LEN 64

static const char *const cmd = "defect";

static const char usage[] =
    "Usage: cosa defect --model M [--set NAME=VALUE]... [--integrator euler|exact|cvode]\n"
    "                   [--rtol R] --in-order M --out-order N\n"
    "                   (--dt H | --tol TOL [--h0 H0]) [--tend T]\n"
    "                   [--control both|output|connection] [--max-steps N] [--hmin H]\n"
    "                   [-o DIR] [--plot png|svg]\n"
    "       cosa defect --paper -o DIR [--plot png|svg]\n\n"
    "Defect-controlled co-simulation (defect paper, Algorithm 1): non-iterative Jacobi\n"
    "where every input is the Taylor polynomial of order min(M, N) of its source's output\n"
    "derivatives y^(0..N) at the start of the macro step.  Per step it measures, as RMS\n"
    "over the step, the output defect of every output (the output polynomial of order N\n"
    "against its Hermite extension through the mid-step sample, eqs 30, 32) and the\n"
    "connection defect of every input (input polynomial minus the source's output\n"
    "polynomial, eq 17).  --dt H runs fixed macro steps; --tol TOL lets the PI controller\n"
    "(eq 39) choose them from the largest defect eps (eq 38), starting with H0.\n"
    "Prints 'name value' lines (%.17g):\n"
    "  status ok | failed t=TIME (the run diverged -- an output beyond 1e6 x the\n"
    "                             largest exact output, or not finite -- or a unit\n"
    "                             could not complete its step)\n"
    "         | max-steps t=TIME (N steps taken before T)\n"
    "         | hmin t=TIME (the controller's next step fell below H)\n"
    "  (all results: exit code 0; an error, such as an FMU's Error, exits 1)\n"
    "  steps, t_end, h_min, h_avg (= t_end / steps), h_max, eps_max\n"
    "  defect_out_Y, error_Y, y_end_Y   per output Y: run RMS of the output defect,\n"
    "                                   RMS error of the output polynomial against the\n"
    "                                   exact monolithic solution (nan for a model\n"
    "                                   without a linear form), Y at the end\n"
    "  defect_conn_U                    per input U: run RMS of the connection defect\n"
    "  rejected, rollbacks, corrector_iterations   0 (Algorithm 1 accepts every step)\n"
    "  unit NAME steps S restores R events E early_returns K defect_steps D   per unit\n"
    "--dt LO:HI:log|lin:N or --tol LO:HI:log|lin:N runs a sweep and prints a table: a\n"
    "header line, then one row per value with the same quantities as columns.\n"
    "With -o DIR (or --plot) a run writes BASE.csv (one row per macro step: t, H, eps,\n"
    "every per-step defect, every output's coefficients y^(j)(t_{k+1})), BASE_poly.csv\n"
    "(the output polynomials sampled within every step), BASE_exact.csv (the exact\n"
    "solution) and the scripts BASE_response.gp, BASE_steps.gp; a sweep writes BASE.csv\n"
    "(the table) and BASE_defect_out.gp, BASE_defect_conn.gp, BASE_error.gp (log-log vs\n"
    "H or tol) and, for --tol, BASE_h_avg.gp (mean H vs tol).\n"
    "FMU subsystems (linear FMUs only): an FMU's recommendedIntermediateInputSmoothness\n"
    "K >= 1 needs min(M, N) <= K (else one line, exit 2); FMUs whose feedthrough closes\n"
    "an algebraic loop are iterated in Initialization Mode at t = 0 first (a single run\n"
    "prints init_iterations N and init_output SUB.NAME VALUE after 'tend'; a loop\n"
    "without a fixed point: one line, exit 2).\n"
    "--paper writes the data, scripts and PNG pictures of the paper's Figs 4-10 for\n"
    "rotational-defect into DIR (doc/defects.md; 'make paper-defect').\n\n";

/* ---- options ------------------------------------------------------------- */

struct dopts {
    cli_model mod;
    int integrator;         /* --integrator: integrator_names index, or -1 */
    double rtol, h0, tend;  /* NAN: not given                              */
    long in_order, out_order; /* -1: not given                             */
    const char *dt, *tol;   /* a value or a sweep LO:HI:log|lin:N          */
    int control;            /* --control: control_names index, or -1      */
    const char *output;
    int plot;               /* --plot: plot_names index, or -1            */
    size_t max_steps;       /* 0: not given                                */
    double hmin;            /* NAN: not given                              */
    size_t max_points;      /* --max-points (0: DEFECT_SWEEP_MAX)          */
    int paper;
};

static const char *const integrator_names[] = {"euler", "exact", "cvode", NULL};
/* the names of cosa_defect_control, in its order */
static const char *const control_names[] = {"both", "output", "connection", NULL};
static const char *const plot_names[] = {"png", "svg", NULL};

/* The wording of a refused --dt or --tol text. */
#define VALUES_EXPECTED "%s expects a positive value or LO:HI:log|lin:N with 0 < LO <= HI and " \
                        "N >= 1 (N = 1 only for LO = HI), got '%s'"

/* --dt and --tol (OPTK_CUSTOM): a positive number, or a sweep whose text is
 * checked now (an @FILE error names FILE:LINE); its N against the cap
 * (--max-points) later, in parse_values. */
static int value_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    if (!strchr(value, ':'))
        return cli_row_positive_text(row, value, dst, msg, size);
    cosa_sweep_axis ax;
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", row->name);
    /* cap 0: a text without fault is -2 (more points than the cap) */
    if (scli_range(opt, value, 0, &ax, msg, size) != -2 ||
        !(ax.lo > 0.0 && ax.hi > 0.0 && ax.lo <= ax.hi)) {
        snprintf(msg, size, VALUES_EXPECTED, opt, value);
        return -1;
    }
    *(const char **)dst = value;
    return 0;
}

/* defect's options take the last value given (OPTF_REPEAT), as they always
 * did: scripts append an option to override an earlier one */
#define DO(f) offsetof(struct dopts, f)
static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = DO(mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_ENUM, .name = "integrator", .off = DO(integrator), .arg = "I",
     .names = integrator_names, .flags = OPTF_OR_LIST | OPTF_REPEAT,
     .help = "euler (one forward Euler step per macro step, the paper's), exact (matrix "
             "exponential; linear models) or cvode (BDF); required unless every unit is "
             "an FMU (which integrates itself: then 'integrator fmu')"},
    {.kind = OPTK_POSITIVE, .name = "rtol", .flags = OPTF_REPEAT, .off = DO(rtol), .arg = "R",
     .help = "CVODE relative tolerance (default 1e-10)"},
    {.kind = OPTK_INT, .name = "in-order", .flags = OPTF_REPEAT, .off = DO(in_order), .arg = "M",
     .imin = 0,
     .imax = DEFECT_ORDER_MAX, .help = "input (extrapolation) order, 0..2"},
    {.kind = OPTK_INT, .name = "out-order", .flags = OPTF_REPEAT, .off = DO(out_order), .arg = "N",
     .imin = 0,
     .imax = DEFECT_ORDER_MAX, .help = "output derivative order, 0..2"},
    {.kind = OPTK_CUSTOM, .fn = value_text, .name = "dt", .flags = OPTF_REPEAT, .off = DO(dt),
     .arg = "H", .excludes = "tol",
     .help = "fixed macro step [s], or a sweep LO:HI:log|lin:N"},
    {.kind = OPTK_CUSTOM, .fn = value_text, .name = "tol", .flags = OPTF_REPEAT, .off = DO(tol),
     .arg = "TOL", .help = "defect tolerance, or a sweep LO:HI:log|lin:N"},
    {.kind = OPTK_POSITIVE, .name = "h0", .flags = OPTF_REPEAT, .off = DO(h0), .arg = "H0",
     .requires = "tol",
     .requires_why = "the first step of a controlled run",
     .help = "first macro step of a controlled run (default 1e-4)"},
    {.kind = OPTK_POSITIVE, .name = "tend", .flags = OPTF_REPEAT, .off = DO(tend), .arg = "T",
     .help = "horizon [s] (default: the model's; 1 s for rotational-defect)"},
    {.kind = OPTK_ENUM, .name = "control", .off = DO(control), .arg = "C",
     .names = control_names, .flags = OPTF_OR_LIST | OPTF_REPEAT,
     .help = "defects the controller sees: both (default), output, connection"},
    {.kind = OPTK_SIZE, .name = "max-steps", .flags = OPTF_REPEAT, .off = DO(max_steps),
     .arg = "N",
     .help = "stop a run after N macro steps (default 1000000; every step is kept, so this "
             "bounds the memory too)"},
    {.kind = OPTK_POSITIVE, .name = "hmin", .flags = OPTF_REPEAT, .off = DO(hmin), .arg = "H",
     .requires = "tol",
     .requires_why = "the floor of a controlled run's step",
     .help = "stop a controlled run when its next step is below H > 0 [s] (default 1e-12)"},
    {.kind = OPTK_PATH, .name = "output", .flags = OPTF_REPEAT, .short_name = 'o',
     .off = DO(output), .arg = "DIR",
     .help = "write the files into DIR (created; files there replaced)"},
    {.kind = OPTK_ENUM, .name = "plot", .off = DO(plot), .arg = "FMT", .names = plot_names,
     .flags = OPTF_OR_LIST | OPTF_REPEAT,
     .help = "also render the plots with gnuplot: png or svg (without -o the files go to the "
             "current directory and existing ones are kept)"},
    {.kind = OPTK_SIZE, .name = "max-points", .flags = OPTF_REPEAT, .off = DO(max_points),
     .arg = "N", .help = "refuse sweeps of more than N points (default 10000)"},
    {.kind = OPTK_FLAG, .name = "paper", .off = DO(paper),
     .help = "the paper's figures (needs -o)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef DO

/* Returns CLI_OK, CLI_EUSAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct dopts *o)
{
    o->integrator = o->control = o->plot = -1;
    o->rtol = o->h0 = o->tend = o->hmin = NAN;
    o->in_order = o->out_order = -1;
    return cli_parse_rows(cmd, rows, o, NULL, argc, argv, usage);
}

/* --in-order or --out-order: required (besides --paper). */
static int need_order(const char *opt, long v)
{
    if (v >= 0)
        return CLI_OK;
    cli_error(cmd, "%s is required (0..%d; see 'cosa %s --help')", opt, DEFECT_ORDER_MAX, cmd);
    return CLI_EUSAGE;
}

/* "V" (one value, *n = 1) or "LO:HI:log|lin:N" (a sweep, *sweep = 1; its
 * text checked by value_text): a new array of positive finite values.  The
 * sweep is refused as map's and curve's axes are (scli_range): more points
 * than the cap (--max-points, default DEFECT_SWEEP_MAX), LO = HI with N >= 2,
 * N = 1 with HI != LO, neighbours that are the same double. */
static int parse_values(const char *opt, const char *text, size_t cap, double **v, size_t *n,
                        int *sweep)
{
    *v = NULL;
    *n = 0;
    *sweep = strchr(text, ':') != NULL;
    if (!*sweep) {
        double x;
        if (cli_positive(cmd, opt, text, &x) != CLI_OK)
            return CLI_EUSAGE;
        if (!(*v = malloc(sizeof(double)))) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        (*v)[0] = x;
        *n = 1;
        return CLI_OK;
    }
    cosa_sweep_axis ax;
    char msg[1024];
    if (scli_range(opt, text, cap, &ax, msg, sizeof msg) != 0) {
        cli_error(cmd, "%s", msg);
        return CLI_EUSAGE;
    }
    const size_t count = ax.n;
    const double lo = ax.lo, hi = ax.hi;
    if (!(*v = malloc(count * sizeof(double)))) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    /* (the values as defect always computed them: its tables stay the same) */
    for (size_t k = 0; k < count; k++) {
        const double s = count > 1 ? (double)k / (double)(count - 1) : 0.0;
        (*v)[k] = k + 1 == count ? hi
                  : ax.log       ? exp(log(lo) + s * (log(hi) - log(lo)))
                                 : lo + s * (hi - lo);
    }
    *n = count;
    return CLI_OK;
}

/* ---- the model as units -------------------------------------------------- */

/* The units of one model and integrator, created once and reused by every
 * run (the defect run sets their states from x0). */
struct dmodel {
    const cosa_model *m;
    const double *par;
    cosa_system *sys;   /* linear form (exact units) or NULL                    */
    const cosa_system *exact; /* the error reference: sys, but NULL with a black box */
    size_t nbb;         /* black boxes (their names in bbn)                      */
    char bbn[128];
    cosa_odesys *os;    /* ODE form for euler / cvode units                      */
    cosa_model_units *mu; /* the units and their set (models/unitset_build.c)     */
    size_t nsub, nx, nu, ny;
    cosa_unitset *set;    /* mu's                                                 */
    double *x0;
    const char *integ;  /* "euler", "exact", "cvode"                            */
    char (*yname)[NAME_LEN], (*uname)[NAME_LEN];
    cosa_observer init_obs; /* the initialization loop again at the run's start */
    size_t nobs;
};

static void dm_free(struct dmodel *d)
{
    cosa_model_units_free(d->mu); /* the units and their set */
    cosa_odesys_free(d->os);
    cosa_system_free(d->sys);
    free(d->x0);
    free(d->yname);
    free(d->uname);
    memset(d, 0, sizeof *d);
}

static void signal_name(char *buf, const char *name, const char *prefix, size_t k)
{
    if (name)
        snprintf(buf, NAME_LEN, "%s", name);
    else
        snprintf(buf, NAME_LEN, "%s%zu", prefix, k + 1);
}

/* Units of the resolved model cm for integrator integ ("euler", "exact",
 * "cvode"; rtol for cvode).  Forward Euler takes one step per macro step
 * (the paper's, eqs 45-47): its micro step is longer than any macro step. */
static int dm_build(cli_model *cm, const char *integ, double rtol, struct dmodel *d)
{
    memset(d, 0, sizeof *d);
    d->m = cm->model;
    d->par = cm->par;
    d->integ = integ;
    const int exact = strcmp(integ, "exact") == 0;
    cosa_integrator in;
    if (cosa_integrator_parse(integ, &in) != COSA_OK)
        return CLI_EUSAGE; /* checked by the caller */
    in.rtol = rtol;
    if (in.kind == COSA_INTEGRATOR_EULER)
        in.hmicro = DBL_MAX;
    int rc;
    if (cosa_model_is_linear(d->m)) {
        if ((rc = cli_model_system(cm, cmd, &d->sys)) != CLI_OK)
            return rc;
        d->nsub = cosa_system_nsub(d->sys);
        d->nx = cosa_system_nx(d->sys);
        d->nu = cosa_system_nu(d->sys);
        d->ny = cosa_system_ny(d->sys);
    } else {
        if (exact) {
            cli_error(cmd, "--integrator exact needs a linear model; '%s' is nonlinear (use "
                           "euler or cvode)", d->m->name);
            return CLI_EUSAGE;
        }
        if ((rc = cli_model_odesys(cm, cmd, &d->os)) != CLI_OK)
            return rc;
        if (cosa_odesys_coupling(d->os)) {
            cli_error(cmd, "model '%s' couples its units through coupling variables u = phi(y) "
                           "(a force/force split): cosa defect runs u = L y couplings only (use "
                           "cosa simulate --coupling)", d->m->name);
            return CLI_EUSAGE;
        }
        d->nsub = cosa_odesys_nsub(d->os);
        d->nx = cosa_odesys_nx(d->os);
        d->nu = cosa_odesys_nu(d->os);
        d->ny = cosa_odesys_ny(d->os);
    }
    if ((rc = cli_need_outputs(cm, cmd, d->ny)) != CLI_OK ||
        (rc = cli_model_x0(cm, cmd, d->nx, &d->x0)) != CLI_OK)
        return rc;
    d->yname = calloc(d->ny ? d->ny : 1, sizeof *d->yname);
    d->uname = calloc(d->nu ? d->nu : 1, sizeof *d->uname);
    if (!d->yname || !d->uname) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    /* black boxes (identified FMUs): they run without states; the output
     * polynomials of order >= 1 need output derivatives (checked with the
     * orders, dm_blackbox), and the error the exact solution from their
     * hidden initial state: none (doc/simulate-black-box.md) */
    d->nbb = sim_blackbox_names(d->m, d->nsub, d->bbn, sizeof d->bbn);
    d->exact = d->nbb ? NULL : d->sys;
    /* the error columns compare with the linear form: for FMUs their
     * linearisation, a reference only for linear FMUs */
    char why[256];
    if (!fmu_network_linear(d->m, d->par, why, sizeof why)) {
        cli_error(cmd, "%s: the defect run's exact solution is the linearised network (linear "
                       "FMUs only)", why);
        return CLI_EUSAGE;
    }
    /* the units (models/unitset_build.c): a model file's FMUs run
     * themselves; the mid-step sample of the output defect comes from unit
     * snapshots, so an FMU needs its state */
    const cosa_model_units_opts uo = {.integ = &in, .sys = d->sys, .os = d->os,
                                      .need = COSA_MODEL_UNITS_NEED_STATE};
    cosa_model_units_error e;
    cosa_status st = cosa_model_units_create(d->m, d->par, &uo, &d->mu, &e);
    if (st != COSA_OK && e.fmu) {
        if (e.missing)
            cli_error(cmd, "%s: the defect run needs the FMU's state (canGetAndSetFMUState): "
                           "it samples the mid-step outputs through snapshots", e.fmu);
        else
            cli_error(cmd, "%s: %s", e.fmu, e.msg);
        return e.missing || st == COSA_EFMU ? CLI_EUSAGE : CLI_EFAIL;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "cannot create the units of '%s': %s", d->m->name, cosa_strerror(st));
        return CLI_EFAIL;
    }
    d->set = cosa_model_units_set(d->mu);
    if ((rc = sim_blackbox_x0(cmd, d->sys, d->set, &d->x0, NULL)) != CLI_OK)
        return rc;
    for (size_t k = 0; k < d->ny; k++)
        signal_name(d->yname[k], d->m->output_name ? d->m->output_name(d->m, d->par, k) : NULL,
                    "y", k);
    for (size_t k = 0; k < d->nu; k++)
        signal_name(d->uname[k], d->m->input_name ? d->m->input_name(d->m, d->par, k) : NULL,
                    "u", k);
    return CLI_OK;
}

/* ---- FMUs: input smoothness, initialization loop ------------------------------ */

/* The FMUs' input smoothness rule (README "FMU import", as simulate's): the
 * inputs are Taylor polynomials of degree min(M, N), at most K for an FMU
 * with recommendedIntermediateInputSmoothness K >= 1 (one line, CLI_EUSAGE);
 * then FMUs in an algebraic loop iterated in Initialization Mode at t = 0
 * (analysis/sim_init.c: its lines, and the one-line refusal of a loop
 * without a fixed point). */
static int dm_fmu_start(struct dmodel *d, int m, int n, sim_init *init)
{
    cosa_fmu *const *fmus = cosa_model_units_fmus(d->mu);
    if (!fmus || !cosa_model_units_nfmu(d->mu))
        return CLI_OK;
    if (sim_fmu_no_clocks(cmd, fmus, d->m, d->par, d->nsub, "the defect run") != CLI_OK)
        return CLI_EUSAGE;
    cosa_unit *const *units = cosa_model_units_units(d->mu);
    cosa_scheme s;
    cosa_scheme_parse("zoh", &s);
    s.order = m < n ? m : n; /* the input polynomial's degree */
    for (size_t i = 0; i < d->nsub; i++) {
        cosa_fmu_capability cap;
        char why[256];
        if (!fmus[i])
            continue;
        cosa_fmu_capability_get(fmus[i], &cap);
        if (cosa_fmu_smoothness_check(&cap, cosa_unit_nu(units[i]), &s, why, sizeof why) ==
            COSA_OK)
            continue;
        const char *name = d->m->sub_name ? d->m->sub_name(d->m, d->par, i) : NULL;
        cli_error(cmd, "--in-order %d --out-order %d: FMU %s: %s; use min(M, N) <= %d", m, n,
                  name ? name : "?", why, cosa_fmu_smoothness_degree(cap.smoothness));
        return CLI_EUSAGE;
    }
    int rc = sim_init_run(cmd, d->m, d->par, d->set, d->x0, init);
    if (rc == CLI_OK && init->res.loop) { /* every run instantiates the FMUs again at
                                             t = 0: the loop is iterated there too */
        d->init_obs = (cosa_observer){sim_init_observe, NULL, init};
        d->nobs = 1;
    }
    return rc;
}

/* ---- runs ------------------------------------------------------------------ */

struct dspec {
    int m, n;
    double H, tol, h0, tend; /* H > 0: fixed steps; else tol > 0 */
    cosa_defect_control control;
    size_t max_steps;        /* 0: the library's default */
    double hmin;
};

/* Black boxes (d->nbb): their output polynomials are the outputs
 * themselves at order 0; of order >= 1 they need output derivatives
 * C x' + D u' over hidden states: one line, exit 2. */
static int dm_blackbox(const struct dmodel *d, const struct dspec *sp)
{
    if (!d->nbb || sp->n == 0)
        return CLI_OK;
    cli_error(cmd, "black box%s %s declare%s no states: the defect estimate needs the output "
                   "derivatives C x' + D u', which a black box does not give (--out-order 0 "
                   "needs none)", d->nbb > 1 ? "es" : "", d->bbn, d->nbb > 1 ? "" : "s");
    return CLI_EUSAGE;
}

/* One run through the one entry point (issue 23): the run description is
 * validated once, by the library.  *res (free with cosa_run_result_free)
 * holds the defect run's figures in (*res)->defect. */
static int run_one(struct dmodel *d, const struct dspec *sp, cosa_run_result **res)
{
    cosa_run_opts ro;
    cosa_run_opts_default(&ro);
    ro.kind = COSA_RUN_DEFECT;
    /* fixed steps of --dt, or the "pi" controller from --h0 to --tol */
    const int ctl = !(sp->H > 0.0);
    ro.H = ctl ? sp->h0 : sp->H;
    ro.tend = sp->tend;
    ro.controller = ctl ? cosa_controller_lookup("pi") : NULL;
    if (ctl)
        ro.tol = sp->tol;
    ro.max_steps = sp->max_steps;
    ro.hmin = sp->hmin > 0.0 ? sp->hmin : COSA_DEFECT_HMIN;
    ro.observers = d->nobs ? &d->init_obs : NULL;
    ro.nobservers = d->nobs;
    ro.defect = (cosa_run_defect_opts){.in_order = sp->m, .out_order = sp->n,
                                       .control = sp->control};
    const cosa_run_ref ref = {.x0 = d->x0, .exact = d->exact};
    *res = NULL;
    cosa_status st = cosa_run(d->set, &ro, &ref, res);
    if (st != COSA_OK) {
        /* an error of a unit (a broken FMU, README "Failures"): its own line */
        const char *why = "";
        for (size_t i = 0; i < cosa_unitset_count(d->set) && !why[0]; i++)
            why = cosa_unit_message(cosa_unitset_unit(d->set, i));
        if (why[0])
            cli_error(cmd, "co-simulation failed: %s", why);
        else
            cli_error(cmd, "the defect run failed: %s", cosa_strerror(st));
        return st == COSA_ERANGE || st == COSA_EINVAL ? CLI_EUSAGE : CLI_EFAIL;
    }
    return CLI_OK;
}

/* Columns of a sweep table (1-based, as gnuplot counts) */
enum { COL_X = 1, COL_STATUS, COL_STEPS, COL_TEND, COL_HMIN, COL_HAVG, COL_HMAX, COL_EPS,
       COL_SIGNALS };
static size_t col_defect_out(const struct dmodel *d, size_t k) { (void)d; return COL_SIGNALS + k; }
static size_t col_error(const struct dmodel *d, size_t k) { return COL_SIGNALS + d->ny + k; }
static size_t col_defect_conn(const struct dmodel *d, size_t k) { return COL_SIGNALS + 3 * d->ny + k; }

/* The names of a sweep table's columns: the swept quantity, the run's
 * figures, every output's defect, error and end value, every connection's
 * defect. */
static void table_names(csv_names *l, const struct dmodel *d, const char *xname)
{
    static const char *const fixed[] = {"status", "steps", "t_end",  "h_min",
                                        "h_avg",  "h_max", "eps_max"};
    static const char *const q[] = {"defect_out", "error", "y_end"};
    csv_names_add(l, "%s", xname);
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        csv_names_add(l, "%s", fixed[i]);
    for (int j = 0; j < 3; j++)
        for (size_t k = 0; k < d->ny; k++)
            csv_names_add(l, "%s_%s", q[j], d->yname[k]);
    for (size_t k = 0; k < d->nu; k++)
        csv_names_add(l, "defect_conn_%s", d->uname[k]);
}

/* The next cell of a row: v with %.17g into the cell's 32 bytes of buf. */
static void num_cell(char *buf, const char **cells, size_t *k, double v)
{
    snprintf(buf + 32 * *k, 32, "%.17g", v);
    cells[*k] = buf + 32 * *k;
    (*k)++;
}

/* A sweep table's row, in the order of table_names: the status a word, the
 * other cells numbers. */
static void table_cells(const struct dmodel *d, double x, const cosa_defect_result *r, char *buf,
                        const char **cells)
{
    size_t k = 0;
    num_cell(buf, cells, &k, x);
    cells[k++] = cosa_defect_end_name(r->end);
    const double fig[] = {(double)r->nsteps, r->t_end, r->h_min, r->h_avg, r->h_max, r->eps_max};
    for (size_t i = 0; i < sizeof fig / sizeof *fig; i++)
        num_cell(buf, cells, &k, fig[i]);
    const double *q[] = {r->defect_out, r->error, r->y_end};
    for (int j = 0; j < 3; j++)
        for (size_t i = 0; i < d->ny; i++)
            num_cell(buf, cells, &k, q[j][i]);
    for (size_t i = 0; i < d->nu; i++)
        num_cell(buf, cells, &k, r->defect_conn[i]);
}

static void print_run(const struct dmodel *d, const cosa_defect_result *r)
{
    /* the statistics every time-domain run prints (issue 23, run_stats.h):
     * Algorithm 1 of the defect paper accepts every step (the controller
     * only sets the next): rejected 0 */
    run_stats_view v;
    run_stats_view_of(&v, &r->run, d->set);
    v.status = r->failed ? cosa_defect_end_name(r->end) : "ok";
    v.t = r->failed ? r->t_failed : NAN;
    v.reason = r->failed ? r->reason : NULL;
    v.steps = r->nsteps;
    v.h_min = r->h_min;
    v.h_max = r->h_max;
    run_stats_print(stdout, &v, RUN_STATS_STATUS | RUN_STATS_STEPS);
    printf("t_end %.17g\n", r->t_end);
    run_stats_print(stdout, &v, RUN_STATS_H_MIN);
    printf("h_avg %.17g\n", r->h_avg);
    run_stats_print(stdout, &v, RUN_STATS_H_MAX);
    printf("eps_max %.17g\n", r->eps_max);
    for (size_t k = 0; k < d->ny; k++)
        printf("defect_out_%s %.17g\n", d->yname[k], r->defect_out[k]);
    for (size_t k = 0; k < d->ny; k++)
        printf("error_%s %.17g\n", d->yname[k], r->error[k]);
    for (size_t k = 0; k < d->ny; k++)
        printf("y_end_%s %.17g\n", d->yname[k], r->y_end[k]);
    for (size_t k = 0; k < d->nu; k++)
        printf("defect_conn_%s %.17g\n", d->uname[k], r->defect_conn[k]);
    run_stats_print(stdout, &v, RUN_STATS_REJECTED | RUN_STATS_NEW);
}

/* ---- files ------------------------------------------------------------------- */

static void header(FILE *f, const struct dmodel *d, const struct dspec *sp, const char *swept)
{
    scli_header(f, cmd, d->m, d->par, NULL, 0);
    char b1[32], b2[32]; /* settings: the shortest form that reads back (cosa_number_text) */
    fprintf(f, "# integrator %s%s\n# in_order %d\n# out_order %d\n# control %s\n# tend %s\n",
            d->integ, strcmp(d->integ, "euler") == 0 ? " (one step per macro step)" : "", sp->m,
            sp->n, control_names[sp->control], cosa_number_text(b1, sizeof b1, sp->tend));
    if (swept && strcmp(swept, "dt") == 0)
        fprintf(f, "# dt (swept)\n");
    else if (swept)
        fprintf(f, "# tol (swept)\n# h0 %s\n", cosa_number_text(b1, sizeof b1, sp->h0));
    else if (sp->H > 0.0)
        fprintf(f, "# dt %s\n", cosa_number_text(b1, sizeof b1, sp->H));
    else
        fprintf(f, "# tol %s\n# h0 %s\n", cosa_number_text(b1, sizeof b1, sp->tol),
                cosa_number_text(b2, sizeof b2, sp->h0));
    fprintf(f, "# reference %s\n", d->exact ? "exact (matrix exponential of the monolithic system)"
                                   : d->nbb ? "none (black boxes hide their initial state: errors are nan)"
                                            : "none (nonlinear model: errors are nan)");
}

/* Per-step CSV of a run: t (end of the step), H, eps, the per-step RMS of
 * every output and connection defect, every output's y^(j)(t_{k+1}). */
static int write_steps(const char *path, const struct dmodel *d, const struct dspec *sp,
                       const cosa_defect_result *r)
{
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0)
        return CLI_EFAIL;
    FILE *f = csv_out_stream(&c);
    header(f, d, sp, NULL);
    fprintf(f, "# status %s\n# columns: t end of the macro step [s]; H its length; eps the "
               "controlled defect (eq 38); out.Y per-step RMS of the output defect; conn.U "
               "per-step RMS of the connection defect; Y.dJ the output polynomial's "
               "coefficient y^(J)(t)\n",
            cosa_defect_end_name(r->end));
    const size_t ny = d->ny, nu = d->nu, nc = (size_t)r->out_order + 1;
    csv_out_name(&c, "t");
    csv_out_name(&c, "H");
    csv_out_name(&c, "eps");
    for (size_t k = 0; k < ny; k++)
        csv_out_name(&c, "out.%s", d->yname[k]);
    for (size_t k = 0; k < nu; k++)
        csv_out_name(&c, "conn.%s", d->uname[k]);
    for (size_t k = 0; k < ny; k++)
        for (size_t j = 0; j < nc; j++)
            csv_out_name(&c, "%s.d%zu", d->yname[k], j);
    if (csv_out_columns(&c) != 0)
        return csv_out_close(&c, CLI_OK);
    for (size_t s = 0; s < r->nsteps; s++) {
        double *v = c.rec;
        *v++ = r->t[s], *v++ = r->h[s], *v++ = r->eps[s];
        for (size_t k = 0; k < ny; k++)
            *v++ = r->step_out[k + s * ny];
        for (size_t k = 0; k < nu; k++)
            *v++ = r->step_conn[k + s * nu];
        for (size_t k = 0; k < ny; k++)
            for (size_t j = 0; j < nc; j++)
                *v++ = r->coef[k + j * ny + s * ny * nc];
        csv_out_record(&c);
    }
    return csv_out_close(&c, CLI_OK);
}

/* The columns t and every output's name. */
static int output_columns(csv_out *c, const struct dmodel *d)
{
    csv_out_name(c, "t");
    for (size_t k = 0; k < d->ny; k++)
        csv_out_name(c, "%s", d->yname[k]);
    return csv_out_columns(c);
}

/* The output polynomials Y(s) = sum_j y^(j)(t_{k+1}) (s - t_{k+1})^j / j!
 * sampled within every step (2 points for n = 0, 9 otherwise), a blank line
 * after every step so that gnuplot draws each step's piece on its own. */
static int write_poly(const char *path, const struct dmodel *d, const struct dspec *sp,
                      const cosa_defect_result *r)
{
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0)
        return CLI_EFAIL;
    header(csv_out_stream(&c), d, sp, NULL);
    tw_comment(&c.w, "the output polynomial of every macro step sampled within it (a blank line "
                     "between steps)");
    if (output_columns(&c, d) != 0)
        return csv_out_close(&c, CLI_OK);
    const size_t ny = d->ny, nc = (size_t)r->out_order + 1, np = nc == 1 ? 2 : 9;
    for (size_t s = 0; s < r->nsteps; s++) {
        const double t1 = r->t[s], t0 = t1 - r->h[s];
        for (size_t i = 0; i < np; i++) {
            const double t = i + 1 == np ? t1 : t0 + (t1 - t0) * (double)i / (double)(np - 1);
            const double dt = t - t1;
            c.rec[0] = t;
            for (size_t k = 0; k < ny; k++) {
                double y = 0.0, pw = 1.0;
                for (size_t j = 0; j < nc; j++) {
                    y += r->coef[k + j * ny + s * ny * nc] * pw;
                    pw *= dt / (double)(j + 1);
                }
                c.rec[1 + k] = y;
            }
            csv_out_record(&c);
        }
        csv_out_block_end(&c);
    }
    return csv_out_close(&c, CLI_OK);
}

/* The exact monolithic solution y*(t) = C* e^{A* t} x0 at 2000 intervals. */
static int write_exact(const char *path, const struct dmodel *d, double tend)
{
    const size_t N = 2000;
    cosa_reftraj *ref = NULL;
    cosa_status st = cosa_reftraj_exact(d->exact, d->x0, tend / (double)N, N + 1, &ref);
    if (st != COSA_OK) {
        cli_error(cmd, "the exact solution failed: %s", cosa_strerror(st));
        return CLI_EFAIL;
    }
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0) {
        cosa_reftraj_free(ref);
        return CLI_EFAIL;
    }
    scli_header(csv_out_stream(&c), cmd, d->m, d->par, NULL, 0);
    tw_comment(&c.w, "exact monolithic solution y*(t) = C* exp(A* t) x0");
    if (output_columns(&c, d) == 0)
        for (size_t i = 0; i <= N; i++) {
            c.rec[0] = tend * (double)i / (double)N;
            for (size_t k = 0; k < d->ny; k++)
                c.rec[1 + k] = ref->y[k + i * ref->ny];
            csv_out_record(&c);
        }
    cosa_reftraj_free(ref);
    return csv_out_close(&c, CLI_OK);
}

/* A list of scripts to render at the end. */
struct scripts {
    char *name[256];
    size_t n;
};

static void scripts_free(struct scripts *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->name[i]);
    s->n = 0;
}

static int script(const scli_out *out, struct scripts *list, const char *name, const char *tpl,
                  size_t n, const char *const *keys, const char *const *vals)
{
    char path[1024], base[300];
    int rc = scli_out_path(cmd, out, name, path, sizeof path);
    if (rc == CLI_OK)
        rc = scli_write_script(cmd, path, tpl, n, keys, vals);
    if (rc != CLI_OK)
        return rc;
    /* -o DIR: no picture of an earlier run next to this run's data (with
     * --plot the script is drawn afresh; without, its picture would be stale) */
    snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - 3), name);
    scli_remove_pictures(out, base);
    printf("file %s\n", path);
    if (list && list->n < sizeof list->name / sizeof list->name[0] &&
        !(list->name[list->n] = strdup(name))) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    if (list)
        list->n++;
    return CLI_OK;
}

/* Appends to a word list (space separated) of a script field. */
static void add_word(char *buf, size_t size, const char *w)
{
    size_t len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", len ? " " : "", w);
}

/* A log-log script of curves (file, column, title) from sweep tables. */
static int sweep_script(const scli_out *out, struct scripts *list, const char *gp,
                        const char *files, const char *cols, const char *titles,
                        const char *xlabel, const char *ylabel, const char *title, int diag,
                        const char *about)
{
    char base[256], comment[1024];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(gp) - 3), gp);
    snprintf(comment, sizeof comment, "# cosa %s defect: %s\n# data: %s", cosa_version(), about,
             files);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES", "COLS", "TITLES", "DIAG",
                          "XLABEL", "YLABEL", "TITLE"};
    const char *vals[] = {comment, gp, base, files, cols, titles, diag ? "1" : "0",
                          xlabel, ylabel, title};
    return script(out, list, gp, cosa_plot_defect_sweep, 10, keys, vals);
}

static int steps_script(const scli_out *out, struct scripts *list, const char *gp,
                        const char *files, const char *titles, double tol, const char *title)
{
    char base[256], comment[1024], tols[64];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(gp) - 3), gp);
    snprintf(comment, sizeof comment, "# cosa %s defect: macro steps and controlled defect "
                                      "vs time\n# data: %s", cosa_version(), files);
    snprintf(tols, sizeof tols, "%.17g", tol);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES", "TITLES", "TOL", "TITLE"};
    const char *vals[] = {comment, gp, base, files, titles, tols, title};
    return script(out, list, gp, cosa_plot_defect_steps, 7, keys, vals);
}

static int response_script(const scli_out *out, struct scripts *list, const char *gp,
                           const struct dmodel *d, const char *files, const char *titles,
                           const char *exact, const char *title)
{
    char base[256], comment[1024], names[1024] = "";
    snprintf(base, sizeof base, "%.*s", (int)(strlen(gp) - 3), gp);
    snprintf(comment, sizeof comment, "# cosa %s defect: output polynomials vs time\n# data: %s %s",
             cosa_version(), files, exact);
    for (size_t k = 0; k < d->ny; k++)
        add_word(names, sizeof names, d->yname[k]);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES", "TITLES", "NAMES", "EXACT",
                          "TITLE"};
    const char *vals[] = {comment, gp, base, files, titles, names, exact, title};
    return script(out, list, gp, cosa_plot_defect_response, 8, keys, vals);
}

/* Data files of one run (BASE.csv, BASE_poly.csv, BASE_exact.csv when the
 * model has an exact solution); *exact_name receives the latter's name or "". */
static int write_run_files(const scli_out *out, const char *base, const struct dmodel *d,
                           const struct dspec *sp, const cosa_defect_result *r, int want_exact,
                           char *exact_name, size_t exact_size)
{
    char name[300], path[1024];
    int rc;
    snprintf(name, sizeof name, "%s.csv", base);
    if ((rc = scli_out_path(cmd, out, name, path, sizeof path)) != CLI_OK ||
        (rc = write_steps(path, d, sp, r)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    snprintf(name, sizeof name, "%s_poly.csv", base);
    if ((rc = scli_out_path(cmd, out, name, path, sizeof path)) != CLI_OK ||
        (rc = write_poly(path, d, sp, r)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    if (d->exact && want_exact) {
        snprintf(exact_name, exact_size, "%s_exact.csv", base);
        if ((rc = scli_out_path(cmd, out, exact_name, path, sizeof path)) != CLI_OK ||
            (rc = write_exact(path, d, sp->tend)) != CLI_OK)
            return rc;
        printf("file %s\n", path);
    }
    return CLI_OK;
}

/* ---- single runs and sweeps ---------------------------------------------------- */

static void describe(char *buf, size_t size, const struct dmodel *d, const struct dspec *sp)
{
    if (sp->H > 0.0)
        snprintf(buf, size, "%s, %s, m = %d, n = %d, H = %g s", d->m->name, d->integ, sp->m,
                 sp->n, sp->H);
    else
        snprintf(buf, size, "%s, %s, m = %d, n = %d, tol = %g, h0 = %g s", d->m->name, d->integ,
                 sp->m, sp->n, sp->tol, sp->h0);
}

static int single(struct dmodel *d, const struct dspec *sp, const char *outdir,
                  const char *plot)
{
    cosa_run_result *run = NULL;
    int rc = run_one(d, sp, &run);
    if (rc != CLI_OK)
        return rc;
    const cosa_defect_result *r = run->defect;
    print_run(d, r);
    fflush(stdout);
    if (outdir || plot) {
        scli_out out = {.dir = outdir};
        struct scripts list = {0};
        char base[256], exact[300] = "", gp[300], files[300], title[256];
        snprintf(base, sizeof base, "%s_%s_m%d_n%d", d->m->name, d->integ, sp->m, sp->n);
        describe(title, sizeof title, d, sp);
        if ((rc = scli_out_prepare(cmd, &out)) == CLI_OK &&
            (rc = write_run_files(&out, base, d, sp, r, 1, exact, sizeof exact)) == CLI_OK) {
            snprintf(files, sizeof files, "%s_poly.csv", base);
            snprintf(gp, sizeof gp, "%s_response.gp", base);
            rc = response_script(&out, &list, gp, d, files, base, exact, title);
        }
        if (rc == CLI_OK) {
            snprintf(files, sizeof files, "%s.csv", base);
            snprintf(gp, sizeof gp, "%s_steps.gp", base);
            rc = steps_script(&out, &list, gp, files, base, sp->H > 0.0 ? 0.0 : sp->tol, title);
        }
        if (rc == CLI_OK && plot) {
            fflush(stdout);
            rc = scli_gnuplot_many(cmd, out.dir, list.name, list.n, plot, 4);
            for (size_t i = 0; rc == CLI_OK && i < list.n; i++)
                printf("file %s/%.*s.%s\n", out.dir, (int)(strlen(list.name[i]) - 3),
                       list.name[i], plot);
        }
        scripts_free(&list);
    }
    const int failed = r->failed;
    if (r->end == COSA_DEFECT_END_MAX_STEPS)
        cli_error(cmd, "stopped after %zu macro steps (--max-steps) at t = %.15g of T = %.15g",
                  r->nsteps, r->t_failed, sp->tend);
    else if (r->end == COSA_DEFECT_END_HMIN)
        cli_error(cmd, "the macro step fell below --hmin %g at t = %.15g of T = %.15g", sp->hmin,
                  r->t_failed, sp->tend);
    cosa_run_result_free(run);
    /* a run that stopped short of T is a result (README "Failures"): its
     * files are complete, and the command exits 0 */
    if (rc == CLI_OK && failed)
        rc = outfile_publish(cmd);
    return rc;
}

/* A sweep over H (what = "dt") or tol ("tol"): the table to f (may be NULL)
 * and to the CSV file path (may be NULL).  *nfailed counts failed runs. */
static int sweep_table(struct dmodel *d, const struct dspec *base, const char *what,
                       const double *v, size_t nv, FILE *f, const char *path, size_t *nfailed)
{
    csv_names names = {0};
    table_names(&names, d, what);
    const size_t nc = names.n;
    char *buf = names.err ? NULL : malloc(32 * nc);
    const char **cells = buf ? malloc(nc * sizeof *cells) : NULL;
    int rc = CLI_OK;
    tw w = {0};
    csv_out c;
    if (!cells || (f && tw_begin(&w, f, TW_TEXT, TW_REPORT, cmd, NULL, NULL) != 0)) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    } else if (path && csv_out_open(&c, cmd, path) != 0) {
        rc = CLI_EFAIL;
        path = NULL;
    } else if (path) {
        header(csv_out_stream(&c), d, base, what);
        for (size_t k = 0; k < nc; k++)
            csv_out_name(&c, "%s", names.v[k]);
        if (csv_out_columns(&c) != 0) {
            rc = csv_out_close(&c, CLI_OK); /* out of memory: one line */
            path = NULL;
        }
    }
    if (rc == CLI_OK && f)
        tw_table(&w, (const char *const *)names.v, nc);
    *nfailed = 0;
    for (size_t i = 0; i < nv && rc == CLI_OK; i++) {
        struct dspec sp = *base;
        if (strcmp(what, "dt") == 0)
            sp.H = v[i];
        else
            sp.tol = v[i], sp.H = 0.0;
        cosa_run_result *run = NULL;
        if ((rc = run_one(d, &sp, &run)) != CLI_OK)
            break;
        const cosa_defect_result *r = run->defect;
        *nfailed += r->failed != 0;
        table_cells(d, v[i], r, buf, cells);
        if (f)
            tw_row_words(&w, cells, nc), fflush(f);
        if (path)
            csv_out_words(&c, cells);
        cosa_run_result_free(run);
    }
    if (path)
        rc = csv_out_close(&c, rc);
    if (w.f)
        tw_end(&w); /* stdout: its writes are checked at the exit */
    csv_names_free(&names);
    free(buf);
    free(cells);
    return rc;
}

/* The scripts of one sweep table: defects and errors vs H or tol, and for
 * tol sweeps the mean step. */
static int sweep_scripts(const scli_out *out, struct scripts *list, const struct dmodel *d,
                         const char *base, const char *csv, const char *what, const char *title)
{
    const int tol = strcmp(what, "tol") == 0;
    const char *xlabel = tol ? "tolerance tol" : "macro step H [s]";
    char files[4096], cols[1024], titles[2048], gp[300], num[32], about[256];
    static const char *const kinds[] = {"defect_out", "defect_conn", "error", "h_avg"};
    static const char *const ylabels[] = {"output defect (run RMS)",
                                          "connection defect (run RMS)",
                                          "error (RMS vs exact solution)", "mean macro step [s]"};
    int rc = CLI_OK;
    for (int q = 0; q < (tol ? 4 : 3) && rc == CLI_OK; q++) {
        files[0] = cols[0] = titles[0] = '\0';
        const size_t ns = q == 1 ? d->nu : q == 3 ? 1 : d->ny;
        for (size_t k = 0; k < ns; k++) {
            const size_t c = q == 0 ? col_defect_out(d, k) : q == 1 ? col_defect_conn(d, k)
                             : q == 2 ? col_error(d, k) : COL_HAVG;
            snprintf(num, sizeof num, "%zu", c);
            add_word(files, sizeof files, csv);
            add_word(cols, sizeof cols, num);
            add_word(titles, sizeof titles, q == 1 ? d->uname[k] : q == 3 ? "h_avg" : d->yname[k]);
        }
        snprintf(gp, sizeof gp, "%s_%s.gp", base, kinds[q]);
        snprintf(about, sizeof about, "%s vs %s", kinds[q], what);
        rc = sweep_script(out, list, gp, files, cols, titles, xlabel, ylabels[q], title,
                          tol && q < 2, about);
    }
    return rc;
}

static int sweep(struct dmodel *d, const struct dspec *sp, const char *what, const double *v,
                 size_t nv, const char *outdir, const char *plot)
{
    scli_out out = {.dir = outdir};
    struct scripts list = {0};
    char base[256], csv[300], path[1024], title[256];
    snprintf(base, sizeof base, "%s_%s_m%d_n%d_%s_sweep", d->m->name, d->integ, sp->m, sp->n,
             what);
    snprintf(csv, sizeof csv, "%s.csv", base);
    int rc = CLI_OK, files = outdir || plot;
    if (files && ((rc = scli_out_prepare(cmd, &out)) != CLI_OK ||
                  (rc = scli_out_path(cmd, &out, csv, path, sizeof path)) != CLI_OK))
        return rc;
    size_t nfailed = 0;
    rc = sweep_table(d, sp, what, v, nv, stdout, files ? path : NULL, &nfailed);
    if (rc == CLI_OK && files) {
        printf("file %s\n", path);
        if (strcmp(what, "dt") == 0)
            snprintf(title, sizeof title, "%s, %s, m = %d, n = %d, T = %g s", d->m->name,
                     d->integ, sp->m, sp->n, sp->tend);
        else
            snprintf(title, sizeof title, "%s, %s, m = %d, n = %d, h0 = %g s, T = %g s",
                     d->m->name, d->integ, sp->m, sp->n, sp->h0, sp->tend);
        rc = sweep_scripts(&out, &list, d, base, csv, what, title);
        if (rc == CLI_OK && plot) {
            fflush(stdout);
            rc = scli_gnuplot_many(cmd, out.dir, list.name, list.n, plot, 4);
            for (size_t i = 0; rc == CLI_OK && i < list.n; i++)
                printf("file %s/%.*s.%s\n", out.dir, (int)(strlen(list.name[i]) - 3),
                       list.name[i], plot);
        }
    }
    scripts_free(&list);
    /* runs that stopped short of T are results (README "Failures"): a note */
    if (rc == CLI_OK && nfailed && (rc = outfile_publish(cmd)) == CLI_OK)
        cli_error(cmd, "note: %zu of %zu runs stopped short of T (status column)", nfailed, nv);
    return rc;
}

/* ---- the paper's figures ------------------------------------------------------- */

/* Defect paper section 4 (issue 12 "Done when"), rotational-defect:
 *   Fig 4a  responses, H = 1, T = 50, m = n = 0, 1, 2, with the exact solution
 *   Fig 4b  responses and step sizes, h0 = 1, tol = 0.005, T = 50
 *   Fig 5a, 5b, 6  output/connection defects and errors vs H = 10^(-3..0), 16 points, T = 1
 *   Fig 7, 8, 9, 10  the same and the mean step vs tol = 10^(-3..0), 16 points, h0 = 1e-4
 * for euler and exact, each for m = n (family "mn"), m = 0, n = 0..2 ("u0")
 * and n = 0, m = 0..2 ("y0"). */
static const int combos[][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 0}, {2, 0}};
#define NCOMBO (sizeof combos / sizeof combos[0])
static const struct {
    const char *name, *doc;
    int combo[3];
} families[] = {
    {"mn", "m = n", {0, 1, 2}},
    {"u0", "m = 0, n = 0..2", {0, 3, 4}},
    {"y0", "n = 0, m = 0..2", {0, 5, 6}},
};

/* Figs 4a and 4b of integrator in (the units dm): responses and steps. */
static int paper_fig4(scli_out *out, struct scripts *list, struct dmodel *dm, const char *in)
{
    int rc = CLI_OK;
    char base[300], files[4096], titles[2048], gp[300], title[256], exact[300], csv[400],
        tag[64];
    /* Fig 4a (fixed H = 1) and 4b (tol = 0.005, h0 = 1), T = 50, m = n */
    for (int fb = 0; fb < 2 && rc == CLI_OK; fb++) {
        files[0] = titles[0] = exact[0] = '\0';
        char sfiles[1024] = "";
        for (int mn = 0; mn <= 2 && rc == CLI_OK; mn++) {
            struct dspec sp = {.m = mn, .n = mn, .H = fb ? 0.0 : 1.0, .tol = 0.005,
                               .h0 = 1.0, .tend = 50.0, .control = COSA_DEFECT_BOTH};
            cosa_run_result *run = NULL;
            if ((rc = run_one(dm, &sp, &run)) != CLI_OK)
                break;
            const cosa_defect_result *r = run->defect;
            snprintf(base, sizeof base, "fig4%c_%s_m%d_n%d", fb ? 'b' : 'a', in, mn, mn);
            /* one exact solution per figure (the first run's) */
            rc = write_run_files(out, base, dm, &sp, r, mn == 0, exact, sizeof exact);
            if (r->failed)
                fprintf(stderr, "cosa: %s: note: %s failed at t = %g (%s)\n", cmd, base,
                        r->t_failed, r->reason);
            cosa_run_result_free(run);
            snprintf(tag, sizeof tag, "m=n=%d", mn);
            snprintf(csv, sizeof csv, "%s_poly.csv", base);
            add_word(files, sizeof files, csv);
            add_word(titles, sizeof titles, tag);
            snprintf(csv, sizeof csv, "%s.csv", base);
            add_word(sfiles, sizeof sfiles, csv);
        }
        if (rc != CLI_OK)
            break;
        if (fb == 0)
            snprintf(title, sizeof title, "Fig 4a: %s, H = 1 s, T = 50 s", in);
        else
            snprintf(title, sizeof title, "Fig 4b: %s, tol = 0.005, h0 = 1 s, T = 50 s", in);
        snprintf(gp, sizeof gp, "fig4%c_%s_response.gp", fb ? 'b' : 'a', in);
        rc = response_script(out, list, gp, dm, files, titles, exact, title);
        if (rc == CLI_OK) {
            snprintf(gp, sizeof gp, "fig4%c_%s_steps.gp", fb ? 'b' : 'a', in);
            rc = steps_script(out, list, gp, sfiles, titles, fb ? 0.005 : 0.0, title);
        }
    }
    return rc;
}

/* The sweeps over H and tol of integrator in for every (m, n) the families
 * use: sweep_dt|tol_IN_mM_nN.csv. */
static int paper_sweeps(scli_out *out, struct dmodel *dm, const char *in, const double *hs,
                        const double *tols)
{
    int rc = CLI_OK;
    char csv[400], path[1024];
    /* sweeps over H and tol for every (m, n) used by the families */
    for (int w = 0; w < 2 && rc == CLI_OK; w++) {
        const char *what = w ? "tol" : "dt";
        for (size_t c = 0; c < NCOMBO && rc == CLI_OK; c++) {
            struct dspec sp = {.m = combos[c][0], .n = combos[c][1], .H = 0.0, .tol = 0.0,
                               .h0 = 1e-4, .tend = 1.0, .control = COSA_DEFECT_BOTH};
            snprintf(csv, sizeof csv, "sweep_%s_%s_m%d_n%d.csv", what, in, sp.m, sp.n);
            size_t nfailed = 0;
            if ((rc = scli_out_path(cmd, out, csv, path, sizeof path)) != CLI_OK ||
                (rc = sweep_table(dm, &sp, what, w ? tols : hs, 16, NULL, path, &nfailed)) !=
                    CLI_OK)
                break;
            printf("file %s\n", path);
            if (nfailed)
                fprintf(stderr, "cosa: %s: note: %zu runs of %s failed\n", cmd, nfailed, csv);
        }
    }
    return rc;
}

/* Figs 5a, 5b, 6 (vs H) and 7, 8, 9, 10 (vs tol) of integrator in, per
 * family: scripts over the sweep files. */
static int paper_figs(scli_out *out, struct scripts *list, struct dmodel *dm, const char *in)
{
    int rc = CLI_OK;
    char files[4096], titles[2048], cols[1024], gp[300], title[256], csv[400];
    /* Figs 5a, 5b, 6 (vs H) and 7, 8, 9, 10 (vs tol), per family */
    static const struct {
        const char *fig, *what, *kind, *ylabel;
    } figs[] = {
        {"fig5a", "dt", "defect_out", "output defect (run RMS)"},
        {"fig5b", "dt", "defect_conn", "connection defect (run RMS)"},
        {"fig6", "dt", "error", "error (RMS vs exact solution)"},
        {"fig7", "tol", "defect_out", "output defect (run RMS)"},
        {"fig8", "tol", "defect_conn", "connection defect (run RMS)"},
        {"fig9", "tol", "error", "error (RMS vs exact solution)"},
        {"fig10", "tol", "h_avg", "mean macro step [s]"},
    };
    for (size_t fi = 0; fi < sizeof figs / sizeof figs[0] && rc == CLI_OK; fi++)
        for (size_t fa = 0; fa < sizeof families / sizeof families[0] && rc == CLI_OK;
             fa++) {
            files[0] = cols[0] = titles[0] = '\0';
            const int q = strcmp(figs[fi].kind, "defect_out") == 0    ? 0
                          : strcmp(figs[fi].kind, "defect_conn") == 0 ? 1
                          : strcmp(figs[fi].kind, "error") == 0       ? 2
                                                                      : 3;
            for (int j = 0; j < 3; j++) {
                const int *mn = combos[families[fa].combo[j]];
                snprintf(csv, sizeof csv, "sweep_%s_%s_m%d_n%d.csv", figs[fi].what, in,
                         mn[0], mn[1]);
                const size_t ns = q == 1 ? dm->nu : q == 3 ? 1 : dm->ny;
                for (size_t k = 0; k < ns; k++) {
                    const size_t col = q == 0 ? col_defect_out(dm, k)
                                       : q == 1 ? col_defect_conn(dm, k)
                                       : q == 2 ? col_error(dm, k)
                                                : COL_HAVG;
                    char num[16], t[128];
                    snprintf(num, sizeof num, "%zu", col);
                    if (q == 3)
                        snprintf(t, sizeof t, "m=%d,n=%d", mn[0], mn[1]);
                    else
                        snprintf(t, sizeof t, "m=%d,n=%d:%s", mn[0], mn[1],
                                 q == 1 ? dm->uname[k] : dm->yname[k]);
                    add_word(files, sizeof files, csv);
                    add_word(cols, sizeof cols, num);
                    add_word(titles, sizeof titles, t);
                }
            }
            const int vs_tol = strcmp(figs[fi].what, "tol") == 0;
            snprintf(title, sizeof title, "%s: %s, %s, %s, T = 1 s%s", figs[fi].fig, in,
                     families[fa].doc, figs[fi].kind, vs_tol ? ", h0 = 1e-4 s" : "");
            snprintf(gp, sizeof gp, "%s_%s_%s.gp", figs[fi].fig, in, families[fa].name);
            rc = sweep_script(out, list, gp, files, cols, titles,
                              vs_tol ? "tolerance tol" : "macro step H [s]",
                              figs[fi].ylabel, title, vs_tol && q < 2, title);
        }
    return rc;
}

static int paper(cli_model *cm, const char *outdir, const char *plot)
{
    if (!outdir) {
        cli_error(cmd, "--paper needs -o DIR");
        return CLI_EUSAGE;
    }
    static const char *const integs[] = {"euler", "exact"};
    scli_out out = {.dir = outdir};
    struct scripts list = {0};
    int rc = scli_out_prepare(cmd, &out);
    double hs[16], tols[16];
    for (int i = 0; i < 16; i++)
        hs[i] = tols[i] = pow(10.0, -3.0 + 3.0 * i / 15.0);
    hs[15] = tols[15] = 1.0;
    const double t0 = scli_now();
    for (size_t ii = 0; ii < 2 && rc == CLI_OK; ii++) {
        struct dmodel d;
        if ((rc = dm_build(cm, integs[ii], 1e-10, &d)) != CLI_OK) {
            dm_free(&d);
            break;
        }
        const char *in = integs[ii];
        if ((rc = paper_fig4(&out, &list, &d, in)) == CLI_OK &&
            (rc = paper_sweeps(&out, &d, in, hs, tols)) == CLI_OK)
            rc = paper_figs(&out, &list, &d, in);
        dm_free(&d);
    }
    if (rc == CLI_OK) {
        fprintf(stderr, "%s: runs done in %.1f s, rendering %zu plots\n", cmd,
                scli_now() - t0, list.n);
        fflush(stdout);
        rc = scli_gnuplot_many(cmd, out.dir, list.name, list.n, plot ? plot : "png", 4);
        for (size_t i = 0; rc == CLI_OK && i < list.n; i++)
            printf("file %s/%.*s.%s\n", out.dir, (int)(strlen(list.name[i]) - 3), list.name[i],
                   plot ? plot : "png");
    }
    scripts_free(&list);
    return rc;
}

/* ---- the command ------------------------------------------------------------------ */

/* --paper: the paper's settings (only -o and --plot besides). */
static int paper_mode(struct dopts *o)
{
    if (o->mod.name || o->mod.file || o->mod.nset || o->integrator >= 0 || !isnan(o->rtol) ||
        o->in_order >= 0 || o->out_order >= 0 || o->dt || o->tol || !isnan(o->h0) ||
        !isnan(o->tend) || o->control >= 0 || o->max_steps || !isnan(o->hmin)) {
        cli_error(cmd, "--paper takes only -o DIR and --plot (its settings are the paper's)");
        return CLI_EUSAGE;
    }
    o->mod.name = "rotational-defect";
    int rc = cli_model_resolve(&o->mod, cmd);
    return rc == CLI_OK ? paper(&o->mod, o->output, o->plot >= 0 ? plot_names[o->plot] : NULL)
                        : rc;
}

/* Connection offsets (u = L y + c): the exact monolithic solution this
 * command compares with has no c (cosa simulate runs them). */
static int no_offsets(const cli_model *mod)
{
    if (!cosa_model_file_input_offset(mod->model))
        return CLI_OK;
    cli_error(cmd, "the connections have offsets (u = L y + c): not supported here (the exact "
                   "solution it compares with has no c); run them with cosa simulate");
    return CLI_EUSAGE;
}

/* Everything checkable before building anything: the model given, the
 * integrator, the orders, --rtol, --h0, --tend, --control, --dt or --tol,
 * the limits. */
static int run_spec(const struct dopts *o, struct dspec *sp, double *rtol)
{
    if (!o->mod.name && !o->mod.file) {
        cli_error(cmd, "--model is required (e.g. --model rotational-defect; see 'cosa models')");
        return CLI_EUSAGE;
    }
    int rc;
    if ((rc = need_order("--in-order", o->in_order)) != CLI_OK ||
        (rc = need_order("--out-order", o->out_order)) != CLI_OK)
        return rc;
    sp->m = (int)o->in_order;
    sp->n = (int)o->out_order;
    if (!isnan(o->rtol))
        *rtol = o->rtol;
    if (!isnan(o->h0))
        sp->h0 = o->h0;
    if (!isnan(o->tend))
        sp->tend = o->tend;
    if (o->control >= 0)
        sp->control = (cosa_defect_control)o->control;
    if (!o->dt && !o->tol) {
        cli_error(cmd, "give --dt H (fixed steps) or --tol TOL (controlled steps)");
        return CLI_EUSAGE;
    }
    sp->max_steps = o->max_steps;
    if (!isnan(o->hmin))
        sp->hmin = o->hmin;
    return CLI_OK;
}

/* The horizon (--tend, else the model's) and the number of fixed steps of
 * every --dt value v[0..nv-1]. */
static int run_horizon(const struct dopts *o, struct dspec *sp, const double *v, size_t nv)
{
    if (isnan(o->tend))
        sp->tend = o->mod.model->tend;
    if (!(sp->tend > 0.0) || !isfinite(sp->tend)) {
        cli_error(cmd, "model '%s' has no positive horizon: give --tend", o->mod.model->name);
        return CLI_EUSAGE;
    }
    double h_last;
    if (o->dt)
        for (size_t i = 0; i < nv; i++) {
            /* as simulate: a step longer than the horizon runs no full step */
            if (cosa_end_clip_steps(sp->tend, v[i], &h_last) < 1.0) {
                cli_error(cmd, "--dt %g is longer than the horizon --tend %g: no macro step to "
                               "run", v[i], sp->tend);
                return CLI_EUSAGE;
            }
            if (sp->tend / v[i] > DEFECT_FIXED_STEPS_MAX) {
                cli_error(cmd, "--tend / --dt = %.3g macro steps: too many (at most %g)",
                          sp->tend / v[i], DEFECT_FIXED_STEPS_MAX);
                return CLI_EUSAGE;
            }
        }
    return CLI_OK;
}

/* Fixed-step FMUs (doc/fixed-step-fmus.md): Algorithm 1 samples every
 * step's middle, so each --dt value H needs H and H/2 on every FMU's grid;
 * --tol picks any step, so it cannot run them.  One line naming the FMU. */
static int defect_fixed_steps(const struct dopts *o, const struct dmodel *d, const double *v,
                              size_t nv)
{
    cosa_fmu *const *fmus = cosa_model_units_fmus(d->mu);
    char why[256];
    for (size_t i = 0; i < d->nsub; i++) {
        if (!fmus[i])
            continue;
        cosa_fmu_capability cap;
        cosa_fmu_capability_get(fmus[i], &cap);
        const char *name = d->m->sub_name ? d->m->sub_name(d->m, d->par, i) : "?";
        if (cap.fixed_step > 0.0 && !o->dt) {
            cli_error(cmd, "FMU %s takes fixed internal steps of %g s (fixedInternalStepSize): "
                           "--tol chooses any step; give --dt", name ? name : "?",
                      cap.fixed_step);
            return CLI_EUSAGE;
        }
        for (size_t k = 0; o->dt && k < nv; k++)
            if (cosa_fmu_step_check(&cap, 0.5 * v[k], why, sizeof why) != COSA_OK) {
                cli_error(cmd, "FMU %s: %s (the mid-step sample of --dt %g)", name ? name : "?",
                          why, v[k]);
                return CLI_EUSAGE;
            }
    }
    return CLI_OK;
}

/* --integrator: required where a unit integrates (built-in and model-file
 * subsystems); a network of FMUs only (they integrate themselves) runs
 * without, and says "integrator fmu".  *integ: dm_build's, *shown: the
 * printed name. */
static int run_integrator(const struct dopts *o, const char **integ, const char **shown)
{
    if (o->integrator >= 0) {
        *integ = *shown = integrator_names[o->integrator];
        return CLI_OK;
    }
    const cosa_model *m = o->mod.model;
    size_t n = 0, nfmu = 0;
    for (; m->sub_name && m->sub_name(m, o->mod.par, n); n++)
        nfmu += cosa_model_file_fmu_capability(m, n) != NULL;
    if (n && nfmu == n) {
        *integ = "exact"; /* (no unit of cosa's own: it integrates nothing) */
        *shown = "fmu";
        return CLI_OK;
    }
    cli_error(cmd, "--integrator is required: euler, exact or cvode");
    return CLI_EUSAGE;
}

/* One run ('name value' lines) or a sweep (a table) over v[0..nv-1]. */
static int run_or_sweep(const struct dopts *o, struct dmodel *d, struct dspec *sp,
                        const double *v, size_t nv, int is_sweep, const sim_init *init)
{
    char b1[32], b2[32]; /* settings: the shortest form that reads back (cosa_number_text) */
    const char *plot = o->plot >= 0 ? plot_names[o->plot] : NULL;
    if (is_sweep) {
        printf("# cosa %s defect: model %s, integrator %s, in_order %d, out_order %d, control "
               "%s, tend %s",
               cosa_version(), d->m->name, d->integ, sp->m, sp->n, control_names[sp->control],
               cosa_number_text(b1, sizeof b1, sp->tend));
        if (o->tol)
            printf(", h0 %s", cosa_number_text(b1, sizeof b1, sp->h0));
        printf("\n");
        return sweep(d, sp, o->dt ? "dt" : "tol", v, nv, o->output, plot);
    }
    if (o->dt)
        sp->H = v[0];
    else
        sp->tol = v[0];
    printf("model %s\nintegrator %s\nin_order %d\nout_order %d\ncontrol %s\n", d->m->name,
           d->integ, sp->m, sp->n, control_names[sp->control]);
    if (o->dt)
        printf("dt %s\n", cosa_number_text(b1, sizeof b1, sp->H));
    else
        printf("tol %s\nh0 %s\n", cosa_number_text(b1, sizeof b1, sp->tol),
               cosa_number_text(b2, sizeof b2, sp->h0));
    printf("tend %s\n", cosa_number_text(b1, sizeof b1, sp->tend));
    sim_init_print(d->m, d->par, d->set, init);
    return single(d, sp, o->output, plot);
}

/* The output directory (-o DIR, or the current one for --plot alone),
 * probed before any work (sweep_cli.h); single() and sweep() prepare it
 * again to write. */
static int probe_output(const struct dopts *o)
{
    scli_out probe = {.dir = o->output};
    return o->output || o->plot >= 0 ? scli_out_prepare(cmd, &probe) : CLI_OK;
}

int cmd_defect(int argc, char **argv)
{
    struct dopts o = {0};
    struct dmodel d = {0};
    sim_init init = {0};
    double *v = NULL;
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (o.paper) {
        rc = paper_mode(&o);
        goto out;
    }
    struct dspec sp = {.h0 = 1e-4, .control = COSA_DEFECT_BOTH, .hmin = COSA_DEFECT_HMIN};
    double rtol = 1e-10;
    size_t nv = 0;
    int is_sweep = 0;
    const char *integ = NULL, *shown = NULL;
    if ((rc = run_spec(&o, &sp, &rtol)) != CLI_OK ||
        (rc = parse_values(o.dt ? "--dt" : "--tol", o.dt ? o.dt : o.tol,
                           o.max_points ? o.max_points : DEFECT_SWEEP_MAX, &v, &nv, &is_sweep)) !=
            CLI_OK ||
        (rc = probe_output(&o)) != CLI_OK ||
        (rc = cli_model_resolve(&o.mod, cmd)) != CLI_OK ||
        (rc = no_offsets(&o.mod)) != CLI_OK ||
        (rc = run_integrator(&o, &integ, &shown)) != CLI_OK ||
        (rc = run_horizon(&o, &sp, v, nv)) != CLI_OK ||
        (rc = dm_build(&o.mod, integ, rtol, &d)) != CLI_OK ||
        (rc = defect_fixed_steps(&o, &d, v, nv)) != CLI_OK ||
        (rc = dm_fmu_start(&d, sp.m, sp.n, &init)) != CLI_OK)
        goto out;
    d.integ = shown;
    if ((rc = dm_blackbox(&d, &sp)) != CLI_OK)
        goto out;
    if (d.nbb)
        fprintf(stderr, "cosa: %s: note: black box%s %s hide%s the initial state, so no exact "
                        "solution: error_* are nan\n", cmd, d.nbb > 1 ? "es" : "", d.bbn,
                d.nbb > 1 ? "" : "s");
    else if (!d.sys)
        fprintf(stderr, "cosa: %s: note: model '%s' has no linear form, so no exact solution: "
                        "error_* are nan\n", cmd, d.m->name);
    rc = run_or_sweep(&o, &d, &sp, v, nv, is_sweep, &init);
out:
    sim_init_free(&init);
    dm_free(&d);
    free(v);
    cli_model_free(&o.mod);
    return rc;
}
