/* cmd_limit.c -- `cosa limit`: largest stable or accurate macro step. */
#include "cli.h"
#include "fmu_notes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void help(void)
{
    printf("Usage: cosa limit [--model NAME] [--set NAME=VALUE]... [--assume NAME=VALUE]...\n"
           "                  --scheme SCHEME --criterion stable|accurate|local|iteration\n"
           "                  [--tol TOL]\n"
           "                  [--dt-min 1e-9] [--dt-max 1e-2] [--per-decade 20] [--tend T]\n\n"
           "Largest macro step for which the scheme is stable (rho(Phi) <= 1), accurate\n"
           "(global NRMSE e_global <= TOL, default 0.01) or locally accurate (e_local <= TOL),\n"
           "or, for imp:/gs-imp: schemes, whose iteration converges with the best\n"
           "relaxation (rho_iter_opt < 1; README \"Iterative coupling\").\n"
           "The macro step is scanned upward on a log grid from --dt-min to --dt-max and\n"
           "every change between good and bad is refined by bisection to 1e-6 relative.\n"
           "Output ('name value' lines):\n"
           "  dt_max      the first loss scanning upward (the good end of the bracket);\n"
           "              equal to dt-min when dt-min itself is not good, and to dt-max\n"
           "              when nothing is lost (then never_lost yes)\n"
           "  crossings   DT:leaves|enters,...  every crossing ('leaves': good below DT,\n"
           "              'enters': good above DT), or 'none'\n"
           "  monotone    yes | no   (no: stability/accuracy windows exist, see Fig 5)\n"
           "  never_lost, good_at_min, evaluations\n"
           "Near dt -> 0, rho -> 1 and eigenvalue round-off (~1e-12) makes stability\n"
           "limits below ~1e-8 approximate; a 'note' line says so when it matters.\n\n"
           "%s%s\n%s\nOptions:\n%s"
           "  --criterion C        stable | accurate | local | iteration (required)\n"
           "  --tol TOL            error threshold for accurate/local (default 0.01)\n"
           "  --dt-min DT          smallest macro step of the scan (default 1e-9)\n"
           "  --dt-max DT          largest macro step of the scan (default 1e-2)\n"
           "  --per-decade N       grid points per decade (default 20)\n"
           "  --tend T             horizon for the error indicators (default: the model's)\n"
           "%s%s",
           cli_model_help, cli_assume_help, cli_scheme_help, cli_case_help_nodt, cli_progress_help, cli_help_line);
}

struct extra {
    const char *crit, *tol, *dtmin, *dtmax, *perdec, *tend;
};

static int extra(void *ctx, int opt, const char *arg)
{
    struct extra *e = ctx;
    switch (opt) {
    case 'c': e->crit = arg; return 0;
    case 'T': e->tol = arg; return 0;
    case 'm': e->dtmin = arg; return 0;
    case 'M': e->dtmax = arg; return 0;
    case 'P': e->perdec = arg; return 0;
    case 't': e->tend = arg; return 0;
    default: return 1;
    }
}

/* Print 'crossings ...' and 'monotone ...' lines of a limit result. */
void cli_print_crossings(const cosa_crossing *cr, size_t n, int monotone)
{
    printf("crossings ");
    if (n == 0)
        printf("none");
    for (size_t k = 0; k < n; k++)
        printf("%s%.6g:%s", k ? "," : "", cr[k].dt, cr[k].enters ? "enters" : "leaves");
    printf("\nmonotone %s\n", monotone ? "yes" : "no");
}

