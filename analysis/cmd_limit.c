/* cmd_limit.c -- `cosa limit`: largest stable or accurate macro step. */
#include "cli.h"
#include "table_writer.h"
#include "fmu_notes.h"
#include "step_grid.h"
#include "limit_grid.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa limit [--model NAME] [--set NAME=VALUE]... [--assume NAME=VALUE]...\n"
    "                  --scheme SCHEME --criterion stable|accurate|local|iteration\n"
    "                  [--tol TOL]\n"
    "                  [--dt-min 1e-9] [--dt-max 1e-2] [--per-decade 20] [--tend T]\n\n"
    "Largest macro step for which the scheme is stable (rho(Phi) <= 1), accurate\n"
    "(global NRMSE e_global <= TOL, default 0.01) or locally accurate (e_local <= TOL),\n"
    "or, for imp:/gs-imp: schemes, whose iteration converges with the best\n"
    "relaxation (rho_iter_opt < 1; doc/iterative-coupling.md).\n"
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
    "limits below ~1e-8 approximate; a 'note' line says so when it matters.\n"
    "FMUs with a fixed internal step run only at multiples of their common step\n"
    "h_s: dt_max is then the largest multiple m h_s that is good below the first\n"
    "loss (an integer search; a note on stderr gives h_s, m and the continuous\n"
    "dt_max; doc/fixed-step-fmus.md).\n\n";

static const char *const criteria[] = {"stable", "accurate", "local", "iteration", NULL};

struct opts {
    cli_case cs;
    int crit; /* cosa_criterion: criteria[] is in its order */
    double tol, dtmin, dtmax, tend; /* tend 0: the model's */
    long perdec;
};

