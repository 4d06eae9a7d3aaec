/* cmd_bench.c -- `cosa bench`: time per point of rho and e_g sweeps on the
 * grid of Figs 4 and 6 of the MBCorr paper, per scheme and thread count. */
#include "config.h"
#include "sweep_cli.h"
#include "table_writer.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa bench [--model NAME] [--set NAME=VALUE]... [--scheme S[,S...]]\n"
    "                  [--dt LIST] [--grid N] [--egrid N] [--threads LIST]\n"
    "                  [--format text|json]\n\n"
    "Times parameter sweeps of rho and of e_global over ck in [1, 1e10] x dk in\n"
    "[1, 1e7] (log grids) of the two-mass oscillator, for every scheme alone and for\n"
    "all schemes in one sweep (as `make paper` runs them), at each thread count.\n"
    "Prints a table: metric scheme threads points seconds us_per_point, where\n"
    "us_per_point = seconds x threads / points is the time per point per core, and\n"
    "the speed-up of the combined sweep over the first thread count; then the\n"
    "combined sweep as an adaptive map (scheme 'all-N-adaptive', cost per grid point;\n"
    "a comment line gives the points evaluated and the speed-up over the full sweep).\n"
    "With --format json: one document at the end, the comment lines as \"comments\",\n"
    "the timings as one table (metric and scheme strings, the others numbers).\n\n";

