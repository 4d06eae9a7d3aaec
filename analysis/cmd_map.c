/* cmd_map.c -- `cosa map`: stability and accuracy maps over two model
 * parameters for a list of macro steps and schemes (Figs 4 and 6 of the
 * MBCorr paper): data files in gnuplot grid format and gnuplot scripts. */
#include "config.h"
#include "fmu_notes.h"
#include "step_grid.h"
#include "map_contour.h"
#include "map_data.h"
#include "outfile.h"
#include "sweep_cli.h"
#include "table_writer.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

extern const char cosa_plot_map_dt[];       /* plots/map_dt.gp */
extern const char cosa_plot_map_gnuplot[];  /* plots/map_gnuplot.gp */

static const char usage[] =
    "Usage: cosa map [--model NAME] [--set NAME=VALUE]... --x NAME=LO:HI:log|lin:N\n"
    "                --y NAME=LO:HI:log|lin:N --dt DT[,DT...] --scheme S[,S...]\n"
    "                [--metric M] [--level L] [--tend T]\n"
    "                [--assume NAME=VALUE]... [--alpha A] [--threads N] [-o DIR]\n"
    "                [--name NAME]\n"
    "                [--plot png|svg|pdf] [--heatmap] [--progress]\n"
    "                [--format text|bin|json]\n"
    "                [--adaptive [--coarse K] [--margin M]] [--contour cosa|gnuplot]\n\n"
    "Sweeps two model parameters over a grid, for every macro step and scheme, and\n"
    "writes per scheme a data file NAME_SCHEME.dat (comment header, then rows\n"
    "'x y dt value' with %.17g; one block per dt separated by two blank lines, x-major\n"
    "with a blank line after each x value: gnuplot grid format) and a gnuplot script\n"
    "NAME_SCHEME.gp drawing, for each dt, the contour line value = level on the axes\n"
    "given, shaded from black (largest dt) to light grey (smallest) as in Figs 4 and 6\n"
    "of the MBCorr paper.  The lines are traced by cosa (marching squares) into\n"
    "NAME_SCHEME_lines.dat: polylines 'x y', one block per dt.  With several schemes\n"
    "also NAME_all.gp (one panel each, one shared key).\n"
    "With --y dt=LO:HI:log|lin:N the macro step is the second axis instead (no\n"
    "--dt): rows 'x dt value' in one block, and the scripts draw the metric over\n"
    "(x, dT) as a heat map with the contour value = level, one panel per scheme; for\n"
    "an assumed parameter on x (--x assume.P=...) a dashed line marks P's true value.\n"
    "Values: rho(Phi) for rho; the NRMSE indicators for e_* ('inf' where the\n"
    "co-simulation is unstable); 'nan' where a point failed (the header counts them\n"
    "by reason).  Stdout lists the files written ('file PATH').\n\n";

struct map_opts {
    cli_case cs;
    const char *x, *y, *metric, *level, *tend, *output, *plot, *name;
    size_t threads, coarse; /* 0: not given */
    double margin;          /* NaN: not given */
    int format;  /* index of formats[] */
    int contour; /* index of contours[]: 0 cosa, 1 gnuplot */
    int heatmap, progress, adaptive;
};

static const char *const formats[] = {"text", "bin", "json", NULL};
static const char *const contours[] = {"cosa", "gnuplot", NULL};

