/* cmd_advise.c -- `cosa advise`: which coupling scheme with which macro
 * step for this system (cosa_advise over a list of candidates), optionally
 * robust to a wrong correction model (--robust: the assumed value of one
 * parameter off by a factor in LO..HI), as a table sorted by cost, a
 * recommendation, and with -o a data file and a bar chart.  With FMUs only
 * the schemes they can run are ranked; --format json (and advice.json with
 * -o) gives the same as one JSON document (advise_json.c). */
#include "config.h"
#include "csv_out.h"
#include "advise_json.h"
#include "fmu_notes.h"
#include "step_grid.h"
#include "sweep_cli.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

extern const char cosa_plot_advise[]; /* plots/advise.gp */

#define DEFAULT_SCHEMES "p0,p0+mbcorr,p1,p1+mbcorr,p2,p2+mbcorr,p3,p3+mbcorr,p4,p4+mbcorr," \
                        "gs:p0,gs:p1,gs:p2,imp:p0,imp:p1,gs-imp:p0,gs-imp:p1"
#define ROBUST_POINTS 7 /* assumed/true factors, log-spaced over LO..HI */

#define STR(x) #x
#define XSTR(x) STR(x)
static const char usage[] =
    "Usage: cosa advise [--model NAME | --model-file FILE] [--set NAME=VALUE]...\n"
    "                   --tol E [--error global|local] [--tend T] [--schemes LIST]\n"
    "                   [--dt-min A] [--dt-max B] [--per-decade N] [--cost-mbcorr C]\n"
    "                   [--robust NAME=LO:HI] [--format md|csv|json] [-o DIR]\n"
    "                   [--plot FMT]\n\n"
    "Which coupling scheme, with which macro step?  For every candidate scheme: the\n"
    "largest macro step dt_stable below which the scheme is stable (rho(Phi) <= 1)\n"
    "and the largest dt_accurate below which its error stays <= E (global NRMSE\n"
    "e_global, or e_local with --error local), both as 'cosa limit' finds them: the\n"
    "first loss scanning upward on a log grid from --dt-min, refined by bisection.\n"
    "The usable step is dt = min(dt_stable, dt_accurate), steps = round(T/dt) macro\n"
    "steps over the horizon, and cost = steps x (1 + C) for a corrected scheme\n"
    "(C = --cost-mbcorr, the relative overhead of one MBCorr step; default 0.2),\n"
    "steps for a plain one.  An iterative candidate (imp:, gs-imp:; converged) is\n"
    "usable where its iteration also converges with the best relaxation\n"
    "(rho_iter_opt < 1), dt is the least of the three limits, and cost = steps x k x\n"
    "(1 + R): k sweeps reach --iter-tol at rho_iter_opt, each with a save or\n"
    "restore of the units (R = --cost-rollback).  A scheme that is not stable and\n"
    "accurate already at\n"
    "--dt-min is not usable (cost inf).  Output: a table sorted by cost with the\n"
    "columns scheme dt_stable dt_accurate dt steps cost (with --robust also\n"
    "dt_robust steps_robust cost_robust), 'note' lines (stability/accuracy windows\n"
    "above the first loss, scan ranges reached, schemes that could not be judged),\n"
    "and a last line 'recommend SCHEME dt DT steps N': the row of least cost.\n\n"
    "--robust NAME=LO:HI judges every corrected scheme also with an assumed model\n"
    "whose parameter NAME is F times its true value, for " XSTR(ROBUST_POINTS) " factors F log-spaced\n"
    "over LO..HI (the output correction believes in the assumed model while the\n"
    "true one evolves; doc/which-scheme.md): dt_robust is the\n"
    "worst dt over those factors, and the ranking uses it.  Plain schemes do not\n"
    "use a model.\n\n"
    "For a model file with FMUs only the schemes cosa simulate can run on them are\n"
    "ranked (input degree <= what each FMU accepts, Jacobians for MBCorr); the\n"
    "others get a 'note SCHEME: not ranked: ...' line with the reason.\n\n";

struct opts {
    cli_case cs;
    double tol, dtmin, dtmax, cost, tend; /* dtmax, tend 0: not given */
    double itol, crb; /* --iter-tol, --cost-rollback (defaults: the library's) */
    long perdec;
    int error;  /* index of errors[] */
    int format; /* index of formats[] (md, the default, is 0) */
    const char *schemes, *robust, *output, *plot;
};

static const char *const errors[] = {"global", "local", NULL};
static const char *const formats[] = {"md", "csv", "json", NULL};

