/* cmd_table.c -- `cosa table --paper mbcorr --table 1|2|3`: the tables of the
 * MBCorr paper, computed (their numbers are not in our copy of the paper). */
#include "energy_cli.h"
#include "table_writer.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa table --paper mbcorr --table 1|2|3|4 [--format md|csv]\n"
    "       cosa table --paper energy --table mu [--set NAME=VALUE]... [--dt H]\n"
    "                  [--format md|csv]\n"
    "                  [--pairs CK:DK[,CK:DK...]] [--set NAME=VALUE]...\n"
    "                  [--assume NAME=VALUE]...\n"
    "                  [--dt-min 1e-9] [--dt-max 1e-2] [--tol 0.01] [--tend T]\n\n"
    "Tables of the MBCorr paper for the two-mass oscillator (eq 27):\n"
    "  1  largest stable macro step (rho(Phi) <= 1) for ZOH, FOH, SOH, each plain and\n"
    "     with MBCorr, at (c_k, d_k) = (1e3,1e1) (1e5,1e2) (2e5,5e2) (1e7,1e3)\n"
    "     (1e9,3.6e5) (1e10,1e7); the first loss of stability scanning upward from\n"
    "     --dt-min; '*' marks cells where stability is not monotone in dt (the\n"
    "     crossings are listed below the table)\n"
    "  2  the same for accuracy: global NRMSE e_global <= --tol (default 0.01)\n"
    "  3  at (c_k, d_k) = (2e5, 5e2): local NRMSE e_local at dt = 1e-3, 1e-4, 1e-5 and\n"
    "     the macro step needed for e_local = 1e-2 ... 1e-6, for p = 0..4 with and\n"
    "     without MBCorr\n"
    "  4  nonlinear two-mass oscillator (twomass-nl, section 5): global NRMSE e_global\n"
    "     for n_d = 1, 1.25, 1.5, 1.75, 2 and ZOH, FOH, SOH with and without MBCorr at\n"
    "     dt = 1e-3 (time-domain co-simulation, subsystems by CVODE rtol 1e-10);\n"
    "     --set applies to twomass-nl (e.g. ck, dk, dkmin, dkmax)\n"
    "'inf' = unstable; '<DT' = not reached even at --dt-min; '>=DT' = never lost up\n"
    "to --dt-max.\n"
    "Tables 1-3 with --assume: the MBCorr rows correct with the assumed model (at\n"
    "each (c_k, d_k) the true parameters with the --assume values on top; plain rows\n"
    "are model-free); the md caption names the values, csv gains a column 'assume'.\n"
    "Table 4 refuses --assume (its master linearises the nonlinear units online).\n\n";

struct opts {
    cli_case cs;
    int paper, format;  /* indices of papers[], formats[] */
    int table;          /* index of tables[]: 0..3 tables 1-4 (mbcorr), TABLE_MU (energy) */
    const char *pairs;
    double dtmin, dtmax, tol, tend; /* 0: not given */
};

static const char *const papers[] = {"mbcorr", "energy", NULL};
static const char *const formats[] = {"md", "csv", NULL};
static const char *const tables[] = {"1", "2", "3", "4", "mu", NULL};
enum { TABLE_MU = 4 };

/* --pairs, checked while parsing (below) */
static int pairs_row(const opt_row *row, const char *value, void *dst, char *msg, size_t size);

