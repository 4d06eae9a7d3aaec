/* cmd_demo.c -- `cosa demo`: spectral radius of every scheme at a few macro
 * steps, for the two-mass oscillator (or any model given). */
#include "cli.h"
#include "table_writer.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa demo [--model NAME] [--set NAME=VALUE]... [--dt DT[,DT...]]\n\n"
    "Spectral radius rho(Phi) of every Jacobi scheme (orders p = 0..4, each plain,\n"
    "+ocorr, +ecorr and +mbcorr) at a few macro steps, and of the reference Phi*.\n"
    "A table with a header line: scheme, then one column per macro step; '!'\n"
    "after a value marks an unstable case (rho > 1 + 1e-12, or near 1 above the\n"
    "rounding bound of the computed eigenvalue, as cosa point's 'stable').\n"
    "Default: twomass (c_k = 2e5, d_k = 5e2), dt = 1e-5,1e-4,3.16e-4,1e-3.\n\n";

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = offsetof(cli_case, mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_CUSTOM, .fn = cli_row_positive_list_text, .name = "dt",
     .off = offsetof(cli_case, dt_text), .arg = "LIST",
     .help = "comma-separated macro steps in seconds"},
    /* refused with its own message below: the demo runs every scheme */
    {.kind = OPTK_STRING, .name = "scheme", .off = offsetof(cli_case, scheme_text),
     .flags = OPTF_HIDDEN},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

#define MAXDT 16

/* The comment naming the model and its parameters' values (%g), then the
 * header line: scheme, then dt=DT per macro step, in padded columns. */
static void demo_head(tw *w, const cli_model *mod, const double *dts, size_t ndt)
{
    const cosa_model *m = mod->model;
    size_t size = strlen(m->name) + 64;
    for (size_t k = 0; k < m->nparam; k++)
        size += strlen(m->params[k].name) + 32; /* " NAME=" and %g's at most 13 */
    char *text = malloc(size);
    if (text) {
        size_t n = (size_t)snprintf(text, size, "model %s", m->name);
        for (size_t k = 0; k < m->nparam && n < size; k++)
            if (m->params[k].kind == COSA_PARAM_MODEL)
                n += (size_t)snprintf(text + n, size - n, " %s=%g", m->params[k].name,
                                      mod->par[k]);
    }
    tw_comment(w, "cosa %s demo: rho(Phi), %s", cosa_version(), text ? text : m->name);
    free(text);
    static const int width[2] = {14, 13}; /* the scheme, then each rho */
    tw_padded(w, "", width, 2);
    tw_cell(w, "scheme");
    for (size_t i = 0; i < ndt; i++) {
        char h[32];
        snprintf(h, sizeof h, "dt=%g", dts[i]);
        tw_cell(w, h);
    }
    tw_row_end(w);
}

/* The cell of scheme s at dt: rho(Phi) with '!' when unstable, or "error".
 * Phi of the largest layout, pw and ew its workspaces. */
static const char *demo_rho(const cosa_system *sys, const cosa_scheme *s, int is_ref, double dt,
                            double *Phi, cosa_phi_workspace *pw, cosa_eig_workspace *ew,
                            char *v, size_t size)
{
    cosa_layout l;
    cosa_layout_get(sys, s, &l);
    double rho = NAN;
    cosa_status st = is_ref ? cosa_phi_ref_build(sys, s, dt, Phi, l.dim, pw)
                            : cosa_phi_build(sys, s, dt, Phi, l.dim, pw);
    if (st == COSA_OK)
        st = cosa_spectral_radius(l.dim, Phi, l.dim, &rho, ew);
    /* the stability rule of cosa point (cosa_point_result.rho_tol): near 1
     * the rounding bound of the computed eigenvalue, on Phi rebuilt (the
     * radius destroyed it) */
    double tol = COSA_RHO_TOL;
    if (st == COSA_OK && cosa_rho_near_one(rho)) {
        st = is_ref ? cosa_phi_ref_build(sys, s, dt, Phi, l.dim, pw)
                    : cosa_phi_build(sys, s, dt, Phi, l.dim, pw);
        if (st == COSA_OK)
            st = cosa_rho_tol(l.dim, Phi, l.dim, rho, &tol);
    }
    if (st != COSA_OK)
        return "error";
    snprintf(v, size, "%.10f%s", rho, rho > 1.0 + tol ? "!" : "");
    return v;
}

int cmd_demo(int argc, char **argv)
{
    const char *cmd = "demo";
    cli_case cs = {0};
    cosa_system *sys = NULL;
    cosa_phi_workspace *pw = NULL;
    cosa_eig_workspace *ew = NULL;
    double *Phi = NULL;
    tw w;
    double dts[MAXDT] = {1e-5, 1e-4, 3.16e-4, 1e-3};
    size_t ndt = 4;
    int rc = cli_parse_rows(cmd, rows, &cs, &cs, argc, argv, usage);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (cs.scheme_text) {
        cli_error(cmd, "--scheme is not used: the demo runs every scheme");
        rc = CLI_EUSAGE;
        goto out;
    }
    if (cs.dt_text) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cs.dt_text);
        ndt = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            if (ndt == MAXDT) {
                cli_error(cmd, "at most %d macro steps", MAXDT);
                rc = CLI_EUSAGE;
                goto out;
            }
            if ((rc = cli_case_dt(cmd, tok, &dts[ndt])) != CLI_OK)
                goto out;
            ndt++;
        }
    }
    if ((rc = cli_model_resolve(&cs.mod, cmd)) != CLI_OK ||
        (rc = cli_model_system(&cs.mod, cmd, &sys)) != CLI_OK)
        goto out;
    const int pmax = 4;
    pw = cosa_phi_workspace_alloc(sys, pmax);
    cosa_scheme big = {.order = pmax, .corr = COSA_CORR_MBCORR, .alpha = 1.0};
    cosa_layout lay;
    cosa_layout_get(sys, &big, &lay);
    ew = cosa_eig_workspace_alloc(lay.dim);
    Phi = malloc(lay.dim * lay.dim * sizeof(double));
    if (!pw || !ew || !Phi) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    if (tw_begin(&w, stdout, TW_TEXT, TW_REPORT, cmd, NULL, NULL) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    demo_head(&w, &cs.mod, dts, ndt);
    static const unsigned corr[] = {COSA_CORR_NONE, COSA_CORR_OUTPUT, COSA_CORR_STATE,
                                    COSA_CORR_MBCORR};
    for (int p = 0; p <= pmax + 1; p++) {
        for (size_t c = 0; c < 4; c++) {
            int is_ref = p > pmax;
            if (is_ref && c > 0)
                break;
            cosa_scheme s = {.order = is_ref ? 0 : p, .corr = corr[c], .alpha = cs.alpha};
            char name[64];
            if (is_ref)
                snprintf(name, sizeof name, "reference");
            else
                cosa_scheme_name(&s, name, sizeof name);
            tw_cell(&w, name);
            for (size_t i = 0; i < ndt; i++) {
                char v[32];
                tw_cell(&w, demo_rho(sys, &s, is_ref, dts[i], Phi, pw, ew, v, sizeof v));
            }
            tw_row_end(&w);
        }
    }
    rc = tw_finish(&w, cmd, CLI_OK); /* stdout: its writes are checked at the exit */
out:
    free(Phi);
    cosa_eig_workspace_free(ew);
    cosa_phi_workspace_free(pw);
    cosa_system_free(sys);
    cli_case_free(&cs);
    return rc;
}
