/* sim_csv.c -- the trajectory file of `cosa simulate` (README "FMU import",
 * "Co-simulating FMUs"): every column named by its subsystem (two FMUs with
 * an output x give y.I.x and y.II.x), the columns chosen by --outputs
 * (outputs, also those not connected, inputs, and the units' states) and
 * the rows thinned by --output-interval. */
#include "sim_csv.h"
#include "table_writer.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_csv_free(sim_csv *c)
{
    if (!c)
        return;
    for (size_t k = 0; c->uname && k < c->nu; k++)
        free(c->uname[k]);
    for (size_t k = 0; c->yname && k < c->ny; k++)
        free(c->yname[k]);
    for (size_t k = 0; c->xname && k < c->nx; k++)
        free(c->xname[k]);
    free(c->uname);
    free(c->yname);
    free(c->xname);
    free(c->usel);
    free(c->anon);
    memset(c, 0, sizeof *c);
}

/* "SUB.NAME" (NAME as given if it starts with "SUB." already, or without a
 * subsystem name), or PREk (1-based) without a name. */
static char *qualified(const char *sub, const char *name, const char *pre, size_t k)
{
    char b[32];
    if (!name) {
        snprintf(b, sizeof b, "%s%zu", pre, k + 1);
        return strdup(b);
    }
    const size_t ls = sub ? strlen(sub) : 0;
    if (!sub || (strncmp(name, sub, ls) == 0 && name[ls] == '.'))
        return strdup(name);
    char *r = malloc(ls + strlen(name) + 2);
    if (r)
        sprintf(r, "%s.%s", sub, name);
    return r;
}

/* Select the entries of names (n) that item names: exactly, or by the part
 * after the subsystem where that is unique.  The count matched, -1 if the
 * short name is ambiguous. */
static long pick(char *const *names, size_t n, const char *item, unsigned char *sel)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(names[k], item) == 0) {
            sel[k] = 1;
            return 1;
        }
    long hit = -1, count = 0;
    for (size_t k = 0; k < n; k++) {
        const char *dot = strchr(names[k], '.');
        if (dot && strcmp(dot + 1, item) == 0) {
            hit = (long)k;
            count++;
        }
    }
    if (count == 1)
        sel[hit] = 1;
    return count > 1 ? -1 : count;
}

/* --outputs LIST into the selection. */
static int select_items(const char *cmd, const char *list, sim_csv *c)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    memset(c->usel, 0, c->nu + c->ny + c->nx);
    int rc = CLI_OK;
    size_t items = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == CLI_OK;
         it = strtok_r(NULL, ",", &save)) {
        while (*it == ' ')
            it++;
        const char *name = strncmp(it, "x.", 2) == 0 ? it + 2 : it; /* x.SUB.NAME: a state */
        const long a = name == it ? pick(c->yname, c->ny, it, c->ysel) : 0;
        const long b = name == it ? pick(c->uname, c->nu, it, c->usel) : 0;
        const long x = pick(c->xname, c->nx, name, c->xsel);
        items++;
        if (a < 0 || b < 0 || x < 0) {
            cli_error(cmd, "--outputs: '%s' names entries of several subsystems; give SUB.%s",
                      it, it);
            rc = CLI_EUSAGE;
        } else if (a + b + x == 0) {
            cli_error(cmd, "--outputs: no output, input or state called '%s' (see the "
                           "trajectory file's header, or 'cosa fmu-info' for an FMU)", it);
            rc = CLI_EUSAGE;
        }
    }
    if (rc == CLI_OK && items == 0) {
        cli_error(cmd, "--outputs: an empty list");
        rc = CLI_EUSAGE;
    }
    free(copy);
    return rc;
}

/* --output-interval DT: a whole multiple k of dt (to 1e-9 relative: DT
 * written in decimal is a multiple of a decimal dt only to rounding). */
static int interval(const char *cmd, const char *text, double dt, size_t *every)
{
    double v;
    *every = 1;
    if (!text)
        return CLI_OK;
    if (cli_parse_double(text, &v) != 0 || !(v > 0.0)) {
        cli_error(cmd, "--output-interval must be a positive finite number, got '%s'", text);
        return CLI_EUSAGE;
    }
    const double k = nearbyint(v / dt);
    if (!(k >= 1.0) || fabs(k * dt - v) > 1e-9 * v || k > 1e12) {
        cli_error(cmd, "--output-interval %s is not a whole multiple of --dt %g", text, dt);
        return CLI_EUSAGE;
    }
    *every = (size_t)k;
    return CLI_OK;
}