static const opt_row table_rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_ENUM, .name = "paper", .off = offsetof(struct opts, paper), .arg = "P",
     .names = papers, .flags = OPTF_REQUIRED,
     .help = "mbcorr, or energy: its table mu (Figs 11-12) for\n"
             "twomass-fd (case 1 unless --set) at H = --dt (default\n"
             "1e-3), the paper's setting (symplectic Euler, one step per\n"
             "unit step, held inputs, start from x0): for R = 1/10 .. 20\n"
             "and ZOH, FOH, SOH the mu of eqs 20-21, mu_measured at 1 s\n"
             "and 10 s (Phi route) and the fastest mode's mu"},
    {.kind = OPTK_ENUM, .name = "table", .off = offsetof(struct opts, table), .arg = "N",
     .names = tables, .flags = OPTF_REQUIRED | OPTF_OR_LIST,
     .help = "1, 2, 3 or 4 (mbcorr); mu (energy)"},
    {.kind = OPTK_ENUM, .name = "format", .off = offsetof(struct opts, format), .arg = "F",
     .names = formats, .help = "md (default) or csv"},
    {.kind = OPTK_CUSTOM, .fn = pairs_row, .name = "pairs", .off = offsetof(struct opts, pairs),
     .arg = "LIST",
     .help = "other (c_k, d_k) columns, e.g. 1e5:1e2,1e9:3.6e5"},
    {.kind = OPTK_CUSTOM, .name = "set", .off = offsetof(struct opts, cs.mod), .arg = "NAME=VALUE",
     .fn = cli_row_model_pair, .flags = OPTF_REPEAT,
     .help = "other twomass parameters (see 'cosa models')"},
    {.kind = OPTK_CUSTOM, .name = "assume", .off = offsetof(struct opts, cs.mod),
     .arg = "NAME=VALUE", .fn = cli_row_model_pair, .data = &cli_row_assume_tag,
     .flags = OPTF_REPEAT,
     .help = "the model MBCorr's output correction believes in differs\n"
             "from the true one in NAME (tables 1-3;\n"
             "doc/which-scheme.md)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_text, .name = "dt", .off = offsetof(struct opts, cs.dt_text), .arg = "H",
     .help = "--paper energy: the macro step H (default 1e-3)"},
    {.kind = OPTK_POSITIVE, .name = "dt-min", .off = offsetof(struct opts, dtmin), .arg = "DT",
     .help = "smallest macro step of the scans (default 1e-9)"},
    {.kind = OPTK_POSITIVE, .name = "dt-max", .off = offsetof(struct opts, dtmax), .arg = "DT",
     .help = "largest macro step of the scans (default 1e-2)"},
    {.kind = OPTK_POSITIVE, .name = "tol", .off = offsetof(struct opts, tol), .arg = "TOL",
     .help = "accuracy threshold of table 2 (default 0.01)"},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = offsetof(struct opts, tend), .arg = "T",
     .help = "horizon (default 0.3 s)"},
    /* the model is fixed by the paper: --model twomass (mbcorr) or twomass-fd
     * (energy) is accepted, anything else refused with the reason */
    {.kind = OPTK_STRING, .name = "model", .off = offsetof(struct opts, cs.mod.name),
     .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

#define MAXPAIRS 32
#define CAP 16

struct table_ctx {
    const char *cmd;
    cli_case *cs;
    tw *w;   /* the tables and captions: markdown, or CSV */
    int csv;
    double dtmin, dtmax, tol, tend;
    size_t npairs;
    double ck[MAXPAIRS], dk[MAXPAIRS];
};

/* Build the twomass system at (ck, dk) with the user's other parameters,
 * and the assumed system there (--assume; NULL without it or where it is
 * the true system), which the rows with an output correction use. */
/* --dt-max can be discretised at every pair of the table (table 3: the
 * first, or the default 2e5:5e2), checked before anything is printed. */
static int dt_max_fits(struct table_ctx *t)
{
    const cosa_model *m = t->cs->mod.model;
    double *par = t->cs->mod.par;
    const size_t n = t->npairs ? t->npairs : 1;
    for (size_t j = 0; j < n; j++) {
        cosa_model_set(m, par, "ck", t->npairs ? t->ck[j] : 2e5);
        cosa_model_set(m, par, "dk", t->npairs ? t->dk[j] : 5e2);
        cosa_system *sys = NULL;
        if (m->create(m, par, &sys) != COSA_OK)
            continue; /* reported where the pair is computed */
        const int rc = cli_dt_fits(t->cmd, "--dt-max", t->dtmax, sys);
        cosa_system_free(sys);
        if (rc != CLI_OK)
            return rc;
    }
    return CLI_OK;
}

static int build(struct table_ctx *t, double ck, double dk, cosa_system **sys, double *x0,
                 cosa_system **model)
{
    const cosa_model *m = t->cs->mod.model;
    double *par = t->cs->mod.par;
    cosa_model_set(m, par, "ck", ck);
    cosa_model_set(m, par, "dk", dk);
    *model = NULL;
    cosa_status st = m->create(m, par, sys);
    if (st == COSA_OK)
        st = m->initial_state(m, par, x0);
    if (st != COSA_OK) {
        cli_error(t->cmd, "twomass at c_k = %g, d_k = %g: %s", ck, dk, cosa_strerror(st));
        return CLI_EFAIL;
    }
    cosa_scheme corrected = {.order = 0, .corr = COSA_CORR_MBCORR, .alpha = 1.0};
    if (cli_assume_system(&t->cs->mod, t->cmd, par, *sys, &corrected, 1, model) != CLI_OK) {
        cosa_system_free(*model);
        cosa_system_free(*sys);
        *model = *sys = NULL;
        return CLI_EFAIL; /* as the true model failing at a pair */
    }
    return CLI_OK;
}

/* The --assume values as "NAMEeqVALUE" joined by sep ("" without --assume). */
static void assume_text(const cli_model *cm, const char *eq, const char *sep, char *buf,
                        size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (!cli_assume_given(cm))
        return;
    for (size_t k = 0; k < cm->model->nparam && n < size; k++)
        if (cm->assumed[k])
            n += (size_t)snprintf(buf + n, size - n, "%s%s%s%.17g", n ? sep : "",
                                  cm->model->params[k].name, eq, cm->apar[k]);
}

/* The caption line of the assumed model (md), nothing without --assume. */
static void assume_caption(const struct table_ctx *t)
{
    char text[1024];
    assume_text(&t->cs->mod, " = ", ", ", text, sizeof text);
    if (*text)
        tw_prose(t->w, "\nImperfect model knowledge (README): the output correction of the "
                       "MBCorr rows uses the assumed model, the true parameters with %s; the "
                       "plain rows are model-free.\n", text);
}

static void fmt_limit(char *buf, size_t n, const cosa_limit *l)
{
    if (!l->good_at_min)
        snprintf(buf, n, "<%.3g", l->dt_max);
    else if (l->never_lost)
        snprintf(buf, n, ">=%.3g", l->dt_max);
    else
        snprintf(buf, n, "%.4g", l->dt_max);
}

/* printf into buf[*n .. size) (a note, a caption being built), *n then
 * its length (at most size - 1). */
static void appendf(char *buf, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    if (*n >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(buf + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

/* The header of tables 1 and 2: csv columns, or one column per pair. */
static void limits_header(const struct table_ctx *t, int assume)
{
    static const char *const csv[] = {"scheme",    "ck",         "dk",
                                      "dt_max",    "monotone",   "never_lost",
                                      "good_at_min", "crossings", "assume"};
    if (t->csv) {
        tw_table(t->w, csv, assume ? 9 : 8);
        return;
    }
    char text[MAXPAIRS][64];
    const char *names[MAXPAIRS + 1] = {"scheme"};
    for (size_t j = 0; j < t->npairs; j++) {
        snprintf(text[j], sizeof text[j], "c_k=%g, d_k=%g", t->ck[j], t->dk[j]);
        names[j + 1] = text[j];
    }
    tw_table(t->w, names, t->npairs + 1);
}

/* A csv row of tables 1 and 2: the limit at (ck, dk) and its crossings. */
static void limits_csv_row(tw *w, const char *name, double ck, double dk, const cosa_limit *lim,
                           const cosa_crossing *cr, size_t nc, const char *acol)
{
    char b[32], cross[CAP * 40] = "";
    size_t n = 0;
    tw_cell(w, name);
    const double v[3] = {ck, dk, lim->dt_max};
    for (int k = 0; k < 3; k++) {
        snprintf(b, sizeof b, "%.17g", v[k]);
        tw_cell(w, b);
    }
    tw_cell(w, lim->monotone ? "yes" : "no");
    tw_cell(w, lim->never_lost ? "yes" : "no");
    tw_cell(w, lim->good_at_min ? "yes" : "no");
    for (size_t k = 0; k < nc; k++)
        appendf(cross, sizeof cross, &n, "%s%.6g:%s", k ? ";" : "", cr[k].dt,
                cr[k].enters ? "enters" : "leaves");
    tw_cell(w, cross);
    if (*acol)
        tw_cell(w, acol);
    tw_row_end(w);
}

/* The limit of scheme s at the pair j of t (tables 1 and 2). */
static int pair_limit(struct table_ctx *t, cosa_scheme s, const char *name, size_t j,
                      cosa_criterion crit, cosa_crossing *cr, cosa_limit *lim)
{
    cosa_system *sys = NULL, *model = NULL;
    double x0[4];
    if (build(t, t->ck[j], t->dk[j], &sys, x0, &model) != CLI_OK)
        return CLI_EFAIL;
    if (s.corr & COSA_CORR_OUTPUT)
        s.model = model;
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, s.order);
    cosa_status st = w ? cosa_dt_limit(sys, &s, x0, t->tend, crit, t->tol, t->dtmin, t->dtmax,
                                       0, cr, CAP, lim, w)
                       : COSA_ENOMEM;
    cosa_eval_workspace_free(w);
    cosa_system_free(model);
    cosa_system_free(sys);
    if (st != COSA_OK) {
        cli_error(t->cmd, "%s at c_k = %g, d_k = %g: %s", name, t->ck[j], t->dk[j],
                  cosa_strerror(st));
        return CLI_EFAIL;
    }
    return CLI_OK;
}

/* Tables 1 and 2. */
static int limits_table(struct table_ctx *t, cosa_criterion crit)
{
    static const char *const rows[] = {"zoh", "zoh+mbcorr", "foh", "foh+mbcorr", "soh",
                                       "soh+mbcorr"};
    char note[8192] = "", acol[1024];
    size_t nl = 0;
    int nnote = 0;
    assume_text(&t->cs->mod, "=", ";", acol, sizeof acol);
    limits_header(t, *acol != '\0');
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cosa_scheme s;
        cosa_scheme_parse(rows[i], &s);
        char name[64];
        cosa_scheme_name(&s, name, sizeof name);
        if (!t->csv)
            tw_cell(t->w, name);
        for (size_t j = 0; j < t->npairs; j++) {
            cosa_crossing cr[CAP];
            cosa_limit lim;
            if (pair_limit(t, s, name, j, crit, cr, &lim) != CLI_OK)
                return CLI_EFAIL;
            const size_t nc = lim.ncross < CAP ? lim.ncross : CAP;
            if (t->csv) {
                limits_csv_row(t->w, name, t->ck[j], t->dk[j], &lim, cr, nc, acol);
            } else {
                char cell[64], text[72];
                fmt_limit(cell, sizeof cell, &lim);
                snprintf(text, sizeof text, "%s%s", cell, lim.monotone ? "" : "*");
                tw_cell(t->w, text);
                if (!lim.monotone && nl < sizeof note - 256) {
                    nnote++;
                    appendf(note, sizeof note, &nl, "- %s, c_k=%g, d_k=%g: crossings", name,
                            t->ck[j], t->dk[j]);
                    for (size_t k = 0; k < nc && nl < sizeof note - 64; k++)
                        appendf(note, sizeof note, &nl, "%s %.4g (%s)", k ? "," : "", cr[k].dt,
                                cr[k].enters ? "enters" : "leaves");
                    appendf(note, sizeof note, &nl, "\n");
                }
            }
            fflush(stdout); /* a cell as it comes: the scans take a while */
        }
        if (!t->csv)
            tw_row_end(t->w);
    }
    if (!t->csv) {
        char tolcap[128] = "";
        if (crit != COSA_CRIT_STABLE)
            snprintf(tolcap, sizeof tolcap, " (e_global <= %g, horizon %g s)", t->tol, t->tend);
        tw_prose(t->w, "\nLargest %s macro step in s, scanning upward from %g to %g%s.\n",
                 crit == COSA_CRIT_STABLE ? "stable" : "accurate", t->dtmin, t->dtmax, tolcap);
        if (nnote)
            tw_prose(t->w, "\n\\* not monotone in dt (first loss shown):\n%s", note);
        assume_caption(t);
    }
    return CLI_OK;
}

/* Table 3. */
static int table3(struct table_ctx *t)
{
    static const double at[3] = {1e-3, 1e-4, 1e-5};
    static const double tols[5] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
    const double ck = t->npairs ? t->ck[0] : 2e5, dk = t->npairs ? t->dk[0] : 5e2;
    cosa_system *sys = NULL, *model = NULL;
    double x0[4];
    char acol[1024];
    if (build(t, ck, dk, &sys, x0, &model) != CLI_OK)
        return CLI_EFAIL;
    assume_text(&t->cs->mod, "=", ";", acol, sizeof acol);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 4);
    if (!w) {
        cosa_system_free(model);
        cosa_system_free(sys);
        cli_error(t->cmd, "out of memory");
        return CLI_EFAIL;
    }
    static const char *const csv_names[] = {
        "scheme",   "e_local(1e-3)", "e_local(1e-4)", "e_local(1e-5)", "dt(1e-2)",
        "dt(1e-3)", "dt(1e-4)",      "dt(1e-5)",      "dt(1e-6)",      "assume"};
    static const char *const md_names[] = {"scheme",      "e_l at 1e-3", "e_l at 1e-4",
                                           "e_l at 1e-5", "dt for 1e-2", "dt for 1e-3",
                                           "dt for 1e-4", "dt for 1e-5", "dt for 1e-6"};
    if (t->csv)
        tw_table(t->w, csv_names, *acol ? 10 : 9);
    else
        tw_table(t->w, md_names, 9);
    int rc = CLI_OK;
    for (int p = 0; p <= 4 && rc == CLI_OK; p++)
        for (int mb = 0; mb <= 1 && rc == CLI_OK; mb++) {
            cosa_scheme s = {.order = p, .corr = mb ? COSA_CORR_MBCORR : COSA_CORR_NONE,
                             .alpha = 1.0, .model = mb ? model : NULL};
            char name[64], cell[64], text[72];
            cosa_scheme_name(&s, name, sizeof name);
            tw_cell(t->w, name);
            for (int k = 0; k < 3; k++) {
                cosa_point_result r;
                cosa_status st = cosa_evaluate(sys, &s, at[k], x0, t->tend,
                                               COSA_WANT_RHO | COSA_WANT_ERRORS, &r, w);
                if (st != COSA_OK) {
                    cli_error(t->cmd, "%s at dt %g: %s", name, at[k], cosa_strerror(st));
                    rc = CLI_EFAIL;
                    break;
                }
                snprintf(text, sizeof text, t->csv ? "%.17g" : "%.3e", r.err.e_local);
                tw_cell(t->w, text);
            }
            for (int k = 0; k < 5 && rc == CLI_OK; k++) {
                cosa_limit lim;
                cosa_crossing cr[CAP];
                cosa_status st = cosa_dt_limit(sys, &s, x0, t->tend, COSA_CRIT_LOCAL, tols[k],
                                               t->dtmin, t->dtmax, 0, cr, CAP, &lim, w);
                if (st != COSA_OK) {
                    cli_error(t->cmd, "%s, e_local %g: %s", name, tols[k], cosa_strerror(st));
                    rc = CLI_EFAIL;
                    break;
                }
                fmt_limit(cell, sizeof cell, &lim);
                if (t->csv)
                    snprintf(text, sizeof text, "%.17g", lim.dt_max);
                else
                    snprintf(text, sizeof text, "%s%s", cell, lim.monotone ? "" : "*");
                tw_cell(t->w, text);
            }
            if (t->csv && *acol)
                tw_cell(t->w, acol);
            tw_row_end(t->w);
            fflush(stdout); /* a row as it comes */
        }
    if (rc == CLI_OK && !t->csv)
        tw_prose(t->w, "\nLocal NRMSE e_l (eq 31, on the co-simulation trajectory) of the "
                       "two-mass oscillator at c_k = %g, d_k = %g, horizon %g s; 'dt for X' is "
                       "the largest macro step with e_l <= X (first loss scanning upward from "
                       "%g; '*' = not monotone).\n",
                 ck, dk, t->tend, t->dtmin);
    if (rc == CLI_OK && !t->csv)
        assume_caption(t);
    cosa_eval_workspace_free(w);
    cosa_system_free(model);
    cosa_system_free(sys);
    return rc;
}

/* The numbers of table 4: e_g and the time of divergence (NaN: none) per
 * scheme (row) and n_d (column). */
typedef struct table4_data {
    int nnd;
    const double *nd;
    const char (*name)[32];
    const double (*eg)[5], (*tdiv)[5];
} table4_data;

enum { T4_NS = 6 };

static void table4_csv(tw *w, const table4_data *d)
{
    static const char *const names[] = {"scheme", "nd", "e_global", "status", "t_diverged"};
    tw_table(w, names, 5);
    for (int i = 0; i < T4_NS; i++)
        for (int j = 0; j < d->nnd; j++) {
            char b[3][32];
            snprintf(b[0], sizeof b[0], "%.17g", d->nd[j]);
            snprintf(b[1], sizeof b[1], "%.17g", d->eg[i][j]);
            snprintf(b[2], sizeof b[2], "%.17g", d->tdiv[i][j]);
            const char *const cells[] = {d->name[i], b[0], b[1],
                                         isnan(d->tdiv[i][j]) ? "ok" : "diverged", b[2]};
            tw_row_words(w, cells, 5);
        }
}

static void table4_md(tw *w, const table4_data *d)
{
    char text[8][32];
    const char *names[9] = {"scheme"};
    for (int j = 0; j < d->nnd && j < 8; j++) {
        snprintf(text[j], sizeof text[j], "n_d = %g", d->nd[j]);
        names[j + 1] = text[j];
    }
    tw_table(w, names, (size_t)d->nnd + 1);
    for (int i = 0; i < T4_NS; i++) {
        tw_cell(w, d->name[i]);
        for (int j = 0; j < d->nnd; j++) {
            char b[64];
            if (isnan(d->tdiv[i][j]))
                snprintf(b, sizeof b, "%.3e", d->eg[i][j]);
            else
                snprintf(b, sizeof b, "unstable (t = %.3g)", d->tdiv[i][j]);
            tw_cell(w, b);
        }
        tw_row_end(w);
    }
}

/* The trends of section 5, checked on the numbers of table 4. */
static void table4_trends(tw *w, const table4_data *d)
{
    char line[1024];
    size_t n = 0;
    appendf(line, sizeof line, &n, "\nTrends stated in section 5, checked:\n- ZOH, e_g(plain) / "
                                   "e_g(MBCorr):");
    int shrinks = 1, stab = 0;
    double prev = INFINITY;
    for (int j = 0; j < d->nnd; j++) {
        if (!isnan(d->tdiv[0][j]) && isnan(d->tdiv[1][j])) {
            appendf(line, sizeof line, &n, " %g: plain unstable, MBCorr stable;", d->nd[j]);
            stab = 1;
            continue;
        }
        double ratio = d->eg[0][j] / d->eg[1][j];
        appendf(line, sizeof line, &n, " %g: %.3g;", d->nd[j], ratio);
        if (isfinite(ratio)) {
            shrinks &= ratio <= prev;
            prev = ratio;
        }
    }
    tw_prose(w, "%s\n  the improvement %s as n_d grows%s.\n", line,
             shrinks ? "shrinks" : "does NOT shrink",
             stab ? "; MBCorr stabilises ZOH where plain ZOH diverges" : "");
    for (int i = 0; i < T4_NS; i++) {
        /* does e_g grow with n_d (unstable = +inf)? */
        char dev[512] = "";
        size_t nl = 0;
        for (int j = 1; j < d->nnd; j++) {
            double a = isnan(d->tdiv[i][j - 1]) ? d->eg[i][j - 1] : INFINITY;
            double b = isnan(d->tdiv[i][j]) ? d->eg[i][j] : INFINITY;
            if (b < a && nl < sizeof dev - 96)
                appendf(dev, sizeof dev, &nl, "%s e_g(%g) = %.3g < e_g(%g) = %.3g",
                        nl ? ";" : "", d->nd[j], b, d->nd[j - 1], a);
        }
        if (*dev)
            tw_prose(w, "- deviation from \"the global error grows with n_d for all methods\": "
                        "%s:%s\n", d->name[i], dev);
    }
}

/* Table 4 (section 5): global NRMSE of the nonlinear two-mass oscillator
 * (twomass-nl) for n_d = 1 .. 2 and ZOH/FOH/SOH with and without MBCorr, by
 * time-domain co-simulation (cosa_run, fixed steps) against the CVODE reference.
 * Our copy of the paper has no numbers; the trends of its text are checked
 * here and deviations are written into the caption. */
static int table4(struct table_ctx *t)
{
    enum { NND = 5, NS = T4_NS };
    static const double nd[NND] = {1.0, 1.25, 1.5, 1.75, 2.0};
    static const char *const rows[NS] = {"zoh", "zoh+mbcorr", "foh",
                                         "foh+mbcorr", "soh", "soh+mbcorr"};
    const double dt = 1e-3, refrtol = 1e-12;
    const cosa_model *m = cosa_model_find("twomass-nl");
    double par[64], eg[NS][NND], tdiv[NS][NND];
    if (!m || !m->create_ode || m->nparam > 64) {
        cli_error(t->cmd, "model twomass-nl is missing");
        return CLI_EFAIL;
    }
    cosa_model_defaults(m, par);
    for (size_t i = 0; i < t->cs->mod.nset; i++)
        if (cosa_model_set(m, par, t->cs->mod.set_name[i], t->cs->mod.set_value[i]) !=
            COSA_OK) {
            cli_error(t->cmd, "model twomass-nl has no parameter '%s'", t->cs->mod.set_name[i]);
            return CLI_EUSAGE;
        }
    const double nsteps = nearbyint(t->tend / dt);
    if (nsteps < 1 || nsteps > 1e7) {
        cli_error(t->cmd, "--tend %g: %g macro steps of 1e-3 s (need 1 .. 1e7)", t->tend, nsteps);
        return CLI_EUSAGE;
    }
    const size_t N = (size_t)nsteps;
    cosa_integrator integ;
    cosa_integrator_parse("cvode", &integ); /* BDF, rtol 1e-10 */
    cosa_scheme sch[NS];
    for (int i = 0; i < NS; i++)
        cosa_scheme_parse(rows[i], &sch[i]);
    for (int j = 0; j < NND; j++) {
        cosa_odesys *os = NULL;
        cosa_model_units *mu = NULL; /* the units (models/unitset_build.c) */
        cosa_unitset *set = NULL;
        cosa_reftraj *ref = NULL;
        double x0[4];
        cosa_model_set(m, par, "nd", nd[j]);
        cosa_status st = m->create_ode(m, par, &os);
        if (st == COSA_OK && cosa_odesys_nsub(os) != 2)
            st = COSA_EMODEL;
        if (st == COSA_OK)
            st = m->initial_state(m, par, x0);
        const cosa_model_units_opts uo = {.integ = &integ, .os = os};
        if (st == COSA_OK && (st = cosa_model_units_create(m, par, &uo, &mu, NULL)) == COSA_OK)
            set = cosa_model_units_set(mu);
        if (st == COSA_OK)
            st = cosa_reftraj_cvode(set, x0, dt, 2 + N + 1, refrtol, &ref);
        for (int i = 0; i < NS && st == COSA_OK; i++) {
            cosa_run_opts o; /* the one entry point (issue 23) */
            cosa_run_opts_default(&o);
            o.scheme = sch[i];
            o.H = dt;
            o.tend = (double)N * dt; /* N steps of dt after the start-up */
            const cosa_run_ref rref = {.traj = ref};
            cosa_run_result *r = NULL;
            st = cosa_run(set, &o, &rref, &r);
            if (st == COSA_OK) {
                eg[i][j] = r->e_global;
                tdiv[i][j] = r->fixed->diverged ? r->fixed->t_diverged : NAN;
            }
            cosa_run_result_free(r);
        }
        cosa_reftraj_free(ref);
        cosa_model_units_free(mu);
        cosa_odesys_free(os);
        if (st != COSA_OK) {
            cli_error(t->cmd, "twomass-nl at n_d = %g: %s", nd[j], cosa_strerror(st));
            return st == COSA_EPARAM ? CLI_EUSAGE : CLI_EFAIL;
        }
    }
    char name[NS][32];
    for (int i = 0; i < NS; i++)
        cosa_scheme_name(&sch[i], name[i], sizeof name[i]);
    const table4_data d = {NND, nd, (const char (*)[32])name, (const double (*)[5])eg,
                           (const double (*)[5])tdiv};
    if (t->csv) {
        table4_csv(t->w, &d);
        return CLI_OK;
    }
    table4_md(t->w, &d);
    tw_prose(t->w,
             "\nGlobal NRMSE e_g (eq 33; outputs s1, v1, F_k) of the nonlinear two-mass oscillator "
             "(twomass-nl: eq 27 with the coupling damping of eq 43; c_k = %g, d_k = %g, "
             "d_kmin = %g, d_kmax = %g), dT = %g s, horizon %g s, started on the reference at "
             "t = p dT.  Subsystems integrated by CVODE BDF (rtol %g); MBCorr linearises both "
             "subsystems at the start of every macro step (analytic Jacobians); reference: the "
             "coupled system as one ODE, CVODE BDF (rtol %g).  'unstable (t = T)': the "
             "co-simulation diverged at T (an output beyond 1e6 x the largest reference "
             "output).\n",
             par[cosa_model_param_index(m, "ck")], par[cosa_model_param_index(m, "dk")],
             par[cosa_model_param_index(m, "dkmin")], par[cosa_model_param_index(m, "dkmax")],
             dt, t->tend, integ.rtol, refrtol);
    table4_trends(t->w, &d);
    return CLI_OK;
}

/* --paper energy: the mu table (Figs 11-12): twomass-fd, --set and --dt apply */
static int energy_table(const char *cmd, struct opts *o, tw *w)
{
    cli_case *cs = &o->cs;
    double dt = 1e-3;
    int rc;
    if (cs->mod.nassume || (cs->mod.name && strcmp(cs->mod.name, "twomass-fd") != 0) ||
        o->pairs || o->dtmin > 0.0 || o->dtmax > 0.0 || o->tol > 0.0 || o->tend > 0.0) {
        cli_error(cmd, "--paper energy: the mu table fixes model (twomass-fd), schemes and "
                       "step ratios; only --set, --dt and --format apply");
        return CLI_EUSAGE;
    }
    if (o->table != TABLE_MU) {
        cli_error(cmd, "--paper energy has one table: --table mu");
        return CLI_EUSAGE;
    }
    if (cs->dt_text && (rc = cli_case_dt(cmd, cs->dt_text, &dt)) != CLI_OK)
        return rc;
    cs->mod.name = "twomass-fd";
    return ecli_table_mu(cmd, cs, dt, w, o->format == 1);
}

/* "CK:DK[,CK:DK...]" into ck, dk (MAXPAIRS each), *n pairs: 0, or -1 with
 * the one line in msg (without "cosa: table: ") */
static int pairs_split(const char *text, double *ck, double *dk, size_t *n, char *msg,
                       size_t size)
{
    *n = 0;
    if (!*text) {
        snprintf(msg, size, "--pairs: empty list (expected CK:DK[,CK:DK...])");
        return -1;
    }
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        snprintf(msg, size, "--pairs list too long");
        return -1;
    }
    strcpy(buf, text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || *n == MAXPAIRS) {
            snprintf(msg, size, "--pairs expects CK:DK[,CK:DK...] (at most %d), got '%s'",
                     MAXPAIRS, tok);
            return -1;
        }
        *colon = '\0';
        if (cli_parse_double(tok, &ck[*n]) != 0 || cli_parse_double(colon + 1, &dk[*n]) != 0) {
            snprintf(msg, size, "--pairs: '%s:%s' is not a pair of finite numbers", tok,
                     colon + 1);
            return -1;
        }
        ++*n;
    }
    return 0;
}