static int robust_row(const opt_row *row, const char *value, void *dst, char *msg, size_t size);
#define S(field) .kind = OPTK_STRING, .off = offsetof(struct opts, field)
static const opt_row rows_of_advise[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = offsetof(struct opts, cs.mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_assume_rows, .off = offsetof(struct opts, cs.mod)},
    {.kind = OPTK_POSITIVE, .off = offsetof(struct opts, tol), .name = "tol", .arg = "E",
     .flags = OPTF_REQUIRED, .help = "error threshold (required, > 0)"},
    {.kind = OPTK_ENUM, .off = offsetof(struct opts, error), .name = "error", .arg = "KIND",
     .names = errors, .help = "global (e_global, default) or local (e_local)"},
    {.kind = OPTK_POSITIVE, .off = offsetof(struct opts, tend), .name = "tend", .arg = "T",
     .help = "horizon in seconds (default: the model's)"},
    {S(schemes), .name = "schemes", .arg = "LIST",
     .help = "candidates, comma-separated (default: p0..p4 plain and\n"
             "+mbcorr, gs:p0..gs:p2, imp:p0, imp:p1, gs-imp:p0,\n"
             "gs-imp:p1); --sequence applies to gs: and gs-imp: ones"},
    {.kind = OPTK_POSITIVE, .off = offsetof(struct opts, dtmin), .name = "dt-min", .arg = "A",
     .help = "smallest macro step of the scan (default 1e-7, or the\n"
             "probe step of identified black boxes)"},
    {.kind = OPTK_POSITIVE, .off = offsetof(struct opts, dtmax), .name = "dt-max", .arg = "B",
     .help = "largest macro step of the scan (default 1e-2, at most T)"},
    {.kind = OPTK_INT, .off = offsetof(struct opts, perdec), .name = "per-decade", .arg = "N",
     .imin = 1, .imax = 1000, .help = "grid points per decade (default 20)"},
    {.kind = OPTK_NONNEG, .off = offsetof(struct opts, cost), .name = "cost-mbcorr", .arg = "C",
     .help = "relative overhead of a corrected step (default 0.2)"},
    {.kind = OPTK_RANGE, .off = offsetof(struct opts, itol), .name = "iter-tol", .arg = "T",
     .dmin = 0.0, .dmax = 1.0, .flags = OPTF_OPEN_MIN | OPTF_OPEN_MAX,
     .help = "relative tolerance of the iteration (default 1e-8)"},
    {.kind = OPTK_NONNEG, .off = offsetof(struct opts, crb), .name = "cost-rollback", .arg = "R",
     .help = "cost of saving/restoring the units per sweep, relative\nto a step (default 0.1)"},
    {.kind = OPTK_CUSTOM, .fn = robust_row, .off = offsetof(struct opts, robust),
     .name = "robust", .arg = "NAME=LO:HI",
     .help = "assumed NAME = F x true NAME, F in LO..HI (0 < LO <= HI)"},
    {.kind = OPTK_ENUM, .off = offsetof(struct opts, format), .name = "format", .arg = "F",
     .names = formats, .flags = OPTF_OR_LIST,
     .help = "md (default), csv (full precision) or json (one JSON\n"
             "object on stdout: settings, FMUs, every candidate with\n"
             "dt_stable dt_accurate dt steps cost usable why, notes,\n"
             "recommendation)"},
    {.kind = OPTK_PATH, .off = offsetof(struct opts, output), .name = "output", .short_name = 'o',
     .arg = "DIR", .help = "also write advise.md|csv, advise.dat, advise.gp and\nadvice.json"},
    {S(plot), .name = "plot", .arg = "FMT", .requires = "output",
     .requires_why = "the picture goes next to the table",
     .help = "and render the bar chart: png, svg or pdf"},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows, .off = offsetof(struct opts, cs)},
    /* refused with their own message: the candidates and the scan range
     * have options of their own */
    {S(cs.scheme_text), .name = "scheme", .flags = OPTF_HIDDEN},
    {S(cs.dt_text), .name = "dt", .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef S

/* A row: the nominal advice and, with --robust, the worst over the factors
 * (advise_json.h).  Schemes the model's FMUs can run come first. */
#define row advise_row

static int row_compare_nominal(const void *a, const void *b)
{
    const struct row *ra = a, *rb = b;
    if (ra->runnable != rb->runnable)
        return ra->runnable ? -1 : 1;
    return cosa_advice_compare(&ra->nom, &rb->nom);
}

static int row_compare_robust(const void *a, const void *b)
{
    const struct row *ra = a, *rb = b;
    if (ra->runnable != rb->runnable)
        return ra->runnable ? -1 : 1;
    int c = cosa_advice_compare(&ra->rob, &rb->rob);
    return c ? c : row_compare_nominal(a, b);
}

/* "NAME=LO:HI" into name (64 bytes), lo, hi: 0, or -1 with the one line in
 * msg (without "cosa: advise: ") */
static int robust_split(const char *text, char *name, double *lo, double *hi, char *msg,
                        size_t size)
{
    const char *eq = strchr(text, '='), *colon = eq ? strchr(eq + 1, ':') : NULL;
    if (!eq || !colon || (size_t)(eq - text) >= 64 || eq == text) {
        snprintf(msg, size, "--robust expects NAME=LO:HI (factors of the true value), got '%s'",
                 text);
        return -1;
    }
    memcpy(name, text, (size_t)(eq - text));
    name[eq - text] = '\0';
    char buf[64];
    size_t n = (size_t)(colon - eq - 1);
    if (n >= sizeof buf) {
        snprintf(msg, size, "--robust: malformed range in '%s'", text);
        return -1;
    }
    memcpy(buf, eq + 1, n);
    buf[n] = '\0';
    if (scli_number(buf, lo) != 0 || scli_number(colon + 1, hi) != 0) {
        snprintf(msg, size, "--robust: LO and HI must be numbers, got '%s'", text);
        return -1;
    }
    if (!(*lo > 0.0) || !(*lo <= *hi) || !isfinite(*hi)) {
        snprintf(msg, size, "--robust %s: need 0 < LO <= HI, got LO = %g, HI = %g", name, *lo,
                 *hi);
        return -1;
    }
    return 0;
}

/* --robust (OPTK_CUSTOM): checked while parsing (an @FILE error names
 * FILE:LINE); the name against the model later, parse_robust */
static int robust_row(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    char name[64];
    double lo, hi;
    (void)row;
    if (robust_split(value, name, &lo, &hi, msg, size) != 0)
        return -1;
    *(const char **)dst = value;
    return 0;
}

/* "NAME=LO:HI" */
static int parse_robust(const char *cmd, const char *text, const cosa_model *m, int *param,
                        double *lo, double *hi)
{
    char name[64], msg[512];
    if (robust_split(text, name, lo, hi, msg, sizeof msg) != 0) {
        cli_error(cmd, "%s", msg);
        return CLI_EUSAGE;
    }
    *param = cosa_model_param_index(m, name);
    if (*param < 0) {
        cli_error(cmd, "--robust: model %s has no parameter '%s'", m->name, name);
        return CLI_EUSAGE;
    }
    if (m->params[*param].kind == COSA_PARAM_INITIAL) {
        cli_error(cmd, "--robust: '%s' is an initial state, not a model parameter", name);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

static void fmt_dt(char *b, size_t n, const cosa_advice *a, int csv)
{
    if (a->status != COSA_OK || !a->usable)
        snprintf(b, n, "-");
    else
        snprintf(b, n, csv ? "%.17g" : "%.4g", a->dt);
}

static void fmt_cost(char *b, size_t n, const cosa_advice *a, int csv)
{
    if (a->status != COSA_OK)
        snprintf(b, n, "-");
    else if (!a->usable)
        snprintf(b, n, "inf");
    else
        snprintf(b, n, csv ? "%.17g" : "%.6g", a->cost);
}

static void fmt_steps(char *b, size_t n, const cosa_advice *a)
{
    if (a->status != COSA_OK || !a->usable)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%zu", a->steps);
}

static void fmt_limit(char *b, size_t n, const cosa_advice *a, const cosa_limit *l, int csv)
{
    if (a->status != COSA_OK)
        snprintf(b, n, "-");
    else if (!l->good_at_min)
        snprintf(b, n, "none");
    else
        snprintf(b, n, csv ? "%.17g" : "%.4g", l->dt_max);
}

/* The table on the writer w (its style: markdown or CSV). */
static void write_table(tw *w, const struct row *rows, size_t n, int csv, int robust)
{
    static const char *const names[] = {"scheme",    "dt_stable",    "dt_accurate",
                                        "dt",        "steps",        "cost",
                                        "dt_robust", "steps_robust", "cost_robust"};
    tw_table(w, names, robust ? 9 : 6);
    for (size_t i = 0; i < n; i++) {
        const cosa_advice *a = &rows[i].nom;
        char b[64];
        cosa_scheme_name(&a->scheme, b, sizeof b);
        tw_cell(w, b);
        fmt_limit(b, sizeof b, a, &a->stable, csv);
        tw_cell(w, b);
        fmt_limit(b, sizeof b, a, &a->accurate, csv);
        tw_cell(w, b);
        for (int k = 0; k < (robust ? 2 : 1); k++) {
            const cosa_advice *r = k ? &rows[i].rob : a;
            fmt_dt(b, sizeof b, r, csv);
            tw_cell(w, b);
            fmt_steps(b, sizeof b, r);
            tw_cell(w, b);
            fmt_cost(b, sizeof b, r, csv);
            tw_cell(w, b);
        }
        tw_row_end(w);
    }
}

/* A note line "note TEXT", kept in nf: the report writes the lines (and
 * the JSON document holds them). */
static void note(FILE *nf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(FILE *nf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(nf, fmt, ap);
    va_end(ap);
}

/* Later crossings (windows above the first loss) of one criterion. */
static void note_windows(FILE *nf, const char *scheme, const char *what,
                         const cosa_limit *l, const cosa_crossing *cr)
{
    size_t n = l->ncross < COSA_ADVICE_CROSSINGS ? l->ncross : COSA_ADVICE_CROSSINGS;
    size_t first = l->good_at_min ? 1 : 0; /* crossing 0 is the first loss */
    if (n <= first)
        return;
    char line[1024];
    int len = snprintf(line, sizeof line, "note %s: %s again above the first loss:", scheme, what);
    for (size_t k = first; k < n && len > 0 && (size_t)len < sizeof line; k++)
        len += snprintf(line + len, sizeof line - (size_t)len, " %.4g:%s", cr[k].dt,
                        cr[k].enters ? "enters" : "leaves");
    if (l->ncross > COSA_ADVICE_CROSSINGS && len > 0 && (size_t)len < sizeof line)
        snprintf(line + len, sizeof line - (size_t)len, " (+%zu more)",
                 l->ncross - COSA_ADVICE_CROSSINGS);
    note(nf, "%s\n", line);
}

/* The iteration of an implicit candidate: where it converges, its sweeps. */
static void note_iteration(FILE *nf, const char *name, const cosa_advice *a, double dtmin)
{
    if (!a->converge.good_at_min)
        note(nf, "note %s: iteration does not converge at dt-min %g\n", name, dtmin);
    note_windows(nf, name, "convergent", &a->converge, a->cross_converge);
    if (a->usable)
        note(nf, "note %s: iteration converges up to dt %.17g; %u sweeps per macro step "
                 "at rho_iter_opt %.17g\n",
             name, a->converge.dt_max, a->iterations, a->rho_iter_opt);
}

/* The note lines of the ranked rows (after the table), including the
 * candidates the model's FMUs cannot run, with their reason. */
static void write_notes(FILE *nf, const struct row *rows, size_t ns, double dtmin,
                        double dtmax, const cosa_model *m, int rparam)
{
    for (size_t i = 0; i < ns; i++) {
        const cosa_advice *a = &rows[i].nom;
        char name[64];
        cosa_scheme_name(&a->scheme, name, sizeof name);
        if (!rows[i].runnable) {
            char b[32] = "-";
            if (a->status == COSA_OK && a->usable)
                snprintf(b, sizeof b, "%.4g", a->dt);
            note(nf, "note %s: not ranked: cosa simulate cannot run it on these FMUs "
                     "(%s); dt on the linearised network %s\n",
                 name, rows[i].why, b);
            continue;
        }
        if (a->status != COSA_OK) {
            note(nf, "note %s: not judged: %s\n", name, cosa_strerror(a->status));
            continue;
        }
        if (!a->usable && (a->stable.good_at_min == 0 || a->accurate.good_at_min == 0))
            note(nf, "note %s: not %s at dt-min %g\n", name,
                 !a->stable.good_at_min ? "stable" : "accurate", dtmin);
        note_windows(nf, name, "stable", &a->stable, a->cross_stable);
        note_windows(nf, name, "accurate", &a->accurate, a->cross_accurate);
        if (a->scheme.implicit)
            note_iteration(nf, name, a, dtmin);
        if (a->usable && a->dt == dtmax)
            note(nf, "note %s: good up to dt-max %g (a larger step may be good too)\n",
                 name, dtmax);
        if (a->usable && rows[i].dt_usable != a->dt)
            note(nf, "note %s: dt %.17g, the largest step up to the usable %.17g that "
                     "every fixed-step FMU can take (fixedInternalStepSize)\n",
                 name, a->dt, rows[i].dt_usable);
        if (rparam >= 0 && (a->scheme.corr & COSA_CORR_OUTPUT))
            note(nf, "note %s: worst assumed %s = %g x true\n", name,
                 m->params[rparam].name, rows[i].rob_factor);
    }
}

/* advise.dat: per scheme its index, name, usable dt and robust dt (nan:
 * not usable), a data file of the table writer (records of cells). */
static int write_dat(const char *cmd, const char *path, const struct row *rows, size_t n,
                     int robust)
{
    csv_out c;
    if (csv_out_open_text(&c, cmd, path) != 0)
        return CLI_EFAIL;
    tw_comment(&c.w, "cosa %s advise: usable macro step per scheme (NaN: not usable)",
               cosa_version());
    static const char *const names[] = {"index", "scheme", "dt", "dt_robust"};
    for (size_t k = 0; k < 4; k++)
        csv_out_name(&c, "%s", names[k]);
    if (csv_out_columns(&c) == 0)
        for (size_t i = 0; i < n; i++) {
            char idx[32], name[64], d1[32], d2[32];
            snprintf(idx, sizeof idx, "%zu", i);
            cosa_scheme_name(&rows[i].nom.scheme, name, sizeof name);
            const cosa_advice *a = &rows[i].nom, *r = robust ? &rows[i].rob : &rows[i].nom;
            snprintf(d1, sizeof d1, "%.17g", a->status == COSA_OK && a->usable ? a->dt : NAN);
            snprintf(d2, sizeof d2, "%.17g", r->status == COSA_OK && r->usable ? r->dt : NAN);
            const char *const cells[4] = {idx, name, d1, d2};
            csv_out_words(&c, cells);
        }
    return csv_out_close(&c, CLI_OK);
}

/* advise.md or advise.csv: the table, as on stdout. */
static int write_table_file(const char *cmd, const char *path, const struct row *rows,
                            size_t n, int csv, int robust)
{
    csv_out c;
    if ((csv ? csv_out_open(&c, cmd, path) : csv_out_open_text(&c, cmd, path)) != 0)
        return CLI_EFAIL;
    if (!csv)
        tw_markdown(&c.w);
    write_table(&c.w, rows, n, csv, robust);
    return csv_out_close(&c, CLI_OK);
}

/* The table (advise.md|csv), advise.dat (index, scheme, dt, dt_robust) and
 * advise.gp; render if asked.  say: the writer of the report, which names
 * every file ("file PATH"), or NULL. */
static int write_files(const char *cmd, const scli_out *out, const struct row *rows, size_t n,
                       int robust, const char *fmt, int csv, const char *title, tw *say)
{
    char path[1024];
    int rc;
    scli_remove_pictures(out, "advise"); /* -o DIR: no picture of an earlier run */
    if ((rc = scli_out_path(cmd, out, csv ? "advise.csv" : "advise.md", path, sizeof path)) !=
            CLI_OK ||
        (rc = write_table_file(cmd, path, rows, n, csv, robust)) != CLI_OK)
        return rc;
    if (say)
        tw_field(say, "file", "%s", path);
    if ((rc = scli_out_path(cmd, out, "advise.dat", path, sizeof path)) != CLI_OK)
        return rc;
    if ((rc = write_dat(cmd, path, rows, n, robust)) != CLI_OK)
        return rc;
    if (say)
        tw_field(say, "file", "%s", path);
    if ((rc = scli_out_path(cmd, out, "advise.gp", path, sizeof path)) != CLI_OK)
        return rc;
    const char *keys[] = {"FILE", "OUTBASE", "TITLE", "ROBUST"};
    const char *vals[] = {"advise.dat", "advise", title, robust ? "" : "# "};
    if ((rc = scli_write_script(cmd, path, cosa_plot_advise, 4, keys, vals)) != CLI_OK)
        return rc;
    if (say)
        tw_field(say, "file", "%s", path);
    if (fmt) {
        fflush(stdout);
        if ((rc = scli_gnuplot(cmd, out->dir, "advise.gp", fmt)) != CLI_OK)
            return rc;
        if (say)
            tw_field(say, "file", "%s/advise.%s", out->dir, fmt);
    }
    return CLI_OK;
}

/* What --robust judges against. */
struct robust_in {
    const cli_model *mod;
    const cosa_system *sys;
    const double *x0;
    double tend;
    cosa_criterion crit;
    double tol, dtmin, dtmax;
    unsigned perdec;
    double cost;
    int rparam;
    double lo, hi;
};

/* --robust: every corrected scheme again with assumed models whose
 * parameter rparam is F x its true value, for ROBUST_POINTS factors F
 * log-spaced over lo..hi; rows[i].rob keeps the worst.  apar: scratch of
 * nparam values. */
static int robust_rows(const char *cmd, const struct robust_in *in, const cosa_scheme *schemes,
                       size_t ns, struct row *rows, double *apar, cosa_eval_workspace *ew,
                       FILE *nf)
{
    const cosa_model *m = in->mod->model;
    const int rparam = in->rparam;
    const double lo = in->lo, hi = in->hi;
    cosa_system *model = NULL;
    cosa_scheme *sc = malloc(ns * sizeof *sc);
    cosa_advice *ra = calloc(ns, sizeof *ra);
    size_t nc = 0;
    if (!sc || !ra) {
        free(sc);
        free(ra);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    for (int k = 0; k < ROBUST_POINTS; k++) {
        const double fac = ROBUST_POINTS > 1 && hi > lo
                               ? lo * pow(hi / lo, (double)k / (ROBUST_POINTS - 1))
                               : lo;
        /* the --assume values, with NAME at fac x its true value */
        cli_assume_par(in->mod, in->mod->par, apar);
        apar[rparam] = fac * in->mod->par[rparam];
        cosa_system_free(model);
        model = NULL;
        cosa_status st = m->create(m, apar, &model);
        nc = 0;
        for (size_t i = 0; i < ns; i++)
            if (schemes[i].corr & COSA_CORR_OUTPUT) {
                sc[nc] = schemes[i];
                sc[nc++].model = model;
            }
        if (nc == 0)
            break;
        if (st == COSA_OK)
            st = cosa_advise(in->sys, in->x0, in->tend, in->crit, in->tol, sc, nc, in->dtmin,
                             in->dtmax, in->perdec, in->cost, ra, ew);
        if (st != COSA_OK) {
            /* the assumed model itself is invalid at this factor: every
             * corrected scheme fails there, with the reason */
            for (size_t j = 0; j < nc; j++) {
                memset(&ra[j], 0, sizeof ra[j]);
                ra[j].scheme = sc[j];
                ra[j].status = st;
                ra[j].cost = INFINITY;
            }
            note(nf, "note assumed %s = %g x %g: %s\n", m->params[rparam].name, fac,
                 in->mod->par[rparam], cosa_strerror(st));
        }
        /* keep the worst (cost) per scheme */
        for (size_t i = 0, j = 0; i < ns; i++) {
            if (!(schemes[i].corr & COSA_CORR_OUTPUT))
                continue;
            cosa_advice *r = &rows[i].rob, *c = &ra[j++];
            int worse = (c->status != COSA_OK && r->status == COSA_OK) ||
                        (c->status == COSA_OK && r->status == COSA_OK &&
                         (!c->usable ? r->usable : r->usable && c->dt < r->dt));
            if (k == 0 || worse) {
                *r = *c;
                r->scheme.model = NULL;
                rows[i].rob_factor = fac;
            }
        }
    }
    free(sc);
    free(ra);
    cosa_system_free(model);
    return CLI_OK;
}

/* advice.json: the JSON document (advise_json.c) next to the table; say as
 * in write_files. */
static int write_json(const char *cmd, const scli_out *out, const struct advise_json_info *ji,
                      const struct row *rows, size_t n, tw *say)
{
    char path[1024];
    int rc;
    if ((rc = scli_out_path(cmd, out, "advice.json", path, sizeof path)) != CLI_OK)
        return rc;
    outfile of;
    FILE *f = outfile_open(&of, path, 0);
    if (!f) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        return CLI_EFAIL;
    }
    advise_json_write(f, ji, rows, n); /* a failed write: outfile_commit says why */
    if (outfile_commit(&of) != 0) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        return CLI_EFAIL;
    }
    if (say)
        tw_field(say, "file", "%s", path);
    return CLI_OK;
}

/* The note lines of buf[*done .. len) ("note TEXT" each) as 'note' fields of
 * w; *done then len. */
static void note_fields(tw *w, const char *buf, size_t len, size_t *done)
{
    for (size_t b = *done; b < len;) {
        const char *e = memchr(buf + b, '\n', len - b);
        const size_t n = e ? (size_t)(e - buf) - b : len - b;
        if (n >= 5 && strncmp(buf + b, "note ", 5) == 0)
            tw_field(w, "note", "%.*s", (int)(n - 5), buf + b + 5);
        else
            tw_prose(w, "%.*s\n", (int)n, buf + b);
        b += n + 1;
    }
    *done = len;
}

/* The settings of the text report: 'name value' lines. */
static void text_settings(tw *w, const struct advise_json_info *ji, const struct row *rows,
                          size_t ns)
{
    char b1[32], b2[32];
    tw_field(w, "model", "%s", ji->mod->model->name);
    cli_assume_print(tw_stream(w), "", ji->mod);
    tw_field(w, "error", "%s", ji->error);
    tw_field(w, "tol", "%s", cosa_number_text(b1, sizeof b1, ji->tol));
    tw_field(w, "tend", "%s", cosa_number_text(b1, sizeof b1, ji->tend));
    tw_field(w, "dt_range", "%s %s", cosa_number_text(b1, sizeof b1, ji->dtmin),
             cosa_number_text(b2, sizeof b2, ji->dtmax));
    tw_field(w, "cost_mbcorr", "%s", cosa_number_text(b1, sizeof b1, ji->cost));
    int implicit = 0;
    for (size_t i = 0; i < ns; i++)
        implicit |= rows[i].nom.scheme.implicit;
    if (implicit) {
        tw_field(w, "iter_tol", "%s", cosa_number_text(b1, sizeof b1, ji->itol));
        tw_field(w, "cost_rollback", "%s", cosa_number_text(b2, sizeof b2, ji->crb));
    }
    if (ji->robust)
        tw_field(w, "robust", "%s %s %s (%d factors)", ji->rparam,
                 cosa_number_text(b1, sizeof b1, ji->lo),
                 cosa_number_text(b2, sizeof b2, ji->hi), ROBUST_POINTS);
}

/* The last line of the text report: the recommendation, or why none. */
static void text_recommend(tw *w, const struct advise_json_info *ji, size_t nrun)
{
    if (ji->best) {
        const cosa_advice *a = ji->robust ? &ji->best->rob : &ji->best->nom;
        char name[64];
        cosa_scheme_name(&a->scheme, name, sizeof name);
        tw_field(w, "recommend", "%s dt %.17g steps %zu", name, a->dt, a->steps);
    } else if (nrun == 0)
        tw_field(w, "recommend", "none (no candidate can run on these FMUs)");
    else
        tw_field(w, "recommend", "none (no candidate is stable and accurate at dt-min %g)",
                 ji->dtmin);
}

/* The output of advise: the settings, the table of the ranked rows (the
 * runnable ones, sorted first), the notes and the recommendation on stdout
 * through the table writer (md or csv), or the JSON document alone with
 * --format json, and with -o the files.  nf collects the note lines (the
 * notes of --robust are in it already); *notes is its buffer, *notelen its
 * length. */
static int report(const char *cmd, const struct opts *o, struct advise_json_info *ji,
                  const struct row *rows, size_t ns, int csv, int json, FILE *nf,
                  char *const *notes, const size_t *notelen)
{
    const cosa_model *m = ji->mod->model;
    const int robust = ji->robust;
    size_t nrun = 0, done = 0;
    while (nrun < ns && rows[nrun].runnable)
        nrun++;
    tw w = {0}, *text = json ? NULL : &w;
    if (text && tw_begin(text, stdout, TW_TEXT, TW_REPORT, cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    if (text) {
        if (csv)
            tw_csv(text);
        else
            tw_markdown(text);
        fflush(nf);
        note_fields(text, *notes, *notelen, &done); /* --robust's, before the table */
        text_settings(text, ji, rows, ns);
        write_table(text, rows, nrun, csv, robust);
    }
    write_notes(nf, rows, ns, ji->dtmin, ji->dtmax, m,
                robust ? cosa_model_param_index(m, ji->rparam) : -1);
    for (size_t i = 0; i < nrun && !ji->best; i++) {
        const cosa_advice *a = robust ? &rows[i].rob : &rows[i].nom;
        if (a->status == COSA_OK && a->usable)
            ji->best = &rows[i];
    }
    if (ji->best) { /* a recommendation the scan's bound made: say so */
        const cosa_advice *a = robust ? &ji->best->rob : &ji->best->nom;
        if ((robust ? a->dt : ji->best->dt_usable) >= ji->dtmax)
            note(nf, "note recommendation: dt is at the scan's upper bound dt-max %g%s: "
                     "a larger step, or another candidate at a larger step, may cost "
                     "less; widen the scan with --dt-max\n",
                 ji->dtmax, o->dtmax > 0.0 ? "" : " (the default)");
    }
    fflush(nf);
    ji->notes = *notes;
    if (text) {
        note_fields(text, *notes, *notelen, &done);
        text_recommend(text, ji, nrun);
    } else {
        advise_json_write(stdout, ji, rows, ns); /* a failed write: outfile_close_stdout */
    }
    int rc = CLI_OK;
    if (o->output) {
        scli_out out = {o->output, 1};
        char title[256];
        snprintf(title, sizeof title, "model %s: usable macro step per scheme (e_%s <= %g)",
                 m->name, ji->error, ji->tol);
        fflush(stdout);
        if ((rc = scli_out_prepare(cmd, &out)) == CLI_OK &&
            (rc = write_files(cmd, &out, rows, nrun, robust, o->plot, csv, title, text)) ==
                CLI_OK)
            rc = write_json(cmd, &out, ji, rows, ns, text);
    }
    return tw_finish(&w, cmd, rc);
}

/* The options that need no model: what does not apply (the numbers and the
 * format are rows of their kind). */
static int check_options(const char *cmd, const struct opts *o)
{
    const cli_case *cs = &o->cs;
    if (cs->iter_text || cs->relax_text) {
        cli_error(cmd, "%s does not apply: iterative candidates are judged converged, at the "
                       "best relaxation", cs->iter_text ? "--iterations" : "--relax");
        return CLI_EUSAGE;
    }
    if (cs->scheme_text || cs->dt_text) {
        cli_error(cmd, "--scheme and --dt do not apply: give candidates with --schemes and the "
                       "scan range with --dt-min/--dt-max");
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* --sequence: resolved once (with the first gs: candidate), shared by every
 * Gauss-Seidel candidate. */
static int shared_sequence(const char *cmd, cli_case *cs, cosa_scheme *schemes, size_t ns,
                           const cosa_system *sys)
{
    size_t first = ns;
    for (size_t i = 0; i < ns && first == ns; i++)
        if (schemes[i].exec == COSA_GAUSS_SEIDEL)
            first = i;
    if (first == ns) {
        cli_error(cmd, "--sequence applies to Gauss-Seidel candidates only (prefix 'gs:')");
        return CLI_EUSAGE;
    }
    int rc = cli_case_sequence(cmd, cs, &schemes[first], cosa_system_nsub(sys), sys);
    if (rc != CLI_OK)
        return rc;
    for (size_t i = 0; i < ns; i++)
        if (schemes[i].exec == COSA_GAUSS_SEIDEL)
            schemes[i].seq = schemes[first].seq;
    return CLI_OK;
}

/* The table's rows from the advice, and which candidates the model's FMUs
 * can run (all, for other models). */
/* A usable advice's dt rounded down to a multiple of the FMUs' step grid
 * h_s (step_grid.c: the steps every fixed-step FMU can take, the check cosa
 * simulate applies to --dt), steps and cost with it; 0 when there is none
 * (why says so), else 1. */
static int snap_advice(const cli_model *mod, double tend, cosa_advice *a, char *why, size_t size)
{
    if (a->status != COSA_OK || !a->usable)
        return 1;
    double hs;
    char who[160];
    const int g = step_grid(mod, &hs, who, sizeof who, why, size);
    if (g <= 0)
        return g == 0;
    const double m = step_grid_floor(a->dt, hs);
    if (m < 1.0) {
        if (size)
            snprintf(why, size, "no step up to the usable dt %.4g that every FMU can take (%s "
                     "%s %.15g s)", a->dt, who,
                     strchr(who, ',') ? "step on the common grid of" : "takes fixed internal steps of",
                     hs);
        return 0;
    }
    /* a dt on the grid already (to the step check's 1e-9) stays as it is */
    const double d = fabs(a->dt - m * hs) <= 1e-9 * a->dt ? a->dt : m * hs;
    if (d != a->dt) {
        const double steps = nearbyint(tend / d), old = (double)a->steps;
        a->dt = d;
        a->steps = steps < 1.0 ? 1 : (size_t)steps;
        if (old > 0.0)
            a->cost *= (double)a->steps / old;
    }
    return 1;
}

static void fill_rows(const cli_model *mod, const cosa_scheme *schemes, const cosa_advice *adv,
                      size_t ns, double tend, struct row *rows)
{
    for (size_t i = 0; i < ns; i++) {
        rows[i].nom = rows[i].rob = adv[i];
        rows[i].dt_usable = adv[i].dt;
        rows[i].runnable = fmu_scheme_runnable(mod, &schemes[i], rows[i].why, sizeof rows[i].why);
        if (rows[i].runnable)
            rows[i].runnable = snap_advice(mod, tend, &rows[i].nom, rows[i].why,
                                           sizeof rows[i].why) &&
                               snap_advice(mod, tend, &rows[i].rob, rows[i].why,
                                           sizeof rows[i].why);
    }
}

/* The scan range [dtmin, dtmax] within the horizon tend. */
static int check_range(const char *cmd, double dtmin, double dtmax, double tend)
{
    if (!(dtmin < dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", dtmin, dtmax);
        return CLI_EUSAGE;
    }
    if (dtmax > tend) {
        cli_error(cmd, "--dt-max %g is longer than the horizon %g s", dtmax, tend);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* The candidates (--schemes), the system with --sequence resolved for the
 * gs: ones, x0 and the assumed model; one-line errors. */
static int advise_system(const char *cmd, cli_case *cs, const char *list, cosa_scheme **schemes,
                         size_t *ns, cosa_system **sys, double **x0, cosa_system **amodel)
{
    int rc;
    if ((rc = scli_schemes(cmd, list ? list : DEFAULT_SCHEMES, cs->alpha, schemes, ns)) !=
        CLI_OK)
        return rc;
    if (*ns == 0) {
        cli_error(cmd, "--schemes: empty candidate list");
        return CLI_EUSAGE;
    }
    if ((rc = cli_model_resolve(&cs->mod, cmd)) != CLI_OK ||
        (rc = cli_model_system(&cs->mod, cmd, sys)) != CLI_OK ||
        (rc = cli_need_outputs(&cs->mod, cmd, cosa_system_ny(*sys))) != CLI_OK)
        return rc;
    if (cs->seq_text && (rc = shared_sequence(cmd, cs, *schemes, *ns, *sys)) != CLI_OK)
        return rc;
    if ((rc = cli_model_x0(&cs->mod, cmd, cosa_system_nx(*sys), x0)) != CLI_OK ||
        (rc = cli_assume_system(&cs->mod, cmd, cs->mod.par, *sys, *schemes, *ns, amodel)) !=
            CLI_OK)
        return rc;
    if (cli_assume_given(&cs->mod))
        cli_assume_note(cmd, *schemes, *ns);
    fmu_notes(cmd, &cs->mod, NULL, 0); /* the candidates' own notes follow the table */
    return CLI_OK;
}

int cmd_advise(int argc, char **argv)
{
    const char *cmd = "advise";
    struct opts o = {.dtmin = 0.0 /* not given: step_grid_dt_min */, .perdec = COSA_LIMIT_PER_DECADE, .cost = 0.2,
                     .itol = COSA_ADVISE_ITER_TOL, .crb = COSA_ADVISE_COST_ROLLBACK};
    cli_case *cs = &o.cs;
    cosa_system *sys = NULL, *amodel = NULL;
    cosa_eval_workspace *ew = NULL;
    cosa_scheme *schemes = NULL;
    cosa_advice *adv = NULL;
    struct row *rows = NULL;
    double *x0 = NULL, *apar = NULL;
    char *notes = NULL;
    size_t ns = 0, notelen = 0;
    FILE *nf = NULL; /* the note lines, kept for the JSON document */
    double lo = 1.0, hi = 1.0;
    int rparam = -1;
    int rc = cli_parse_rows(cmd, rows_of_advise, &o, cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK || (rc = check_options(cmd, &o)) != CLI_OK)
        goto out;
    const double itol = o.itol, crb = o.crb;
    const double tol = o.tol, perdec = (double)o.perdec, cost = o.cost;
    const cosa_criterion crit = o.error == 1 ? COSA_CRIT_LOCAL : COSA_CRIT_ACCURATE;
    const int csv = o.format == 1, json = o.format == 2;
    if (!(nf = open_memstream(&notes, &notelen))) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    if (o.plot && (rc = scli_plot_format(cmd, o.plot)) != CLI_OK)
        goto out;
    /* -o probed before any work (report() prepares it again to write) */
    scli_out probe = {o.output, 1};
    if (o.output && (rc = scli_out_prepare(cmd, &probe)) != CLI_OK)
        goto out;
    if ((rc = advise_system(cmd, cs, o.schemes, &schemes, &ns, &sys, &x0, &amodel)) != CLI_OK)
        goto out;
    const cosa_model *m = cs->mod.model;
    const double dtmin = step_grid_dt_min(cmd, &cs->mod, o.dtmin, 1e-7);
    const double tend = o.tend > 0.0 ? o.tend : m->tend;
    double dtmax = o.dtmax > 0.0 ? o.dtmax : 1e-2;
    if (o.dtmax == 0.0 && dtmax > tend)
        dtmax = tend;
    if ((rc = check_range(cmd, dtmin, dtmax, tend)) != CLI_OK)
        goto out;
    if (o.robust && (rc = parse_robust(cmd, o.robust, m, &rparam, &lo, &hi)) != CLI_OK)
        goto out;
    int pmax = 0;
    for (size_t i = 0; i < ns; i++)
        pmax = schemes[i].order > pmax ? schemes[i].order : pmax;
    ew = cosa_eval_workspace_alloc(sys, pmax);
    adv = calloc(ns, sizeof *adv);
    rows = calloc(ns, sizeof *rows);
    apar = malloc((m->nparam + 1) * sizeof *apar);
    if (!ew || !adv || !rows || !apar) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress prog;
    cli_progress_init(&prog, cmd, cs->progress);
    if (prog.on)
        cosa_eval_workspace_set_progress(ew, cli_progress_stage, &prog);
    cosa_status st = cosa_advise_iter(sys, x0, tend, crit, tol, schemes, ns, dtmin, dtmax,
                                      (unsigned)perdec, cost, itol, crb, adv, ew);
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = st == COSA_EMODELSHAPE || st == COSA_ERANGE ? CLI_EUSAGE : CLI_EFAIL;
        goto out;
    }
    fill_rows(&cs->mod, schemes, adv, ns, tend, rows);
    /* --robust: every corrected scheme again with assumed models */
    if (rparam >= 0) {
        const struct robust_in rin = {&cs->mod, sys, x0, tend, crit, tol, dtmin, dtmax,
                                      (unsigned)perdec, cost, rparam, lo, hi};
        if ((rc = robust_rows(cmd, &rin, schemes, ns, rows, apar, ew, nf)) != CLI_OK)
            goto out;
    }
    qsort(rows, ns, sizeof *rows, rparam >= 0 ? row_compare_robust : row_compare_nominal);

    cli_progress_end(&prog);
    struct advise_json_info ji = {&cs->mod, crit == COSA_CRIT_LOCAL ? "local" : "global",
                                  tol, tend, dtmin, dtmax, cost, itol, crb, rparam >= 0,
                                  rparam >= 0 ? m->params[rparam].name : NULL, lo, hi,
                                  ROBUST_POINTS, NULL, NULL};
    if ((rc = report(cmd, &o, &ji, rows, ns, csv, json, nf, &notes, &notelen)) != CLI_OK)
        goto out;
    rc = CLI_OK;
out:
    if (nf)
        fclose(nf);
    free(notes);
    free(rows);
    free(adv);
    free(apar);
    free(x0);
    free(schemes);
    cosa_eval_workspace_free(ew);
    cosa_system_free(amodel);
    cosa_system_free(sys);
    cli_case_free(cs);
    return rc;
}