int sim_csv_init(const char *cmd, const cosa_model *m, const double *par,
                 const cosa_unitset *set, const char *outputs, const char *interval_text,
                 double dt, sim_csv *c)
{
    memset(c, 0, sizeof *c);
    c->nu = cosa_unitset_nu(set);
    c->ny = cosa_unitset_ny(set);
    c->nx = cosa_unitset_nx(set);
    c->uname = calloc(c->nu + 1, sizeof *c->uname);
    c->yname = calloc(c->ny + 1, sizeof *c->yname);
    c->xname = calloc(c->nx + 1, sizeof *c->xname);
    c->usel = calloc(c->nu + c->ny + c->nx + 1, 1);
    c->anon = calloc(c->nu + c->ny + c->nx + 1, 1);
    if (!c->uname || !c->yname || !c->xname || !c->usel || !c->anon)
        goto nomem;
    c->ysel = c->usel + c->nu;
    c->xsel = c->ysel + c->ny;
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        const cosa_unit *u = cosa_unitset_unit(set, i);
        size_t ox, ou, oy;
        cosa_unitset_offsets(set, i, &ox, &ou, &oy);
        const char *sub = m->sub_name ? m->sub_name(m, par, i) : NULL;
        for (size_t j = 0; j < cosa_unit_nu(u); j++) {
            const char *nm = m->input_name ? m->input_name(m, par, ou + j) : NULL;
            c->anon[ou + j] = !nm;
            if (!(c->uname[ou + j] = qualified(sub, nm, "u", ou + j)))
                goto nomem;
        }
        for (size_t j = 0; j < cosa_unit_ny(u); j++) {
            const char *nm = m->output_name ? m->output_name(m, par, oy + j) : NULL;
            c->anon[c->nu + oy + j] = !nm;
            if (!(c->yname[oy + j] = qualified(sub, nm, "y", oy + j)))
                goto nomem;
        }
        for (size_t j = 0; j < cosa_unit_nx(u); j++) {
            const char *nm = m->state_name ? m->state_name(m, par, ox + j) : NULL;
            c->anon[c->nu + c->ny + ox + j] = !nm;
            if (!(c->xname[ox + j] = qualified(sub, nm, "x", ox + j)))
                goto nomem;
        }
    }
    int rc;
    if (outputs) {
        if ((rc = select_items(cmd, outputs, c)) != CLI_OK)
            return rc;
    } else
        memset(c->usel, 1, c->nu + c->ny);
    for (size_t k = 0; k < c->nu; k++)
        c->nusel += c->usel[k];
    for (size_t k = 0; k < c->ny; k++)
        c->nysel += c->ysel[k];
    for (size_t k = 0; k < c->nx; k++)
        c->nxsel += c->xsel[k];
    return interval(cmd, interval_text, dt, &c->every);
nomem:
    cli_error(cmd, "out of memory");
    return CLI_EFAIL;
}

/* The column names: t, then the selected columns of each block (and the
 * event flag with events), into names[] (*n of them; the strings in the
 * caller's buf, size bytes).  0, or -1 (buf too small). */
static int column_names(const sim_csv *c, int event_col, const char **names, size_t *n,
                        char *buf, size_t size)
{
    /* unnamed entries keep their old names (u1, y1, ybar1, ...): PRE + k */
    static const char *const pre[6] = {"u", "y", "ybar", "du", "ref", "x"};
    size_t used = 0;
    *n = 0;
    names[(*n)++] = "t";
    for (int b = 0; b < 6; b++) {
        const int isu = b == 0 || b == 3, isx = b == 5;
        const size_t nb = isu ? c->nu : isx ? c->nx : c->ny;
        char *const *nm = isu ? c->uname : isx ? c->xname : c->yname;
        const unsigned char *sel = isu ? c->usel : isx ? c->xsel : c->ysel;
        const unsigned char *anon = c->anon + (isu ? 0 : isx ? c->nu + c->ny : c->nu);
        for (size_t k = 0; k < nb; k++) {
            if (!sel[k])
                continue;
            /* no name: PREk, as before ("y3", "ybar3", "ref3") */
            const int w = anon[k] ? snprintf(buf + used, size - used, "%s%zu", pre[b], k + 1)
                                  : snprintf(buf + used, size - used, "%s.%s", pre[b], nm[k]);
            if (w < 0 || (size_t)w >= size - used)
                return -1;
            names[(*n)++] = buf + used;
            used += (size_t)w + 1;
        }
    }
    if (event_col)
        names[(*n)++] = "event";
    return 0;
}

/* One record at t: the selected entries of the blocks u, y, ybar, du, ref,
 * x (a NULL block: du 0 and ref nan -- an event point has neither), then
 * the event flag unless it is < 0. */
static void row(tw *w, double *rec, const sim_csv *c, double t, const double *const blk[6],
                int event)
{
    size_t n = 0;
    rec[n++] = t;
    for (int b = 0; b < 6; b++) {
        const int isu = b == 0 || b == 3, isx = b == 5;
        const size_t nb = isu ? c->nu : isx ? c->nx : c->ny;
        const unsigned char *sel = isu ? c->usel : isx ? c->xsel : c->ysel;
        for (size_t k = 0; k < nb; k++)
            if (sel[k])
                rec[n++] = blk[b] ? blk[b][k] : b == 3 ? 0.0 : NAN;
    }
    if (event >= 0)
        rec[n++] = event;
    tw_record(w, rec, n);
}

