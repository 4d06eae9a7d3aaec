/* cmd_simulate.c -- `cosa simulate`: one time-domain co-simulation run of a
 * linear or nonlinear model (lib/master.c), against its monolithic
 * reference, with the start-up and error conventions of doc/method.md; writes
 * the trajectory as CSV and a gnuplot script (plots/simulate.gp). */
#include "config.h"
#include "csv_out.h"
#include "energy_cli.h"
#include "table_writer.h"
#include "fmu_notes.h"
#include "fmu_rules.h"
#include "sim_init.h"
#include "ref_csv.h"
#include "sim_csv.h"
#include "sim_blackbox.h"
#include "sim_fmu.h"
#include "sim_iter.h"
#include "sweep_cli.h"
#include "outfile.h"
#include "cmd_simulate_osp.h"
#include "run_stats.h"
#include "varorder_cli.h"
#include "mem_check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const char cosa_plot_simulate[]; /* plots/simulate.gp */
extern const char cosa_plot_energy[];   /* plots/energy.gp */

/* The options of a fixed-step run, as the option rows leave them (NAN, -1,
 * 0 and NULL: not given; sim_args_parse sets them first). */
struct sim_opts {
    double tend, rtol, atol, refrtol;     /* positive numbers                     */
    const char *integrator, *micro, *ref; /* --micro H|step, --ref auto|fine|FILE */
    long outorder;                        /* --out-order 0..2 (default 1)         */
    int lin;                              /* --linearize: 0 start, 1 end          */
    int fd, energy, fmu_log;
    int mbcorr_jac;                       /* --mbcorr-jacobian: 0 dd, 1 fd        */
    const char *jacobian;                 /* --jacobian: deprecated, its meaning is
                                             the mode's (sim_mode)                */
    const char *mu, *limit;               /* --mu MU|auto, --limit FRAC|none      */
    double nu;
    const char *limit_abs;                /* --limit-abs F (a force > 0)          */
    int input, start;                     /* --input 0 poly, 1 held; --start 0
                                             reference, 1 initial                 */
    const char *itol;                     /* --iter-tol (iterative schemes)       */
    const char *output, *name, *plot;
    const char *outputs, *interval;       /* --outputs LIST, --output-interval DT */
    const char *rate[ECLI_MAX_RATES];     /* --rate NAME=K                        */
    size_t nrate;
    int events;                           /* --events: -1 auto (default), 0 off, 1 on */
    int algorithm;                        /* --algorithm: -1 none, 0 fixedStep, 1 ecco */
    int defects;                          /* --defects: -1 default, 0 off, 1 on   */
};

/* --help: usage and what the command does. */
static void help_intro(void)
{
    fputs("Usage: cosa simulate [--model NAME] [--set NAME=VALUE]... --scheme S --dt DT\n"
           "                     [--tend T] [--integrator exact|cvode|cvode-adams|rk4|\n"
           "                     symplectic-euler|euler] [--rtol R] [--atol A]\n"
           "                     [--micro H|step] [--ref-rtol R] [--ref auto|fine|none|FILE]\n"
           "                     [--linearize start|end] [--fd] [--mbcorr-jacobian dd|fd]\n"
           "                     [--alpha A] [--sequence LIST] [--assume NAME=VALUE]...\n"
           "                     [--rate NAME=K]... [--input poly|held]\n"
           "                     [--start reference|initial] [--fmu-log] [--events on|off]\n"
           "                     [--defects on|off]\n"
           "                     [--energy [--mu MU|auto [--nu NU] [--limit FRAC|none]\n"
           "                     [--limit-abs F]]]\n"
           "                     [-o DIR] [--name NAME] [--plot png|svg|pdf]\n"
           "                     [--outputs LIST] [--output-interval DT]\n"
           "       cosa simulate --model-file OSP-FILE [--algorithm fixedStep|ecco]\n"
           "                     [--dt DT] [--tend T] [-o DIR] [--name NAME] [--fmu-log]\n"
           "                     (libcosim's algorithms on an OSP system structure, *.xml;\n"
           "                     doc/osp.md)\n"
           "       cosa simulate --coupling explicit|implicit ...  (the variable-order engine;\n"
           "                     see cosa simulate --coupling explicit --help)\n\n"
           "Runs the coupling scheme in the time domain: every subsystem is a unit that gets\n"
           "its input as a polynomial over the macro step, steps, and returns its outputs;\n"
           "MBCorr linearises every unit at every macro step (MBCorr paper section 2.3);\n"
           "with --assume it uses the assumed model's matrices as fixed Jacobians instead\n"
           "(models with a linear form only; --linearize and --fd then have no effect).\n"
           "Linear models (see 'cosa models') and nonlinear ones (twomass-nl: section 5,\n"
           "eq 43) are accepted.  The co-simulation starts on the monolithic reference at\n"
           "t = p*DT (doc/method.md), runs floor(T/DT) macro steps and, when T is not a\n"
           "multiple of DT, one shorter step to end at T (doc/simulate.md).  The reference is\n"
           "exact (matrix exponential) for linear models and CVODE BDF at --ref-rtol for\n"
           "nonlinear ones.  A model file's 'fmu NAME = PATH' subsystems run the FMU itself\n"
           "(FMI 3.0/2.0 co-simulation; doc/fmu.md), the reference being the\n"
           "linearised network (exact for linear FMUs) or, for FMUs that depart from\n"
           "their linearisation (nonlinear, or a constant term), the fine co-simulation\n"
           "(--ref fine, with a note); FMUs that declare no states (black boxes,\n"
           "doc/simulate-black-box.md) run as units without states, the reference being the\n"
           "fine co-simulation (a note); the output correction (+ocorr, +mbcorr) uses\n"
           "their identified model as fixed Jacobians (a line correction_model); --ref none\n"
           "runs without a reference (no e_global).  MBCorr takes an\n"
           "FMU's directional derivatives at the end of the step (--linearize end, the\n"
           "default then; elsewhere than the FMU's current point a second instance\n"
           "initialised there evaluates them), or finite differences through its state\n"
           "over the step (--mbcorr-jacobian).  Input polynomials of degree >= 1 need an\n"
           "FMI 2.0 FMU with canInterpolateInputs or an FMI 3.0 FMU with intermediate\n"
           "update.  An FMU's recommendedIntermediateInputSmoothness K >= 1 caps the\n"
           "degree at K (a scheme above it is refused in one line, exit 2; advise applies\n"
           "the same rule).  FMUs whose direct feedthrough closes an algebraic loop are first\n"
           "iterated in Initialization Mode at t = 0 to the fixed point y = g(x0, L y)\n"
           "(Newton, the loop solver's tolerance: update <= 1e-10 |y|, 50 iterations),\n"
           "and again where the run starts;\n"
           "a loop without a fixed point is refused in one line naming its FMUs and the\n"
           "residual, exit 2.\n"
           "Prints 'name value' lines (with FMUs first one line 'fmu NAME fmi 3.0|2.0\n"
           "jacobian dd|fd' each), among them\n"
           "  init_iterations N, init_output SUB.NAME VALUE\n"
           "             only with an initialization loop: the iterations and the loop\n"
           "             units' outputs at the fixed point\n"
           "  correction_model identified NAME (order N, fit F), ...\n"
           "             only with +ocorr/+mbcorr on black boxes: the identified models\n"
           "             the correction uses (order, fit error on a validation input)\n"
           "  status     ok | diverged t=TIME (an output beyond 1e6 x the largest reference\n"
           "             output) | failed t=TIME (a unit that cannot complete its step, an\n"
           "             FMU's Discard; the reason follows) | terminated t=TIME (an FMU\n"
           "             asked to end the simulation there: terminateSimulation; the data\n"
           "             end there); exit code 0\n"
           "  e_global   NRMSE of the corrected outputs at the N new macro points (eq 33;\n"
           "             inf when diverged)\n"
           "  steps      macro steps completed (grid steps)\n"
           "  event_points  with FMU events: the communication points at events off the\n"
           "             grid (then h_min, h_max are those of all steps)\n"
           "  defect_out, defect_conn\n"
           "             the largest run RMS over the outputs of the output-defect estimate\n"
           "             and over the inputs of the connection defect (defect paper; the\n"
           "             scheme's own input polynomials, output polynomials from the output\n"
           "             derivatives of order --out-order, the mid-step sample from a unit\n"
           "             snapshot: the run itself is unchanged; nan when diverged, with\n"
           "             --defects off (the default for FMUs) or when a unit cannot take\n"
           "             the half step, with a note; a black box has them with\n"
           "             --out-order 0 only: its output derivatives are not known)\n"
           "  rejected, h_min, h_max, rollbacks, corrector_iterations\n"
           "             the run's statistics (fixed steps: 0, dt, dt; rollbacks and\n"
           "             corrector_iterations: the iterated schemes' restarts and sweeps)\n"
           "  unit NAME steps S restores R events E early_returns K defect_steps D\n"
           "             per unit, what it did in the run (D of the S steps are the\n"
           "             defects' half steps)\n"
           "With -o DIR (or --plot) it writes NAME.csv (comment header, then a header row\n"
           "and one row per macro point: t, inputs u at the start of the step, raw outputs\n"
           "y, corrected outputs ybar, state-correction offsets du, reference outputs ref;\n"
           "columns named PREFIX.SUB.NAME by subsystem, e.g. y.I.s1; with FMU events\n"
           "also a row per event point and a last column 'event', 1 there)\n"
           "and NAME.gp, a gnuplot script of the outputs against the reference (for\n"
           "twomass-nl the s1 panel is the paper's Fig 9).\n\n",
          stdout);
}

/* The option that asks for a feature of the combination rules
 * (cosa_combination_check), as the messages name it. */
static const char *feature_option(unsigned feature)
{
    switch (feature) {
    case COSA_COMB_MULTIRATE:
        return "--rate";
    case COSA_COMB_HELD:
        return "--input held";
    case COSA_COMB_INITIAL:
        return "--start initial";
    case COSA_COMB_ENERGY_CORRECT:
        return "--mu";
    case COSA_COMB_ENERGY:
        return "--energy";
    default:
        return "--events on";
    }
}

/* --rate NAME=K (subsystem name or 1-based index, K a positive integer)
 * into rate (nsub entries, 1 by default); --input, --start; the checks
 * against the scheme.  *multirate: some K > 1. */
