/* cmd_point.c -- `cosa point`: one scheme at one parameter point. */
#include "energy_cli.h"
#include "table_writer.h"
#include "fmu_notes.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "Usage: cosa point [--model NAME] [--set NAME=VALUE]... --scheme SCHEME --dt DT\n"
    "                  [--assume NAME=VALUE]... [--alpha A] [--sequence LIST] [--tend T]\n\n"
    "Stability and accuracy of one coupling scheme for one coupled system and\n"
    "macro step.  Prints one 'name value' pair per line (numbers with %.17g):\n"
    "  model, scheme, dt, dim   the case and the length of the information vector\n"
    "  assume NAME VALUE        one line per parameter given with --assume\n"
    "  rho                      spectral radius of Phi (stable when <= 1)\n"
    "  rho_ref                  spectral radius of the exact reference Phi*\n"
    "  stable                   yes | no  (rho <= 1 + 1e-12)\n"
    "  tend, nsteps             horizon and N = round(tend/dt) macro steps\n"
    "  growth                   rho^N, only for an unstable scheme (stable no)\n"
    "  e_global                 global NRMSE (eqs 32-33): outputs of Phi^n z0 vs Phi*^n z0\n"
    "  e_local                  local NRMSE (eq 31): (Phi* - Phi) z_n on the co-simulation\n"
    "                           trajectory\n"
    "  e_local_ref              the same on the reference trajectory z*_n\n"
    "For imp: and gs-imp: (doc/iterative-coupling.md) also\n"
    "  iterations, relax        the sweeps per macro step (inf: converged) and omega\n"
    "  rho_iter                 rho(T(omega)) of the iteration, T = (1-omega) I + omega M\n"
    "  relax_max                sup of omega > 0 with rho(T) < 1 ('none' if there is none)\n"
    "  relax_opt, rho_iter_opt  the omega minimising rho(T), and that minimum\n"
    "For an unstable scheme the errors are those of the run over the horizon (as\n"
    "'cosa simulate' prints them), 'inf' once they overflow; sweeps mark unstable\n"
    "points 'inf'.  The co-simulation starts on the reference trajectory at\n"
    "t = p*dt (doc/method.md); the outputs of the N new macro points enter the\n"
    "indicators.\n\n";

struct opts {
    cli_case cs;
    double tend; /* 0: the model's */
    int energy;
    const char *rate[ECLI_MAX_RATES];
    ecli_point e;
};

#define WITH_ENERGY .requires = "energy", .requires_why = "the energy paper's coupling"
static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_point_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = offsetof(struct opts, tend), .arg = "T",
     .help = "horizon in seconds (default: the model's, 0.3 s for twomass)"},
    {.kind = OPTK_FLAG, .name = "energy", .off = offsetof(struct opts, energy),
     .help = "the energy paper's coupling (Jacobi, held inputs, one\n"
             "integrator step per unit step) from its Phi, no time\n"
             "stepping: prints rho E0 E_end E_ref_end E_ratio dE_end\n"
             "varsigma_end mu_measured (as 'cosa simulate --energy')\n"
             "and one line 'mu_mode OMEGA MU' per oscillating mode\n"
             "(|lambda| > 0.5, decreasing OMEGA = arg(lambda)/DT):\n"
             "MU = (|lambda|^2 - |e^{s* DT}|^2) w'Ww / (DT w'Qw), the\n"
             "energy a mode gains per step over the residual power\n"
             "it shows"},
    {.kind = OPTK_LIST, .fn = cli_row_rate_text, .name = "rate", .off = offsetof(struct opts, rate),
     .arg = "NAME=K",
     .max = ECLI_MAX_RATES, .off_count = offsetof(struct opts, e.nrate), WITH_ENERGY,
     .help = "with --energy: unit NAME takes K steps of DT/K"},
    {.kind = OPTK_ENUM, .name = "start", .off = offsetof(struct opts, e.start),
     .names = ecli_start_names, .flags = OPTF_OR_LIST,
     .arg = "reference|initial", WITH_ENERGY,
     .help = "with --energy: on the reference at t = p*DT (default,\n"
             "doc/method.md) or from x0 at t = 0 with the order capped"},
    {.kind = OPTK_ENUM, .name = "integrator", .off = offsetof(struct opts, e.integrator),
     .names = ecli_integrator_names, .flags = OPTF_OR_LIST,
     .arg = "exact|symplectic-euler|euler", WITH_ENERGY,
     .help = "with --energy: the units' step map (default exact)"},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* The case of the command line: scheme, dt, system, x0, assumed model,
 * horizon; one-line errors. */
