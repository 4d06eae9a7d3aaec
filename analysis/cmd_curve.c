/* cmd_curve.c -- `cosa curve`: one-dimensional sweeps (Figs 5, 7, 8 of the
 * MBCorr paper): a metric against the macro step or one model parameter,
 * one curve per scheme, as a data file and a gnuplot script. */
#include "config.h"
#include "fmu_notes.h"
#include "step_grid.h"
#include "map_data.h"
#include "sweep_cli.h"
#include "table_writer.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa curve [--model NAME] [--set NAME=VALUE]... --x NAME=LO:HI:log|lin:N\n"
    "                  [--dt DT] --scheme S[,S...] [--metric M] [--level L]\n"
    "                  [--tend T] [--alpha A] [--threads N]\n"
    "                  [--assume NAME=VALUE]... [-o DIR] [--name NAME]\n"
    "                  [--plot png|svg|pdf] [--progress]\n\n"
    "A metric against one swept quantity, one curve per scheme: NAME = dt sweeps the\n"
    "macro step (e.g. rho vs dt, Fig 5; e_local vs dt, Fig 8), any model parameter\n"
    "sweeps that parameter at the macro step --dt (e.g. e_global vs ck, Fig 7).\n"
    "Writes NAME.dat (comment header, then rows 'x value_1 ... value_S' with %.17g,\n"
    "'inf' where the co-simulation is unstable, 'nan' where a point failed) and\n"
    "NAME.gp, a gnuplot script with a dashed line at the level.  Stdout lists the\n"
    "files written ('file PATH').\n\n";

struct curve_opts {
    cli_case cs;
    const char *x, *metric, *level, *tend, *output, *plot, *name;
    size_t threads, coarse; /* 0: not given */
    double margin;          /* NaN: not given */
    int progress, adaptive;
};