#define S(field) .kind = OPTK_STRING, .off = offsetof(struct map_opts, field)
#define F(field) .kind = OPTK_FLAG, .off = offsetof(struct map_opts, field)
static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct map_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows, .off = offsetof(struct map_opts, cs)},
    {.kind = OPTK_CUSTOM, .off = offsetof(struct map_opts, x), .fn = scli_row_axis_text, .name = "x", .arg = "NAME=LO:HI:log|lin:N", .flags = OPTF_REQUIRED,
     .help = "swept parameter, range, spacing and number of points;\n"
             "numbers may be written 10^X (e.g. --dt 10^-2.5);\n"
             "NAME = assume.P sweeps P in the assumed model only;\n"
             "NAME = relax or iterations sweeps omega or k of\n"
             "imp:/gs-imp: schemes (doc/iterative-coupling.md)"},
    {.kind = OPTK_CUSTOM, .off = offsetof(struct map_opts, y), .fn = scli_row_axis_text, .name = "y", .arg = "NAME=LO:HI:log|lin:N", .flags = OPTF_REQUIRED,
     .help = "the second axis, as --x; --y dt=LO:HI:log|lin:N sweeps\n"
             "the macro step (then no --dt)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_dt_list_text, .off = offsetof(struct map_opts, cs.dt_text), .name = "dt", .arg = "LIST",
     .help = "macro steps: DT[,DT...] or LO:HI:log|lin:N"},
    {S(cs.scheme_text), .name = "scheme", .arg = "LIST", .help = "schemes, comma-separated"},
    {S(metric), .name = "metric", .arg = "M",
     .help = CLI_METRIC_HELP},
    {.kind = OPTK_CUSTOM, .fn = cli_row_number_text, .off = offsetof(struct map_opts, level), .name = "level", .arg = "L",
     .help = "contour level (default 1 for rho, 0.01 for errors,\n"
             "1.1 for E_ratio, 0.5 for mu_measured, 0 for dE and\n"
             "varsigma)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_text, .off = offsetof(struct map_opts, tend), .name = "tend", .arg = "T",
     .help = "horizon for errors in seconds (default: the model's)"},
    {.kind = OPTK_SIZE, .off = offsetof(struct map_opts, threads), .imax = CLI_THREADS_MAX,
     .name = "threads", .arg = "N", .help = "OpenMP threads (default: all cores)"},
    {.kind = OPTK_PATH, .off = offsetof(struct map_opts, output), .name = "output",
     .short_name = 'o', .arg = "DIR",
     .help = "write into DIR (created if missing; files there are\n"
             "replaced); without -o files go to the current directory\n"
             "and existing ones are not overwritten"},
    {S(name), .name = "name", .arg = "NAME", .help = "base name of the files (default: the metric)"},
    {S(plot), .name = "plot", .arg = "FMT", .help = "also run gnuplot: png, svg or pdf"},
    {F(heatmap), .name = "heatmap",
     .help = "also write NAME_SCHEME_heat.gp drawing the metric itself"},
    {.kind = OPTK_ENUM, .off = offsetof(struct map_opts, format), .name = "format",
     .arg = "text|bin|json", .names = formats,
     .help = "data files as text (default), or bin: NAME_SCHEME.dat\n"
             "holds the header only and NAME_SCHEME.bin the records as\n"
             "float64 (smaller, faster to draw; 'cosa convert' turns\n"
             "one into the other), or json: also NAME_SCHEME.json,\n"
             "the header and records as one JSON document\n"
             "(doc/output-formats.md)"},
    {.kind = OPTK_ENUM, .off = offsetof(struct map_opts, contour), .name = "contour",
     .arg = "cosa|gnuplot", .names = contours,
     .help = "who traces the contour lines the scripts draw: cosa\n"
             "(default; NAME_SCHEME_lines.dat) or gnuplot from the\n"
             "grid (slow: deprecated, goes in the next release)"},
    {F(progress), .name = "progress", .help = "progress on stderr (default: only on a terminal)"},
    {.kind = OPTK_INCLUDE, .sub = cli_max_points_rows, .off = offsetof(struct map_opts, cs)},
    {F(adaptive), .name = "adaptive",
     .help = "evaluate every K-th point, then refine only the cells\n"
             "whose corners straddle the level or come within the\n"
             "margin of it, down to the full grid; the other points\n"
             "are interpolated and get 0 in a 5th column 'exact'\n"
             "(doc/maps.md); stdout: 'evaluated N of M'"},
    {.kind = OPTK_SIZE, .off = offsetof(struct map_opts, coarse), .imax = 1000000,
     .name = "coarse", .arg = "K", .requires = "adaptive",
     .help = "coarse grid step of --adaptive (default 12)"},
    {.kind = OPTK_NONNEG, .off = offsetof(struct map_opts, margin), .name = "margin", .arg = "M", .requires = "adaptive",
     .help = "also refine a cell whose corner lies within M x the\n"
             "spread of its corner values of the level (default 0.5;\n"
             "log10 scale for the errors)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef S
#undef F

/* "# points N failed M" and "# failed K: reason" lines of scheme is. */
static void write_failures(FILE *f, const cosa_sweep_spec *sp, size_t is,
                           const cosa_status *status)
{
    size_t nfail[COSA_STATUS_COUNT] = {0}, total = 0;
    /* scheme is's points are contiguous (cosa_sweep_index) */
    const size_t n = sp->ndt * sp->x.n * sp->y.n;
    const cosa_status *st = status + cosa_sweep_index(sp, is, 0, 0, 0);
    for (size_t k = 0; k < n; k++)
        if (st[k] != COSA_OK && (unsigned)st[k] < COSA_STATUS_COUNT) {
            nfail[st[k]]++;
            total++;
        }
    fprintf(f, "# points %zu failed %zu\n", sp->ndt * sp->x.n * sp->y.n, total);
    for (int k = 0; k < COSA_STATUS_COUNT; k++)
        if (nfail[k])
            fprintf(f, "# failed %zu: %s\n", nfail[k], cosa_strerror((cosa_status)k));
}

/* The records of an x row, n of them, into rec (ncol doubles each): x, the
 * inner coordinate yv[k] (y, or dt on a map over (x, dt)), the block's dt
 * (maps over two parameters only), the value val[k * stride] and, with ex,
 * the flag ex[k * stride].  One loop per layout, without branches inside,
 * so that the compiler can vectorise it. */
static void fill_records(double *rec, size_t n, int dt_axis, double xv, const double *yv,
                         double dt, const double *val, size_t stride, const unsigned char *ex)
{
    if (!dt_axis && ex)
        for (size_t k = 0; k < n; k++, rec += 5) {
            rec[0] = xv;
            rec[1] = yv[k];
            rec[2] = dt;
            rec[3] = val[k];
            rec[4] = ex[k] ? 1.0 : 0.0;
        }
    else if (!dt_axis)
        for (size_t k = 0; k < n; k++, rec += 4) {
            rec[0] = xv;
            rec[1] = yv[k];
            rec[2] = dt;
            rec[3] = val[k];
        }
    else if (ex)
        for (size_t k = 0; k < n; k++, rec += 4) {
            rec[0] = xv;
            rec[1] = yv[k];
            rec[2] = val[k * stride];
            rec[3] = ex[k * stride] ? 1.0 : 0.0;
        }
    else
        for (size_t k = 0; k < n; k++, rec += 3) {
            rec[0] = xv;
            rec[1] = yv[k];
            rec[2] = val[k * stride];
        }
}

/* The records of scheme is, block after block, x-major: (x, y, dt,
 * value[, exact]) for a map over two parameters, (x, dt, value[, exact])
 * for a map over (x, dt).  The axis values are computed once per x row and
 * once per file for y (cosa_sweep_axis_value costs a log10 pair and a pow:
 * twice per record, they were 8 % of an adaptive Fig 4 process).  An x row
 * is built at once: its values are contiguous in values[] (stride 1 over y;
 * over dt, the stride of a macro step), and binary records go to the writer
 * in one call (one fwrite instead of one per record).  0, or -1 when out of
 * memory. */
static int write_records(tw *w, const cosa_sweep_spec *sp, size_t is, int dt_axis,
                         const double *values, const unsigned char *exact)
{
    const size_t nblock = dt_axis ? 1 : sp->ndt, ninner = dt_axis ? sp->ndt : sp->y.n;
    const size_t ncol = (dt_axis ? 3 : 4) + (exact ? 1 : 0);
    /* cosa_sweep_index(sp, is, it, ix, iy) = base + it * sit + ix * sx + iy */
    const size_t sx = sp->y.n, sit = sp->x.n * sp->y.n, base = cosa_sweep_index(sp, is, 0, 0, 0);
    double *yv = malloc((sp->y.n + 1) * sizeof *yv);
    double *row = malloc((ninner * ncol + 1) * sizeof *row);
    if (!yv || !row) {
        free(yv);
        free(row);
        return -1;
    }
    for (size_t iy = 0; iy < sp->y.n; iy++)
        yv[iy] = cosa_sweep_axis_value(&sp->y, iy);
    for (size_t b = 0; b < nblock; b++)
        for (size_t ix = 0; ix < sp->x.n; ix++) {
            const size_t i0 = base + b * sit + ix * sx;
            fill_records(row, ninner, dt_axis, cosa_sweep_axis_value(&sp->x, ix),
                         dt_axis ? sp->dt : yv, sp->dt[b], values + i0, dt_axis ? sit : 1,
                         exact ? exact + i0 : NULL);
            if (w->fmt == TW_BIN)
                tw_record(w, row, ninner * ncol);
            else
                for (size_t k = 0; k < ninner; k++)
                    tw_record(w, row + k * ncol, ncol);
        }
    free(row);
    free(yv);
    return 0;
}

/* The shape of scheme data files (map_data.h). */
static md_shape data_shape(const cosa_sweep_spec *sp, int dt_axis, int adaptive)
{
    md_shape s;
    s.ncol = (dt_axis ? 3 : 4) + (adaptive ? 1 : 0);
    s.nblock = dt_axis ? 1 : sp->ndt;
    s.nx = sp->x.n;
    s.ninner = dt_axis ? sp->ndt : sp->y.n;
    return s;
}

/* What one scheme's data file holds. */
struct map_file {
    const cosa_sweep_spec *sp;
    const cli_case *cs;
    size_t is;
    int dt_axis;
    double level, tend;
    const double *values;
    const cosa_status *status;
    const unsigned char *exact;
    const char *adaptive;
};

/* The '#' header of a data file up to its columns. */
static void write_header(FILE *f, const struct map_file *d)
{
    const cosa_sweep_spec *sp = d->sp;
    const cosa_model *m = sp->model;
    const cosa_scheme *s = &sp->schemes[d->is];
    /* the true parameters swept; the assumed ones are listed after them */
    const int swept[2] = {sp->x.assumed ? -1 : sp->x.param, sp->y.assumed ? -1 : sp->y.param};
    const cosa_sweep_axis *ax[2] = {&sp->x, &sp->y};
    const size_t nax = d->dt_axis ? 1 : 2;
    char name[64];
    cosa_scheme_name(s, name, sizeof name);
    scli_header(f, "map", m, d->cs->mod.par, swept, nax);
    scli_header_assume(f, &d->cs->mod, ax, nax);
    fprintf(f, "# scheme %s\n# alpha %.17g\n# metric %s\n# level %.17g\n", name, s->alpha,
            cosa_metric_name(sp->metric), d->level);
    cli_iter_header(f, s, &sp->x, &sp->y);
    if (sp->metric != COSA_METRIC_RHO && sp->metric != COSA_METRIC_RHO_ITER)
        fprintf(f, "# tend %.17g\n", d->tend);
    for (size_t a = 0; a < nax; a++)
        fprintf(f, "# %s %s%s %.17g %.17g %s %zu\n", a ? "y" : "x",
                ax[a]->assumed ? "assume." : "", scli_axis_name(m, ax[a]), ax[a]->lo,
                ax[a]->hi, ax[a]->log ? "log" : "lin", ax[a]->n);
    if (d->dt_axis) {
        fprintf(f, "# y dt %.17g %.17g %zu values\n", sp->dt[0], sp->dt[sp->ndt - 1], sp->ndt);
    } else {
        fprintf(f, "# dt");
        for (size_t it = 0; it < sp->ndt; it++)
            fprintf(f, " %.17g", sp->dt[it]);
        fputc('\n', f);
    }
    write_failures(f, sp, d->is, d->status);
    if (d->exact)
        fprintf(f, "# adaptive: %s\n", d->adaptive);
    if (d->dt_axis)
        fprintf(f, "# layout: one block, x-major, a blank line after each x value\n");
    else
        fprintf(f, "# layout: one block per dt (in the order above), separated by two blank "
                   "lines;\n#         x-major within a block, a blank line after each x value\n");
}

/* The header and records of a data file on the writer w; 0, or -1 when
 * out of memory. */
static int write_table(tw *w, const struct map_file *d)
{
    const cosa_sweep_spec *sp = d->sp;
    const cosa_model *m = sp->model;
    char xn[80], yn[80];
    snprintf(xn, sizeof xn, "%s%s", sp->x.assumed ? "assume." : "", scli_axis_name(m, &sp->x));
    snprintf(yn, sizeof yn, "%s%s", sp->y.assumed ? "assume." : "", scli_axis_name(m, &sp->y));
    const char *names[5] = {xn, yn, "dt", cosa_metric_name(sp->metric), "exact"};
    if (d->dt_axis)
        names[1] = "dt", names[2] = names[3], names[3] = names[4];
    const md_shape shape = data_shape(sp, d->dt_axis, d->exact != NULL);
    write_header(tw_stream(w), d);
    tw_shape(w, &shape);
    tw_columns(w, names, shape.ncol, d->exact ? " (1 = evaluated, 0 = interpolated)" : "");
    return write_records(w, sp, d->is, d->dt_axis, d->values, d->exact);
}

/* One scheme's data file path in format fmt (TW_BIN: its records in
 * binpath).  0, or an errno value with the file in *culprit (the caller
 * reports it); nothing is left of a failed file. */
static int write_data(const char *path, const char *binpath, tw_format fmt,
                      const struct map_file *d, const char **culprit)
{
    outfile od, ob = {NULL, -1, NULL, NULL};
    FILE *b = NULL;
    *culprit = path;
    FILE *f = outfile_open(&od, path, 0);
    if (!f)
        return errno;
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    if (fmt == TW_BIN && !(*culprit = binpath, b = outfile_open(&ob, binpath, 1))) {
        const int e = errno;
        outfile_abandon(&od);
        return e;
    }
    if (b)
        setvbuf(b, NULL, _IOFBF, 1 << 16);
    const char *slash = binpath ? strrchr(binpath, '/') : NULL;
    tw w;
    int e = 0;
    if (tw_begin(&w, f, fmt, TW_DATA, "map", b, slash ? slash + 1 : binpath) != 0) {
        e = ENOMEM;
    } else {
        const int oom = write_table(&w, d);
        /* a failed write: the commit below names the file and the reason */
        if ((tw_end(&w) != 0 && errno == ENOMEM) || oom)
            e = ENOMEM;
    }
    if (!e && (*culprit = path, outfile_commit(&od) != 0))
        e = errno;
    if (!e && b && (*culprit = binpath, outfile_commit(&ob) != 0))
        e = errno;
    if (e) {
        outfile_abandon(&od);
        outfile_abandon(&ob);
    }
    return e;
}
/* One flag per dt of scheme is: '1' if its values cross the level (some
 * below, some above; +inf counts as above, NaN not at all), else '0' -- the
 * key of the script says "(none)" for a dt without a contour line. */
static void contour_flags(const cosa_sweep_spec *sp, size_t is, const double *values,
                          double level, char *buf, size_t size)
{
    size_t n = 0;
    const size_t npts = sp->x.n * sp->y.n; /* a plane is contiguous (cosa_sweep_index) */
    for (size_t it = 0; it < sp->ndt && n + 1 < size; it++) {
        int below = 0, above = 0;
        const double *v = values + cosa_sweep_index(sp, is, it, 0, 0);
        for (size_t k = 0; k < npts; k++) {
            below |= v[k] < level;
            above |= v[k] > level;
        }
        buf[n++] = below && above ? '1' : '0';
    }
    buf[n] = '\0';
}

/* The script of a map over (x, dt) (plots/map_dt.gp) for the data files
 * files (space-separated) with panel titles titles. */
static int write_dt_script(const char *cmd, const char *path, const char *gp, const char *outbase,
                           const char *files, const char *titles, const char *lines,
                           const char *dspec,
                           const char *lev,
                           const char *zlog, const cosa_sweep_spec *sp, const cli_case *cs,
                           const char *xlabel, cosa_metric metric, const char *model)
{
    char comment[1024], xmark[32], title[512];
    snprintf(comment, sizeof comment,
             "# cosa %s map: model %s, %s over (%s, dT), contour %s = %s\n# data: %s",
             cosa_version(), model, cosa_metric_name(metric), xlabel, cosa_metric_name(metric),
             lev, files);
    /* an assumed parameter: mark its true value */
    if (sp->x.assumed)
        md_num(xmark, sizeof xmark, cs->mod.par[sp->x.param]);
    else
        snprintf(xmark, sizeof xmark, "NaN");
    char sets[384];
    const cosa_sweep_axis *ax[1] = {&sp->x};
    scli_title_sets(&cs->mod, ax, 1, sets, sizeof sets);
    snprintf(title, sizeof title, "model %s%s", model, sets);
    /* the data's extent, as written in the data files (%.17g) */
    double ext[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (size_t ix = 0; ix < sp->x.n; ix++) {
        const double v = cosa_sweep_axis_value(&sp->x, ix);
        ext[0] = fmin(ext[0], v);
        ext[1] = fmax(ext[1], v);
    }
    for (size_t it = 0; it < sp->ndt; it++) {
        ext[2] = fmin(ext[2], sp->dt[it]);
        ext[3] = fmax(ext[3], sp->dt[it]);
    }
    char es[4][32];
    for (int k = 0; k < 4; k++)
        md_num(es[k], sizeof es[k], ext[k]);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES",  "TITLES", "LEVEL",
                          "ZLOG",    "XMARK",  "XLOGV",   "XLABEL", "METRIC", "TITLE",
                          "DATASPEC", "XMIN",  "XMAX",    "YMIN",   "YMAX", "LINES"};
    const char *vals[] = {comment, gp,    outbase, files, titles, lev, zlog, xmark,
                          sp->x.log ? "1" : "0", xlabel, cosa_metric_name(metric), title,
                          dspec,   es[0], es[1],   es[2], es[3], lines};
    return scli_write_script(cmd, path, cosa_plot_map_dt, 18, keys, vals);
}

/* The comment lines of scheme is's lines file (map_contour.h). */
static void lines_head(char *buf, size_t size, const cosa_sweep_spec *sp, size_t is,
                       int dt_axis, double level)
{
    char nm[64], lev[32];
    cosa_scheme_name(&sp->schemes[is], nm, sizeof nm);
    md_num(lev, sizeof lev, level);
    const cosa_model *m = sp->model;
    const char *xn = scli_axis_name(m, &sp->x), *yn = dt_axis ? "dt" : scli_axis_name(m, &sp->y);
    const char *xa = sp->x.assumed ? "assume." : "", *ya = !dt_axis && sp->y.assumed ? "assume." : "";
    snprintf(buf, size,
             "# cosa %s map: contour lines %s = %s, traced by cosa (marching squares on the\n"
             "#   grid, saddles by the cell mean; in log10 of a log axis and of an error)\n"
             "# model %s\n# scheme %s\n# metric %s\n# level %s\n"
             "# layout: %s; polylines of rows 'x y', a blank line between two lines;\n"
             "#   'nan nan' where there is no line\n"
             "# columns: %s%s %s%s\n",
             cosa_version(), cosa_metric_name(sp->metric), lev, m->name, nm,
             cosa_metric_name(sp->metric), lev,
             dt_axis ? "one block" : "one block per dt (the data file's order), two blank lines between blocks",
             xa, xn, ya, yn);
}

/* The data files of every scheme, side by side (par threads, at most one per
 * file: a thread count beyond the number of schemes, --threads 100000, must
 * not reach the OpenMP runtime).  One line for the first scheme whose file
 * failed, CLI_EFAIL; else CLI_OK. */
static int write_all_data(const char *cmd, const cosa_sweep_spec *sp, const cli_case *cs,
                          const char *dir, const char *base, int format, int dt_axis,
                          double level, const double *values, const cosa_status *status,
                          const unsigned char *exact, const char *adesc, int par)
{
    const size_t ns = sp->nscheme;
    int wpar = ns < 64 ? (int)ns : 64;
    if (par < wpar)
        wpar = par;
    int *werr = calloc(ns ? ns : 1, sizeof *werr);
    if (!werr) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(wpar)
    for (size_t i = 0; i < ns; i++) {
        char nm[64], slug[64], dpath[4096], bpath[4096], lpath[4096], fpath[4096], head[2048],
            jpath[4096];
        cosa_scheme_name(&sp->schemes[i], nm, sizeof nm);
        scli_slug(nm, slug, sizeof slug);
        snprintf(dpath, sizeof dpath, "%s/%s_%s.dat", dir, base, slug);
        snprintf(bpath, sizeof bpath, "%s/%s_%s.bin", dir, base, slug);
        snprintf(lpath, sizeof lpath, "%s/%s_%s_lines.dat", dir, base, slug);
        snprintf(fpath, sizeof fpath, "%s/%s_%s_fill.bin", dir, base, slug);
        snprintf(jpath, sizeof jpath, "%s/%s_%s.json", dir, base, slug);
        const struct map_file d = {sp, cs, i, dt_axis, level, sp->tend, values, status, exact,
                                   adesc};
        const char *culprit = dpath;
        int e = write_data(dpath, bpath, format == 1 ? TW_BIN : TW_TEXT, &d, &culprit);
        if (!e && format == 2) /* --format json: the same records, also as JSON */
            e = write_data(jpath, NULL, TW_JSON, &d, &culprit);
        if (!e) {
            lines_head(head, sizeof head, sp, i, dt_axis, level);
            if ((e = map_contour_write(lpath, sp, i, dt_axis, values, level, head)) != 0)
                culprit = lpath;
            else if (!dt_axis && (e = map_fill_write(fpath, sp, i, values, level)) != 0)
                culprit = fpath;
        }
        werr[i] = e ? 5 * e + (culprit == bpath) + 2 * (culprit == lpath) +
                          3 * (culprit == fpath) + 4 * (culprit == jpath)
                    : 0; /* errno, and which file */
    }
    int rc = CLI_OK;
    for (size_t i = 0; i < ns && rc == CLI_OK; i++)
        if (werr[i]) {
            char nm[64], slug[64];
            cosa_scheme_name(&sp->schemes[i], nm, sizeof nm);
            scli_slug(nm, slug, sizeof slug);
            static const char *const ext[] = {".dat", ".bin", "_lines.dat", "_fill.bin",
                                              ".json"};
            cli_error(cmd, "cannot write '%s/%s_%s%s': %s", dir, base, slug, ext[werr[i] % 5],
                      strerror(werr[i] / 5));
            rc = CLI_EFAIL;
        }
    free(werr);
    return rc;
}

/* The options checked before anything is built: --y dt=... (*dt_axis)
 * without --dt or --heatmap, --format (*bin). */
static int check_options(const char *cmd, const struct map_opts *o, const cli_case *cs,
                         int *dt_axis, int *bin)
{
    /* --y dt=...: the macro step as the second axis */
    *dt_axis = strncmp(o->y, "dt=", 3) == 0;
    if (*dt_axis && cs->dt_text) {
        cli_error(cmd, "--y dt=... gives the macro steps: drop --dt");
        return CLI_EUSAGE;
    }
    *bin = o->format == 1;
    if (*dt_axis && o->heatmap) {
        cli_error(cmd, "--heatmap: a map over --y dt is drawn as a heat map already");
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* gnuplot's data specifier of the binary files into dspec ("" for text). */
static int data_spec(const char *cmd, cosa_sweep_spec *sp, const double *dt, size_t ndt,
                     int bin, int dt_axis, int adaptive, char *dspec, size_t size)
{
    if (!bin)
        return CLI_OK;
    sp->dt = dt;
    sp->ndt = ndt;
    const md_shape shape = data_shape(sp, dt_axis, adaptive);
    md_gnuplot_spec(dspec, size, &shape);
    if (strlen(dspec) + 1 >= size) {
        cli_error(cmd, "--format bin: too many macro steps (%zu) for one gnuplot data "
                  "specifier; use --format text", ndt);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* Every file the map will write, checked (scli_out_path) before the
 * computation. */
static int check_names(const char *cmd, const scli_out *out, const struct map_opts *o,
                       const char *base, const cosa_scheme *schemes, size_t ns, int bin,
                       int json)
{
    char path[4096], fname[512];
    int rc;
    for (size_t i = 0; i < ns; i++) {
        char nm[64], slug[64];
        cosa_scheme_name(&schemes[i], nm, sizeof nm);
        scli_slug(nm, slug, sizeof slug);
        const char *ext[] = {".dat", ".gp", "_heat.gp", ".", "_heat.", ".bin", "_lines.dat",
                             "_fill.bin", ".json"};
        for (int e = 0; e < 9; e++) {
            if (e == 8 && !json)
                continue;
            if (e == 7 && strncmp(o->y, "dt=", 3) == 0)
                continue;
            if ((e == 2 || e == 4) && !o->heatmap)
                continue;
            if (e == 5 && !bin)
                continue;
            if ((e == 3 || e == 4) && !o->plot)
                continue;
            snprintf(fname, sizeof fname, "%s_%s%s%s", base, slug, ext[e],
                     e == 3 || e == 4 ? o->plot : "");
            if ((rc = scli_out_path(cmd, out, fname, path, sizeof path)) != CLI_OK)
                return rc;
        }
    }
    for (int e = 0; ns > 1 && e < (o->plot ? 2 : 1); e++) {
        snprintf(fname, sizeof fname, "%s_all.%s", base, e ? o->plot : "gp");
        if ((rc = scli_out_path(cmd, out, fname, path, sizeof path)) != CLI_OK)
            return rc;
    }
    return CLI_OK;
}

/* The sweep, full or adaptive (*exact: which values are exact), into new
 * arrays; *seconds its wall time. */
static int map_sweep(const char *cmd, const cosa_sweep_spec *sp, int adaptive,
                     const cosa_adaptive_opts *aopt, double **values, cosa_status **status,
                     unsigned char **exact, size_t *nfailed, size_t *nevaluated, double *seconds)
{
    const size_t total = cosa_sweep_size(sp);
    *values = malloc((total ? total : 1) * sizeof **values);
    *status = malloc((total ? total : 1) * sizeof **status);
    if (!*values || !*status) {
        cli_error(cmd, "out of memory (%zu points)", total);
        return CLI_EFAIL;
    }
    const double t0 = scli_now();
    cosa_status st;
    if (adaptive) {
        *exact = malloc(total ? total : 1);
        if (!*exact) {
            cli_error(cmd, "out of memory (%zu points)", total);
            return CLI_EFAIL;
        }
        st = scli_sweep_adaptive(sp, aopt, *values, *status, *exact, nfailed, nevaluated);
    } else {
        st = scli_sweep_run(sp, *values, *status, nfailed);
    }
    *seconds = scli_now() - t0;
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        return st == COSA_EPARAM || st == COSA_EINVAL || st == COSA_ERANGE ? CLI_EUSAGE
                                                                            : CLI_EFAIL;
    }
    return CLI_OK;
}

/* What the scripts of a computed map are written from: the settings, the
 * labels and titles, and the lists the combined script collects. */
struct map_scripts {
    const char *cmd;
    const cosa_sweep_spec *sp;
    const cli_case *cs;
    const cosa_model *m;
    cosa_metric metric;
    const char *dir, *base, *dspec;
    int dt_axis, bin, json, heatmap, gnuplot_contours;
    const double *values;
    double level;
    char xlabel[128], ylabel[128], lev[32], keytitle[64], sets[384], maptitle[512];
    const char *zlog, *good;
    char dts[8192], ranges[4][32];
    char files[4096], titles[4096], nones[4096]; /* over the schemes so far */
    char lines[4096], fills[4096];               /* the lines and fill files, likewise */
    char **scripts;                              /* 2 ns + 1 names for gnuplot */
    FILE *names; /* the "file PATH" lines, printed once every file is written */
};

/* Labels, the dT list and the grid's corners for the scripts (plots/map.gp),
 * as written in the data files (%.17g). */
static void scripts_init(struct map_scripts *c)
{
    const cosa_sweep_spec *sp = c->sp;
    scli_axis_label(c->m, &sp->x, c->xlabel, sizeof c->xlabel);
    if (c->dt_axis)
        snprintf(c->ylabel, sizeof c->ylabel, "ΔT [s]"); /* drawn by plots/map_dt.gp itself */
    else
        scli_axis_label(c->m, &sp->y, c->ylabel, sizeof c->ylabel);
    md_num(c->lev, sizeof c->lev, c->level);
    c->zlog = cosa_metric_is_error(c->metric) ? "1" : "0";
    c->files[0] = c->titles[0] = c->nones[0] = c->dts[0] = c->lines[0] = c->fills[0] = '\0';
    for (size_t it = 0; it < sp->ndt; it++) {
        char b[32];
        md_num(b, sizeof b, sp->dt[it]);
        if (strlen(c->dts) + strlen(b) + 2 < sizeof c->dts) {
            if (it)
                strcat(c->dts, " ");
            strcat(c->dts, b);
        }
    }
    md_num(c->ranges[0], sizeof c->ranges[0], cosa_sweep_axis_value(&sp->x, 0));
    md_num(c->ranges[1], sizeof c->ranges[1], cosa_sweep_axis_value(&sp->x, sp->x.n - 1));
    md_num(c->ranges[2], sizeof c->ranges[2], cosa_sweep_axis_value(&sp->y, 0));
    md_num(c->ranges[3], sizeof c->ranges[3],
           cosa_sweep_axis_value(&sp->y, sp->y.n > 0 ? sp->y.n - 1 : 0));
    snprintf(c->keytitle, sizeof c->keytitle, "ΔT [s]");
    const cosa_sweep_axis *ax[2] = {&sp->x, &sp->y};
    scli_title_sets(&c->cs->mod, ax, c->dt_axis ? 1 : 2, c->sets, sizeof c->sets);
    /* what metric <= level means, for the key entry of the filled side */
    c->good = c->metric == COSA_METRIC_RHO        ? "stable"
              : cosa_metric_is_error(c->metric) ? "accurate"
                                                : "";
    char levshort[32]; /* the level as given: the shortest form that reads back */
    snprintf(c->maptitle, sizeof c->maptitle, "model %s, contour %s = %s%s", c->m->name,
             cosa_metric_name(c->metric), cosa_number_text(levshort, sizeof levshort, c->level),
             c->sets);
}

/* A contour script (plots/map.gp, or plots/map_dt.gp over dt) for the data
 * files files with titles titles; its name is listed and kept in slot. */
static int contour_script(struct map_scripts *c, const char *gp, const char *outbase,
                          const char *comment, const char *files, const char *titles,
                          const char *none, const char *lines, const char *fills, size_t slot)
{
    const cosa_sweep_spec *sp = c->sp;
    char path[4096], nxs[32], nys[32];
    snprintf(nxs, sizeof nxs, "%zu", sp->x.n);
    snprintf(nys, sizeof nys, "%zu", sp->y.n);
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES",  "TITLES",   "LEVEL", "ZLOG",
                          "XLOGV",   "YLOGV",  "XLABEL",  "YLABEL", "KEYTITLE", "TITLE",
                          "NONE",    "DTS",    "XLO",     "XHI",    "YLO",      "YHI",
                          "DATASPEC", "GOOD",  "METRIC",  "LINES",  "FILLS",    "NX",    "NY"};
    const char *vals[] = {comment, gp,  outbase, files,  titles, c->lev,
                          c->zlog, sp->x.log ? "1" : "0", sp->y.log ? "1" : "0",
                          c->xlabel, c->ylabel, c->keytitle, c->maptitle, none, c->dts,
                          c->ranges[0], c->ranges[1], c->ranges[2], c->ranges[3], c->dspec,
                          c->good, cosa_metric_name(c->metric), lines, fills, nxs, nys};
    snprintf(path, sizeof path, "%s/%s", c->dir, gp);
    int rc;
    if (c->dt_axis)
        rc = write_dt_script(c->cmd, path, gp, outbase, files, titles, c->gnuplot_contours ? "" : lines,
                             c->dspec, c->lev, c->zlog, sp, c->cs, c->xlabel, c->metric, c->m->name);
    else
        rc = scli_write_script(c->cmd, path, c->gnuplot_contours ? cosa_plot_map_gnuplot : cosa_plot_map,
                               26, keys, vals);
    if (rc != CLI_OK)
        return rc;
    fprintf(c->names, "file %s\n", path);
    c->scripts[slot] = strdup(gp);
    return CLI_OK;
}

/* The heat map script of scheme i (plots/heatmap.gp). */
static int heat_script(struct map_scripts *c, size_t i, const char *nm, const char *slug,
                       const char *dat, const char *comment)
{
    const cosa_sweep_spec *sp = c->sp;
    char hgp[512], hbase[512], cblabel[64], title[640], path[4096];
    snprintf(hgp, sizeof hgp, "%s_%s_heat.gp", c->base, slug);
    snprintf(hbase, sizeof hbase, "%s_%s_heat", c->base, slug);
    snprintf(cblabel, sizeof cblabel, "%s%s", !cosa_metric_is_error(c->metric) ? "" : "log10 ",
             cosa_metric_name(c->metric));
    snprintf(title, sizeof title, "%s, %s, model %s%s", nm, cosa_metric_name(c->metric),
             c->m->name, c->sets);
    const char *hk[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILE",    "LEVEL", "ZLOG",
                        "XLOGV",   "YLOGV",  "XLABEL",  "YLABEL", "CBLABEL", "TITLE",
                        "DATASPEC", "NBLOCK", "LINES"};
    char nblock[32], lines[512];
    snprintf(lines, sizeof lines, "%s_%s_lines.dat", c->base, slug);
    snprintf(nblock, sizeof nblock, "%zu", sp->ndt);
    const char *hv[] = {comment, hgp,    hbase,   dat,     c->lev,   c->zlog,
                        sp->x.log ? "1" : "0", sp->y.log ? "1" : "0", c->xlabel, c->ylabel,
                        cblabel, title,  c->dspec, nblock, c->gnuplot_contours ? "" : lines};
    snprintf(path, sizeof path, "%s/%s", c->dir, hgp);
    int rc = scli_write_script(c->cmd, path, cosa_plot_heatmap, 15, hk, hv);
    if (rc != CLI_OK)
        return rc;
    fprintf(c->names, "file %s\n", path);
    c->scripts[c->sp->nscheme + i] = strdup(hgp);
    return CLI_OK;
}

/* Scheme i's files: its data file names listed, its contour script and
 * heat map script; its data file and title join the combined lists. */
static int scheme_scripts(struct map_scripts *c, size_t i)
{
    char nm[64], slug[64], dat[512], gp[512], outbase[512], path[4096], comment[1024];
    char lines[512], fill[512];
    cosa_scheme_name(&c->sp->schemes[i], nm, sizeof nm);
    scli_slug(nm, slug, sizeof slug);
    snprintf(lines, sizeof lines, "%s_%s_lines.dat", c->base, slug);
    snprintf(fill, sizeof fill, "%s_%s_fill.bin", c->base, slug);
    snprintf(dat, sizeof dat, "%s_%s.dat", c->base, slug);
    snprintf(gp, sizeof gp, "%s_%s.gp", c->base, slug);
    snprintf(outbase, sizeof outbase, "%s_%s", c->base, slug);
    snprintf(path, sizeof path, "%s/%s", c->dir, dat);
    fprintf(c->names, "file %s\n", path);
    snprintf(path, sizeof path, "%s/%s", c->dir, lines);
    fprintf(c->names, "file %s\n", path);
    if (!c->dt_axis) {
        snprintf(path, sizeof path, "%s/%s", c->dir, fill);
        fprintf(c->names, "file %s\n", path);
    }
    if (c->json) {
        snprintf(path, sizeof path, "%s/%s_%s.json", c->dir, c->base, slug);
        fprintf(c->names, "file %s\n", path);
    }
    if (c->bin) { /* the scripts read the records */
        snprintf(dat, sizeof dat, "%s_%s.bin", c->base, slug);
        snprintf(path, sizeof path, "%s/%s", c->dir, dat);
        fprintf(c->names, "file %s\n", path);
    }
    snprintf(comment, sizeof comment,
             "# cosa %s map: model %s, scheme %s, %s = %s for each dT\n# data: %s",
             cosa_version(), c->m->name, nm, cosa_metric_name(c->metric), c->lev, dat);
    char flags[256];
    contour_flags(c->sp, i, c->values, c->level, flags, sizeof flags);
    if (strlen(c->nones) + strlen(flags) + 2 < sizeof c->nones) {
        if (i)
            strcat(c->nones, " ");
        strcat(c->nones, flags);
    }
    int rc = contour_script(c, gp, outbase, comment, dat, nm, flags, lines, fill, i);
    if (rc == CLI_OK && c->heatmap)
        rc = heat_script(c, i, nm, slug, dat, comment);
    if (rc != CLI_OK)
        return rc;
    if (strlen(c->files) + strlen(dat) + 2 < sizeof c->files &&
        strlen(c->titles) + strlen(nm) + 2 < sizeof c->titles) {
        if (i) {
            strcat(c->files, " ");
            strcat(c->titles, " ");
        }
        strcat(c->files, dat);
        strcat(c->titles, nm);
    }
    if (strlen(c->lines) + strlen(lines) + 2 < sizeof c->lines &&
        strlen(c->fills) + strlen(fill) + 2 < sizeof c->fills) {
        if (i) {
            strcat(c->lines, " ");
            strcat(c->fills, " ");
        }
        strcat(c->lines, lines);
        strcat(c->fills, fill);
    }
    return CLI_OK;
}

/* Every script: one per scheme (and its heat map), and with several
 * schemes the combined one. */
static int map_scripts_write(struct map_scripts *c)
{
    const size_t ns = c->sp->nscheme;
    int rc;
    scripts_init(c);
    for (size_t i = 0; i < ns; i++)
        if ((rc = scheme_scripts(c, i)) != CLI_OK)
            return rc;
    if (ns < 2)
        return CLI_OK;
    char gp[512], outbase[512], comment[1024];
    snprintf(gp, sizeof gp, "%s_all.gp", c->base);
    snprintf(outbase, sizeof outbase, "%s_all", c->base);
    snprintf(comment, sizeof comment, "# cosa %s map: model %s, %zu schemes, %s = %s for each dT",
             cosa_version(), c->m->name, ns, cosa_metric_name(c->metric), c->lev);
    return contour_script(c, gp, outbase, comment, c->files, c->titles, c->nones, c->lines,
                          c->fills, 2 * ns);
}

/* How many files are written and drawn at a time: the threads asked for
 * (0: OpenMP's default). */
static int parallel_jobs(size_t threads)
{
    int par = threads ? (int)threads : 1;
#ifdef _OPENMP
    if (!threads)
        par = omp_get_max_threads();
#endif
    return par;
}

/* The pictures of an earlier run drawn by the scripts this run replaces,
 * in every format (and their heat maps), removed before the new data are
 * published: a directory
 * never shows a picture of older data next to newer data, also when the
 * drawing phase is interrupted or not asked for. */
static void remove_stale(const char *dir, char **scripts, size_t nscript)
{
    static const char *const fmts[] = {"png", "svg", "pdf"};
    char path[4096];
    for (size_t i = 0; i < nscript; i++)
        for (int k = 0; scripts[i] && k < 6; k++) { /* X.fmt, and X_heat.fmt of an earlier --heatmap */
            const size_t len = strlen(scripts[i]);
            const int n = (int)len - 3;
            if (len >= 8 && strcmp(scripts[i] + len - 8, "_heat.gp") == 0)
                continue; /* this run's heat map script: removed as X_heat of X.gp */
            snprintf(path, sizeof path, "%s/%.*s%s.%s", dir, n, scripts[i], k < 3 ? "" : "_heat",
                     fmts[k % 3]);
            remove(path);
        }
}

/* gnuplot on the scripts (par at a time); the pictures' names printed. */
static int draw(const char *cmd, const char *dir, char **scripts, size_t nscript,
                const char *fmt, int par)
{
    int rc = scli_gnuplot_many(cmd, dir, scripts, nscript, fmt, par);
    if (rc != CLI_OK)
        return rc;
    for (size_t i = 0; i < nscript; i++)
        if (scripts[i])
            printf("file %s/%.*s.%s\n", dir, (int)strlen(scripts[i]) - 3, scripts[i], fmt);
    return CLI_OK;
}

/* Metric, schemes, macro steps and the axes of the sweep; one-line errors. */
static int map_setup(const char *cmd, const struct map_opts *o, int dt_axis, cosa_metric *metric,
                     cosa_scheme **schemes, size_t *ns, double **dt, size_t *ndt,
                     cosa_sweep_spec *sp, char *xname, char *yname, size_t namesz)
{
    const cli_case *cs = &o->cs;
    const size_t cap = cli_points_cap(cs);
    int rc;
    if ((o->metric && (rc = scli_metric(cmd, o->metric, metric)) != CLI_OK) ||
        (rc = scli_schemes(cmd, cs->scheme_text, cs->alpha, schemes, ns)) != CLI_OK ||
        (!dt_axis && (rc = scli_dt_list(cmd, cs->dt_text, dt, ndt, cap)) != CLI_OK) ||
        (dt_axis && (rc = scli_dt_list(cmd, o->y + 3, dt, ndt, cap)) != CLI_OK))
        return rc;
    if (dt_axis && *ndt < 2) {
        cli_error(cmd, "--y dt=LO:HI:log|lin:N needs a range of at least 2 macro steps");
        return CLI_EUSAGE;
    }
    if ((rc = scli_axis(cmd, "--x", o->x, xname, namesz, &sp->x, cap)) != CLI_OK ||
        (!dt_axis && (rc = scli_axis(cmd, "--y", o->y, yname, namesz, &sp->y, cap)) != CLI_OK))
        return rc;
    if (dt_axis)
        sp->y = (cosa_sweep_axis){.param = -1, .lo = 0.0, .hi = 0.0, .n = 1};
    /* the whole sweep under the cap, before any axis value is computed */
    const size_t n[4] = {sp->x.n, sp->y.n, *ndt, *ns};
    return cli_points_check(cmd, cap, n, 4, "the sweep (--x x --y x --dt x --scheme)");
}

int cmd_map(int argc, char **argv)
{
    const char *cmd = "map";
    struct map_opts o = {.margin = NAN};
    cli_case *cs = &o.cs;
    cosa_system *sys = NULL;
    cosa_scheme *schemes = NULL;
    double *dt = NULL, *values = NULL;
    cosa_status *status = NULL;
    unsigned char *exact = NULL;
    char **scripts = NULL;
    size_t ns = 0, ndt = 0, nscript = 0;
    int dt_axis, bin;
    int rc = cli_parse_rows(cmd, rows, &o, cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc == CLI_OK && o.name && (rc = cli_file_stem(cmd, "--name", o.name)) != CLI_OK)
        goto out;
    if (rc != CLI_OK || (rc = check_options(cmd, &o, cs, &dt_axis, &bin)) != CLI_OK)
        goto out;
    cosa_metric metric = COSA_METRIC_RHO;
    cosa_sweep_spec sp = {0};
    char xname[64], yname[64];
    if ((rc = map_setup(cmd, &o, dt_axis, &metric, &schemes, &ns, &dt, &ndt, &sp, xname, yname,
                        sizeof xname)) != CLI_OK)
        goto out;
    double level;
    size_t threads;
    {
        const char *const opt[2] = {"--x", "--y"}, *const nm[2] = {xname, yname};
        cosa_sweep_axis *const ax[2] = {&sp.x, &sp.y};
        if ((rc = scli_sweep_setup(cmd, metric, o.level, o.threads, o.plot, cs, schemes, ns,
                                   &level, &threads, opt, nm, ax, dt_axis ? 1 : 2, &sys)) !=
            CLI_OK)
            goto out;
    }
    const cosa_model *m = cs->mod.model;
    if (metric != COSA_METRIC_RHO && metric != COSA_METRIC_RHO_ITER &&
        (rc = cli_need_outputs(&cs->mod, cmd, cosa_system_ny(sys))) != CLI_OK)
        goto out;
    if (dt_axis && (rc = step_grid_axis(cmd, &cs->mod, dt, &ndt)) != CLI_OK) /* fixed steps */
        goto out;
    if (dt_axis && ndt < 2) {
        cli_error(cmd, "--y %s: one multiple of the FMUs' step grid is left after snapping: "
                  "widen the range", o.y);
        rc = CLI_EUSAGE;
        goto out;
    }
    fmu_notes(cmd, &cs->mod, schemes, ns);
    fmu_ident_dt_list_note(cmd, m, dt, ndt);
    cosa_adaptive_opts aopt;
    char adesc[160] = "";
    char dspec[16384] = ""; /* gnuplot's data specifier of the binary files ("" for text) */
    scli_adaptive(o.adaptive, o.coarse, o.margin, metric, level, &aopt, adesc, sizeof adesc);
    if ((rc = data_spec(cmd, &sp, dt, ndt, bin, dt_axis, o.adaptive, dspec, sizeof dspec)) !=
            CLI_OK)
        goto out;
    if (!dt_axis && sp.x.param == sp.y.param && sp.x.assumed == sp.y.assumed) {
        cli_error(cmd, "--x and --y sweep the same parameter '%s'", xname);
        rc = CLI_EUSAGE;
        goto out;
    }
    scli_progress prog;
    if ((rc = scli_spec_finish(cmd, &sp, m, cs->mod.par, dt, ndt, schemes, ns, metric, o.tend,
                               threads, o.progress, &prog)) != CLI_OK)
        goto out;
    sp.apar = cs->mod.apar; /* imperfect model knowledge (--assume, assume.P axes) */
    sp.apar_fixed = cs->mod.assumed;
    if (cli_assume_given(&cs->mod) || sp.x.assumed || sp.y.assumed)
        cli_assume_note(cmd, schemes, ns);

    /* output directory and names first: fail before the computation */
    scli_out out = {o.output, 0};
    if ((rc = scli_out_prepare(cmd, &out)) != CLI_OK)
        goto out;
    const char *base = o.name ? o.name : cosa_metric_name(metric);
    nscript = 2 * ns + 1;
    scripts = calloc(nscript, sizeof *scripts);
    if (!scripts) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    if ((rc = check_names(cmd, &out, &o, base, schemes, ns, bin, o.format == 2)) != CLI_OK)
        goto out;
    const size_t total = cosa_sweep_size(&sp);
    size_t nfailed = 0, nevaluated = total;
    double seconds;
    if ((rc = map_sweep(cmd, &sp, o.adaptive, &aopt, &values, &status, &exact, &nfailed,
                        &nevaluated, &seconds)) != CLI_OK)
        goto out;
    fmu_ident_cache_note(cmd, m);
    if (scli_mpi_rank() > 0) /* every process has the values; process 0 writes */
        goto out;

    /* the data files, written side by side; gnuplot runs as many at a time */
    const int par = parallel_jobs(threads);
    if ((rc = write_all_data(cmd, &sp, cs, out.dir, base, o.format, dt_axis, level, values, status,
                             exact, adesc, par)) != CLI_OK)
        goto out;
    struct map_scripts c = {.cmd = cmd, .sp = &sp, .cs = cs, .m = m, .metric = metric,
                            .dir = out.dir, .base = base, .dspec = dspec, .dt_axis = dt_axis,
                            .bin = bin, .json = o.format == 2, .heatmap = o.heatmap, .values = values, .level = level,
                            .gnuplot_contours = o.contour == 1,
                            .scripts = scripts};
    /* the files' names on stdout only once every file is written: a write
     * that fails removes them all */
    char *names = NULL;
    size_t names_len = 0;
    if (!(c.names = open_memstream(&names, &names_len))) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    rc = map_scripts_write(&c);
    if (fclose(c.names) != 0 && rc == CLI_OK) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    if (rc == CLI_OK)
        fwrite(names, 1, names_len, stdout);
    free(names);
    if (rc != CLI_OK)
        goto out;
    if (out.explicit_dir) /* -o DIR: its files are replaced */
        remove_stale(out.dir, scripts, nscript);
    if (o.adaptive)
        printf("evaluated %zu of %zu\n", nevaluated, total);
    printf("points %zu\nfailed %zu\nseconds %.3f\n", total, nfailed, seconds);
    fflush(stdout);
    if (o.plot)
        rc = draw(cmd, out.dir, scripts, nscript, o.plot, par);
out:
    if (scripts)
        for (size_t i = 0; i < nscript; i++)
            free(scripts[i]);
    free(scripts);
    free(values);
    free(status);
    free(exact);
    free(dt);
    free(schemes);
    cosa_system_free(sys);
    cli_case_free(cs);
    return rc;
}