/* --pairs (OPTK_CUSTOM): the list checked while parsing (an @FILE error
 * names FILE:LINE); table_pairs reads it again */
static int pairs_row(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    double ck[MAXPAIRS], dk[MAXPAIRS];
    size_t n;
    (void)row;
    if (pairs_split(value, ck, dk, &n, msg, size) != 0)
        return -1;
    *(const char **)dst = value;
    return 0;
}

/* --pairs CK:DK[,CK:DK...] into t (or the paper's six pairs for tables 1, 2, 4) */
static int table_pairs(const char *cmd, const struct opts *o, struct table_ctx *t)
{
    if (!o->pairs) {
        if (o->table != 2) {
            static const double ck[6] = {1e3, 1e5, 2e5, 1e7, 1e9, 1e10};
            static const double dk[6] = {1e1, 1e2, 5e2, 1e3, 3.6e5, 1e7};
            t->npairs = 6;
            memcpy(t->ck, ck, sizeof ck);
            memcpy(t->dk, dk, sizeof dk);
        }
        return CLI_OK;
    }
    char msg[1024];
    if (pairs_split(o->pairs, t->ck, t->dk, &t->npairs, msg, sizeof msg) != 0) {
        cli_error(cmd, "%s", msg);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int cmd_table(int argc, char **argv)
{
    const char *cmd = "table";
    struct opts o = {.paper = -1, .table = -1};
    cli_case *cs = &o.cs;
    tw w = {0}; /* the tables on stdout, markdown or CSV */
    struct table_ctx t = {.cmd = cmd, .cs = cs, .w = &w};
    int rc = cli_parse_rows(cmd, table_rows, &o, cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (tw_begin(&w, stdout, TW_TEXT, TW_REPORT, cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    if (o.format == 1)
        tw_csv(&w);
    else
        tw_markdown(&w);
    if (o.paper == 1) {
        rc = energy_table(cmd, &o, &w);
        goto out;
    }
    if (cs->dt_text || (cs->mod.name && strcmp(cs->mod.name, "twomass") != 0)) {
        cli_error(cmd, "the paper tables fix model (twomass), schemes and macro steps; "
                       "only --set, --assume, --pairs, --dt-min/--dt-max, --tol and --tend "
                       "apply");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (o.table == TABLE_MU) { /* the one table the rows cannot tell from the paper */
        cli_error(cmd, "--paper mbcorr: --table must be 1, 2, 3 or 4, got 'mu' (the energy "
                       "paper's table: --paper energy)");
        rc = CLI_EUSAGE;
        goto out;
    }
    t.csv = o.format == 1;
    t.dtmin = o.dtmin > 0.0 ? o.dtmin : 1e-9;
    t.dtmax = o.dtmax > 0.0 ? o.dtmax : 1e-2;
    t.tol = o.tol > 0.0 ? o.tol : 0.01;
    t.tend = o.tend > 0.0 ? o.tend : 0.3;
    if (!(t.dtmin < t.dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", t.dtmin, t.dtmax);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = table_pairs(cmd, &o, &t)) != CLI_OK)
        goto out;
    if (o.table == 3 && cs->mod.nassume) {
        cli_error(cmd, "--assume: table 4 co-simulates the nonlinear twomass-nl, whose MBCorr "
                       "linearises the units online; an assumed model needs a linear form "
                       "(fixed Jacobians): use tables 1-3 or cosa simulate on a linear model");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (o.table == 3) { /* its own model (twomass-nl): --set applies to it */
        rc = table4(&t);
        goto out;
    }
    if ((rc = cli_model_resolve(&cs->mod, cmd)) != CLI_OK || (rc = dt_max_fits(&t)) != CLI_OK)
        goto out;
    if (o.table == 0)
        rc = limits_table(&t, COSA_CRIT_STABLE);
    else if (o.table == 1)
        rc = limits_table(&t, COSA_CRIT_ACCURATE);
    else
        rc = table3(&t);
out:
    cli_case_free(cs);
    return tw_finish(&w, cmd, rc);
}