#define S(field) .kind = OPTK_STRING, .off = offsetof(struct curve_opts, field)
static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct curve_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows, .off = offsetof(struct curve_opts, cs)},
    {.kind = OPTK_CUSTOM, .off = offsetof(struct curve_opts, x), .fn = scli_row_axis_text, .name = "x", .arg = "NAME=LO:HI:log|lin:N", .flags = OPTF_REQUIRED,
     .help = "dt or a model parameter, range, spacing, points;\n"
             "numbers may be written 10^X; NAME = assume.P sweeps P\n"
             "in the assumed model only"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_dt_list_text, .off = offsetof(struct curve_opts, cs.dt_text), .name = "dt", .arg = "DT", .help = "macro step when NAME is a parameter"},
    {S(cs.scheme_text), .name = "scheme", .arg = "LIST", .help = "schemes, comma-separated"},
    {S(metric), .name = "metric", .arg = "M",
     .help = CLI_METRIC_HELP "\n"
             "(NAME = relax or iterations sweeps their omega or k)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_number_text, .off = offsetof(struct curve_opts, level), .name = "level", .arg = "L",
     .help = "reference line (default 1 for rho, 0.01 for errors,\n"
             "1.1 for E_ratio, 0.5 for mu_measured, 0 for dE and\n"
             "varsigma)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_text, .off = offsetof(struct curve_opts, tend), .name = "tend", .arg = "T",
     .help = "horizon for errors in seconds (default: the model's)"},
    {.kind = OPTK_SIZE, .off = offsetof(struct curve_opts, threads), .imax = CLI_THREADS_MAX,
     .name = "threads", .arg = "N",
     .help = "OpenMP threads, 1..4096 (default: all cores)"},
    {.kind = OPTK_PATH, .off = offsetof(struct curve_opts, output), .name = "output",
     .short_name = 'o', .arg = "DIR",
     .help = "write into DIR (created if missing; files there are\n"
             "replaced); without -o existing files are not overwritten"},
    {S(name), .name = "name", .arg = "NAME", .help = "base name of the files (default: METRIC_vs_X)"},
    {S(plot), .name = "plot", .arg = "FMT", .help = "also run gnuplot: png, svg or pdf"},
    {.kind = OPTK_FLAG, .off = offsetof(struct curve_opts, progress), .name = "progress",
     .help = "progress on stderr (default: only on a terminal)"},
    {.kind = OPTK_INCLUDE, .sub = cli_max_points_rows, .off = offsetof(struct curve_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct curve_opts, cs)},
    {.kind = OPTK_FLAG, .off = offsetof(struct curve_opts, adaptive), .name = "adaptive",
     .help = "evaluate every K-th point, refine only where the curve\n"
             "crosses or nears the level, interpolate the rest (the\n"
             "curve is then exact only near the level); one column\n"
             "exact_SCHEME per scheme (1 = evaluated, 0 = interpolated);\n"
             "stdout: 'evaluated N of M'"},
    {.kind = OPTK_SIZE, .off = offsetof(struct curve_opts, coarse), .imax = 1000000,
     .name = "coarse", .arg = "K", .requires = "adaptive",
     .help = "coarse step of --adaptive (default 12)"},
    {.kind = OPTK_NONNEG, .off = offsetof(struct curve_opts, margin), .name = "margin", .arg = "M", .requires = "adaptive",
     .help = "refine where the level is within M x the spread of an\n"
             "interval's end values (default 0.5; log10 scale for\n"
             "the errors)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef S

/* "BASE.gp" into buf. */
static const char *base_gp(const char *base, char *buf, size_t size)
{
    snprintf(buf, size, "%s.gp", base);
    return buf;
}

/* The macro steps: the swept axis of --x dt=..., else the one --dt. */
static int curve_steps(const char *cmd, const cli_case *cs, int over_dt,
                       const cosa_sweep_axis *xa, double **dt, size_t *ndt)
{
    int rc;
    if (over_dt) {
        if (cs->dt_text) {
            cli_error(cmd, "--dt cannot be combined with --x dt=...");
            return CLI_EUSAGE;
        }
        if (!(xa->lo > 0.0 && xa->hi > 0.0)) {
            char lo[32], hi[32];
            cli_error(cmd, "--x dt=%s:%s: macro steps must be positive",
                      cosa_number_text(lo, sizeof lo, xa->lo),
                      cosa_number_text(hi, sizeof hi, xa->hi));
            return CLI_EUSAGE;
        }
        *ndt = xa->n;
        *dt = malloc(*ndt * sizeof **dt);
        if (!*dt) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        for (size_t k = 0; k < *ndt; k++)
            (*dt)[k] = cosa_sweep_axis_value(xa, k);
        return CLI_OK;
    }
    if ((rc = scli_dt_list(cmd, cs->dt_text, dt, ndt, cli_points_cap(cs))) != CLI_OK)
        return rc;
    if (*ndt != 1) {
        cli_error(cmd, "--dt takes one macro step when --x sweeps a parameter");
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* A computed curve: what the data file and the script are written from. */
struct curve {
    const char *cmd;
    const cli_case *cs;
    const cosa_model *m;
    const cosa_sweep_spec *sp;
    const cosa_scheme *schemes;
    size_t ns;
    cosa_metric metric;
    double level;
    const char *xname;
    const cosa_sweep_axis *xa; /* as given (dt too)                           */
    int over_dt, adaptive;
    const double *dt;
    size_t ndt, npt;           /* macro steps; points of the curve            */
    const double *values;
    const unsigned char *exact; /* adaptive: which values are exact, or NULL   */
    size_t nfailed;
    const char *adesc;
};

/* The value index of scheme i at point k. */
static size_t curve_index(const struct curve *c, size_t i, size_t k)
{
    return c->over_dt ? cosa_sweep_index(c->sp, i, k, 0, 0) : cosa_sweep_index(c->sp, i, 0, k, 0);
}

/* The data file's header: settings, schemes and columns. */
static void curve_header(tw *w, const struct curve *c)
{
    FILE *f = tw_stream(w); /* the shared header printers' lines */
    const cosa_sweep_axis *xa = c->xa;
    const int swept[1] = {c->sp->x.assumed ? -1 : c->sp->x.param};
    const cosa_sweep_axis *ax[1] = {&c->sp->x};
    scli_header(f, "curve", c->m, c->cs->mod.par, swept, c->over_dt ? 0 : 1);
    scli_header_assume(f, &c->cs->mod, ax, c->over_dt ? 0 : 1);
    tw_comment(w, "metric %s", cosa_metric_name(c->metric));
    tw_comment(w, "level %.17g", c->level);
    if (c->metric != COSA_METRIC_RHO)
        tw_comment(w, "tend %.17g", c->sp->tend);
    if (c->over_dt) {
        tw_comment(w, "x dt %.17g %.17g %s %zu", xa->lo, xa->hi, xa->log ? "log" : "lin", xa->n);
    } else {
        tw_comment(w, "x %s %.17g %.17g %s %zu", c->xname, xa->lo, xa->hi,
                   xa->log ? "log" : "lin", xa->n);
        tw_comment(w, "dt %.17g", c->dt[0]);
    }
    for (size_t i = 0; i < c->ns; i++) {
        char nm[64];
        cosa_scheme_name(&c->schemes[i], nm, sizeof nm);
        tw_comment(w, "scheme %zu %s alpha %.17g", i + 1, nm, c->schemes[i].alpha);
    }
    for (size_t i = 0; i < c->ns; i++)
        if (c->schemes[i].implicit) { /* --iterations and --relax are the same for all */
            cli_iter_header(f, &c->schemes[i], &c->sp->x, &c->sp->y);
            break;
        }
    if (c->exact)
        tw_comment(w, "adaptive: %s", c->adesc);
    tw_comment(w, "points %zu failed %zu", c->npt * c->ns, c->nfailed);
}

/* The data file on the writer w: the header, the columns (x, the schemes,
 * with --adaptive exact_SCHEME), then one record per point.  0, or -1 (out
 * of memory). */
static int curve_table(tw *w, const struct curve *c)
{
    const size_t ncol = 1 + c->ns * (c->exact ? 2 : 1);
    const char **names = malloc(ncol * sizeof *names);
    char(*nm)[72] = malloc(2 * (c->ns ? c->ns : 1) * sizeof *nm);
    double *rec = malloc(ncol * sizeof *rec);
    if (!names || !nm || !rec) {
        free(names);
        free(nm);
        free(rec);
        return -1;
    }
    names[0] = c->xname;
    for (size_t i = 0; i < c->ns; i++) {
        cosa_scheme_name(&c->schemes[i], nm[i], 64);
        snprintf(nm[c->ns + i], sizeof nm[0], "exact_%s", nm[i]);
        names[1 + i] = nm[i];
        if (c->exact)
            names[1 + c->ns + i] = nm[c->ns + i];
    }
    curve_header(w, c);
    tw_columns(w, names, ncol, NULL);
    for (size_t k = 0; k < c->npt; k++) {
        rec[0] = c->over_dt ? c->dt[k] : cosa_sweep_axis_value(&c->sp->x, k);
        for (size_t i = 0; i < c->ns; i++) {
            rec[1 + i] = c->values[curve_index(c, i, k)];
            if (c->exact)
                rec[1 + c->ns + i] = c->exact[curve_index(c, i, k)] ? 1.0 : 0.0;
        }
        tw_record(w, rec, ncol);
    }
    free(names);
    free(nm);
    free(rec);
    return 0;
}

/* The data file path (and, with jpath, the same records as JSON there):
 * the same doubles through the one writer, %.17g in both. */
static int curve_data(const struct curve *c, const char *path, const char *jpath)
{
    int rc = CLI_OK;
    for (int pass = 0; pass < (jpath ? 2 : 1) && rc == CLI_OK; pass++) {
        const char *p = pass ? jpath : path;
        outfile of;
        tw w;
        FILE *f = outfile_open(&of, p, 0);
        if (!f) {
            cli_error(c->cmd, "cannot write '%s': %s", p, strerror(errno));
            return CLI_EFAIL;
        }
        if (tw_begin(&w, f, pass ? TW_JSON : TW_TEXT, TW_DATA, c->cmd, NULL, NULL) != 0 ||
            curve_table(&w, c) != 0 || (tw_end(&w) != 0 && errno == ENOMEM)) {
            tw_abandon(&w);
            outfile_abandon(&of);
            cli_error(c->cmd, "out of memory");
            return CLI_EFAIL;
        }
        if (outfile_commit(&of) != 0) { /* a failed write: named here */
            cli_error(c->cmd, "cannot write '%s': %s", p, strerror(errno));
            rc = CLI_EFAIL;
        }
    }
    return rc;
}

/* The script dir/base.gp (plots/curve.gp) over base.dat: one line per
 * scheme, one colour per extrapolation order, solid with a correction. */
static int curve_script(tw *say, const struct curve *c, const char *dir, const char *base)
{
    char titles[4096] = "", colors[1024] = "", dashes[1024] = "";
    for (size_t i = 0; i < c->ns; i++) {
        char nm[64], col[16];
        cosa_scheme_name(&c->schemes[i], nm, sizeof nm);
        snprintf(col, sizeof col, "%s%d", i ? " " : "", c->schemes[i].order + 1);
        if (strlen(titles) + strlen(nm) + 2 < sizeof titles &&
            strlen(colors) + strlen(col) + 1 < sizeof colors && strlen(dashes) + 3 < sizeof dashes) {
            if (i)
                strcat(titles, " ");
            strcat(titles, nm);
            strcat(colors, col);
            strcat(dashes, i ? " " : "");
            strcat(dashes, c->schemes[i].corr ? "1" : "2");
        }
    }
    const cosa_model *m = c->m;
    const cosa_sweep_axis *ax[1] = {&c->sp->x};
    char gp[512], dat[512], lev[32], comment[1024], xlabel[128], ylabel[128], title[512];
    char path[4096];
    snprintf(gp, sizeof gp, "%s.gp", base);
    snprintf(dat, sizeof dat, "%s.dat", base);
    md_num(lev, sizeof lev, c->level);
    if (c->over_dt)
        snprintf(xlabel, sizeof xlabel, "ΔT [s]");
    else
        scli_axis_label(m, &c->sp->x, xlabel, sizeof xlabel);
    snprintf(ylabel, sizeof ylabel, "%s", cosa_metric_name(c->metric));
    char sets[384];
    scli_title_sets(&c->cs->mod, ax, c->over_dt ? 0 : 1, sets, sizeof sets);
    if (c->over_dt)
        snprintf(title, sizeof title, "model %s%s", m->name, sets);
    else
        snprintf(title, sizeof title, "model %s, ΔT = %g s%s", m->name, c->dt[0], sets);
    if (c->adaptive && strlen(title) + 48 < sizeof title) /* say so: exact only near the level */
        strcat(title, " (adaptive: exact near the level only)");
    snprintf(comment, sizeof comment, "# cosa %s curve: model %s, %s against %s\n# data: %s",
             cosa_version(), m->name, cosa_metric_name(c->metric), c->xname, dat);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILE",   "TITLES", "COLORS", "DASHES",
                          "LEVEL",   "XLOG",   "YLOG",    "XLABEL", "YLABEL", "TITLE", "GOOD",
                          "METRIC"};
    const char *vals[] = {comment, gp,  base,  dat, titles, colors, dashes, lev,
                          c->xa->log ? "" : "# ", !cosa_metric_is_error(c->metric) ? "# " : "",
                          xlabel,  ylabel, title,
                          c->metric == COSA_METRIC_RHO       ? ": stable below"
                          : cosa_metric_is_error(c->metric) ? ": accurate below"
                                                            : "",
                          cosa_metric_name(c->metric)};
    snprintf(path, sizeof path, "%s/%s", dir, gp);
    int rc = scli_write_script(c->cmd, path, cosa_plot_curve, 15, keys, vals);
    if (rc == CLI_OK)
        tw_field(say, "file", "%s", path);
    return rc;
}

/* The sweep, full or adaptive (*exact: which values are exact), into new
 * arrays; *adesc describes the adaptive settings. */
static int curve_sweep(const char *cmd, const struct curve_opts *o, cosa_sweep_spec *sp,
                       cosa_metric metric, double level, double **values, cosa_status **status,
                       unsigned char **exact, size_t *nfailed, size_t *nevaluated, char *adesc,
                       size_t adsize)
{
    const size_t total = cosa_sweep_size(sp);
    *values = malloc((total ? total : 1) * sizeof **values);
    *status = malloc((total ? total : 1) * sizeof **status);
    if (!*values || !*status) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cosa_adaptive_opts aopt;
    scli_adaptive(o->adaptive, o->coarse, o->margin, metric, level, &aopt, adesc, adsize);
    cosa_status st;
    if (o->adaptive) {
        *exact = malloc(total ? total : 1);
        if (!*exact) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        st = scli_sweep_adaptive(sp, &aopt, *values, *status, *exact, nfailed, nevaluated);
    } else {
        st = scli_sweep_run(sp, *values, *status, nfailed);
    }
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        return st == COSA_EPARAM || st == COSA_EINVAL || st == COSA_ERANGE ? CLI_EUSAGE
                                                                            : CLI_EFAIL;
    }
    return CLI_OK;
}

int cmd_curve(int argc, char **argv)
{
    const char *cmd = "curve";
    struct curve_opts o = {.margin = NAN};
    cli_case *cs = &o.cs;
    cosa_system *sys = NULL;
    cosa_scheme *schemes = NULL;
    double *dt = NULL, *values = NULL;
    cosa_status *status = NULL;
    unsigned char *exact = NULL;
    size_t ns = 0, ndt = 0;
    tw say = {0}; /* stdout: the files written, the points */
    int rc = cli_parse_rows(cmd, rows, &o, cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc == CLI_OK && o.name && (rc = cli_file_stem(cmd, "--name", o.name)) != CLI_OK)
        goto out;
    if (rc != CLI_OK)
        goto out;
    cosa_metric metric = COSA_METRIC_RHO;
    if ((o.metric && (rc = scli_metric(cmd, o.metric, &metric)) != CLI_OK) ||
        (rc = scli_schemes(cmd, cs->scheme_text, cs->alpha, &schemes, &ns)) != CLI_OK)
        goto out;
    char xname[64];
    cosa_sweep_axis xa;
    const size_t cap = cli_points_cap(cs);
    if ((rc = scli_axis(cmd, "--x", o.x, xname, sizeof xname, &xa, cap)) != CLI_OK)
        goto out;
    const int over_dt = strcmp(xname, "dt") == 0;
    if ((rc = curve_steps(cmd, cs, over_dt, &xa, &dt, &ndt)) != CLI_OK)
        goto out;
    /* the whole sweep under the cap, before any axis value is computed */
    const size_t npts[3] = {over_dt ? 1 : xa.n, ndt, ns};
    if ((rc = cli_points_check(cmd, cap, npts, 3, "the sweep (--x x --dt x --scheme)")) != CLI_OK)
        goto out;
    double level;
    size_t threads;
    cosa_sweep_spec sp = {0};
    sp.y = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.x = over_dt ? (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0} : xa;
    {
        const char *const opt[1] = {"--x"}, *const nm[1] = {xname};
        cosa_sweep_axis *const ax[1] = {&sp.x};
        if ((rc = scli_sweep_setup(cmd, metric, o.level, o.threads, o.plot, cs, schemes, ns,
                                   &level, &threads, opt, nm, ax, over_dt ? 0 : 1, &sys)) !=
            CLI_OK)
            goto out;
    }
    const cosa_model *m = cs->mod.model;
    if (metric != COSA_METRIC_RHO && metric != COSA_METRIC_RHO_ITER &&
        (rc = cli_need_outputs(&cs->mod, cmd, cosa_system_ny(sys))) != CLI_OK)
        goto out;
    if (over_dt) { /* fixed-step FMUs: the axis on their step grid; the header says so */
        if ((rc = step_grid_axis(cmd, &cs->mod, dt, &ndt)) != CLI_OK)
            goto out;
        if (ndt != xa.n || dt[0] != xa.lo || dt[ndt - 1] != xa.hi)
            xa.lo = dt[0], xa.hi = dt[ndt - 1], xa.n = ndt;
    }
    fmu_notes(cmd, &cs->mod, schemes, ns);
    fmu_ident_dt_list_note(cmd, m, dt, ndt);
    scli_progress prog;
    if ((rc = scli_spec_finish(cmd, &sp, m, cs->mod.par, dt, ndt, schemes, ns, metric, o.tend,
                               threads, o.progress, &prog)) != CLI_OK)
        goto out;
    sp.apar = cs->mod.apar; /* imperfect model knowledge (--assume, an assume.P axis) */
    sp.apar_fixed = cs->mod.assumed;
    if (cli_assume_given(&cs->mod) || sp.x.assumed)
        cli_assume_note(cmd, schemes, ns);

    scli_out out = {o.output, 0};
    if ((rc = scli_out_prepare(cmd, &out)) != CLI_OK)
        goto out;
    char base[256], path[4096], fname[512];
    if (o.name)
        snprintf(base, sizeof base, "%s", o.name);
    else
        snprintf(base, sizeof base, "%s_vs_%s", cosa_metric_name(metric), xname);
    const char *exts[] = {"dat", "gp", o.plot};
    for (int e = 0; e < (o.plot ? 3 : 2); e++) {
        snprintf(fname, sizeof fname, "%s.%s", base, exts[e]);
        if ((rc = scli_out_path(cmd, &out, fname, path, sizeof path)) != CLI_OK)
            goto out;
    }

    const size_t total = cosa_sweep_size(&sp);
    size_t nfailed = 0, nevaluated = total;
    char adesc[160] = "";
    if ((rc = curve_sweep(cmd, &o, &sp, metric, level, &values, &status, &exact, &nfailed,
                          &nevaluated, adesc, sizeof adesc)) != CLI_OK)
        goto out;
    fmu_ident_cache_note(cmd, m);
    if (scli_mpi_rank() > 0) /* every process has the values; process 0 writes */
        goto out;
    const size_t npt = over_dt ? ndt : sp.x.n;
    const struct curve c = {cmd,    cs,    m,       &sp,    schemes, ns,    metric,
                            level,  xname,  &xa,     over_dt, o.adaptive, dt, ndt,
                            npt,    values, exact,   nfailed, adesc};
    char jpath[4096];
    snprintf(path, sizeof path, "%s/%s.dat", out.dir, base);
    snprintf(jpath, sizeof jpath, "%s/%s.json", out.dir, base);
    if ((rc = curve_data(&c, path, cs->format == 1 ? jpath : NULL)) != CLI_OK)
        goto out;
    if (tw_begin(&say, stdout, TW_TEXT, TW_REPORT, cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    tw_field(&say, "file", "%s", path);
    if (cs->format == 1)
        tw_field(&say, "file", "%s", jpath);
    if ((rc = curve_script(&say, &c, out.dir, base)) != CLI_OK)
        goto out;
    scli_remove_pictures(&out, base); /* -o DIR: no picture of an earlier run */
    if (o.adaptive)
        tw_field(&say, "evaluated", "%zu of %zu", nevaluated, total);
    tw_field(&say, "points", "%zu", npt * ns);
    tw_field(&say, "failed", "%zu", nfailed);
    fflush(stdout);
    if (o.plot) {
        if ((rc = scli_gnuplot(cmd, out.dir, base_gp(base, fname, sizeof fname), o.plot)) !=
            CLI_OK)
            goto out;
        tw_field(&say, "file", "%s/%s.%s", out.dir, base, o.plot);
    }
    rc = CLI_OK;
out:
    rc = tw_finish(&say, cmd, rc); /* stdout: its writes are checked at the exit */
    free(values);
    free(status);
    free(exact);
    free(dt);
    free(schemes);
    cosa_system_free(sys);
    cli_case_free(cs);
    return rc;
}