static int point_case(const char *cmd, struct opts *o, cosa_scheme *scheme, double *dt,
                      cosa_system **sys, double **x0, cosa_system **model, double *tend)
{
    cli_case *cs = &o->cs;
    int rc;
    if ((rc = cli_case_scheme(cmd, cs, scheme)) != CLI_OK ||
        (rc = cli_case_dt(cmd, cs->dt_text, dt)) != CLI_OK ||
        (rc = cli_case_system(cmd, cs, scheme, sys)) != CLI_OK ||
        (rc = cli_dt_fits(cmd, "--dt", *dt, *sys)) != CLI_OK ||
        (rc = fmu_case_finish(cmd, cs, scheme, *sys, x0, model)) != CLI_OK)
        return rc;
    fmu_ident_dt_note(cmd, cs->mod.model, *dt);
    *tend = o->tend > 0.0 ? o->tend : cs->mod.model->tend;
    if (nearbyint(*tend / *dt) < 1) {
        cli_error(cmd, "--dt %g is longer than the horizon --tend %g: no macro step to evaluate",
                  *dt, *tend);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* cosa_evaluate for point; where the NRMSE is undefined (a horizon of one
 * macro step, more steps than the error sums take, outputs that do not
 * move) rho, rho_ref and the errors as nan, and why in note. */
static cosa_status point_eval(const cosa_system *sys, const cosa_scheme *scheme, double dt,
                              const double *x0, double tend, cosa_eval_workspace *ew,
                              cosa_point_result *r, char *note, size_t size)
{
    /* the errors of the run even where rho > 1 (README, "Accuracy": the
     * rule point and simulate share) */
    const unsigned iter = scheme->implicit ? COSA_WANT_ITER : 0u;
    cosa_status st = cosa_evaluate(sys, scheme, dt, x0, tend,
                                   COSA_WANT_RHO | COSA_WANT_ERRORS | COSA_WANT_RUN | iter, r, ew);
    const double nst = nearbyint(tend / dt);
    if (st != COSA_ERANGE)
        return st;
    st = cosa_evaluate(sys, scheme, dt, x0, tend, COSA_WANT_RHO | COSA_WANT_RHO_REF | iter, r, ew);
    if (st != COSA_OK)
        return st;
    r->err = (cosa_errors){NAN, NAN, NAN, 0};
    r->nsteps = nst <= 1e15 ? (size_t)nst : 0;
    if (nst == 1.0)
        snprintf(note, size,
                 "1 macro step in the horizon: NRMSE undefined (it needs the spread "
                 "of the reference over at least 2 macro points)");
    else if (nst > 1e15)
        snprintf(note, size, "%.3g macro steps in the horizon: more than the error sums take (1e15)",
                 nst);
    else if (cosa_system_ny(sys) == 0)
        snprintf(note, size, CLI_NO_OUTPUTS_NOTE);
    else
        snprintf(note, size, "all outputs constant over the horizon: NRMSE undefined");
    return COSA_OK;
}

static void point_print(tw *w, const cli_case *cs, const cosa_system *sys, const cosa_scheme *scheme,
                        double dt, double tend, const cosa_point_result *r, const char *note)
{
    const double nst = nearbyint(tend / dt);
    char name[64];
    cosa_layout lay;
    cosa_layout_get(sys, scheme, &lay);
    cosa_scheme_name(scheme, name, sizeof name);
    tw_field(w, "model", "%s", cs->mod.model->name);
    cli_assume_print(tw_stream(w), "", &cs->mod);
    char b1[32], b2[32]; /* settings in the shortest form that reads back (cosa_number_text) */
    tw_field(w, "scheme", "%s", name);
    tw_field(w, "dt", "%s", cosa_number_text(b1, sizeof b1, dt));
    tw_field(w, "dim", "%zu", lay.dim);
    tw_field(w, "rho", "%.17g", r->rho);
    tw_field(w, "rho_ref", "%.17g", r->rho_ref);
    tw_field(w, "stable", "%s", r->rho <= 1.0 + r->rho_tol ? "yes" : "no");
    if (scheme->implicit)
        cli_iter_print(w, scheme, &r->iter);
    /* round(tend / dt): an integer up to 1e15, beyond that (where the error
     * sums refuse, with a note) in the shortest exact form, 3e+299 */
    tw_field(w, "tend", "%s", cosa_number_text(b2, sizeof b2, tend));
    if (nst <= 1e15)
        tw_field(w, "nsteps", "%.0f", nst);
    else
        tw_field(w, "nsteps", "%s", cosa_number_text(b1, sizeof b1, nst));
    /* an unstable scheme: how much its worst mode grows over the horizon */
    if (r->rho > 1.0 + r->rho_tol)
        tw_field(w, "growth", "%.17g", pow(r->rho, nst));
    tw_field(w, "e_global", "%.17g", r->err.e_global);
    tw_field(w, "e_local", "%.17g", r->err.e_local);
    tw_field(w, "e_local_ref", "%.17g", r->err.e_local_ref);
    if (*note)
        tw_field(w, "note", "%s", note);
    /* the rounding of Phi itself limits e_global to ~ N eps absolute
     * (cosa/phi.h, cosa_nrmse): below that the digits are noise */
    else if (isfinite(r->err.e_global) && r->err.e_global <= nst * DBL_EPSILON)
        tw_field(w, "note", "e_global is at or below the rounding floor ~N eps = %.2g (N = %.0f "
                 "macro steps): the true error may be smaller", nst * DBL_EPSILON, nst);
}

int cmd_point(int argc, char **argv)
{
    const char *cmd = "point";
    struct opts o = {.e = {.start = -1, .integrator = -1}};
    o.e.rate = o.rate;
    cosa_system *sys = NULL, *model = NULL;
    cosa_eval_workspace *ew = NULL;
    double *x0 = NULL;
    cosa_scheme scheme;
    double dt, tend;
    tw w = {0}; /* the report: text or JSON on stdout */
    int rc = cli_parse_rows(cmd, rows, &o, &o.cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc == CLI_OK && tw_begin(&w, stdout, o.cs.format == 1 ? TW_JSON : TW_TEXT, TW_REPORT,
                                 cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    if (rc != CLI_OK ||
        (rc = point_case(cmd, &o, &scheme, &dt, &sys, &x0, &model, &tend)) != CLI_OK)
        goto out;
    if (o.energy) {
        rc = ecli_point_energy(cmd, &o.cs, &scheme, sys, x0, dt, tend, &o.e, &w);
        goto out;
    }
    ew = cosa_eval_workspace_alloc(sys, scheme.order);
    if (!ew) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress prog;
    cli_progress_init(&prog, cmd, o.cs.progress);
    if (prog.on)
        cosa_eval_workspace_set_progress(ew, cli_progress_stage, &prog);
    cosa_point_result r;
    char note[160] = "";
    cosa_status st = point_eval(sys, &scheme, dt, x0, tend, ew, &r, note, sizeof note);
    if (st == COSA_EUNSTABLEREF) {
        cli_error(cmd, "the monolithic reference is unstable (rho_ref = %.17g > 1): "
                       "accuracy is undefined", r.rho_ref);
        rc = CLI_EUSAGE; /* the system given is unstable: bad input, not a failure */
        goto out;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress_end(&prog);
    point_print(&w, &o.cs, sys, &scheme, dt, tend, &r, note);
out:
    rc = tw_finish(&w, cmd, rc);
    free(x0);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
    cosa_system_free(model);
    cli_case_free(&o.cs);
    return rc;
}
