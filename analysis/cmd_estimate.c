/* cmd_estimate.c -- `cosa estimate`: one macro step of the variable-order
 * engine from the monolithic reference (issue 11), for a list or sweep of
 * macro steps: the true local error against the monolithic step and the
 * estimator's estimate, and their convergence orders (least-squares slopes
 * in log-log) -- the numbers behind the paper's statements that the
 * estimators converge to the local errors (sect. 4). */
#include "config.h"
#include "sweep_cli.h"
#include "varorder_cli.h"
#include "run_stats.h"
#include "table_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cmd = "estimate";

static const char usage[] =
    "Usage: cosa estimate --model M [--set NAME=VALUE]... --scheme zoh|foh|soh|pK\n"
    "                     --estimator E --t0 T --dt DT[,DT...]|LO:HI:log|lin:N\n"
    "                     [--corrector-jacobian fd|los|exact] [options]\n\n"
    "One macro step T_N = t0 -> t0 + DT of degree k from the monolithic reference:\n"
    "the states at t0 and the coupling variables at t0 - j DT (j = 0..k+1) are the\n"
    "reference's; the step is integrated as the estimator's coupling does it\n"
    "(explicit for exlocal/exmilne/exslocal, implicit for immilne/imslocal) and compared\n"
    "with the reference at t0 + DT (the monolithic step).  Prints a header and one row\n"
    "per DT:\n"
    "  dt err_pos est_pos err_vel est_vel   (estimators on states: 2-norms over all\n"
    "                                        positions / velocities)\n"
    "  dt err_u est_u                       (estimators on coupling variables:\n"
    "                                        err = |u_predicted - u_exact|)\n"
    "then for a sweep of two or more DT: order_err_pos, order_dev_pos, ... (the\n"
    "least-squares slopes of log err and log |est - err| against log DT), then status,\n"
    "steps (one per DT), rejected (0), h_min, h_max (the smallest and largest DT) and\n"
    "per unit 'unit NAME steps S restores R events E early_returns K defect_steps D'.\n"
    "Expected: err_pos O(DT^(k+3)), err_vel O(DT^(k+2)), err_u O(DT^(k+1)), and\n"
    "|est - err| one order higher.  t0 must be >= (k+1) DT.\n\n";

struct est_opts {
    cli_case cs;
    struct vo_cli_opts vo;
    const char *tend, *control; /* --tend, --control: options of cosa simulate */
};

#define EST(f) offsetof(struct est_opts, f)
static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = EST(cs.mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_STRING, .name = "scheme", .off = EST(cs.scheme_text), .arg = "zoh|foh|soh|pK",
     .help = "the polynomial degree k of the coupling variables u"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_dt_list_text, .name = "dt", .off = EST(cs.dt_text), .arg = "DT[,DT...]|LO:HI:log|lin:N",
     .flags = OPTF_REQUIRED, .help = "the macro steps: a list or a sweep"},
    {.kind = OPTK_POSITIVE, .name = "t0", .off = EST(vo.t0), .arg = "T", .flags = OPTF_REQUIRED,
     .help = "start of the step (> 0)"},
    {.kind = OPTK_INCLUDE, .sub = vo_cli_rows, .off = EST(vo)},
    {.kind = OPTK_INCLUDE, .sub = vo_cli_unit_rows, .off = EST(vo)},
    {.kind = OPTK_STRING, .name = "jacobian", .off = EST(vo.jacobian_old), .flags = OPTF_HIDDEN},
    /* the options of cosa simulate --coupling: one line each (cmd_estimate) */
    {.kind = OPTK_STRING, .name = "tend", .off = EST(tend), .flags = OPTF_HIDDEN},
    {.kind = OPTK_STRING, .name = "control", .off = EST(control), .flags = OPTF_HIDDEN},
    {.kind = OPTK_STRING, .name = "output", .short_name = 'o', .off = EST(vo.output),
     .flags = OPTF_HIDDEN},
    {.kind = OPTK_STRING, .name = "name", .off = EST(vo.name), .flags = OPTF_HIDDEN},
    {.kind = OPTK_STRING, .name = "plot", .off = EST(vo.plot), .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = EST(cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = EST(cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};
#undef EST

/* least-squares slope of log y against log x over the finite positive pairs */
static double slope(size_t n, const double *x, const double *y)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0.0) || !(y[i] > 0.0) || !isfinite(y[i]))
            continue;
        const double a = log(x[i]), b = log(y[i]);
        sx += a, sy += b, sxx += a * a, sxy += a * b;
        m++;
    }
    if (m < 2)
        return NAN;
    const double d = (double)m * sxx - sx * sx;
    return d > 0.0 ? ((double)m * sxy - sx * sy) / d : NAN;
}