struct bench_opts {
    cli_case cs;
    size_t grid, egrid;
    const char *threads;
};

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = offsetof(struct bench_opts, cs.mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_STRING, .name = "scheme", .off = offsetof(struct bench_opts, cs.scheme_text),
     .arg = "LIST",
     .help = "schemes (default: zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_dt_list_text, .name = "dt", .off = offsetof(struct bench_opts, cs.dt_text),
     .arg = "LIST", .help = "macro steps (default: 10^-2.5 ... 10^-6, factor sqrt 10)"},
    {.kind = OPTK_SIZE, .name = "grid", .off = offsetof(struct bench_opts, grid), .arg = "N",
     .help = "N x N grid for rho (default 64)"},
    {.kind = OPTK_SIZE, .name = "egrid", .off = offsetof(struct bench_opts, egrid), .arg = "N",
     .help = "N x N grid for e_global (default 16)"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_threads_list_text, .name = "threads",
     .off = offsetof(struct bench_opts, threads),
     .arg = "LIST", .help = "thread counts 1..4096, comma-separated (default 1,2)"},
    {.kind = OPTK_INCLUDE, .sub = cli_max_points_rows, .off = offsetof(struct bench_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct bench_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_rest_rows, .off = offsetof(struct bench_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = offsetof(struct bench_opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* Wall seconds of one sweep (NaN if it failed). */
static double time_sweep(cosa_sweep_spec *sp, double *values, cosa_status *status)
{
    const double t0 = scli_now();
    cosa_status st = cosa_sweep_run(sp, values, status, NULL);
    const double t = scli_now() - t0;
    return st == COSA_OK ? t : NAN;
}

/* "N,M,...": the thread counts to time (a new array, *n of them). */
static int parse_threads(const char *cmd, const char *ttext, size_t **thr, size_t *n)
{
    *thr = calloc(strlen(ttext) + 1, sizeof **thr);
    char *tb = strdup(ttext);
    if (!*thr || !tb) {
        free(tb);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    int rc = CLI_OK;
    char *save = NULL;
    for (char *tok = strtok_r(tb, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if ((rc = cli_threads(cmd, tok, &(*thr)[(*n)++])) != CLI_OK)
            break;
    free(tb);
    return rc;
}

/* A row of the timing table: metric, scheme, threads, points, seconds and
 * microseconds per point per core; written at once (a long bench shows
 * its progress). */
static void bench_row(tw *w, cosa_metric metric, const char *scheme, size_t nth, size_t pts,
                      double t)
{
    char c[4][32];
    snprintf(c[0], sizeof c[0], "%zu", nth);
    snprintf(c[1], sizeof c[1], "%zu", pts);
    snprintf(c[2], sizeof c[2], "%.3f", t);
    snprintf(c[3], sizeof c[3], "%.2f", t * (double)nth / (double)pts * 1e6);
    const char *const cells[6] = {cosa_metric_name(metric), scheme, c[0], c[1], c[2], c[3]};
    tw_row_words(w, cells, 6);
    fflush(stdout);
}

/* The sweep of all schemes sp as an adaptive map (README "Adaptive maps")
 * at nth threads: its cost per grid point, how many points it evaluated and
 * its speed against the full sweep's time t_full. */
static void bench_adaptive(tw *w, cosa_sweep_spec *sp, size_t nth, double t_full,
                           double *values, cosa_status *status)
{
    const size_t ns = sp->nscheme;
    sp->threads = (int)nth;
    sp->progress = NULL;
    const size_t pts = cosa_sweep_size(sp);
    unsigned char *ex = malloc(pts);
    const cosa_adaptive_opts ao = {sp->metric == COSA_METRIC_RHO ? 1.0 : 0.01,
                                   COSA_ADAPTIVE_COARSE, COSA_ADAPTIVE_MARGIN,
                                   sp->metric != COSA_METRIC_RHO};
    size_t nev = 0;
    const double ta0 = scli_now();
    cosa_status ast =
        ex ? cosa_sweep_adaptive(sp, &ao, values, status, ex, NULL, &nev) : COSA_ENOMEM;
    const double ta = scli_now() - ta0;
    free(ex);
    if (ast == COSA_OK) {
        char nm[64];
        snprintf(nm, sizeof nm, "all-%zu-adaptive", ns);
        bench_row(w, sp->metric, nm, nth, pts, ta);
        tw_comment(w, "adaptive %s all-%zu: evaluated %zu of %zu points (%.1fx fewer), "
               "%.2fx faster than the full sweep at %zu threads",
               cosa_metric_name(sp->metric), ns, nev, pts, (double)pts / (double)nev,
               t_full / ta, nth);
    }
    fflush(stdout);
}

int cmd_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    struct bench_opts o = {.grid = 64, .egrid = 16};
    cli_case *cs = &o.cs;
    cosa_system *sys = NULL;
    cosa_scheme *schemes = NULL;
    double *dt = NULL, *values = NULL;
    cosa_status *status = NULL;
    size_t *thr = NULL;
    size_t ns = 0, ndt = 0, nthr = 0;
    tw w;
    int rc = cli_parse_rows(cmd, rows, &o, cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    const char *stext = cs->scheme_text ? cs->scheme_text
                                       : "zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr";
    const char *dtext = cs->dt_text ? cs->dt_text : "10^-2.5:10^-6:log:8";
    const size_t grid = o.grid, egrid = o.egrid;
    if ((rc = parse_threads(cmd, o.threads ? o.threads : "1,2", &thr, &nthr)) != CLI_OK)
        goto out;
    if ((rc = scli_schemes(cmd, stext, cs->alpha, &schemes, &ns)) != CLI_OK ||
        (rc = scli_dt_list(cmd, dtext, &dt, &ndt, cli_points_cap(cs))) != CLI_OK ||
        (rc = cli_case_system(cmd, cs, &schemes[0], &sys)) != CLI_OK)
        goto out;
    /* both sweeps under the cap, before any memory is allocated (the larger
     * grid's: the results of both are held in one array) */
    const size_t gmax = grid > egrid ? grid : egrid;
    const size_t npts[4] = {gmax, gmax, ndt, ns};
    if ((rc = cli_points_check(cmd, cli_points_cap(cs), npts, 4,
                               "the sweep (--grid/--egrid squared x --dt x --scheme)")) != CLI_OK)
        goto out;
    const cosa_model *m = cs->mod.model;
    const int ick = cosa_model_param_index(m, "ck"), idk = cosa_model_param_index(m, "dk");
    if (ick < 0 || idk < 0) {
        cli_error(cmd, "model '%s' has no parameters ck and dk (use --model twomass)", m->name);
        rc = CLI_EUSAGE;
        goto out;
    }
    const size_t cap = ns * ndt * gmax * gmax;
    values = malloc(cap * sizeof *values);
    status = malloc(cap * sizeof *status);
    if (!values || !status) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    if (tw_begin(&w, stdout, cs->format == 1 ? TW_JSON : TW_TEXT, TW_REPORT, cmd, NULL, NULL) !=
        0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    tw_comment(&w, "cosa %s bench: model %s, ck = 1 .. 1e10 x dk = 1 .. 1e7 (log), %zu macro "
               "steps %.3g .. %.3g s",
               cosa_version(), m->name, ndt, dt[0], dt[ndt - 1]);
    tw_comment(&w, "us_per_point = seconds x threads / points (per point per core)");
    static const char *const cols[6] = {"metric", "scheme",  "threads",
                                        "points", "seconds", "us_per_point"};
    tw_table(&w, cols, 6);
    fflush(stdout);
    const cosa_metric metrics[2] = {COSA_METRIC_RHO, COSA_METRIC_E_GLOBAL};
    for (int mi = 0; mi < 2; mi++) {
        const size_t g = mi == 0 ? grid : egrid;
        cosa_sweep_spec sp = {0};
        sp.model = m;
        sp.par = cs->mod.par;
        sp.x = (cosa_sweep_axis){ick, 1.0, 1e10, 1, g, 0};
        sp.y = (cosa_sweep_axis){idk, 1.0, 1e7, 1, g, 0};
        sp.dt = dt;
        sp.ndt = ndt;
        sp.metric = metrics[mi];
        double t_all[64] = {0};
        /* each scheme alone, then all together (index ns) */
        for (size_t i = 0; i <= ns; i++) {
            if (i == ns && ns == 1)
                break;
            char nm[64];
            if (i < ns)
                cosa_scheme_name(&schemes[i], nm, sizeof nm);
            else
                snprintf(nm, sizeof nm, "all-%zu", ns);
            sp.schemes = i < ns ? &schemes[i] : schemes;
            sp.nscheme = i < ns ? 1 : ns;
            for (size_t k = 0; k < nthr; k++) {
                sp.threads = (int)thr[k];
                /* progress of each timed sweep (cheap: one call per 1/1000
                 * of the points, from thread 0) on a terminal or --progress */
                char label[128];
                snprintf(label, sizeof label, "bench: %s %s, %zu thread%s",
                         cosa_metric_name(sp.metric), nm, thr[k], thr[k] == 1 ? "" : "s");
                scli_progress prog;
                scli_progress_init(&prog, label);
                sp.progress = prog.tty || cs->progress ? scli_progress_fn : NULL;
                sp.user_data = &prog;
                const double t = time_sweep(&sp, values, status);
                const size_t pts = cosa_sweep_size(&sp);
                if (i == ns && k < 64)
                    t_all[k] = t;
                bench_row(&w, sp.metric, nm, thr[k], pts, t);
            }
        }
        for (size_t k = 1; k < nthr && k < 64 && ns > 1; k++)
            tw_comment(&w, "speed-up %s all-%zu, %zu vs %zu threads: %.2f",
                   cosa_metric_name(sp.metric), ns, thr[k], thr[0], t_all[0] / t_all[k]);
        /* the same sweep of all schemes as an adaptive map (README "Adaptive
         * maps"), at the last thread count: its cost per grid point and how
         * many points it evaluated */
        if (ns > 1) {
            sp.schemes = schemes;
            sp.nscheme = ns;
            bench_adaptive(&w, &sp, thr[nthr - 1], t_all[nthr - 1 < 64 ? nthr - 1 : 63], values,
                           status);
        }
    }
    rc = tw_finish(&w, cmd, CLI_OK); /* stdout: its writes are checked at the exit */
out:
    free(values);
    free(status);
    free(dt);
    free(schemes);
    free(thr);
    cosa_system_free(sys);
    cli_case_free(cs);
    return rc;
}
