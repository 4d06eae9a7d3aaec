/* cmd_converge.c -- `cosa converge`: error vs macro step, convergence orders. */
#include "cli.h"
#include "table_writer.h"
#include "fmu_notes.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

static const char usage[] =
    "Usage: cosa converge [--model NAME] [--set NAME=VALUE]... --scheme SCHEME\n"
    "                     [--assume NAME=VALUE]... [--dt-min 1e-6] [--dt-max 3e-3]\n"
    "                     [--points 36] [--tend T]\n\n"
    "Local and global NRMSE on a log grid of macro steps (doc/method.md, sect. 9),\n"
    "then the convergence orders: least-squares slopes of log e vs log dt over the\n"
    "asymptotic range (the longest run of consecutive points with 0 < e <= 0.1 whose\n"
    "local slopes agree within 0.3).\n"
    "Output: a comment line (and '# assume NAME VALUE' lines with --assume), a\n"
    "table with the header line 'dt e_local e_global' (inf = unstable),\n"
    "then 'name value' lines:\n"
    "  order_local, order_global     fitted slopes (nan if no asymptotic range)\n"
    "  range_local, range_global     dt range of the fit: LO HI NPOINTS\n\n";

struct opts {
    cli_case cs;
    double dtmin, dtmax, tend; /* tend 0: the model's */
    long points;
};