int cmd_limit(int argc, char **argv)
{
    const char *cmd = "limit";
    static const struct option more[] = {
        {"criterion", required_argument, NULL, 'c'}, {"tol", required_argument, NULL, 'T'},
        {"dt-min", required_argument, NULL, 'm'},    {"dt-max", required_argument, NULL, 'M'},
        {"per-decade", required_argument, NULL, 'P'}, {"tend", required_argument, NULL, 't'},
        CLI_ASSUME_OPTION, CLI_PROGRESS_OPTION,                            {0, 0, 0, 0}};
    struct extra ex = {0};
    cli_case cs = {0};
    cosa_system *sys = NULL, *model = NULL;
    cosa_eval_workspace *ew = NULL;
    double *x0 = NULL;
    cosa_scheme scheme;
    double tol = 0.01, dtmin = 1e-9, dtmax = 1e-2, perdec = 20, tend;
    cosa_criterion crit = COSA_CRIT_STABLE;
    enum { CAP = 64 };
    cosa_crossing cr[CAP];
    int rc = cli_parse(cmd, argc, argv, more, extra, &ex, help, &cs);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (cs.dt_text) {
        cli_error(cmd, "--dt is not used: give the scan range with --dt-min/--dt-max");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (!ex.crit) {
        cli_error(cmd, "--criterion stable|accurate|local is required");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (strcmp(ex.crit, "stable") == 0)
        crit = COSA_CRIT_STABLE;
    else if (strcmp(ex.crit, "accurate") == 0)
        crit = COSA_CRIT_ACCURATE;
    else if (strcmp(ex.crit, "local") == 0)
        crit = COSA_CRIT_LOCAL;
    else if (strcmp(ex.crit, "iteration") == 0)
        crit = COSA_CRIT_ITERATION;
    else {
        cli_error(cmd, "unknown criterion '%s' (expected stable, accurate, local or iteration)",
                  ex.crit);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_positive(cmd, "--tol", ex.tol, &tol)) != CLI_OK ||
        (rc = cli_positive(cmd, "--dt-min", ex.dtmin, &dtmin)) != CLI_OK ||
        (rc = cli_positive(cmd, "--dt-max", ex.dtmax, &dtmax)) != CLI_OK ||
        (rc = cli_positive(cmd, "--per-decade", ex.perdec, &perdec)) != CLI_OK)
        goto out;
    if (!(dtmin < dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", dtmin, dtmax);
        rc = CLI_EUSAGE;
        goto out;
    }
    if (perdec != floor(perdec) || perdec > 1000) {
        cli_error(cmd, "--per-decade must be an integer in 1..1000, got '%s'", ex.perdec);
        rc = CLI_EUSAGE;
        goto out;
    }
    const int errors = crit == COSA_CRIT_ACCURATE || crit == COSA_CRIT_LOCAL;
    if ((rc = cli_case_scheme(cmd, &cs, &scheme)) != CLI_OK)
        goto out;
    if (crit == COSA_CRIT_ITERATION && !scheme.implicit) {
        cli_error(cmd, "--criterion iteration needs an iterative scheme (imp:, gs-imp:)");
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_case_system(cmd, &cs, &scheme, &sys)) != CLI_OK ||
        (errors &&
         (rc = cli_need_outputs(&cs.mod, cmd, cosa_system_ny(sys))) != CLI_OK) ||
        (rc = cli_dt_fits(cmd, "--dt-max", dtmax, sys)) != CLI_OK ||
        (rc = cli_model_x0(&cs.mod, cmd, cosa_system_nx(sys), &x0)) != CLI_OK ||
        (rc = cli_assume_system(&cs.mod, cmd, cs.mod.par, sys, &scheme, 1, &model)) != CLI_OK)
        goto out;
    if (cli_assume_given(&cs.mod))
        cli_assume_note(cmd, &scheme, 1);
    fmu_notes(cmd, &cs.mod, &scheme, 1);
    tend = cs.mod.model->tend;
    if ((rc = cli_positive(cmd, "--tend", ex.tend, &tend)) != CLI_OK)
        goto out;
    ew = cosa_eval_workspace_alloc(sys, scheme.order);
    if (!ew) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress prog;
    cli_progress_init(&prog, cmd, cs.progress);
    if (prog.on)
        cosa_eval_workspace_set_progress(ew, cli_progress_stage, &prog);
    cosa_limit lim;
    cosa_status st = cosa_dt_limit(sys, &scheme, x0, tend, crit, tol, dtmin, dtmax,
                                   (unsigned)perdec, cr, CAP, &lim, ew);
    if (st == COSA_EUNSTABLEREF) {
        cli_error(cmd, "the monolithic reference is unstable: %s limits are undefined",
                  crit == COSA_CRIT_STABLE ? "stability" : "accuracy");
        rc = CLI_EUSAGE; /* the system given is unstable: bad input, not a failure */
        goto out;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress_end(&prog);
    char name[64];
    cosa_scheme_name(&scheme, name, sizeof name);
    printf("model %s\n", cs.mod.model->name);
    cli_assume_print(stdout, "", &cs.mod);
    printf("scheme %s\ncriterion %s\n", name, ex.crit);
    char b1[32], b2[32]; /* settings in the shortest form that reads back (cli_num) */
    if (errors)
        printf("tol %s\ntend %s\n", cli_num(b1, sizeof b1, tol), cli_num(b2, sizeof b2, tend));
    printf("dt_min %s\ndt_range_max %s\n", cli_num(b1, sizeof b1, dtmin),
           cli_num(b2, sizeof b2, dtmax));
    printf("dt_max %.17g\n", lim.dt_max);
    cli_print_crossings(cr, lim.ncross < CAP ? lim.ncross : CAP, lim.monotone);
    printf("never_lost %s\ngood_at_min %s\nevaluations %zu\n", lim.never_lost ? "yes" : "no",
           lim.good_at_min ? "yes" : "no", lim.nevals);
    if (lim.ncross > CAP)
        printf("note only the first %d of %zu crossings are listed\n", CAP, lim.ncross);
    int small = 0;
    for (size_t k = 0; k < lim.ncross && k < CAP; k++)
        small |= cr[k].dt < 1e-8;
    if (crit == COSA_CRIT_STABLE && (small || !lim.good_at_min))
        printf("note stability below dt ~ 1e-8 is approximate: rho -> 1 and eigenvalue "
               "round-off is ~1e-12\n");
out:
    free(x0);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
    cosa_system_free(model);
    cli_case_free(&cs);
    return rc;
}