/* The comment header of the trajectory file: the run's settings. */
static void header(FILE *f, const cli_model *cm, const sim_csv *c, const char *scheme,
                   const char *integ, const char *refdesc, double dt, double tend,
                   const cosa_cosim_result *r)
{
    const cosa_model *m = cm->model;
    const double *par = cm->par;
    fprintf(f, "# cosa %s simulate\n# model %s\n", cosa_version(), m->name);
    char b1[32], b2[32]; /* settings: the shortest form that reads back (cosa_number_text) */
    for (size_t i = 0; i < m->nparam; i++)
        fprintf(f, "# param %s %s\n", m->params[i].name, cosa_number_text(b1, sizeof b1, par[i]));
    cli_assume_print(f, "# ", cm);
    fprintf(f, "# scheme %s\n# integrator %s\n# reference %s\n", scheme, integ, refdesc);
    fprintf(f, "# dt %s\n# tend %s\n# steps %zu of %zu\n", cosa_number_text(b1, sizeof b1, dt),
            cosa_number_text(b2, sizeof b2, tend), r->ndone, r->nsteps);
    if (c->every > 1)
        fprintf(f, "# output-interval %s (every %zu macro points, and the last)\n",
                cosa_number_text(b1, sizeof b1, (double)c->every * dt), c->every);
    if (r->diverged)
        fprintf(f, "# status diverged t=%.15g (%s)\n", r->t_diverged, r->reason);
    else
        fprintf(f, "# status ok\n");
    fprintf(f, "# e_global %.17g\n", r->e_global);
    fprintf(f, "# columns: t [s]; u.SUB.NAME input at the start of the macro step (L ybar + du); "
               "y.SUB.NAME raw outputs; ybar.* corrected outputs; du.* state-correction offsets; "
               "ref.* monolithic reference outputs; x.SUB.NAME unit states (--outputs)\n");
}

/* The records: one per selected macro point, the event points among them. */
static void records(tw *w, double *rec, const sim_csv *c, const cosa_cosim_result *r)
{
    const cosa_cosim_events *ev = r->events;
    const size_t nu = c->nu, ny = c->ny, nx = c->nx;
    size_t k = 0; /* the next event point */
    for (size_t n = 0; n <= r->ndone; n++) {
        /* the event points before grid point n (every one: communication points) */
        for (; ev && k < ev->n && ev->t[k] < r->t[n]; k++) {
            const double *blk[6] = {ev->u + k * nu, ev->y + k * ny, ev->ybar + k * ny, NULL,
                                    NULL, ev->x + k * nx};
            row(w, rec, c, ev->t[k], blk, 1);
        }
        if (n % c->every != 0 && n != r->ndone)
            continue;
        const double *blk[6] = {r->u + n * nu, r->y + n * ny, r->ybar + n * ny, r->du + n * nu,
                                r->yref + n * ny, r->x + n * nx};
        row(w, rec, c, r->t[n], blk, ev ? ev->grid[n] : -1);
    }
    for (; ev && k < ev->n; k++) { /* after the last grid point reached (a failed step) */
        const double *blk[6] = {ev->u + k * nu, ev->y + k * ny, ev->ybar + k * ny, NULL, NULL,
                                ev->x + k * nx};
        row(w, rec, c, ev->t[k], blk, 1);
    }
}

int sim_csv_write(const char *cmd, const char *path, const char *jpath, const cli_model *cm,
                  const sim_csv *c, const char *scheme, const char *integ, const char *refdesc,
                  double dt, double tend, const cosa_cosim_result *r)
{
    /* the event flag: the last column, the others keep their places */
    const size_t ncol = 2 + 2 * c->nu + 3 * c->ny + c->nx, bufsize = 64 * ncol + 4096;
    const char **names = malloc(ncol * sizeof *names);
    char *buf = malloc(bufsize);
    double *rec = malloc(ncol * sizeof *rec);
    size_t n = 0;
    int rc = CLI_OK;
    if (!names || !buf || !rec || column_names(c, r->events != NULL, names, &n, buf, bufsize)) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    for (int pass = 0; rc == CLI_OK && pass < (jpath ? 2 : 1); pass++) {
        const char *p = pass ? jpath : path;
        outfile of;
        tw w;
        FILE *f = outfile_open(&of, p, 0);
        if (!f) {
            cli_error(cmd, "cannot write '%s': %s", p, strerror(errno));
            rc = CLI_EFAIL;
            break;
        }
        if (tw_begin(&w, f, pass ? TW_JSON : TW_TEXT, TW_DATA, cmd, NULL, NULL) != 0) {
            outfile_abandon(&of);
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
            break;
        }
        tw_csv(&w);
        header(tw_stream(&w), cm, c, scheme, integ, refdesc, dt, tend, r);
        tw_columns(&w, names, n, NULL);
        records(&w, rec, c, r);
        if (tw_end(&w) != 0 && errno == ENOMEM) {
            outfile_abandon(&of);
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
        } else if (outfile_commit(&of) != 0) { /* a failed write: named here */
            cli_error(cmd, "cannot write '%s': %s", p, strerror(errno));
            rc = CLI_EFAIL;
        }
    }
    free(names);
    free(buf);
    free(rec);
    return rc;
}