static int coupling_options(const char *cmd, const struct sim_opts *o, const cosa_model *m,
                            const double *par, size_t nsub, const cosa_scheme *s,
                            unsigned *rate, int *held, int *initial)
{
    int rc = ecli_rates(cmd, o->rate, o->nrate, m, par, nsub, rate);
    if (rc != CLI_OK)
        return rc;
    *held = o->input == 1;
    *initial = o->start == 1;
    cosa_combination_refusal why;
    if (cosa_combination_check(s, (o->nrate ? COSA_COMB_MULTIRATE : 0u) |
                                      (*held ? COSA_COMB_HELD : 0u) |
                                      (*initial ? COSA_COMB_INITIAL : 0u),
                               1, &why) != COSA_OK) {
        char sname[64];
        cosa_scheme_name(s, sname, sizeof sname);
        cli_error(cmd, "%s needs %s, got %s", feature_option(why.feature), why.needs, sname);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* R = h_df / h_ndf of a two-unit run (the step of the unit with direct
 * feedthrough over the other's), or 0 when it is not defined (not two
 * units, or both or neither with feedthrough). */
static int unit_feedthrough(const cosa_unitset *set, size_t i, const double *x0);
static double step_ratio(const cosa_unitset *set, const double *x0, const unsigned *rate)
{
    if (cosa_unitset_count(set) != 2)
        return 0.0;
    int ft[2];
    for (size_t i = 0; i < 2; i++)
        ft[i] = unit_feedthrough(set, i, x0);
    if (ft[0] == ft[1])
        return 0.0;
    const size_t df = ft[0] ? 0 : 1;
    return (double)rate[1 - df] / (double)rate[df];
}

/* The checks of --energy, --mu MU|auto, --limit FRAC|none (the rows
 * checked that --mu needs --energy and --nu, --limit, --limit-abs need
 * --mu); the numbers into mu (auto: left for later), nu, limit (none:
 * INFINITY), limit_abs. */
static int energy_options(const char *cmd, const struct sim_opts *o, const cosa_model *m,
                          const cosa_scheme *s, double *mu, double *nu, double *limit,
                          double *limit_abs)
{
    if (!o->energy)
        return CLI_OK;
    if (!m->energy || !m->energy_port) {
        cli_error(cmd, "--energy: model '%s' declares no mechanical energy and power port "
                       "(models with them: twomass-fd, multi-fd, twomass-fd-nl, pendula, crane, model files with "
                       "energy and bond)", m->name);
        return CLI_EUSAGE;
    }
    if (!o->mu)
        return CLI_OK;
    cosa_combination_refusal why;
    if (cosa_combination_check(s, COSA_COMB_ENERGY_CORRECT, 1, &why) != COSA_OK) {
        char sname[64];
        cosa_scheme_name(s, sname, sizeof sname);
        cli_error(cmd, "--mu: the energy correction needs %s, got %s", why.needs, sname);
        return CLI_EUSAGE;
    }
    if (strcmp(o->mu, "auto") && cli_parse_double(o->mu, mu) != 0) {
        cli_error(cmd, "--mu must be a finite number or auto, got '%s'", o->mu);
        return CLI_EUSAGE;
    }
    if (!isnan(o->nu))
        *nu = o->nu;
    if (o->limit && strcmp(o->limit, "none") == 0)
        *limit = INFINITY;
    else if (o->limit && (cli_parse_double(o->limit, limit) != 0 || *limit < 0.0)) {
        cli_error(cmd, "--limit must be a fraction >= 0 of the coupling force or none, got '%s'",
                  o->limit);
        return CLI_EUSAGE;
    }
    if (o->limit_abs && (cli_parse_double(o->limit_abs, limit_abs) != 0 || !(*limit_abs > 0.0))) {
        cli_error(cmd, "--limit-abs must be a force > 0, got '%s'", o->limit_abs);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* 1 if unit i of set has direct feedthrough: D != 0 at its start point
 * (state from x0, inputs 0). */
static int unit_feedthrough(const cosa_unitset *set, size_t i, const double *x0)
{
    cosa_unit *u = cosa_unitset_unit(set, i);
    const size_t nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
    size_t ox;
    cosa_unitset_offsets(set, i, &ox, NULL, NULL);
    double *buf = calloc(nu + ny * nu + 1, sizeof *buf);
    int ft = 0;
    if (buf && cosa_unit_jacobian(u, 0.0, x0 + ox, buf, 0, NULL, NULL, NULL, buf + nu) == COSA_OK)
        for (size_t k = 0; k < ny * nu; k++)
            ft |= buf[nu + k] != 0.0;
    free(buf);
    return ft;
}

/* --mu auto: eqs 20-21 with mu_SR = 0.5 if a unit has direct feedthrough,
 * else 0. */
static double mu_auto(const cosa_unitset *set, const double *x0, double R, int p)
{
    double mu_sr = 0.0;
    for (size_t i = 0; i < cosa_unitset_count(set); i++)
        if (unit_feedthrough(set, i, x0))
            mu_sr = 0.5;
    return ecli_mu_eq(mu_sr, R, p);
}

struct energy_ctx {
    const cosa_model *m;
    const double *par;
    size_t nx;     /* the units' states                                       */
    int hidden;    /* 1: a black box hides its states (E is not known: nan)   */
};

/* E(x) of the model's energy form; nan where it is not known: a black box
 * hides states the form is over (the model's are its identified ones), or
 * no reference gives x_ref (--ref none: nan states) -- the power figures
 * (dP, dE, the correction) need outputs only. */
static cosa_status model_energy(void *ctx, const double *x, double *E)
{
    const struct energy_ctx *c = ctx;
    int finite = !c->hidden;
    for (size_t i = 0; finite && i < c->nx; i++)
        finite = isfinite(x[i]);
    if (!finite) {
        *E = NAN;
        return COSA_OK;
    }
    return c->m->energy(c->m, c->par, x, E);
}

/* NAME_energy.csv: t, E, E_ref, dP, dE, varsigma, fcorr..., U, Ucal, capped. */
static int write_energy_csv(const char *cmd, const char *path, const char *model,
                            const char *scheme, double dt, const cosa_cosim_result *r)
{
    const cosa_energy_result *e = r->energy;
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0)
        return CLI_EFAIL;
    char b1[32];
    tw_comment(&c.w, "cosa %s simulate --energy: model %s, scheme %s, dt %s", cosa_version(),
               model, scheme, cosa_number_text(b1, sizeof b1, dt));
    tw_comment(&c.w, "columns: t [s]; E mechanical energy [J]; E_ref of the reference; dP "
                     "residual power [W] (eq 9); dE residual energy (eq 12); varsigma = E - "
                     "E_ref (eq 10); fcorr correction force (eq 17); U, Ucal uncorrected energy "
                     "(eqs 15-16); capped 1 where the limit bound fcorr");
    static const char *const head[] = {"t", "E", "E_ref", "dP", "dE", "varsigma"};
    for (size_t k = 0; k < 6; k++)
        csv_out_name(&c, "%s", head[k]);
    for (size_t k = 0; k < e->dim; k++)
        csv_out_name(&c, e->dim > 1 ? "fcorr.%zu" : "fcorr", k + 1);
    csv_out_name(&c, "U");
    csv_out_name(&c, "Ucal");
    csv_out_name(&c, "capped");
    if (csv_out_columns(&c) == 0)
        for (size_t n = 0; n < e->npoints; n++) {
            double *x = c.rec;
            *x++ = r->t[n], *x++ = e->E[n], *x++ = e->Eref[n], *x++ = e->dP[n];
            *x++ = e->dE[n], *x++ = e->varsigma[n];
            for (size_t k = 0; k < e->dim; k++)
                *x++ = e->fcorr[k + n * e->dim];
            *x++ = e->U[n], *x++ = e->Ucal[n], *x = e->capped[n];
            csv_out_record(&c);
        }
    return csv_out_close(&c, CLI_OK);
}

/* --ref fine: the reference co-simulation's step is DT / this (issue 13) */
#define REF_FINE_FACTOR 64


/* The systems of one run: a model with a linear form gives its system (exact
 * units and reference); the ODE system is the model's nonlinear form, or
 * built when units need it (cosa_odesys_from_linear otherwise). */
struct sim_systems {
    cosa_system *sys;
    cosa_system *model; /* the assumed system (--assume); NULL: the units' Jacobians */
    cosa_odesys *os;
    double *x0;
    size_t nsub, nu, ny;
    const double *L;
};

static const char *out_name(const cosa_model *m, const double *par, size_t k)
{
    return m->output_name ? m->output_name(m, par, k) : NULL;
}

/* --ref FILE.csv: the reference from a file (analysis/ref_csv.c) at the macro
 * points; the states from the file, or for a scheme of order 0 (which starts
 * at t = 0) from the model's x0 when the file has none. */
static int read_reference(const char *cmd, const char *path, const cosa_model *m,
                          const double *par, const cosa_unitset *set, const cosa_scheme *s,
                          const double *x0, double dt, size_t nsamples, cosa_reftraj **ref)
{
    const size_t nx = cosa_unitset_nx(set), ny = cosa_unitset_ny(set);
    const char **names = calloc(2 * nx + 2 * ny + 1, sizeof *names);
    char **own = calloc(nx + ny + 1, sizeof *own);
    double *t = NULL, *X = NULL, *Y = NULL;
    size_t n = 0;
    int rc = CLI_EFAIL;
    if (!names || !own) {
        cli_error(cmd, "out of memory");
        goto done;
    }
    ref_csv_names nm = {ny, nx, names, names + ny, names + ny + nx, names + ny + 2 * nx};
    /* names: the model's, else y1.., x1.. (as the trajectory file's columns) */
    for (size_t k = 0; k < ny + nx; k++) {
        const int isy = k < ny;
        const size_t j = isy ? k : k - ny;
        const char *nmk = isy ? out_name(m, par, j)
                              : (m->state_name ? m->state_name(m, par, j) : NULL);
        if (!nmk) {
            if (!(own[k] = malloc(32)))
                goto nomem;
            snprintf(own[k], 32, "%s%zu", isy ? "y" : "x", j + 1);
            nmk = own[k];
        }
        names[k] = nmk;
    }
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        size_t ox, oy;
        cosa_unitset_offsets(set, i, &ox, NULL, &oy);
        for (size_t j = 0; j < cosa_unit_nx(cosa_unitset_unit(set, i)); j++)
            names[ny + nx + ox + j] = m->sub_name ? m->sub_name(m, par, i) : NULL;
        for (size_t j = 0; j < cosa_unit_ny(cosa_unitset_unit(set, i)); j++)
            names[ny + 2 * nx + oy + j] = m->sub_name ? m->sub_name(m, par, i) : NULL;
    }
    if ((rc = ref_csv_read(cmd, path, &nm, &t, &X, &Y, &n)) != CLI_OK)
        goto done;
    rc = CLI_EUSAGE;
    if (!X && s->order > 0) {
        char sname[64];
        cosa_scheme_name(s, sname, sizeof sname);
        cli_error(cmd, "--ref %s: no state columns (x.SUB.NAME): %s starts at t = %d*dt on the "
                       "reference and needs its states there; give them, or use a scheme of "
                       "order 0", path, sname, s->order);
        goto done;
    }
    cosa_status st = cosa_reftraj_samples(nx, ny, n, t, X, x0, Y, dt, nsamples, ref);
    char b1[32], b2[32], b3[32];
    if (st == COSA_ERANGE)
        cli_error(cmd, "--ref %s: its times %s .. %s do not cover the run, 0 .. %s", path,
                  cosa_number_text(b1, sizeof b1, t[0]), cosa_number_text(b2, sizeof b2, t[n - 1]),
                  cosa_number_text(b3, sizeof b3, (double)(nsamples - 1) * dt));
    else if (st != COSA_OK)
        cli_error(cmd, "--ref %s: %s", path, cosa_strerror(st));
    else
        rc = CLI_OK;
    goto done;
nomem:
    cli_error(cmd, "out of memory");
done:
    for (size_t k = 0; own && k < nx + ny; k++)
        free(own[k]);
    free(own);
    free(names);
    free(t);
    free(X);
    free(Y);
    return rc;
}

/* Resolve the model (analysis/cli.c), build its linear system, or its ODE
 * system when it has no linear form, x0, --sequence and the scheme check,
 * and the assumed system of --assume (which needs the linear form: the
 * master uses its matrices as fixed Jacobians). */
static int build_systems(const char *cmd, cli_case *cs, cosa_scheme *s, struct sim_systems *r)
{
    cs->mod.ident_optional = 1; /* a black box runs without its identified model */
    int rc = cli_model_resolve(&cs->mod, cmd);
    if (rc != CLI_OK)
        return rc;
    if (cli_assume_given(&cs->mod) &&
        (rc = cli_model_linear(&cs->mod, cmd, "--assume needs a linear form of the model (the "
                                              "master uses the assumed model's matrices as "
                                              "fixed Jacobians)")) != CLI_OK)
        return rc;
    size_t nx;
    if (cosa_model_is_linear(cs->mod.model)) {
        if ((rc = cli_model_system(&cs->mod, cmd, &r->sys)) != CLI_OK)
            return rc;
        r->nsub = cosa_system_nsub(r->sys);
        nx = cosa_system_nx(r->sys);
        r->nu = cosa_system_nu(r->sys);
        r->ny = cosa_system_ny(r->sys);
        r->L = cosa_system_L(r->sys);
    } else {
        if ((rc = cli_model_odesys(&cs->mod, cmd, &r->os)) != CLI_OK)
            return rc;
        r->nsub = cosa_odesys_nsub(r->os);
        nx = cosa_odesys_nx(r->os);
        r->nu = cosa_odesys_nu(r->os);
        r->ny = cosa_odesys_ny(r->os);
        r->L = cosa_odesys_L(r->os);
    }
    if ((rc = cli_need_outputs(&cs->mod, cmd, r->ny)) != CLI_OK ||
        (rc = cli_case_sequence(cmd, cs, s, r->nsub, r->sys)) != CLI_OK ||
        (rc = cli_assume_system(&cs->mod, cmd, cs->mod.par, r->sys, s, 1, &r->model)) != CLI_OK)
        return rc;
    if (cli_assume_given(&cs->mod))
        cli_assume_note(cmd, s, 1);
    return cli_model_x0(&cs->mod, cmd, nx, &r->x0);
}

/* Progress of the run: an observer counting committed macro steps. */
struct step_progress {
    cli_progress *p;
    size_t n, N;
};

static cosa_status step_done(const cosa_master *m, void *user_data)
{
    (void)m;
    struct step_progress *s = user_data;
    cli_progress_steps(s->p, ++s->n, s->N);
    return COSA_OK;
}

/* Everything one run holds, from the options to the result. */
struct sim_run {
    const char *cmd;
    struct sim_opts o;
    struct vo_cli_opts vo; /* --coupling runs                                */
    const char *t0;        /* --t0: an option of cosa estimate               */
    cli_case cs;
    struct sim_systems sm;
    cosa_scheme scheme;
    int iterative;         /* imp:, gs-imp:, gs:P/Q (lib/td/iterate.c)        */
    cosa_iter_opts iopt;
    char sname[64];
    double dt, tend, refrtol;
    cosa_integrator integ;
    const char *iname;
    char idesc[96];
    cosa_master_opts mopt;
    int fine;              /* --ref fine, or the default for nonlinear FMUs */
    int defects;           /* the run samples the defects                   */
    char defect_skip[320]; /* why --defects on cannot ("" if it can)        */
    unsigned fine_factor;  /* the fine reference's step is dt / this        */
    char fine_why[512];    /* why it is below REF_FINE_FACTOR ("" if not)   */
    int noref;             /* --ref none: no reference, no e_global         */
    char bbnote[400];      /* the black-box note, printed once the run ran   */
    char corrnote[256];    /* black boxes corrected on their identified model */
    const char *reffile;   /* --ref FILE                                    */
    double e_mu, e_nu, e_limit, e_limit_abs;
    int e_auto, held, initial;
    unsigned *rate;        /* --rate: unit steps per macro step             */
    size_t N, nsamples;
    double h_last;         /* the short last step to --tend (0: none; end_clip.h) */
    char base[256], csv[512], gp[512], ecsv[512], egp[512], json[512];
    scli_out out;
    cosa_model_units *mu;  /* the units (models/unitset_build.c)           */
    cosa_unitset *set;
    size_t *portidx;       /* --energy: the power port's indices            */
    sim_csv cols;
    cli_progress prog;
    cosa_reftraj *ref;
    sim_init init;         /* the initialization loop of FMUs (sim_init.c)  */
    char refdesc[1200];
    double R;              /* --rate: h_df / h_ndf of two units             */
    cosa_run_result *run;  /* cosa_run's result                             */
    const cosa_cosim_result *res; /* its fixed-step figures (run->fixed)     */
};

/* ---- one command line, two modes --------------------------------------- */

/* simulate's option rows: the fixed-step run's (SIM_FIXED), the variable-
 * order engine's (SIM_COUPLED, analysis/varorder_cli.c; selected by
 * --coupling) and those both take.  The mode is decided after parsing; an
 * option of the other mode is one line (opt_parse_modes). */
enum { SIM_FIXED = 1, SIM_COUPLED = 2 };
static const opt_mode sim_modes[] = {
    {SIM_FIXED, NULL, "fixed-step runs (without --coupling)"},
    {SIM_COUPLED, "coupling", "--coupling runs"},
    {0}};

static const char *const lin_names[] = {"start", "end", NULL};
static const char *const input_names[] = {"poly", "held", NULL};
static const char *const start_names[] = {"reference", "initial", NULL};
static const char *const mbcorr_jac_names[] = {"dd", "fd", NULL};
static const char *const events_names[] = {"off", "on", NULL};
static const char *const algorithm_names[] = {"fixedStep", "ecco", NULL};
static const char *const defects_names[] = {"off", "on", NULL};

/* Number options kept as text (the command reads them later), checked
 * while parsing with the words of the later checks (cli_row_rule_text) */
static const cli_number_rule micro_rule = {"a positive finite number", "step", 0.0, INFINITY, 1u,
                                           0, 1};
static const cli_number_rule mu_rule = {"a finite number or auto", "auto", -INFINITY, INFINITY,
                                        0u, 0, 0};
static const cli_number_rule limit_rule = {"a fraction >= 0 of the coupling force or none", "none",
                                           0.0, INFINITY, 0u, 0, 0};
static const cli_number_rule limit_abs_rule = {"a force > 0", NULL, 0.0, INFINITY, 1u, 0, 0};
static const cli_number_rule itol_rule = {"a number in (0, 1)", NULL, 0.0, 1.0, 3u, 0, 0};
static const cli_number_rule interval_rule = {"a positive finite number", NULL, 0.0, INFINITY, 1u,
                                              0, 0};
#define SIM(f) offsetof(struct sim_run, f)
static const opt_row sim_rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = SIM(cs.mod)},
    {.kind = OPTK_INCLUDE, .sub = cli_assume_rows, .off = SIM(cs.mod), .modes = SIM_FIXED},
    {.kind = OPTK_TEXT, .help = "\n", .modes = SIM_FIXED},
    {.kind = OPTK_TEXT, .help = cli_scheme_help, .modes = SIM_FIXED, .group = OPTG_SCHEME},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_scheme_rows, .off = SIM(cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_dt_rows, .off = SIM(cs)},
    {.kind = OPTK_INCLUDE, .sub = vo_cli_rows, .off = SIM(vo), .modes = SIM_COUPLED},
    {.kind = OPTK_INCLUDE, .sub = vo_cli_control_rows, .off = SIM(vo), .modes = SIM_COUPLED},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows, .off = SIM(cs), .modes = SIM_FIXED},
    {.kind = OPTK_SIZE, .name = "max-points", .off = SIM(cs.max_points), .arg = "N",
     .modes = SIM_FIXED | SIM_COUPLED,
     .help = "refuse runs of more than N macro steps (the points of the "
             "trajectories), before any work (default 10^8); a run also stops "
             "before any work when its trajectories alone would exceed the memory "
             "limit (ulimit -v)"},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = SIM(o.tend), .arg = "T",
     .help = "horizon in seconds (default: the model's natural horizon, 'cosa "
             "models'; with --coupling: after t_s)"},
    {.kind = OPTK_STRING, .name = "integrator", .off = SIM(o.integrator), .arg = "I",
     .help = "subsystem integrator: exact (linear models only; the default for "
             "them), cvode = cvode-bdf (default for nonlinear models), "
             "cvode-adams, rk4, symplectic-euler, euler"},
    {.kind = OPTK_POSITIVE, .name = "rtol", .off = SIM(o.rtol), .arg = "R",
     .help = "CVODE relative tolerance (default 1e-10)"},
    {.kind = OPTK_POSITIVE, .name = "atol", .off = SIM(o.atol), .arg = "A",
     .help = "CVODE absolute tolerance (default: rtol x the scale of each state)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &micro_rule, .name = "micro",
     .off = SIM(o.micro), .arg = "H|step",
     .help = "micro step of rk4/euler/symplectic-euler in seconds (default: "
             "DT/100); step (fixed-step runs): one micro step per macro step (the "
             "energy paper's setting)"},
    {.kind = OPTK_POSITIVE, .name = "ref-rtol", .off = SIM(o.refrtol), .arg = "R",
     .help = "tolerance of the CVODE reference (default 1e-12)"},
    {.kind = OPTK_INT, .name = "out-order", .off = SIM(o.outorder), .arg = "N", .modes = SIM_FIXED,
     .imin = 0, .imax = 2,
     .help = "order of the output derivatives in the defects (0, 1, 2; default 1)"},
    {.kind = OPTK_STRING, .name = "ref", .off = SIM(o.ref), .arg = "auto|fine|none|FILE",
     .modes = SIM_FIXED | SIM_COUPLED,
     .help = "the reference: auto (default: exact for linear models and linear FMU "
             "networks, fine for nonlinear or affine FMUs, CVODE for nonlinear "
             "models), fine: the same units co-simulated with SOH at DT/64 from t "
             "= 0 (for nonlinear FMUs, whose linearisation is no reference; at DT/K "
             "when an FMU has a fixed internal step h and DT = k h, K the largest "
             "divisor of k up to 64, so that the fine steps stay on its grid; an "
             "algebraic loop of feedthrough units is solved at every fine point), none: "
             "no reference (no e_global; the start-up samples a scheme of order p needs, "
             "t = 0 .. p*DT, from the fine co-simulation; the divergence test then "
             "compares with their largest output), or a "
             "CSV file computed elsewhere: '#' comments, a header row naming the "
             "columns ('t' or 'time'; each output as ref.SUB.NAME or SUB.NAME, or "
             "NAME or ref.NAME where NAME is unique; optionally every state as "
             "x.SUB.NAME, or x.NAME if unique; other columns ignored), rows of "
             "numbers at increasing times covering 0 .. T + p*DT; values at the "
             "macro points are the rows there, else cubic interpolation of the "
             "four nearest rows.  Without state columns only schemes of order 0 "
             "run (they start at t = 0 from the model's x0). The 'reference' line "
             "says which.  With --coupling: auto (the monolithic reference; the fine "
             "co-simulation for black boxes, FMUs that declare no states), fine (sampled at "
             "every fine step, cubic between) or none (e36_*, e_end nan)"},
    {.kind = OPTK_ENUM, .name = "linearize", .off = SIM(o.lin), .arg = "start|end",
     .modes = SIM_FIXED, .names = lin_names, .flags = OPTF_OR_LIST,
     .help = "MBCorr linearisation point: start (default without FMUs; x_n and the "
             "input at T_n) or end (x_{n+1}, input at T_{n+1}; the default with "
             "FMUs)"},
    {.kind = OPTK_LIST, .fn = cli_row_rate_text, .name = "rate", .off = SIM(o.rate), .arg = "NAME=K",
     .modes = SIM_FIXED,
     .max = ECLI_MAX_RATES, .off_count = SIM(o.nrate),
     .help = "multi-rate (energy paper): the unit NAME (subsystem name or 1-based "
             "index) takes K equal steps of DT/K per macro step (repeatable; plain "
             "Jacobi schemes); prints 'rate' and, for two units, R = h_df / h_ndf "
             "(the step of the unit with feedthrough over the other's)"},
    {.kind = OPTK_ENUM, .name = "input", .off = SIM(o.input), .arg = "poly|held",
     .modes = SIM_FIXED, .names = input_names, .flags = OPTF_OR_LIST,
     .help = "poly (default): the input polynomial over the step; held: before "
             "each of its steps a unit gets the polynomial's value at the step's "
             "start and holds it (eq 9), so K = 1 units see the last sample"},
    {.kind = OPTK_ENUM, .name = "start", .off = SIM(o.start), .arg = "reference|initial",
     .modes = SIM_FIXED | SIM_COUPLED, .names = start_names, .flags = OPTF_OR_LIST,
     .help = "reference (default): on the reference at t = p*DT (doc/method.md); "
             "initial: at t = 0 from x0, y0 from the algebraic loop, the "
             "extrapolation order capped by the samples that exist (step 1 ZOH, "
             "step 2 at most FOH).  With --coupling: the first K+1 steps of DT run "
             "so from t = 0 and the engine starts at t_s = (K+1) DT (the default "
             "with black boxes)"},
    {.kind = OPTK_FLAG, .name = "energy", .off = SIM(o.energy), .modes = SIM_FIXED,
     .help = "the energy paper's indicators (models with a mechanical energy and a "
             "power port: twomass-fd, multi-fd): at every macro point the residual "
             "power dP = sum_b (f_b,n-1 v_n - f_b,n v_n-1) of the uncorrected "
             "coupling forces f_b and the velocity v they act on (eqs 7-9), the "
             "residual energy dE = H sum dP (eq 12), E(x) and varsigma = E - E_ref "
             "(eq 10); prints E0 E_end E_ref_end E_ratio dE_end varsigma_end "
             "max_varsigma (max |varsigma|) mu_measured (varsigma_end / dE_end); "
             "-o writes NAME_energy.csv and NAME_energy.gp (E, E_ref, E0 + dE; dP "
             "over t).  The paper's setting: --integrator symplectic-euler --micro "
             "step --input held --start initial"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &mu_rule, .name = "mu", .off = SIM(o.mu),
     .arg = "MU|auto", .modes = SIM_FIXED,
     .requires = "energy",
     .help = "the energy correction (eqs 13-17; plain Jacobi schemes): f^c_n = "
             "-(mu H dP_n + nu Ucal_n) v_n / (|v_n|^2 H) added to the receiving "
             "unit's force input over the next step; auto (two units): eqs 20-21, "
             "mu_SR = 0.5 with feedthrough, 0 without; ZOH mu_SR (1.5 - 0.5/R) for "
             "R > 1, FOH/SOH mu_SR R for R < 1, else mu_SR; also prints mu nu "
             "limit U_end (Ucal at the end) caps (points where the limit bound)"},
    {.kind = OPTK_NONNEG, .name = "nu", .off = SIM(o.nu), .arg = "NU", .modes = SIM_FIXED,
     .requires = "mu", .requires_why = "the energy correction",
     .help = "weight of the accumulated uncorrected energy Ucal (eq 17; >= 0, "
             "default 0)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &limit_abs_rule, .name = "limit-abs",
     .off = SIM(o.limit_abs), .arg = "F",
     .modes = SIM_FIXED,
     .requires = "mu", .requires_why = "the energy correction",
     .help = "also |f^c| <= F (newtons; the paper's crane: 100 N)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &limit_rule, .name = "limit",
     .off = SIM(o.limit), .arg = "FRAC|none",
     .modes = SIM_FIXED,
     .requires = "mu", .requires_why = "the energy correction",
     .help = "|f^c| <= FRAC |sum_b f_b| (default 1 = 100 %); none removes the "
             "bound, which is ill-conditioned (near v = 0 the force is huge and "
             "results depend on rounding)"},
    {.kind = OPTK_FLAG, .name = "fd", .off = SIM(o.fd), .modes = SIM_FIXED,
     .help = "finite-difference Jacobians even where analytic ones exist"},
    {.kind = OPTK_ENUM, .name = "mbcorr-jacobian", .off = SIM(o.mbcorr_jac), .arg = "dd|fd",
     .modes = SIM_FIXED, .names = mbcorr_jac_names, .flags = OPTF_OR_LIST,
     .help = "how MBCorr gets an FMU's Jacobians: dd = directional derivatives (an "
             "error for an FMU without them); fd = finite differences through the "
             "FMU's state: G_p and G_0 of the output correction from central "
             "differences of the outputs over the step itself (save the FMU state, "
             "perturb the input polynomial, step, restore; needs "
             "canGetAndSetFMUState); default: dd where the FMU has them, else fd.  "
             "--fd implies fd.  --jacobian is the deprecated spelling (with "
             "--coupling it means --corrector-jacobian)"},
    {.kind = OPTK_ENUM, .name = "algorithm", .off = SIM(o.algorithm), .arg = "fixedStep|ecco",
     .modes = SIM_FIXED, .names = algorithm_names,
     .help = "an OSP system structure (--model-file *.xml; doc/osp.md) "
             "run with libcosim's algorithm instead of a --scheme: fixed steps of "
             "BaseStepSize (or --dt), or ECCO's energy-conservation step control over "
             "the power bonds (EccoConfiguration); default: the file's Algorithm when "
             "no --scheme is given"},
    {.kind = OPTK_ENUM, .name = "events", .off = SIM(o.events), .arg = "on|off",
     .modes = SIM_FIXED, .names = events_names, .flags = OPTF_OR_LIST,
     .help = "FMI 3.0 event mode for the FMUs that offer it (hasEventMode; default on): "
             "instantiated with eventModeUsed (and earlyReturnAllowed with "
             "canReturnEarlyAfterIntermediateUpdate); an early return or an event, and a "
             "nextEventTime, is a communication point of every unit (units past it rolled "
             "back; the input history restarts there; the grid continues at the next grid "
             "point); CSV rows at the events and a last column 'event'; plain Jacobi schemes "
             "without corrections only (doc/events-clocks.md); off: no event mode, as before.  "
             "FMUs with clocks need it: their periodic input clocks tick at shift + k "
             "interval, in Event Mode with the inputs there; a triggered one ticks with the "
             "output clock that a 'connect clock S.OUT -> T.IN' of the model file connects to "
             "it (doc/events-clocks.md); off refuses them"},
    {.kind = OPTK_ENUM, .name = "defects", .off = SIM(o.defects), .arg = "on|off",
     .modes = SIM_FIXED, .names = defects_names, .flags = OPTF_OR_LIST,
     .help = "the defect estimates defect_out and defect_conn: their mid-step sample "
             "takes every unit a half step from a snapshot per macro step (shown as "
             "defect_steps in the unit lines); the run itself is the same either way.  "
             "Default: on for built-in units, off for a network with FMUs (where the "
             "half steps cost FMU steps).  A unit that cannot take the half step (no "
             "FMU state, a fixed internal step that dt/2 is not a multiple of, or a "
             "half step it refuses) leaves them nan, with a note"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &itol_rule, .name = "iter-tol",
     .off = SIM(o.itol), .arg = "T", .modes = SIM_FIXED,
     .help = "iterative schemes (doc/iterative-coupling.md): the sweeps of a "
             "macro step stop at |yhat^(j) - yhat^(j-1)| <= T |yhat^(j)| over the "
             "outputs read as iterates (default 1e-8) with --iterations inf "
             "(default; at most 100 sweeps) or K (at most K); --iterations K alone "
             "sweeps K times.  Every unit is rolled back to the step's start "
             "before each sweep.  Prints iterations_mean, iterations_max, "
             "windows_not_converged (last update above T) and contraction (update "
             "ratio per sweep); --relax also takes aitken[:W0], Aitken's dynamic "
             "relaxation from W0 (default 0.5)"},
    {.kind = OPTK_FLAG, .name = "fmu-log", .off = SIM(o.fmu_log), .modes = SIM_FIXED,
     .help = "FMU logging on (loggingOn): every message an FMU logs goes to stderr "
             "with the FMU's name (a Warning status is noted once per FMU also "
             "without it)"},
    {.kind = OPTK_PATH, .name = "output", .off = SIM(o.output), .arg = "DIR",
     .short_name = 'o', .help = "write the files into DIR (created; files there replaced)"},
    {.kind = OPTK_STRING, .name = "name", .off = SIM(o.name), .arg = "NAME",
     .help = "base name of the files (default: MODEL_SCHEME; with --coupling: "
             "MODEL_COUPLING_SCHEME)"},
    {.kind = OPTK_STRING, .name = "plot", .off = SIM(o.plot), .arg = "FMT",
     .help = "also render the plot with gnuplot: png, svg or pdf (without -o the "
             "files go to the current directory and existing ones are not "
             "overwritten)"},
    {.kind = OPTK_STRING, .name = "outputs", .off = SIM(o.outputs), .arg = "LIST",
     .modes = SIM_FIXED,
     .help = "the columns of NAME.csv: comma-separated outputs (their y, ybar and "
             "ref columns; also outputs connected to nothing), inputs (u, du) and "
             "states (x.SUB.NAME), each as SUB.NAME or NAME where that is unique "
             "(default: every input and output, no state)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_rule_text, .data = &interval_rule,
     .name = "output-interval", .off = SIM(o.interval), .arg = "DT",
     .modes = SIM_FIXED,
     .help = "a row every DT seconds (a whole multiple of --dt) and the last one "
             "(default: every macro point)"},
    {.kind = OPTK_STRING, .name = "jacobian", .off = SIM(o.jacobian), .flags = OPTF_HIDDEN},
    {.kind = OPTK_STRING, .name = "t0", .off = SIM(t0), .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = SIM(cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = SIM(cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef SIM

/* --help of the mode: the description, the rows of the mode. */
static void help(unsigned mode)
{
    if (mode == SIM_COUPLED) {
        fputs(cmd_simulate_vo_usage, stdout);
        opt_help_grouped(stdout, sim_rows, SIM_COUPLED);
        fputs(cmd_simulate_vo_prints, stdout);
        return;
    }
    help_intro();
    opt_help_grouped(stdout, sim_rows, SIM_FIXED);
}

/* The deprecated --jacobian in the mode decided: --mbcorr-jacobian dd|fd of
 * a fixed-step run, --corrector-jacobian of a --coupling one (the note is
 * printed with the results: an error stays one line). */
static int old_jacobian(const char *cmd, struct sim_run *r, unsigned mode)
{
    struct sim_opts *o = &r->o;
    if (!o->jacobian)
        return CLI_OK;
    if (mode == SIM_COUPLED) {
        r->vo.jacobian_old = o->jacobian;
        return vo_cli_jacobian_old(cmd, &r->vo);
    }
    if (o->mbcorr_jac >= 0) {
        cli_error(cmd, "option --mbcorr-jacobian given twice (--jacobian is its deprecated "
                       "spelling)");
        return CLI_EUSAGE;
    }
    if (strcmp(o->jacobian, "dd") && strcmp(o->jacobian, "fd")) {
        cli_error(cmd, "--jacobian must be dd or fd, got '%s'", o->jacobian);
        return CLI_EUSAGE;
    }
    o->mbcorr_jac = o->jacobian[0] == 'f';
    return CLI_OK;
}

/* A --coupling run takes the options both modes share from o. */
static int coupling_shared(const char *cmd, struct sim_run *r)
{
    const struct sim_opts *o = &r->o;
    struct vo_cli_opts *vo = &r->vo;
    vo->tend = o->tend, vo->rtol = o->rtol, vo->atol = o->atol, vo->refrtol = o->refrtol;
    vo->integrator = o->integrator, vo->output = o->output, vo->name = o->name;
    vo->plot = o->plot;
    vo->ref = o->ref, vo->start = o->start;
    return cli_positive(cmd, "--micro", o->micro, &vo->micro);
}

/* Parse the command line; *mode: SIM_FIXED or SIM_COUPLED.  < 0 after
 * --help (printed: the help of the mode the options before it chose). */
static int sim_args_parse(struct sim_run *r, int argc, char **argv, unsigned *mode)
{
    const char *cmd = r->cmd;
    struct sim_opts *o = &r->o;
    o->tend = o->rtol = o->atol = o->refrtol = o->nu = NAN;
    o->outorder = -1;
    o->lin = o->mbcorr_jac = o->input = o->start = o->events = o->algorithm = o->defects = -1;
    vo_cli_opts_init(&r->vo, cmd);
    r->cs.alpha = 1.0;
    r->cs.td_relax = 1; /* --relax aitken: the time domain's own */
    int rc = opt_parse_modes(cmd, sim_rows, sim_modes, r, argc, argv, NULL, mode);
    if (rc == OPT_HELP_ASKED) {
        help(r->vo.coupling ? SIM_COUPLED : SIM_FIXED);
        return -1;
    }
    if (rc != CLI_OK)
        return rc;
    if (r->t0) {
        cli_error(cmd, "--t0 is an option of cosa estimate");
        return CLI_EUSAGE;
    }
    if ((rc = old_jacobian(cmd, r, *mode)) != CLI_OK)
        return rc;
    return *mode == SIM_COUPLED ? coupling_shared(cmd, r) : CLI_OK;
}

/* The checks of the fixed-step options: the scheme and --dt; build the
 * model's systems. */
static int sim_parse(struct sim_run *r)
{
    const char *cmd = r->cmd;
    int rc;
    if (r->o.name && (rc = cli_file_stem(cmd, "--name", r->o.name)) != CLI_OK)
        return rc;
    if ((rc = cli_case_scheme(cmd, &r->cs, &r->scheme)) != CLI_OK)
        return rc;
    const struct sim_opts *o = &r->o;
    r->iterative = cosa_iteration_of(&r->scheme)->iterates;
    /* the options an iterative scheme cannot take (the one table of rules) */
    cosa_combination_refusal why;
    const unsigned f = (o->nrate ? COSA_COMB_MULTIRATE : 0u) | (o->input == 1 ? COSA_COMB_HELD : 0u) |
                       (o->start == 1 ? COSA_COMB_INITIAL : 0u) |
                       (o->mu ? COSA_COMB_ENERGY_CORRECT : 0u);
    const int conflict = cosa_combination_check(&r->scheme, f, 1, &why) != COSA_OK &&
                         why.rule == COSA_RULE_ITERATES;
    if (r->iterative &&
        (rc = sim_iter_options(cmd, &r->cs, &r->scheme, o->itol,
                               conflict ? feature_option(why.feature) : NULL, why.needs,
                               &r->iopt)) != CLI_OK)
        return rc;
    if (!r->iterative && o->itol) {
        cli_error(cmd, "--iter-tol applies to iterative schemes (imp:, gs-imp:) only, got %s",
                  r->cs.scheme_text);
        return CLI_EUSAGE;
    }
    if ((rc = cli_case_dt(cmd, r->cs.dt_text, &r->dt)) != CLI_OK ||
        (rc = build_systems(cmd, &r->cs, &r->scheme, &r->sm)) != CLI_OK ||
        (r->sm.sys && (rc = cli_dt_fits(cmd, "--dt", r->dt, r->sm.sys)) != CLI_OK))
        return rc;
    /* black boxes: the output correction on their identified model (before
     * the units are made: they need no Jacobians then) */
    if ((rc = sim_blackbox_corr(cmd, r->cs.mod.model, r->cs.mod.par, r->sm.nsub, r->sm.sys,
                                &r->scheme, r->corrnote, sizeof r->corrnote)) != CLI_OK)
        return rc;
    if (r->sm.os && cosa_odesys_coupling(r->sm.os)) {
        cli_error(cmd, "model '%s' couples its units through coupling variables u = phi(y) (a "
                       "force/force split): run it with --coupling explicit|implicit",
                  r->cs.mod.model->name);
        return CLI_EUSAGE;
    }
    cosa_scheme_name(&r->scheme, r->sname, sizeof r->sname);
    return CLI_OK;
}

/* --integrator, --tend, --rtol, --atol, --micro, --ref-rtol. */
static int sim_integrator(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const struct sim_opts *o = &r->o;
    const cosa_model *m = r->cs.mod.model;
    r->iname = o->integrator ? o->integrator : r->sm.sys ? "exact" : "cvode";
    if (cosa_integrator_parse(r->iname, &r->integ) != COSA_OK) {
        cli_error(cmd, "unknown integrator '%s' (expected exact, cvode, cvode-adams, rk4, "
                       "symplectic-euler or euler)", r->iname);
        return CLI_EUSAGE;
    }
    if (r->integ.kind == COSA_INTEGRATOR_EXACT && !r->sm.sys) {
        cli_error(cmd, "--integrator exact needs a linear model; '%s' is nonlinear (use cvode, "
                       "rk4, symplectic-euler or euler)", m->name);
        return CLI_EUSAGE;
    }
    r->tend = m->tend;
    const int step = o->micro && strcmp(o->micro, "step") == 0;
    if (step && (r->integ.kind == COSA_INTEGRATOR_EXACT ||
                 cosa_integrator_is_adaptive(r->integ.kind))) {
        cli_error(cmd, "--micro step: the %s integrator takes no fixed steps (use rk4, "
                       "symplectic-euler or euler)", r->iname);
        return CLI_EUSAGE;
    }
    double micro = 0.0;
    int rc;
    if (!isnan(o->tend))
        r->tend = o->tend;
    if (!isnan(o->rtol))
        r->integ.rtol = o->rtol;
    if (!isnan(o->atol))
        r->integ.atol = o->atol;
    if (!isnan(o->refrtol))
        r->refrtol = o->refrtol;
    if ((rc = step ? (micro = r->dt, CLI_OK) /* one step per unit step (energy paper sect. 5) */
                   : cli_positive(cmd, "--micro", o->micro, &micro)) != CLI_OK)
        return rc;
    /* the micro step: 0 < micro <= DT, at most COSA_MICRO_STEPS_MAX per macro step
     * (compared as doubles: DT / micro may be far beyond any integer) */
    if (o->micro && micro > r->dt) {
        cli_error(cmd, "--micro %g is longer than the macro step --dt %g (need 0 < micro <= dt)",
                  micro, r->dt);
        return CLI_EUSAGE;
    }
    if (o->micro && !(ceil(r->dt / micro * (1.0 - 1e-12)) <= (double)COSA_MICRO_STEPS_MAX)) {
        cli_error(cmd, "--micro %g: %.3g micro steps per macro step of %g s (at most %d)", micro,
                  r->dt / micro, r->dt, COSA_MICRO_STEPS_MAX);
        return CLI_EUSAGE;
    }
    r->integ.hmicro = micro > 0.0 ? micro : r->dt / 100.0;
    return CLI_OK;
}

/* --linearize, --fd, --ref, --mbcorr-jacobian, --plot. */
static int sim_master_options(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const struct sim_opts *o = &r->o;
    r->mopt.force_fd = o->fd;
    r->mopt.lin_at_end = o->lin == 1;
    if (o->ref && !o->ref[0]) {
        cli_error(cmd, "--ref must be auto, fine, none or a CSV file");
        return CLI_EUSAGE;
    }
    r->fine = o->ref && strcmp(o->ref, "fine") == 0;
    r->noref = o->ref && strcmp(o->ref, "none") == 0;
    /* --ref FILE: anything but auto, fine and none */
    r->reffile = o->ref && !r->fine && !r->noref && strcmp(o->ref, "auto") ? o->ref : NULL;
    if (o->mbcorr_jac == 1)
        r->mopt.force_fd = 1;
    if (r->scheme.model && (o->lin >= 0 || o->fd))
        fprintf(stderr, "cosa: %s: note: %s no effect with %s: the %s model gives "
                        "the correction fixed Jacobians\n",
                cmd, o->lin >= 0 && o->fd ? "--linearize and --fd have"
                     : o->lin >= 0        ? "--linearize has"
                                          : "--fd has",
                r->corrnote[0] ? "a black box" : "--assume",
                r->corrnote[0] ? "identified" : "assumed");
    if (o->plot)
        return scli_plot_format(cmd, o->plot);
    return CLI_OK;
}

/* The number of macro steps under the cap (--max-points N, default
 * SIM_STEPS_MAX). */
int sim_steps_check(const char *cmd, const cli_case *cs, double nsteps)
{
    const size_t cap = cs->max_points ? cs->max_points : SIM_STEPS_MAX;
    if (!(nsteps <= (double)cap)) {
        cli_error(cmd, "--tend / --dt = %.3g macro steps: too many (at most %zu; raise the cap "
                       "with --max-points N)",
                  nsteps, cap);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* The memory the trajectories of a fixed-step run take for certain, checked
 * against the address-space and data limits before any work (a lower bound:
 * a refusal is never wrong).  Per macro point, in doubles: the engine's
 * result 1 + nx + 2 nu + 3 ny (t, x, u, du, y, ybar, yref; lib/td/driver.c),
 * the reference nx + ny (lib/td/reftraj.c; the NaN one of --ref none too),
 * the run's copy 1 + nx + ny (t, x, y; lib/td/run.c). */
static int sim_memory_check(const struct sim_run *r)
{
    const double nx = (double)cosa_unitset_nx(r->set), nu = (double)cosa_unitset_nu(r->set),
                 ny = (double)cosa_unitset_ny(r->set);
    const double need = (double)r->nsamples * (2.0 + 3.0 * nx + 2.0 * nu + 5.0 * ny) *
                        (double)sizeof(double);
    char what[96];
    snprintf(what, sizeof what, "%zu macro steps: the trajectories alone", r->N);
    return cli_memory_check(r->cmd, need, what, "use a longer --dt or a shorter --tend");
}

/* The energy paper's options, --rate, --input, --start and the number of
 * macro steps. */
static int sim_run_options(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const cosa_model *m = r->cs.mod.model;
    r->e_limit = 1.0;
    r->e_auto = r->o.mu && strcmp(r->o.mu, "auto") == 0;
    int rc = energy_options(cmd, &r->o, m, &r->scheme, &r->e_mu, &r->e_nu, &r->e_limit,
                            &r->e_limit_abs);
    if (rc != CLI_OK)
        return rc;
    if (r->e_auto && r->sm.nsub != 2) {
        cli_error(cmd, "--mu auto: eqs 20-21 are for two units, model '%s' has %zu (give --mu "
                       "MU)", m->name, r->sm.nsub);
        return CLI_EUSAGE;
    }
    if (!(r->rate = calloc(r->sm.nsub + 1, sizeof *r->rate))) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    if ((rc = coupling_options(cmd, &r->o, m, r->cs.mod.par, r->sm.nsub, &r->scheme, r->rate,
                               &r->held, &r->initial)) != CLI_OK)
        return rc;
    /* floor(T / DT) full steps, then one short step to T (end_clip.h) */
    const double nsteps = cosa_end_clip_steps(r->tend, r->dt, &r->h_last);
    if (nsteps < 1) {
        cli_error(cmd, "--dt %g is longer than the horizon --tend %g: no macro step to run",
                  r->dt, r->tend);
        return CLI_EUSAGE;
    }
    if ((rc = sim_steps_check(cmd, &r->cs, nsteps)) != CLI_OK)
        return rc;
    r->N = (size_t)nsteps;
    r->nsamples = (size_t)r->scheme.order + r->N + 1;
    return CLI_OK;
}

/* The output files' names, checked before anything is computed (as map
 * does). */
static int sim_files_prepare(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const struct sim_opts *o = &r->o;
    r->out.dir = o->output;
    if (!o->output && !o->plot)
        return CLI_OK;
    char slug[64], path[1024];
    scli_slug(r->sname, slug, sizeof slug);
    if (o->name)
        snprintf(r->base, sizeof r->base, "%s", o->name);
    else
        snprintf(r->base, sizeof r->base, "%s_%s", r->cs.mod.model->name, slug);
    snprintf(r->csv, sizeof r->csv, "%s.csv", r->base);
    snprintf(r->gp, sizeof r->gp, "%s.gp", r->base);
    snprintf(r->ecsv, sizeof r->ecsv, "%s_energy.csv", r->base);
    snprintf(r->egp, sizeof r->egp, "%s_energy.gp", r->base);
    snprintf(r->json, sizeof r->json, "%s.json", r->base);
    int rc;
    if ((rc = scli_out_prepare(cmd, &r->out)) != CLI_OK ||
        (rc = scli_out_path(cmd, &r->out, r->csv, path, sizeof path)) != CLI_OK ||
        (r->cs.format == 1 &&
         (rc = scli_out_path(cmd, &r->out, r->json, path, sizeof path)) != CLI_OK) ||
        (rc = scli_out_path(cmd, &r->out, r->gp, path, sizeof path)) != CLI_OK ||
        (o->energy && (rc = scli_out_path(cmd, &r->out, r->ecsv, path, sizeof path)) != CLI_OK) ||
        (o->energy && (rc = scli_out_path(cmd, &r->out, r->egp, path, sizeof path)) != CLI_OK))
        return rc;
    return CLI_OK;
}

/* How the user spelled --mbcorr-jacobian (for messages). */
static const char *jacobian_spelling(const struct sim_opts *o)
{
    return o->jacobian ? "--jacobian" : "--mbcorr-jacobian";
}

/* One line for a failed cosa_model_units_create; the exit code. */
static int sim_units_error(const struct sim_run *r, cosa_status st,
                           const cosa_model_units_error *e)
{
    const char *cmd = r->cmd;
    if (e->fmu && e->missing == COSA_MODEL_UNITS_NEED_DIRECTIONAL) {
        cli_error(cmd, "%s: %s dd: the FMU provides no directional derivatives", e->fmu,
                  jacobian_spelling(&r->o));
        return CLI_EUSAGE;
    }
    if (e->fmu && e->missing == COSA_MODEL_UNITS_NEED_STATE) {
        cli_error(cmd, "%s: scheme %s rolls the units back before every sweep: the FMU cannot "
                       "get and set its state (canGetAndSetFMUState)", e->fmu, r->sname);
        return CLI_EUSAGE;
    }
    if (e->fmu && e->missing) {
        const int dd = (e->caps & COSA_FMU_CAP_DIRECTIONAL) != 0;
        cli_error(cmd, "%s: scheme %s needs Jacobians: the FMU provides %s%s%s "
                       "(canGetAndSetFMUState) for finite differences",
                  e->fmu, r->sname,
                  dd ? "directional derivatives (drop "
                     : "neither directional derivatives nor its state",
                  dd ? jacobian_spelling(&r->o) : "", dd ? " fd) but no state" : "");
        return CLI_EUSAGE;
    }
    if (e->fmu) {
        cli_error(cmd, "%s: %s", e->fmu, e->msg);
        /* (COSA_EUNSUPPORTED: an option the FMU cannot take, e.g. --integrator
         * symplectic-euler for a Model Exchange FMU) */
        return st == COSA_EFMU || st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
    }
    if (st == COSA_EUNSUPPORTED) {
        cli_error(cmd, "--integrator %s: model '%s' has no position/velocity split of its "
                       "states (symplectic Euler needs one)", r->iname, r->cs.mod.model->name);
        return CLI_EUSAGE;
    }
    cli_error(cmd, "cannot create the units: %s", cosa_strerror(st));
    return CLI_EFAIL;
}

/* --events (README "Events"): event mode on (auto: on) for every FMU
 * subsystem that offers it (hasEventMode); off leaves today's instances. */
/* Clocks need Event Mode (README "Clocks"): an FMU with Clock variables
 * under --events off, or without hasEventMode, is refused in one line. */
static int sim_clocks_need_events(const struct sim_run *r)
{
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    for (size_t i = 0; i < r->sm.nsub; i++) {
        if (!fmus[i] || !cosa_fmu_nclock(fmus[i]))
            continue;
        const int em = (cosa_fmu_caps(fmus[i]) & COSA_FMU_CAP_EVENT_MODE) != 0;
        if (r->o.events == 0 || !em) {
            cli_error(r->cmd, "%sFMU %s has clocks (%s%s), which need event mode%s",
                      em ? "--events off: " : "", cosa_unit_fmu_name(units[i]),
                      cosa_fmu_clock_at(fmus[i], 0)->name,
                      cosa_fmu_nclock(fmus[i]) > 1 ? ", ..." : "",
                      em ? " (--events on)" : ", and it does not declare hasEventMode");
            return CLI_EUSAGE;
        }
        for (size_t k = 0; k < cosa_fmu_nclock(fmus[i]); k++) {
            const cosa_fmu_clock *c = cosa_fmu_clock_at(fmus[i], k);
            const int trig = c->interval_variability == COSA_FMU_CLOCK_TRIGGERED;
            if (c->causality == COSA_FMU_INPUT && !c->periodic &&
                !(trig && cosa_unit_fmu_clock_driven(units[i], c->name))) {
                /* a triggered one ticks when a `connect clock` drives it */
                cli_error(r->cmd, "FMU %s: input clock '%s' is %s: cosa activates periodic "
                          "input clocks%s", cosa_unit_fmu_name(units[i]), c->name,
                          cosa_fmu_interval_variability_name(c->interval_variability),
                          trig ? ", and no output clock drives this one (add 'connect clock "
                                 "SUB.OUTCLOCK -> SUB.INCLOCK' to the model file)" : "");
                return CLI_EUSAGE;
            }
        }
    }
    return CLI_OK;
}

static int sim_events(struct sim_run *r)
{
    if (sim_clocks_need_events(r) != CLI_OK)
        return CLI_EUSAGE;
    if (r->o.events == 0)
        return CLI_OK;
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    for (size_t i = 0; i < r->sm.nsub; i++) {
        if (!fmus[i] || !(cosa_fmu_caps(fmus[i]) & COSA_FMU_CAP_EVENT_MODE))
            continue;
        cosa_status st = cosa_unit_fmu_set_events(units[i], 1);
        if (st == COSA_EUNSUPPORTED && r->o.events < 0 && !cosa_unit_fmu_events(units[i])) {
            /* the default: an FMU that cannot run its event mode runs without */
            fprintf(stderr, "cosa: %s: note: %s: it runs without event mode\n", r->cmd,
                    cosa_unit_message(units[i]));
            continue;
        }
        if (st != COSA_OK) {
            cli_error(r->cmd, "--events on: %s", cosa_unit_message(units[i]));
            return CLI_EUSAGE; /* the FMU's own event handling fails: bad input */
        }
        r->mopt.events = 1; /* event points are communication points */
    }
    /* the rule advise's runnable check applies too (fmu_rules.c) */
    const char *why = !r->mopt.events ? NULL
                      : fmu_event_rule(&r->scheme, r->o.nrate != 0, r->held, r->o.energy);
    if (why) {
        cli_error(r->cmd, "--events on: the event points need %s (scheme %s; or --events off)",
                  why, r->sname);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

static int sim_fixed_steps(struct sim_run *r);

/* The units (FMU subsystems run the FMU itself, README "FMU import"; their
 * Jacobians exist at the FMU's current point only, so MBCorr linearises at
 * the end of the step unless --linearize says otherwise) and the
 * trajectory file's columns. */
static int sim_units(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const struct sim_opts *o = &r->o;
    const cosa_model *m = r->cs.mod.model;
    const double *par = r->cs.mod.par;
    cosa_model_units_opts uo = {.integ = &r->integ, .sys = r->sm.sys, .os = r->sm.os,
                                .force_fd = r->mopt.force_fd,
                                .log = o->fmu_log ? sim_fmu_log : NULL, .log_user = (void *)cmd};
    if (o->mbcorr_jac == 0)
        uo.need |= COSA_MODEL_UNITS_NEED_DIRECTIONAL;
    if ((r->scheme.corr & COSA_CORR_OUTPUT) && !r->scheme.model)
        uo.need |= COSA_MODEL_UNITS_NEED_JACOBIAN;
    if (r->iterative) /* rollback before every sweep */
        uo.need |= COSA_MODEL_UNITS_NEED_STATE;
    cosa_model_units_error e;
    cosa_status st = cosa_model_units_create(m, par, &uo, &r->mu, &e);
    if (st != COSA_OK)
        return sim_units_error(r, st, &e);
    r->set = cosa_model_units_set(r->mu);
    int rc;
    if ((rc = sim_events(r)) != CLI_OK || (rc = sim_fixed_steps(r)) != CLI_OK)
        return rc;
    const size_t nfmu = cosa_model_units_nfmu(r->mu);
    /* the input smoothness the FMUs recommend caps the input degree; FMUs in
     * an algebraic loop are iterated in Initialization Mode first */
    int rci = nfmu ? sim_fmu_smoothness(cmd, cosa_model_units_units(r->mu),
                                        cosa_model_units_fmus(r->mu), m, par, r->sm.nsub,
                                        &r->scheme, r->sname)
                   : CLI_OK;
    if (rci == CLI_OK && nfmu)
        rci = sim_init_run(cmd, m, par, r->set, r->sm.x0, &r->init);
    if (rci != CLI_OK)
        return rci;
    /* the trajectory file's columns: named by subsystem, --outputs, --output-interval
     * (checked before the notes below: a refused option stays one line) */
    if ((o->outputs || o->interval) && !o->output && !o->plot) {
        cli_error(cmd, "--%s: no trajectory file to write (give -o DIR or --plot)",
                  o->outputs ? "outputs" : "output-interval");
        return CLI_EUSAGE;
    }
    if ((o->output || o->plot) &&
        (rc = sim_csv_init(cmd, m, par, r->set, o->outputs, o->interval, r->dt, &r->cols)) !=
            CLI_OK)
        return rc;
    if (o->plot && r->cols.nysel == 0) {
        cli_error(cmd, "--plot: --outputs names no output to plot");
        return CLI_EUSAGE;
    }
    /* black boxes (identified FMUs): the units run without the identified
     * states, whose initial values the FMU does not tell; the reference is
     * the fine co-simulation (doc/simulate-black-box.md) */
    char bbnames[256];
    const size_t nbb = nfmu ? sim_blackbox_names(m, r->sm.nsub, bbnames, sizeof bbnames) : 0;
    if ((rc = sim_blackbox_x0(cmd, r->sm.sys, r->set, &r->sm.x0, NULL)) != CLI_OK)
        return rc;
    if (nbb && (!o->ref || !strcmp(o->ref, "auto"))) {
        r->fine = 1; /* the note once the run has succeeded: errors stay one line */
        snprintf(r->bbnote, sizeof r->bbnote, "black box%s %s (no declared states): the "
                 "reference is the fine co-simulation (as --ref fine), not the identified "
                 "network", nbb > 1 ? "es" : "", bbnames);
    }
    /* a nonlinear or affine FMU network: the linearised network is no
     * reference, the fine co-simulation is the default (README "FMU import") */
    char nlwhy[256];
    if (nfmu && !r->fine && (!o->ref || !strcmp(o->ref, "auto")) &&
        !fmu_network_linear(m, par, nlwhy, sizeof nlwhy)) {
        r->fine = 1;
        fprintf(stderr, "cosa: %s: note: %s: the reference is the fine co-simulation (as "
                        "--ref fine), not the linearised network\n", cmd, nlwhy);
    }
    /* events: the linearised network knows nothing of them */
    if (r->mopt.events && !r->fine && (!o->ref || !strcmp(o->ref, "auto"))) {
        r->fine = 1;
        fprintf(stderr, "cosa: %s: note: an FMU has events: the reference is the fine "
                        "co-simulation (as --ref fine), not the linearised network\n", cmd);
    }
    /* connection offsets (u = L y + c): the linearised network, the exact
     * reference, has no c; FMUs: the fine co-simulation, else CVODE on the
     * units (sim_reference) */
    if (cosa_model_file_input_offset(m) && nfmu && !r->fine &&
        (!o->ref || !strcmp(o->ref, "auto"))) {
        r->fine = 1;
        fprintf(stderr, "cosa: %s: note: the connections have offsets (u = L y + c), which the "
                        "linearised network has not: the reference is the fine co-simulation "
                        "(as --ref fine)\n", cmd);
    }
    if (nfmu && o->lin < 0)
        r->mopt.lin_at_end = 1;
    /* gains by steps serve the output correction only (the master refuses
     * them beside --rate and --input held) */
    if (nfmu && (r->scheme.corr & COSA_CORR_OUTPUT) && !r->scheme.model)
        r->mopt.step_gains = cosa_model_units_step_gains(r->mu);
    return CLI_OK;
}

/* The FMUs' capabilities (cap, n entries) and pointers to them (caps[i]
 * NULL for a subsystem that is no FMU). */
static void fmu_caps(const struct sim_run *r, cosa_fmu_capability *cap,
                     const cosa_fmu_capability **caps)
{
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    for (size_t i = 0; i < r->sm.nsub; i++) {
        caps[i] = NULL;
        if (fmus[i]) {
            cosa_fmu_capability_get(fmus[i], &cap[i]);
            caps[i] = &cap[i];
        }
    }
}

/* The subsystem name of unit i (for messages). */
static const char *sub_name_of(const struct sim_run *r, size_t i)
{
    const cosa_model *m = r->cs.mod.model;
    const char *n = m->sub_name ? m->sub_name(m, r->cs.mod.par, i) : NULL;
    return n ? n : "?";
}

/* --defects (issue 32): on by default for built-in units (cheap, and their
 * outputs as before), off for a network with FMUs (every half step is an
 * FMU step); where it is on but a unit cannot take the half step dt/2 (no
 * FMU state, a fixed internal step) the reason goes to defect_skip and the
 * defects are nan.  Multi-rate, held and iterative runs take no mid sample
 * (as before). */
static void sim_defects(struct sim_run *r, const cosa_fmu_capability *const *caps)
{
    r->defects = r->o.defects >= 0 ? r->o.defects : cosa_model_units_nfmu(r->mu) == 0;
    r->defect_skip[0] = '\0';
    if (!r->defects)
        return;
    if (r->o.nrate || r->held || r->iterative || r->mopt.events) {
        snprintf(r->defect_skip, sizeof r->defect_skip, "%s takes no mid-step sample",
                 r->o.nrate ? "a multi-rate run" : r->held ? "--input held"
                 : r->iterative ? "an iterative scheme" : "a run with event points");
        r->defects = 0;
        return;
    }
    /* a black box's output derivatives would be its feedthrough's alone (it
     * declares no states): output polynomials of order >= 1 are not known;
     * of order 0 they are the outputs themselves (doc/simulate-black-box.md) */
    char bbn[64];
    if (r->o.outorder != 0 && sim_blackbox_names(r->cs.mod.model, r->sm.nsub, bbn, sizeof bbn)) {
        snprintf(r->defect_skip, sizeof r->defect_skip, "black box %s declares no states, so "
                 "its output derivatives are not known (--out-order 0 needs none)", bbn);
        r->defects = 0;
        return;
    }
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    char why[256];
    for (size_t i = 0; i < r->sm.nsub && r->defects; i++) {
        if (!(cosa_unit_caps(units[i]) & COSA_UNIT_CAN_SAVE_STATE))
            snprintf(r->defect_skip, sizeof r->defect_skip, "unit %s cannot save its state "
                     "for the mid-step sample", sub_name_of(r, i));
        else if (caps[i] && cosa_fmu_step_check(caps[i], 0.5 * r->dt, why, sizeof why) != COSA_OK)
            snprintf(r->defect_skip, sizeof r->defect_skip, "FMU %s cannot take the half step "
                     "dt/2: %s", sub_name_of(r, i), why);
        r->defects = !r->defect_skip[0];
    }
}

/* The short last step to --tend (end_clip.h): a run that cannot take it --
 * an FMU whose fixed internal step does not divide it, a scheme that
 * assumes equal steps -- ends at the last full step, with a note. */
static void sim_end_clip(struct sim_run *r, const cosa_fmu_capability *const *caps)
{
    if (!(r->h_last > 0.0))
        return;
    char why[256] = "", b1[32], b2[32];
    const cosa_energy_opts en = {0};
    const cosa_cosim_opts co = {.iter = r->iterative ? &r->iopt : NULL,
                                .energy = r->o.energy ? &en : NULL};
    const char *no = cosa_end_clip_refusal(&r->scheme, &co);
    if (no)
        snprintf(why, sizeof why, "%s", no);
    for (size_t i = 0; !no && i < r->sm.nsub; i++) {
        const unsigned K = r->rate[i] ? r->rate[i] : 1;
        char fw[200];
        if (caps[i] && cosa_fmu_step_check(caps[i], r->h_last / K, fw, sizeof fw) != COSA_OK) {
            snprintf(why, sizeof why, "FMU %s: %s", sub_name_of(r, i), fw);
            no = why;
        }
    }
    if (!no)
        return;
    const double t0 = (double)(r->initial ? 0 : (size_t)r->scheme.order) * r->dt;
    char b3[32];
    fprintf(stderr, "cosa: %s: note: the run ends at the last full macro step t = %s, before "
            "the end of the horizon t = %s (--tend %s): %s\n", r->cmd,
            cosa_number_text(b1, sizeof b1, t0 + (double)r->N * r->dt),
            cosa_number_text(b3, sizeof b3, t0 + r->tend),
            cosa_number_text(b2, sizeof b2, r->tend), why);
    r->h_last = 0.0;
}

/* Event points need every unit to stop there: a fixed-step FMU cannot,
 * unless the events come from an FMU on a grid of its own (fmu_rules.c,
 * the rule advise applies too): refused in one line. */
static int sim_event_grid(const struct sim_run *r, const cosa_fmu_capability *const *caps)
{
    const size_t n = r->sm.nsub;
    int *ev = calloc(n + 1, sizeof *ev);
    const char **names = calloc(n + 1, sizeof *names);
    if (!ev || !names) {
        free(ev);
        free(names);
        cli_error(r->cmd, "out of memory");
        return CLI_EFAIL;
    }
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    for (size_t i = 0; i < n; i++) {
        ev[i] = caps[i] && cosa_unit_fmu_events(units[i]);
        names[i] = sub_name_of(r, i);
    }
    char why[320];
    const size_t i = fmu_event_grid_refusal(caps, ev, n, names, why, sizeof why);
    free(ev);
    free(names);
    if (i == n)
        return CLI_OK;
    cli_error(r->cmd, "--events on: %s (or --events off)", why);
    return CLI_EUSAGE;
}

/* Fixed internal steps (issue 32, doc/fixed-step-fmus.md): every FMU must
 * be able to take its communication step dt / K (--rate NAME=K; 1), else
 * one line naming it before anything runs; the fine reference steps at the
 * largest dt / K, K <= REF_FINE_FACTOR, that every FMU can take (K = 1 at
 * worst: dt itself passed the check). */
static int sim_fixed_steps(struct sim_run *r)
{
    const size_t n = r->sm.nsub;
    r->fine_factor = REF_FINE_FACTOR;
    r->fine_why[0] = '\0';
    cosa_fmu_capability *cap = calloc(n + 1, sizeof *cap);
    const cosa_fmu_capability **caps = calloc(n + 1, sizeof *caps);
    if (!cap || !caps) {
        free(cap);
        free(caps);
        cli_error(r->cmd, "out of memory");
        return CLI_EFAIL;
    }
    fmu_caps(r, cap, caps);
    int rc = CLI_OK;
    char why[256], b1[32], b2[32];
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        const unsigned K = r->rate[i] ? r->rate[i] : 1;
        if (!caps[i] || cosa_fmu_step_check(caps[i], r->dt / K, why, sizeof why) == COSA_OK)
            continue;
        if (K > 1)
            snprintf(b2, sizeof b2, " / %u (--rate)", K);
        cli_error(r->cmd, "FMU %s: %s (--dt %s%s)", sub_name_of(r, i), why,
                  cosa_number_text(b1, sizeof b1, r->dt), K > 1 ? b2 : "");
        rc = CLI_EUSAGE;
    }
    if (rc == CLI_OK && r->mopt.events)
        rc = sim_event_grid(r, caps);
    if (rc == CLI_OK) {
        r->fine_factor = (unsigned)cosa_fmu_step_grid(caps, n, r->dt, REF_FINE_FACTOR);
        size_t at = 0;
        const double hf = fmu_fixed_step_max(caps, n, &at);
        if (r->fine_factor < REF_FINE_FACTOR)
            snprintf(r->fine_why, sizeof r->fine_why, "FMU %s takes fixed internal steps of %s "
                     "s: the fine reference steps at dt/%u%s", sub_name_of(r, at),
                     cosa_number_text(b1, sizeof b1, hf), r->fine_factor,
                     r->fine_factor == 1 ? ", no finer than the run (e_global then compares "
                                           "the scheme with the fine reference's scheme at the "
                                           "same step)" : "");
        sim_defects(r, caps);
        sim_end_clip(r, caps);
    }
    free(cap);
    free(caps);
    return rc;
}

/* The first message a unit left (an FMU's failed call or missing
 * capability), or "". */
static const char *units_why(const struct sim_run *r)
{
    cosa_unit *const *units = cosa_model_units_units(r->mu);
    const char *why = "";
    for (size_t i = 0; i < r->sm.nsub && !why[0]; i++)
        why = cosa_unit_message(units[i]);
    return why;
}

/* The fine reference's scheme: SOH, or the highest input degree every
 * FMU accepts -- ZOH when one holds its inputs (a sampled controller with
 * clocks, README "Clocks"). */
static const char *fine_scheme(const struct sim_run *r)
{
    return cosa_fmu_fine_scheme(cosa_model_units_fmus(r->mu), r->sm.nsub);
}

/* The fine co-simulation at dt / fine_factor; an FMU that does not advance
 * over the fine step (a fixed grid it does not declare: "did not advance",
 * lib/td/unit_fmu.c) is a step it refuses: the factor is halved until it
 * takes the step (down to 1, the run's own step), with a note. */
static cosa_status fine_reference(struct sim_run *r, const cosa_scheme *fs)
{
    for (;;) {
        cosa_status st = cosa_reftraj_cosim(r->set, fs, r->sm.x0, r->dt, r->nsamples,
                                            r->fine_factor, &r->ref);
        const char *why = st == COSA_OK ? "" : units_why(r);
        if (st == COSA_OK || r->fine_factor == 1 || !strstr(why, "did not advance"))
            return st;
        const unsigned was = r->fine_factor;
        r->fine_factor /= 2;
        snprintf(r->fine_why, sizeof r->fine_why, "an FMU did not advance over the fine step "
                 "dt/%u (%.300s): the fine reference steps at dt/%u", was, why,
                 r->fine_factor);
    }
}

/* The reference trajectory: a file, the fine co-simulation, exact, or
 * CVODE. */
static int sim_reference(struct sim_run *r)
{
    const char *cmd = r->cmd;
    cosa_status st = COSA_OK;
    if (r->noref) {
        /* the start-up samples t = 0 .. p*DT (at least two: the fine run's
         * least) from the fine co-simulation, then nothing */
        cosa_scheme fs;
        const char *fname = fine_scheme(r);
        cosa_scheme_parse(fname, &fs);
        size_t nk = (size_t)r->scheme.order + 1;
        nk = nk < 2 ? 2 : nk;
        nk = nk > r->nsamples ? r->nsamples : nk;
        cosa_reftraj *known = NULL;
        st = cosa_reftraj_cosim(r->set, &fs, r->sm.x0, r->dt, nk,
                                r->fine_factor,
                                &known);
        if (st == COSA_OK)
            st = cosa_reftraj_none(r->set, known, r->dt, r->nsamples, &r->ref);
        cosa_reftraj_free(known);
        snprintf(r->refdesc, sizeof r->refdesc, "none");
        if (st != COSA_OK) {
            const char *why = units_why(r);
            cli_error(cmd, "the start-up samples failed: %s", why[0] ? why : cosa_strerror(st));
            return st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
        }
        return CLI_OK;
    }
    if (r->reffile) {
        int rc = read_reference(cmd, r->reffile, r->cs.mod.model, r->cs.mod.par, r->set,
                                &r->scheme, r->sm.x0, r->dt, r->nsamples, &r->ref);
        if (rc != CLI_OK)
            return rc;
        /* without state columns only x(0) is known: x0 of the model */
        snprintf(r->refdesc, sizeof r->refdesc, "file %s (%ld samples%s)", r->reffile,
                 r->ref->nsteps,
                 r->ref->nx && isnan(r->ref->x[r->ref->nx]) ? ", the states at t = 0 from the model"
                                                             : "");
    } else if (r->fine) {
        /* the macro-step cap (1e8 by default) times the fine factor would be hours of
         * fine steps: the fine reference has its own cap, 1e9 fine steps */
        if ((double)r->nsamples * r->fine_factor > 1e9) {
            cli_error(cmd, "the fine reference needs %zu x %u = %.3g fine steps: too many (at "
                           "most 1e9); use a longer --dt, a shorter --tend or --ref FILE",
                      r->nsamples, r->fine_factor, (double)r->nsamples * r->fine_factor);
            return CLI_EUSAGE;
        }
        cosa_scheme fs;
        const char *fname = fine_scheme(r);
        cosa_scheme_parse(fname, &fs);
        st = fine_reference(r, &fs);
        if (r->fine_why[0])
            fprintf(stderr, "cosa: %s: note: %s\n", cmd, r->fine_why);
        /* an algebraic loop of feedthrough units is solved at every fine
         * point (lib/td/reftraj_cosim.c: its extrapolation would blow up) */
        snprintf(r->refdesc, sizeof r->refdesc, "fine co-simulation %s dt/%u%s",
                 fname[0] == 's' ? "SOH" : fname[0] == 'f' ? "FOH" : "ZOH", r->fine_factor,
                 r->ref && r->ref->loop ? ", the algebraic loop solved at every point" : "");
    } else if (r->sm.sys && !cosa_unitset_input_offset(r->set)) {
        st = cosa_reftraj_exact(r->sm.sys, r->sm.x0, r->dt, r->nsamples, &r->ref);
        snprintf(r->refdesc, sizeof r->refdesc, "exact%s",
                 cosa_model_units_nfmu(r->mu)
                     ? " (the linearised network: --ref fine for nonlinear FMUs)" : "");
    } else {
        st = cosa_reftraj_cvode(r->set, r->sm.x0, r->dt, r->nsamples, r->refrtol, &r->ref);
        snprintf(r->refdesc, sizeof r->refdesc, "cvode-bdf rtol %g", r->refrtol);
    }
    if (st != COSA_OK) {
        const char *why = r->fine ? units_why(r) : "";
        cli_error(cmd, "the %s reference failed: %s", r->fine ? "fine" : "monolithic",
                  why[0] ? why : cosa_strerror(st));
        /* an FMU doing what it was not allowed to (an early return): bad input */
        return st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
    }
    return CLI_OK;
}

/* --out-order, the rates, the power port and the co-simulation itself. */
static int sim_cosim(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const struct sim_opts *o = &r->o;
    const cosa_model *m = r->cs.mod.model;
    const int outorder = o->outorder >= 0 ? (int)o->outorder : 1;
    struct step_progress sprog = {&r->prog, 0, r->N};
    const cosa_observer obs = {NULL, step_done, &sprog};
    /* the defects sample the mid-step outputs through unit snapshots
     * (sim_defects decided whether) */
    const int defects = r->defects;
    struct energy_ctx ectx = {m, r->cs.mod.par, cosa_unitset_nx(r->set),
                              sim_blackbox_names(m, r->sm.nsub, NULL, 0) > 0};
    r->R = o->nrate ? step_ratio(r->set, r->sm.x0, r->rate) : 0.0;
    if (r->e_auto)
        r->e_mu = mu_auto(r->set, r->sm.x0, r->R, r->scheme.order);
    r->mopt.held = r->held;
    cosa_energy_port eport = {0};
    if (o->energy) {
        const size_t nidx = 2 * r->sm.ny + r->sm.nu + 2;
        if (!(r->portidx = malloc(nidx * sizeof *r->portidx)) ||
            m->energy_port(m, r->cs.mod.par, &eport, r->portidx, nidx) != COSA_OK) {
            cli_error(cmd, "--energy: model '%s' gives no power port for these parameters",
                      m->name);
            return CLI_EFAIL;
        }
    }
    cosa_status st;
    if ((st = cosa_unitset_set_rates(r->set, r->rate)) != COSA_OK ||
        (o->energy && (st = cosa_unitset_set_port(r->set, &eport)) != COSA_OK)) {
        cli_error(cmd, "the unit set refuses the %s: %s",
                  o->energy ? "rates or power port" : "rates", cosa_strerror(st));
        return CLI_EFAIL;
    }
    const cosa_energy_opts eopt = {model_energy, &ectx, o->mu != NULL, r->e_mu, r->e_nu,
                                   r->e_limit, r->e_limit_abs};
    /* progress; the initialization loop again at the master's start */
    cosa_observer obsv[2];
    size_t nobs = 0;
    if (r->prog.on)
        obsv[nobs++] = obs;
    if (r->init.res.loop)
        obsv[nobs++] = (cosa_observer){sim_init_observe, NULL, &r->init};
    /* the one entry point (issue 23): the run description validated once,
     * by the library; the units' counters are the run's (it resets them:
     * the fine reference ran on the same units) */
    cosa_run_opts ro;
    cosa_run_opts_default(&ro);
    ro.kind = COSA_RUN_FIXED;
    ro.scheme = r->scheme;
    ro.H = r->dt; /* the reference trajectory's (checked) */
    /* the horizon: --tend, or the last full step where the short one is
     * refused (sim_end_clip: h_last 0) */
    ro.tend = r->h_last > 0.0 ? r->tend : (double)r->N * r->dt;
    ro.start_initial = r->initial;
    ro.observers = nobs ? obsv : NULL;
    ro.nobservers = nobs;
    ro.fixed = (cosa_run_fixed_opts){.master = r->mopt, .defects = defects,
                                     .energy = o->energy ? &eopt : NULL,
                                     .defect_out_order = outorder,
                                     .iter = r->iterative ? &r->iopt : NULL};
    const cosa_run_ref ref = {.traj = r->ref};
    st = cosa_run(r->set, &ro, &ref, &r->run);
    cli_progress_end(&r->prog);
    if (st == COSA_OK)
        r->res = r->run->fixed; /* the fixed-step figures (owned by r->run) */
    if (st != COSA_OK) {
        const char *why = units_why(r);
        cli_error(cmd, "co-simulation failed: %s", why[0] ? why : cosa_strerror(st));
        return st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
    }
    return CLI_OK;
}

/* The energy paper's figures at the last macro point reached. */
static void print_energy(const cosa_energy_result *en)
{
    if (!en || !en->npoints)
        return;
    const size_t L = en->npoints - 1;
    double vmax = 0.0;
    for (size_t k = 0; k < en->npoints; k++) /* nan where E is not known */
        vmax = isnan(vmax) || isnan(en->varsigma[k]) ? NAN : fmax(vmax, fabs(en->varsigma[k]));
    printf("E0 %.17g\nE_end %.17g\nE_ref_end %.17g\nE_ratio %.17g\ndE_end %.17g\n"
           "varsigma_end %.17g\nmax_varsigma %.17g\nmu_measured %.17g\n",
           en->E[0], en->E[L], en->Eref[L], en->E[L] / en->Eref[L], en->dE[L],
           en->varsigma[L], vmax, en->varsigma[L] / en->dE[L]);
    if (!en->correct)
        return;
    printf("mu %.17g\nnu %.17g\n", en->mu, en->nu);
    if (isinf(en->limit))
        printf("limit none\n");
    else
        printf("limit %.17g\n", en->limit);
    if (!isinf(en->limit_abs))
        printf("limit_abs %.17g\n", en->limit_abs);
    printf("U_end %.17g\ncaps %zu\n", en->Ucal[L], en->caps);
}

/* The 'name value' lines of the run (notes on stderr first). */
static void sim_print(struct sim_run *r)
{
    const cosa_model *m = r->cs.mod.model;
    const double *par = r->cs.mod.par;
    const cosa_integrator *in = &r->integ;
    cosa_fmu *const *fmus = cosa_model_units_fmus(r->mu);
    const cosa_cosim_result *res = r->res;
    /* notes (stderr) once the run has succeeded: errors stay one line */
    if (r->bbnote[0])
        fprintf(stderr, "cosa: %s: note: %s\n", r->cmd, r->bbnote);
    char bbn[256];
    if (r->o.energy && sim_blackbox_names(m, r->sm.nsub, bbn, sizeof bbn))
        fprintf(stderr, "cosa: %s: note: --energy: black box %s hides its states: E, E_ref and "
                        "varsigma are nan; dP, dE and the correction come from the bonds' "
                        "outputs\n", r->cmd, bbn);
    if (r->corrnote[0])
        fprintf(stderr, "cosa: %s: note: scheme %s: the output correction uses the identified "
                        "model of %s (doc/black-box.md) and the other units' linearisation at "
                        "the operating point, as fixed Jacobians\n", r->cmd, r->sname,
                r->corrnote);
    sim_fmu_horizon(r->cmd, fmus, m, par, r->sm.nsub, (double)(r->nsamples - 1) * r->dt);
    sim_fmu_warnings(r->cmd, cosa_model_units_units(r->mu), fmus, r->sm.nsub);
    if (r->o.defects == 1 && r->defect_skip[0])
        fprintf(stderr, "cosa: %s: note: --defects on: %s: defect_out and defect_conn are nan "
                        "(the run is unchanged)\n", r->cmd, r->defect_skip);
    if (res->defect_lost[0])
        fprintf(stderr, "cosa: %s: note: the defects' mid-step half step failed (%s): "
                        "defect_out and defect_conn are nan (the run is unchanged)\n",
                r->cmd, res->defect_lost);
    if (r->o.jacobian)
        fprintf(stderr, "cosa: %s: note: --jacobian is deprecated; use --mbcorr-jacobian\n",
                r->cmd);
    if (cosa_integrator_is_adaptive(in->kind))
        snprintf(r->idesc, sizeof r->idesc, "%s rtol %g", cosa_integrator_name(in->kind), in->rtol);
    else if (in->kind == COSA_INTEGRATOR_EXACT)
        snprintf(r->idesc, sizeof r->idesc, "exact");
    else
        snprintf(r->idesc, sizeof r->idesc, "%s micro %g", cosa_integrator_name(in->kind),
                 in->hmicro);
    printf("model %s\n", m->name);
    for (size_t i = 0; i < r->sm.nsub; i++)
        if (fmus[i])
            printf("fmu %s fmi %d.0 jacobian %s\n", m->sub_name ? m->sub_name(m, par, i) : "?",
                   cosa_fmu_version(fmus[i]),
                   (cosa_fmu_caps(fmus[i]) & COSA_FMU_CAP_DIRECTIONAL) && !r->mopt.force_fd
                       ? "dd" : "fd");
    cli_assume_print(stdout, "", &r->cs.mod);
    if (r->corrnote[0]) /* the output correction on black boxes' identified models */
        printf("correction_model identified %s\n", r->corrnote);
    char b1[32], b2[32]; /* settings: the shortest form that reads back (cosa_number_text) */
    printf("scheme %s\nintegrator %s\nreference %s\ndt %s\ntend %s\n", r->sname, r->idesc,
           r->refdesc, cosa_number_text(b1, sizeof b1, r->dt),
           cosa_number_text(b2, sizeof b2, r->tend));
    sim_init_print(m, par, r->set, &r->init);
    /* the statistics every time-domain run prints (issue 23, run_stats.h):
     * fixed macro steps, none rejected, h_min = h_max = dt */
    run_stats_view v;
    run_stats_view_of(&v, &res->run, r->set);
    /* a unit that could not complete its step (an FMU's Discard) failed the
     * run; the numbers did not diverge */
    v.status = !res->diverged                     ? "ok"
               : res->fail == COSA_EDISCARD    ? "failed"
               : res->fail == COSA_ETERMINATED ? "terminated" /* an FMU asked */
                                               : "diverged";
    v.t = res->diverged ? res->t_diverged : NAN;
    v.reason = res->diverged ? res->reason : NULL;
    v.steps = res->ndone;
    v.h_min = v.h_max = r->dt;
    run_stats_print(stdout, &v, RUN_STATS_STATUS);
    if (r->o.nrate) {
        printf("rate");
        for (size_t i = 0; i < r->sm.nsub; i++)
            printf(" %s=%u", m->sub_name ? m->sub_name(m, par, i) : "?", r->rate[i]);
        printf("\n");
        if (r->R > 0.0)
            printf("R %.17g\n", r->R);
    }
    if (r->held || r->initial)
        printf("input %s\nstart %s\n", r->held ? "held" : "poly",
               r->initial ? "initial" : "reference");
    if (!r->noref) /* --ref none: nothing to compare with */
        printf("e_global %.17g\n", res->e_global);
    run_stats_print(stdout, &v, RUN_STATS_STEPS);
    /* the same notes as `cosa point` where the NRMSE is undefined */
    if (!r->noref && isnan(res->e_global) && !res->diverged)
        printf("note %s\n", res->ndone - (size_t)res->clipped == 1 /* e_global's points */
                                ? "1 macro step in the horizon: NRMSE undefined (it needs the "
                                  "spread of the reference over at least 2 macro points)"
                                : "all outputs constant over the horizon: NRMSE undefined");
    sim_iter_print(&r->scheme, &r->iopt, res);
    printf("defect_out %.17g\ndefect_conn %.17g\n", res->defect_out, res->defect_conn);
    print_energy(res->energy);
    if (res->events) { /* event points: the steps to and from them are shorter */
        printf("event_points %zu\n", res->events->n);
        v.h_min = res->run.h_min;
        v.h_max = res->run.h_max;
    }
    run_stats_print(stdout, &v, RUN_STATS_REJECTED | RUN_STATS_H_MIN | RUN_STATS_H_MAX |
                                    RUN_STATS_NEW);
    fflush(stdout);
}

/* NAME_energy.csv and NAME_energy.gp (title: the trajectory plot's). */
static int sim_energy_files(struct sim_run *r, const char *title)
{
    const char *cmd = r->cmd;
    const cosa_energy_result *en = r->res->energy;
    char path[1024], ebase[300], e0[40], etitle[600], ecomment[1024];
    snprintf(ebase, sizeof ebase, "%s_energy", r->base);
    snprintf(e0, sizeof e0, "%.17g", en->E[0]);
    if (en->correct)
        snprintf(etitle, sizeof etitle, "%s, energy correction mu = %g, nu = %g", title, en->mu,
                 en->nu);
    else
        snprintf(etitle, sizeof etitle, "%s, energy", title);
    snprintf(ecomment, sizeof ecomment,
             "# cosa %s simulate --energy: model %s, scheme %s\n# data: %s", cosa_version(),
             r->cs.mod.model->name, r->sname, r->ecsv);
    const char *ek[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILE", "E0", "TITLE"};
    const char *ev[] = {ecomment, r->egp, ebase, r->ecsv, e0, etitle};
    int rc;
    if ((rc = scli_out_path(cmd, &r->out, r->ecsv, path, sizeof path)) != CLI_OK ||
        (rc = write_energy_csv(cmd, path, r->cs.mod.model->name, r->sname, r->dt, r->res)) !=
            CLI_OK)
        return rc;
    printf("file %s\n", path);
    if ((rc = scli_out_path(cmd, &r->out, r->egp, path, sizeof path)) != CLI_OK ||
        (rc = scli_write_script(cmd, path, cosa_plot_energy, 6, ek, ev)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    fflush(stdout);
    if (r->o.plot) {
        if ((rc = scli_gnuplot(cmd, r->out.dir, r->egp, r->o.plot)) != CLI_OK)
            return rc;
        printf("file %s/%s.%s\n", r->out.dir, ebase, r->o.plot);
    }
    return CLI_OK;
}

/* NAME.csv and NAME.gp (plots/simulate.gp: the corrected outputs and the
 * reference), the rendered plot, then the energy files. */
static int sim_files(struct sim_run *r)
{
    const char *cmd = r->cmd;
    const cosa_model *m = r->cs.mod.model;
    const double *par = r->cs.mod.par;
    const sim_csv *cols = &r->cols;
    char path[1024], jpath[1024];
    int rc;
    /* -o DIR: the pictures of an earlier run go before the new data appear */
    scli_remove_pictures(&r->out, r->base);
    if (r->res->energy) {
        char ebase[300];
        snprintf(ebase, sizeof ebase, "%s_energy", r->base);
        scli_remove_pictures(&r->out, ebase);
    }
    if ((rc = scli_out_path(cmd, &r->out, r->csv, path, sizeof path)) != CLI_OK ||
        (r->cs.format == 1 &&
         (rc = scli_out_path(cmd, &r->out, r->json, jpath, sizeof jpath)) != CLI_OK) ||
        (rc = sim_csv_write(cmd, path, r->cs.format == 1 ? jpath : NULL, &r->cs.mod, cols,
                            r->sname, r->idesc, r->refdesc, r->dt, r->tend, r->res)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    if (r->cs.format == 1) /* --format json: the trajectory also as JSON */
        printf("file %s\n", jpath);
    char names[2048] = "", title[512], comment[1024], ycol[32], rcol[32];
    for (size_t k = 0; k < r->sm.ny; k++) {
        if (!cols->ysel[k])
            continue;
        const char *nm = cols->yname[k];
        if (strlen(names) + strlen(nm) + 2 < sizeof names) {
            strcat(names, names[0] ? " " : "");
            strcat(names, nm);
        }
    }
    snprintf(ycol, sizeof ycol, "%zu", 2 + cols->nusel + cols->nysel);
    snprintf(rcol, sizeof rcol, "%zu", 2 + 2 * cols->nusel + 2 * cols->nysel);
    char sets[384];
    scli_title_sets(&r->cs.mod, NULL, 0, sets, sizeof sets);
    char rdesc[160] = "";
    for (size_t i = 0; r->o.nrate && i < r->sm.nsub; i++)
        if (r->rate[i] > 1 && strlen(rdesc) + 40 < sizeof rdesc)
            snprintf(rdesc + strlen(rdesc), sizeof rdesc - strlen(rdesc), ", %s: %u steps",
                     m->sub_name ? m->sub_name(m, par, i) : "?", r->rate[i]);
    snprintf(title, sizeof title, "%s, %s, ΔT = %g s%s%s%s", m->name, r->sname, r->dt, sets,
             rdesc, r->res->diverged ? " (diverged)" : "");
    snprintf(comment, sizeof comment, "# cosa %s simulate: model %s, scheme %s\n# data: %s",
             cosa_version(), m->name, r->sname, r->csv);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILE", "NAMES", "YCOL", "RCOL",
                          "TITLE"};
    const char *vals[] = {comment, r->gp, r->base, r->csv, names, ycol, rcol, title};
    if ((rc = scli_out_path(cmd, &r->out, r->gp, path, sizeof path)) != CLI_OK ||
        (rc = scli_write_script(cmd, path, cosa_plot_simulate, 8, keys, vals)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    fflush(stdout);
    if (r->o.plot) {
        if ((rc = scli_gnuplot(cmd, r->out.dir, r->gp, r->o.plot)) != CLI_OK)
            return rc;
        printf("file %s/%s.%s\n", r->out.dir, r->base, r->o.plot);
    }
    return r->res->energy ? sim_energy_files(r, title) : CLI_OK;
}

/* An OSP run: --algorithm, or an OSP file (*.xml) without --scheme. */
static int sim_is_osp(const struct sim_run *r)
{
    const char *f = r->cs.mod.file;
    const size_t n = f ? strlen(f) : 0;
    return r->o.algorithm >= 0 ||
           (!r->cs.scheme_text && n > 4 && strcasecmp(f + n - 4, ".xml") == 0);
}

static void sim_free(struct sim_run *r)
{
    sim_csv_free(&r->cols);
    cosa_run_result_free(r->run);
    cosa_reftraj_free(r->ref);
    sim_init_free(&r->init);
    cosa_model_units_free(r->mu);
    free(r->rate);
    free(r->portidx);
    cosa_odesys_free(r->sm.os);
    cosa_system_free(r->sm.sys);
    cosa_system_free(r->sm.model);
    free(r->sm.x0);
    cli_case_free(&r->cs);
}

int cmd_simulate(int argc, char **argv)
{
    const char *cmd = "simulate";
    struct sim_run *r = calloc(1, sizeof *r);
    if (!r) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    r->cmd = cmd;
    r->refrtol = 1e-12; /* --ref-rtol */
    unsigned mode = SIM_FIXED;
    tw w = {0}; /* the report: its 'name value' lines through the writer */
    int rc = sim_args_parse(r, argc, argv, &mode);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc == CLI_OK && (tw_begin(&w, stdout, r->cs.format == 1 ? TW_JSON : TW_TEXT, TW_REPORT,
                                  cmd, NULL, NULL) != 0 ||
                         tw_capture_stdout(&w) != 0)) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    if (rc == CLI_OK && mode == SIM_COUPLED) { /* the variable-order engine (issue 11) */
        rc = cmd_simulate_vo(&r->cs, &r->vo);
        goto out;
    }
    if (rc == CLI_OK && sim_is_osp(r)) { /* libcosim's algorithms (doc/osp.md) */
        const struct sim_opts *o = &r->o;
        const char *unused = o->plot ? "--plot" : o->integrator ? "--integrator"
                             : o->outputs ? "--outputs" : o->interval ? "--output-interval"
                             : o->energy ? "--energy" : o->nrate ? "--rate"
                             : o->ref ? "--ref" : r->cs.mod.nassume ? "--assume" : NULL;
        if (unused) {
            cli_error(cmd, "%s: not an option of libcosim's algorithms (--algorithm, an OSP "
                           "file without --scheme; doc/osp.md)", unused);
            rc = CLI_EUSAGE;
            goto out;
        }
        rc = cmd_simulate_osp(cmd, &r->cs, r->o.algorithm < 0 ? NULL
                                           : algorithm_names[r->o.algorithm],
                              r->o.tend, r->o.output, r->o.name, r->o.fmu_log);
        goto out;
    }
    if (rc != CLI_OK || (rc = sim_parse(r)) != CLI_OK || (rc = sim_integrator(r)) != CLI_OK ||
        (rc = sim_master_options(r)) != CLI_OK || (rc = sim_run_options(r)) != CLI_OK ||
        (rc = sim_files_prepare(r)) != CLI_OK || (rc = sim_units(r)) != CLI_OK ||
        (rc = sim_memory_check(r)) != CLI_OK)
        goto out;
    cli_progress_init(&r->prog, cmd, r->cs.progress);
    if (r->prog.on)
        cli_progress_stage("reference", 0, 0, 0, &r->prog);
    if ((rc = sim_reference(r)) != CLI_OK || (rc = sim_cosim(r)) != CLI_OK)
        goto out;
    sim_print(r);
    if ((r->o.output || r->o.plot) && (rc = sim_files(r)) != CLI_OK)
        goto out;
    rc = CLI_OK;
out:
    rc = tw_finish(&w, cmd, rc);
    sim_free(r);
    free(r);
    return rc;
}