int cmd_estimate(int argc, char **argv)
{
    struct est_opts eo = {0};
    struct vo_cli_opts *const op = &eo.vo;
    cli_case *const cs = &eo.cs;
    struct vo_cli v = {0};
    double *dt = NULL, *tab = NULL;
    size_t ndt = 0;
    tw w = {0};
    vo_cli_opts_init(op, cmd);
    int rc = cli_parse_rows(cmd, rows, &eo, cs, argc, argv, usage);
    if (rc < 0)
        return CLI_OK;
    if (rc != CLI_OK)
        goto out;
    struct vo_cli_opts o = *op;
    if (eo.control || o.output || o.plot || o.name || eo.tend) {
        cli_error(cmd, "--control, --tend, -o, --name and --plot are options of cosa simulate");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (!o.estimator) {
        cli_error(cmd, "--estimator is required (exlocal, exmilne, exslocal, immilne, "
                       "imslocal)");
        rc = CLI_EUSAGE;
        goto out;
    }
    const cosa_vo_estimator *e = cosa_vo_estimator_lookup(o.estimator);
    if (!e) {
        cli_error(cmd, "unknown --estimator '%s' (expected exlocal, exmilne, exslocal, immilne "
                       "or imslocal)", o.estimator);
        rc = CLI_EUSAGE;
        goto out;
    }
    if (!o.coupling)
        o.coupling = cosa_vo_estimator_implicit(e) ? "implicit" : "explicit";
    if ((rc = vo_cli_jacobian_old(cmd, &o)) != CLI_OK ||
        (rc = scli_dt_list(cmd, cs->dt_text, &dt, &ndt, CLI_POINTS_MAX)) != CLI_OK)
        goto out;
    const double t0 = o.t0;
    if ((rc = vo_cli_setup(cmd, cs, &o, NULL, &v)) != CLI_OK)
        goto out;
    const int k = v.vo.k;
    for (size_t i = 0; i < ndt; i++)
        if (t0 < (double)(k + 1) * dt[i] * (1.0 - 1e-12)) {
            cli_error(cmd, "--t0 %g is before (k+1) DT = %g: the history would start before "
                           "t = 0", t0, (double)(k + 1) * dt[i]);
            rc = CLI_EUSAGE;
            goto out;
        }
    const int states = cosa_vo_estimator_on_states(e);
    tab = calloc(6 * ndt + 1, sizeof *tab);
    if (!tab) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    vo_cli_notes(cmd, &o, &v);
    /* the report: text, or (--format json) one JSON document of the table and the
     * 'name value' lines printed to stdout */
    if (tw_begin(&w, stdout, cs->format == 1 ? TW_JSON : TW_TEXT, TW_REPORT, cmd, NULL, NULL) !=
            0 ||
        tw_capture_stdout(&w) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    static const char *const snames[] = {"dt", "err_pos", "est_pos", "err_vel", "est_vel"};
    static const char *const unames[] = {"dt", "err_u", "est_u"};
    tw_table(&w, states ? snames : unames, states ? 5 : 3);
    for (size_t i = 0; i < ndt; i++) {
        cosa_vo_estimate r;
        v.vo.H = dt[i];
        cosa_status st = cosa_vo_estimate_step(v.set, vo_cli_ref, &v, &v.vo, t0, &r);
        if (st != COSA_OK) {
            cli_error(cmd, "dt %g: the step failed: %s", dt[i], cosa_strerror(st));
            rc = st == COSA_ERANGE || st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
            goto out;
        }
        double *row = tab + 6 * i;
        if (states)
            row[0] = r.err_pos, row[1] = r.est_pos, row[2] = r.err_vel, row[3] = r.est_vel;
        else
            row[0] = r.err_u, row[1] = r.est_u;
        const double rec[5] = {dt[i], row[0], row[1], row[2], row[3]};
        tw_row(&w, rec, states ? 5 : 3);
        fflush(stdout);
    }
    if (ndt >= 2) {
        double *yd = NULL;
        double *col = malloc(2 * ndt * sizeof *col);
        if (!col) {
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
            goto out;
        }
        yd = col + ndt;
        const char *names[2] = {states ? "pos" : "u", "vel"};
        for (int q = 0; q < (states ? 2 : 1); q++) {
            for (size_t i = 0; i < ndt; i++) {
                col[i] = tab[6 * i + 2 * q];
                yd[i] = fabs(tab[6 * i + 2 * q + 1] - tab[6 * i + 2 * q]);
            }
            printf("order_err_%s %.6g\n", names[q], slope(ndt, dt, col));
            printf("order_dev_%s %.6g\n", names[q], slope(ndt, dt, yd));
        }
        free(col);
    }
    /* the statistics every time-domain run prints (issue 23, run_stats.h):
     * one macro step of each DT, none rejected (a failed step is an error
     * above); no loop, so no rollbacks or corrector lines; the units' lines
     * count what they did over all the DTs */
    run_stats_view sv;
    run_stats_view_of(&sv, NULL, v.set);
    sv.steps = ndt;
    sv.h_min = sv.h_max = dt[0];
    for (size_t i = 1; i < ndt; i++)
        sv.h_min = fmin(sv.h_min, dt[i]), sv.h_max = fmax(sv.h_max, dt[i]);
    run_stats_print(stdout, &sv, RUN_STATS_COMMON | RUN_STATS_UNITS);
    rc = CLI_OK;
out:
    rc = tw_finish(&w, cmd, rc);
    free(dt);
    free(tab);
    vo_cli_free(&v);
    cli_case_free(cs);
    return rc;
}