static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_scan_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_POSITIVE, .name = "dt-min", .off = offsetof(struct opts, dtmin), .arg = "DT",
     .help = "smallest macro step (default 1e-6)"},
    {.kind = OPTK_POSITIVE, .name = "dt-max", .off = offsetof(struct opts, dtmax), .arg = "DT",
     .help = "largest macro step (default 3e-3)"},
    {.kind = OPTK_INT, .name = "points", .off = offsetof(struct opts, points), .arg = "N",
     .imin = 2, .imax = 100000, .help = "number of macro steps, log-spaced (default 36)"},
    {.kind = OPTK_POSITIVE, .name = "tend", .off = offsetof(struct opts, tend), .arg = "T",
     .help = "horizon (default: the model's)"},
    /* refused with its own message (a range, not a step) */
    {.kind = OPTK_STRING, .name = "dt", .off = offsetof(struct opts, cs.dt_text),
     .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_progress_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* A fitted convergence order: the asymptotic range first..last (used
 * points), or none (ok = 0). */
struct fit {
    int ok;
    double order;
    size_t first, last, used;
};

/* O(n): cosa_order_range is a sliding window, cosa_order_fit two passes.
 * 0, or -1 when out of memory. */
static int fit_order(size_t n, const double *dt, const double *e, struct fit *f)
{
    *f = (struct fit){.order = NAN};
    cosa_status st = cosa_order_range(n, dt, e, 0, 0, &f->first, &f->last);
    if (st == COSA_ENOMEM)
        return -1;
    f->ok = st == COSA_OK && cosa_order_fit(f->last - f->first + 1, dt + f->first,
                                            e + f->first, &f->order, NULL, &f->used) == COSA_OK;
    return 0;
}

static void fit_line(tw *w, const char *name, const double *dt, const struct fit *f)
{
    char order[32], range[32];
    snprintf(order, sizeof order, "order_%s", name);
    snprintf(range, sizeof range, "range_%s", name);
    if (f->ok) {
        tw_field(w, order, "%.6f", f->order);
        tw_field(w, range, "%.6g %.6g %zu", dt[f->first], dt[f->last], f->used);
    } else {
        tw_field(w, order, "nan");
        tw_field(w, range, "none");
    }
}

int cmd_converge(int argc, char **argv)
{
    const char *cmd = "converge";
    struct opts o = {.dtmin = 1e-6, .dtmax = 3e-3, .points = 36};
    cli_case *cs = &o.cs;
    cosa_system *sys = NULL, *model = NULL;
    cosa_eval_workspace *ew = NULL;
    double *x0 = NULL, *dts = NULL, *el = NULL, *eg = NULL;
    cosa_scheme scheme;
    tw w = {0}; /* the report: text or JSON on stdout */
    int rc = cli_parse_rows(cmd, rows, &o, cs, argc, argv, usage);
    const double dtmin = o.dtmin, dtmax = o.dtmax;
    const size_t npts = (size_t)o.points;
    double tend;
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc == CLI_OK && tw_begin(&w, stdout, cs->format == 1 ? TW_JSON : TW_TEXT, TW_REPORT,
                                 cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    if (rc != CLI_OK)
        goto out;
    if (cs->dt_text) {
        cli_error(cmd, "--dt is not used: give the range with --dt-min/--dt-max/--points");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (!(dtmin < dtmax)) {
        cli_error(cmd, "--dt-min (%g) must be smaller than --dt-max (%g)", dtmin, dtmax);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_case_scheme(cmd, cs, &scheme)) != CLI_OK ||
        (rc = cli_case_system(cmd, cs, &scheme, &sys)) != CLI_OK ||
        (rc = cli_need_outputs(&cs->mod, cmd, cosa_system_ny(sys))) != CLI_OK ||
        (rc = fmu_case_finish(cmd, cs, &scheme, sys, &x0, &model)) != CLI_OK)
        goto out;
    tend = o.tend > 0.0 ? o.tend : cs->mod.model->tend;
    if (nearbyint(tend / dtmax) < 1) {
        cli_error(cmd, "--dt-max %g is longer than the horizon %g", dtmax, tend);
        rc = CLI_EUSAGE;
        goto out;
    }
    /* the error sums count at most 1e15 macro steps (cosa_evaluate; api.h):
     * a shorter --dt-min is an input fault, named before any work (compared
     * as a double: tend / dt may be 1e300 or inf) */
    if (!(nearbyint(tend / dtmin) <= 1e15)) {
        cli_error(cmd, "--dt-min %g: %.3g macro steps in the horizon %g, more than the error "
                       "sums take (1e15)", dtmin, tend / dtmin, tend);
        rc = CLI_EUSAGE;
        goto out;
    }
    ew = cosa_eval_workspace_alloc(sys, scheme.order);
    dts = malloc(npts * sizeof(double));
    el = malloc(npts * sizeof(double));
    eg = malloc(npts * sizeof(double));
    if (!ew || !dts || !el || !eg) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress prog;
    cli_progress_init(&prog, cmd, cs->progress);
    if (prog.on)
        cosa_eval_workspace_set_progress(ew, cli_progress_stage, &prog);
    double l0 = log(dtmin), l1 = log(dtmax);
    for (size_t i = 0; i < npts; i++) {
        dts[i] = i == 0 ? dtmin : i + 1 == npts ? dtmax : exp(l0 + (l1 - l0) * i / (npts - 1));
        cosa_point_result r;
        cosa_status st = cosa_evaluate(sys, &scheme, dts[i], x0, tend, COSA_WANT_RHO | COSA_WANT_ERRORS,
                                       &r, ew);
        if (st == COSA_EUNSTABLEREF) {
            cli_error(cmd, "the monolithic reference is unstable (rho_ref = %.17g)", r.rho_ref);
            rc = CLI_EUSAGE; /* the system given is unstable: bad input, not a failure */
            goto out;
        }
        if (st != COSA_OK) {
            cli_error(cmd, "dt %g: %s", dts[i], cosa_strerror(st));
            rc = CLI_EFAIL;
            goto out;
        }
        el[i] = r.err.e_local;
        eg[i] = r.err.e_global;
    }
    /* the fits, then print everything (an error above leaves stdout empty) */
    struct fit fl, fg;
    cli_progress_stage("order fit", npts, 0, 0, &prog);
    if (fit_order(npts, dts, el, &fl) != 0 || fit_order(npts, dts, eg, &fg) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    cli_progress_end(&prog);
    char name[64];
    cosa_scheme_name(&scheme, name, sizeof name);
    char b1[32];
    tw_comment(&w, "cosa %s converge: model %s, scheme %s, tend %s", cosa_version(),
               cs->mod.model->name, name, cosa_number_text(b1, sizeof b1, tend));
    cli_assume_print(tw_stream(&w), "# ", &cs->mod);
    static const char *const cols[] = {"dt", "e_local", "e_global"};
    tw_table(&w, cols, 3);
    for (size_t i = 0; i < npts; i++)
        tw_row(&w, (const double[]){dts[i], el[i], eg[i]}, 3);
    fit_line(&w, "local", dts, &fl);
    fit_line(&w, "global", dts, &fg);
out:
    rc = tw_finish(&w, cmd, rc);
    free(dts);
    free(el);
    free(eg);
    free(x0);
    cosa_eval_workspace_free(ew);
    cosa_system_free(sys);
    cosa_system_free(model);
    cli_case_free(cs);
    return rc;
}