static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_scan_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_ENUM, .name = "criterion", .off = offsetof(struct opts, crit), .arg = "C",
     .names = criteria, .flags = OPTF_REQUIRED,
     .help = "stable | accurate | local | iteration (required)"},
    {.kind = OPTK_POSITIVE, .name = "tol", .off = offsetof(struct opts, tol), .arg = "TOL",
     .help = "error threshold for accurate/local (default 0.01)"},
    {.kind = OPTK_POSITIVE, .name = "dt-min", .off = offsetof(struct opts, dtmin), .arg = "DT",
     .help = "smallest macro step of the scan (default 1e-9, or the\n"
             "probe step of identified black boxes)"},
    {.kind = OPTK_POSITIVE, .name = "dt-max", .off = offsetof(struct opts, dtmax), .arg = "DT",
     .help = "largest macro step of the scan (default 1e-2)"},
    {.kind = OPTK_INT, .name = "per-decade", .off = offsetof(struct opts, perdec), .arg = "N",
     .imin = 1, .imax = 1000, .help = "grid points per decade (default 20)"},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = offsetof(struct opts, tend), .arg = "T",
     .help = "horizon for the error indicators (default: the model's)"},
    /* refused with its own message (the scan has a range, not a step) */
    {.kind = OPTK_STRING, .name = "dt", .off = offsetof(struct opts, cs.dt_text),
     .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* The 'crossings ...' and 'monotone ...' fields of a limit result. */
void cli_print_crossings(tw *w, const cosa_crossing *cr, size_t n, int monotone)
{
    char list[64 * 24] = "none";
    size_t len = 0;
    for (size_t k = 0; k < n && len < sizeof list; k++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%.6g:%s", k ? "," : "",
                                cr[k].dt, cr[k].enters ? "enters" : "leaves");
    tw_field(w, "crossings", "%s", list);
    tw_field(w, "monotone", "%s", monotone ? "yes" : "no");
}

/* The step grid of fixed-step FMUs (step_grid.h): hs = 0 without. */
struct grid {
    double hs, m;    /* h_s and the multiple found (0: none is good)  */
    double cont;     /* the continuous scan's dt_max                   */
    char who[160];
};

/* The options and the system of the scan, the step grid g of its FMUs;
 * one-line errors. */
static int limit_case(const char *cmd, struct opts *o, cosa_scheme *scheme, cosa_system **sys,
                      double **x0, cosa_system **model, struct grid *g)
{
    cli_case *cs = &o->cs;
    int rc;
    if (cs->dt_text) {
        cli_error(cmd, "--dt is not used: give the scan range with --dt-min/--dt-max");
        return CLI_EUSAGE;
    }
    if (o->dtmin > 0.0 && !(o->dtmin < o->dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", o->dtmin, o->dtmax);
        return CLI_EUSAGE;
    }
    const int errors = o->crit == COSA_CRIT_ACCURATE || o->crit == COSA_CRIT_LOCAL;
    if ((rc = cli_case_scheme(cmd, cs, scheme)) != CLI_OK)
        return rc;
    if (o->crit == COSA_CRIT_ITERATION && !scheme->implicit) {
        cli_error(cmd, "--criterion iteration needs an iterative scheme (imp:, gs-imp:)");
        return CLI_EUSAGE;
    }
    if ((rc = cli_case_system(cmd, cs, scheme, sys)) != CLI_OK)
        return rc;
    /* not given: 1e-9, or the black boxes' probe step (step_grid.h) */
    o->dtmin = step_grid_dt_min(cmd, &cs->mod, o->dtmin, 1e-9);
    if (!(o->dtmin < o->dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", o->dtmin, o->dtmax);
        return CLI_EUSAGE;
    }
    char why[400];
    if (step_grid(&cs->mod, &g->hs, g->who, sizeof g->who, why, sizeof why) < 0) {
        cli_error(cmd, "%s", why);
        return CLI_EUSAGE;
    }
    if (g->hs > 0.0 && step_grid_floor(o->dtmax, g->hs) < 1.0) {
        cli_error(cmd, "--dt-max %g is below the step grid h_s = %.15g s of %s (fixed internal "
                  "steps): no macro step of the range can run", o->dtmax, g->hs, g->who);
        return CLI_EUSAGE;
    }
    if ((errors && (rc = cli_need_outputs(&cs->mod, cmd, cosa_system_ny(*sys))) != CLI_OK) ||
        (rc = cli_dt_fits(cmd, "--dt-max", o->dtmax, *sys)) != CLI_OK ||
        (rc = fmu_case_finish(cmd, cs, scheme, *sys, x0, model)) != CLI_OK)
        return rc;
    if (o->tend == 0.0)
        o->tend = cs->mod.model->tend;
    return CLI_OK;
}

enum { CAP = 64 };

static const char *const crit_words[] = {"stable", "accurate", "locally accurate",
                                         "converging", NULL};

/* Over the grid m h_s: the largest good multiple below the first loss
 * replaces lim->dt_max (limit_grid.c); CLI_OK or the exit code. */
static int limit_on_grid(const char *cmd, const struct opts *o, const cosa_system *sys,
                         const cosa_scheme *scheme, const double *x0, cosa_limit *lim,
                         struct grid *g, cosa_eval_workspace *ew)
{
    const double m_max = step_grid_floor(o->dtmax, g->hs);
    g->cont = lim->dt_max;
    g->m = 0.0;
    size_t nev = 0;
    cosa_status st = limit_grid(sys, scheme, x0, o->tend, (cosa_criterion)o->crit, o->tol,
                                g->hs, lim, m_max, &g->m, &nev, ew);
    lim->nevals += nev;
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        return CLI_EFAIL;
    }
    if (g->m >= 1.0)
        lim->dt_max = g->m * g->hs;
    return CLI_OK;
}

/* The note on the grid's answer (stderr). */
static void grid_note(const char *cmd, const struct opts *o, const struct grid *g)
{
    char b[32], c[32];
    const char *w = crit_words[o->crit];
    cosa_number_text(b, sizeof b, g->hs);
    if (g->m < 1.0)
        fprintf(stderr, "cosa: %s: note: the FMUs step on a grid of h_s = %s s (%s): no "
                        "multiple of it is %s (not even h_s); dt_max is the continuous scan's\n",
                cmd, b, g->who, w);
    else {
        char next[64];
        if (step_grid_floor(o->dtmax, g->hs) > g->m)
            snprintf(next, sizeof next, "not at %.0f h_s", g->m + 1.0);
        else
            snprintf(next, sizeof next, "%.0f h_s is past --dt-max", g->m + 1.0);
        fprintf(stderr, "cosa: %s: note: the FMUs step on a grid of h_s = %s s (%s): dt_max is "
                        "m = %.0f steps of it, the largest multiple that is %s below the first "
                        "loss (%s at %.0f h_s, %s); the continuous scan's dt_max is %s\n",
                cmd, b, g->who, g->m, w, w, g->m, next, cosa_number_text(c, sizeof c, g->cont));
    }
}

static void limit_print(tw *w, const struct opts *o, const cosa_scheme *scheme, const cosa_limit *lim,
                        const cosa_crossing *cr)
{
    const int errors = o->crit == COSA_CRIT_ACCURATE || o->crit == COSA_CRIT_LOCAL;
    char name[64];
    cosa_scheme_name(scheme, name, sizeof name);
    tw_field(w, "model", "%s", o->cs.mod.model->name);
    cli_assume_print(tw_stream(w), "", &o->cs.mod);
    tw_field(w, "scheme", "%s", name);
    tw_field(w, "criterion", "%s", criteria[o->crit]);
    char b1[32]; /* settings in the shortest form that reads back (cosa_number_text) */
    if (errors) {
        tw_field(w, "tol", "%s", cosa_number_text(b1, sizeof b1, o->tol));
        tw_field(w, "tend", "%s", cosa_number_text(b1, sizeof b1, o->tend));
    }
    tw_field(w, "dt_min", "%s", cosa_number_text(b1, sizeof b1, o->dtmin));
    tw_field(w, "dt_range_max", "%s", cosa_number_text(b1, sizeof b1, o->dtmax));
    tw_field(w, "dt_max", "%.17g", lim->dt_max);
    cli_print_crossings(w, cr, lim->ncross < CAP ? lim->ncross : CAP, lim->monotone);
    tw_field(w, "never_lost", "%s", lim->never_lost ? "yes" : "no");
    tw_field(w, "good_at_min", "%s", lim->good_at_min ? "yes" : "no");
    tw_field(w, "evaluations", "%zu", lim->nevals);
    if (lim->ncross > CAP)
        tw_field(w, "note", "only the first %d of %zu crossings are listed", CAP, lim->ncross);
    int small = 0;
    for (size_t k = 0; k < lim->ncross && k < CAP; k++)
        small |= cr[k].dt < 1e-8;
    if (o->crit == COSA_CRIT_STABLE && (small || !lim->good_at_min))
        tw_field(w, "note", "stability below dt ~ 1e-8 is approximate: rho -> 1 and "
                 "eigenvalue round-off is ~1e-12");
}

int cmd_limit(int argc, char **argv)
{
    const char *cmd = "limit";
    struct opts o = {.tol = 0.01, .dtmin = 0.0, .dtmax = 1e-2, .perdec = 20}; /* dtmin 0: not given */
    cosa_system *sys = NULL, *model = NULL;
    cosa_eval_workspace *ew = NULL;
    double *x0 = NULL;
    cosa_scheme scheme;
    cosa_crossing cr[CAP];
    struct grid g = {0};
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
    if (rc != CLI_OK || (rc = limit_case(cmd, &o, &scheme, &sys, &x0, &model, &g)) != CLI_OK)
        goto out;
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
    cosa_limit lim;
    cosa_status st = cosa_dt_limit(sys, &scheme, x0, o.tend, (cosa_criterion)o.crit, o.tol,
                                   o.dtmin, o.dtmax, (unsigned)o.perdec, cr, CAP, &lim, ew);
    if (st == COSA_EUNSTABLEREF) {
        cli_error(cmd, "the monolithic reference is unstable: %s limits are undefined",
                  o.crit == COSA_CRIT_STABLE ? "stability" : "accuracy");
        rc = CLI_EUSAGE; /* the system given is unstable: bad input, not a failure */
        goto out;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto out;
    }
    if (g.hs > 0.0 && (rc = limit_on_grid(cmd, &o, sys, &scheme, x0, &lim, &g, ew)) != CLI_OK)
        goto out;
    cli_progress_end(&prog);
    limit_print(&w, &o, &scheme, &lim, cr);
    if (g.hs > 0.0)
        grid_note(cmd, &o, &g);
out:
    rc = tw_finish(&w, cmd, rc);
    free(x0);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
    cosa_system_free(model);
    cli_case_free(&o.cs);
    return rc;
}
