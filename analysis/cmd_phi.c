/* cmd_phi.c -- `cosa phi`: print Phi or Phi* with its block layout. */
#include "mem_check.h"
#include "cli.h"
#include "fmu_notes.h"
#include "table_writer.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: cosa phi [--model NAME] [--set NAME=VALUE]... --scheme SCHEME --dt DT\n"
    "                [--assume NAME=VALUE]... [--alpha A] [--ref] [--format text|json]\n\n"
    "Print the propagation matrix Phi of the scheme (z_{n+1} = Phi z_n), or with\n"
    "--ref the exact reference Phi* on the same layout.  Comment lines (#) name\n"
    "the blocks of the information vector\n"
    "  z = [ x | ybar_n | ybar_{n-1} | ... | ybar_{n-p} | du ]\n"
    "and each row/column; then one matrix row per line, entries with %.17g.\n"
    "With --format json: one document, the comment lines as \"comments\" and the\n"
    "matrix as a table whose columns are the entries' names.\n\n";

struct opts {
    cli_case cs;
    int ref;
};

static const opt_row rows[] = {
    {.kind = OPTK_INCLUDE, .sub = cli_case_head_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_case_point_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_FLAG, .name = "ref", .off = offsetof(struct opts, ref),
     .help = "print Phi* instead of Phi (Phi* uses no model: --assume\ndoes not change it)"},
    {.kind = OPTK_INCLUDE, .sub = cli_format_rows, .off = offsetof(struct opts, cs)},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* Name of entry k of z, e.g. "ybar_{n-1}.v1". */
static void entry_name(const cosa_model *m, const double *par, const cosa_layout *l, size_t k,
                       char *buf, size_t size)
{
    const char *nm = NULL;
    if (k < l->off_y) {
        nm = m->state_name ? m->state_name(m, par, k) : NULL;
        if (nm)
            snprintf(buf, size, "x.%s", nm);
        else
            snprintf(buf, size, "x.%zu", k);
    } else if (k < l->off_du) {
        size_t j = (k - l->off_y) / l->ny, i = (k - l->off_y) % l->ny;
        nm = m->output_name ? m->output_name(m, par, i) : NULL;
        char slot[32];
        if (j == 0)
            snprintf(slot, sizeof slot, "ybar_n");
        else
            snprintf(slot, sizeof slot, "ybar_{n-%zu}", j);
        if (nm)
            snprintf(buf, size, "%s.%s", slot, nm);
        else
            snprintf(buf, size, "%s.%zu", slot, i);
    } else {
        size_t i = k - l->off_du;
        nm = m->input_name ? m->input_name(m, par, i) : NULL;
        if (nm)
            snprintf(buf, size, "du.%s", nm);
        else
            snprintf(buf, size, "du.%zu", i);
    }
}

/* The line "blocks: x [a..b] ybar_n [..] ... du [..]" into buf. */
static void blocks_text(const cosa_layout *lay, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "blocks: x [%zu..%zu]", lay->off_x, lay->off_y - 1);
    for (size_t j = 0; j < lay->nhist && n < size; j++) {
        const size_t a = lay->off_y + j * lay->ny;
        if (j == 0)
            n += (size_t)snprintf(buf + n, size - n, " ybar_n [%zu..%zu]", a, a + lay->ny - 1);
        else
            n += (size_t)snprintf(buf + n, size - n, " ybar_{n-%zu} [%zu..%zu]", j, a,
                                  a + lay->ny - 1);
    }
    if (lay->has_du && n < size)
        snprintf(buf + n, size - n, " du [%zu..%zu]", lay->off_du, lay->dim - 1);
}

/* The header comments (settings, parameters, --assume, the layout and the
 * name of every entry of z) and the matrix, a row a line, on w.  0, or -1
 * (out of memory). */
static int phi_write(tw *w, const cli_model *mod, const cosa_scheme *scheme, int ref, double dt,
                     const cosa_layout *lay, const double *Phi)
{
    const cosa_model *m = mod->model;
    char name[64];
    char b1[32], b2[32]; /* settings: the shortest form that reads back (cosa_number_text) */
    cosa_scheme_name(scheme, name, sizeof name);
    tw_comment(w, "cosa %s phi%s", cosa_version(), ref ? " --ref (exact reference Phi*)" : "");
    tw_comment(w, "model %s", m->name);
    tw_comment(w, "scheme %s", name);
    tw_comment(w, "dt %s", cosa_number_text(b1, sizeof b1, dt));
    tw_comment(w, "alpha %s", cosa_number_text(b2, sizeof b2, scheme->alpha));
    if (scheme->implicit) { /* README "Iterative coupling" */
        if (scheme->iterations)
            tw_comment(w, "iterations %u", scheme->iterations);
        else
            tw_comment(w, "iterations inf");
        tw_comment(w, "relax %s", cosa_number_text(b1, sizeof b1, scheme->relax));
    }
    for (size_t k = 0; k < m->nparam; k++)
        tw_comment(w, "param %s %s", m->params[k].name,
                   cosa_number_text(b1, sizeof b1, mod->par[k]));
    cli_assume_print(tw_stream(w), "# ", mod);
    tw_comment(w, "dim %zu", lay->dim);
    /* the blocks (each at most 14 + 2 x 20 characters) and the entries' names */
    char(*en)[96] = malloc(lay->dim * sizeof *en);
    const size_t size = (lay->nhist + 2) * 64 + lay->dim * (sizeof *en + 24) + 16;
    char *text = malloc(size);
    double *row = malloc(lay->dim * sizeof *row);
    const char **names = malloc(lay->dim * sizeof *names);
    if (!text || !row || !en || !names) {
        free(text);
        free(row);
        free(en);
        free(names);
        return -1;
    }
    blocks_text(lay, text, size);
    tw_comment(w, "%s", text);
    size_t n = (size_t)snprintf(text, size, "entries:");
    for (size_t k = 0; k < lay->dim; k++) {
        entry_name(m, mod->par, lay, k, en[k], sizeof *en);
        names[k] = en[k];
        if (n < size)
            n += (size_t)snprintf(text + n, size - n, " %zu=%s", k, en[k]);
    }
    tw_comment(w, "%s", text);
    /* the matrix, a row a line (tw_row's %.17g); in JSON a table whose
     * columns are the entries (the text has no header line: its names are
     * the entries comment) */
    if (w->fmt == TW_JSON)
        tw_table(w, names, lay->dim);
    for (size_t i = 0; i < lay->dim; i++) {
        for (size_t j = 0; j < lay->dim; j++)
            row[j] = Phi[i + j * lay->dim];
        tw_row(w, row, lay->dim);
    }
    free(text);
    free(row);
    free(en);
    free(names);
    return 0;
}

int cmd_phi(int argc, char **argv)
{
    const char *cmd = "phi";
    struct opts o = {0};
    cosa_system *sys = NULL, *model = NULL;
    cosa_phi_workspace *pw = NULL;
    double *Phi = NULL;
    cosa_scheme scheme;
    double dt;
    int rc = cli_parse_rows(cmd, rows, &o, &o.cs, argc, argv, usage);
    const int ref = o.ref;
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK || (rc = cli_case_scheme(cmd, &o.cs, &scheme)) != CLI_OK ||
        (rc = cli_case_dt(cmd, o.cs.dt_text, &dt)) != CLI_OK ||
        (rc = cli_case_system(cmd, &o.cs, &scheme, &sys)) != CLI_OK ||
        (rc = cli_assume_system(&o.cs.mod, cmd, o.cs.mod.par, sys, &scheme, 1, &model)) != CLI_OK)
        goto out;
    if (cli_assume_given(&o.cs.mod))
        cli_assume_note(cmd, &scheme, 1);
    fmu_notes(cmd, &o.cs.mod, &scheme, 1);
    fmu_ident_dt_note(cmd, o.cs.mod.model, dt);
    cosa_layout lay;
    cosa_status st = cosa_layout_get(sys, &scheme, &lay);
    if (st != COSA_OK) {
        cli_error(cmd, "scheme '%s': %s", o.cs.scheme_text, cosa_strerror(st));
        rc = CLI_EUSAGE;
        goto out;
    }
    /* before any work, a lower bound of the memory: Phi, dim^2 doubles, and
     * four nx x nx matrices of the workspace (M, A*, Ad*, Tref of at least
     * nx rows: lib/phi/phi.c; the matrix exponential's take more) */
    const double nx = (double)cosa_system_nx(sys), d = (double)lay.dim;
    char what[96];
    snprintf(what, sizeof what, "model '%s': Phi (%zu x %zu) and its workspace",
             o.cs.mod.model->name, lay.dim, lay.dim);
    if ((rc = cli_memory_check(cmd, (d * d + 4.0 * nx * nx) * (double)sizeof(double), what,
                               NULL)) != CLI_OK)
        goto out;
    pw = cosa_phi_workspace_alloc(sys, scheme.order);
    Phi = malloc(lay.dim * lay.dim * sizeof(double));
    if (!pw || !Phi) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    st = ref ? cosa_phi_ref_build(sys, &scheme, dt, Phi, lay.dim, pw)
             : cosa_phi_build(sys, &scheme, dt, Phi, lay.dim, pw);
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto out;
    }
    tw w;
    if (tw_begin(&w, stdout, o.cs.format == 1 ? TW_JSON : TW_TEXT, TW_REPORT, cmd, NULL,
                 NULL) != 0 ||
        phi_write(&w, &o.cs.mod, &scheme, ref, dt, &lay, Phi) != 0) {
        tw_abandon(&w);
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    rc = tw_finish(&w, cmd, CLI_OK); /* stdout: its writes are checked at the exit */
out:
    free(Phi);
    cosa_phi_workspace_free(pw);
    cosa_system_free(model);
    cosa_system_free(sys);
    cli_case_free(&o.cs);
    return rc;
}
