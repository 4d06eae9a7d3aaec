/* ref_csv.c -- a reference trajectory from a CSV file (`cosa simulate --ref
 * FILE.csv`): header row, columns matched by name, rows of numbers. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "ref_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Split line (modified) at commas into at most max fields, blanks and one
 * pair of double quotes around each removed; returns the count. */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *end = strchr(p, ',');
        if (end)
            *end = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strlen(p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r' ||
                       p[len - 1] == '\n'))
            p[--len] = '\0';
        if (len >= 2 && p[0] == '"' && p[len - 1] == '"') {
            p[len - 1] = '\0';
            p++;
        }
        if (n < max)
            f[n] = p;
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

/* Column of name (with the prefix pre, or without one if pre is NULL), or -1. */
static long column(char *const *h, size_t nh, const char *pre, const char *name)
{
    const size_t lp = pre ? strlen(pre) : 0;
    for (size_t c = 0; c < nh; c++)
        if ((!pre || strncmp(h[c], pre, lp) == 0) && strcmp(h[c] + lp, name) == 0)
            return (long)c;
    return -1;
}

/* Column of "x.SUB.NAME" or (NAME unique) "x.NAME" for state k. */
static long state_column(char *const *h, size_t nh, const ref_csv_names *nm, size_t k)
{
    for (size_t c = 0; nm->xsub[k] && c < nh; c++) {
        const char *s = h[c];
        size_t ls = strlen(nm->xsub[k]);
        if (strncmp(s, "x.", 2) == 0 && strncmp(s + 2, nm->xsub[k], ls) == 0 && s[2 + ls] == '.' &&
            strcmp(s + 3 + ls, nm->x[k]) == 0)
            return (long)c;
    }
    for (size_t j = 0; j < nm->nx; j++)
        if (j != k && strcmp(nm->x[j], nm->x[k]) == 0)
            return -1; /* ambiguous without the subsystem */
    return column(h, nh, "x.", nm->x[k]);
}

/* Column of output k: "ref.SUB.NAME" or "SUB.NAME", else (NAME unique among
 * the outputs) "ref.NAME" or "NAME". */
static long output_column(char *const *h, size_t nh, const ref_csv_names *nm, size_t k)
{
    const char *sub = nm->ysub ? nm->ysub[k] : NULL;
    const size_t ls = sub ? strlen(sub) : 0;
    for (int pass = 0; sub && pass < 2; pass++)
        for (size_t c = 0; c < nh; c++) {
            const char *s = h[c] + (pass == 0 ? 4 : 0);
            if ((pass == 1 || strncmp(h[c], "ref.", 4) == 0) && strncmp(s, sub, ls) == 0 &&
                s[ls] == '.' && strcmp(s + ls + 1, nm->y[k]) == 0)
                return (long)c;
        }
    for (size_t j = 0; j < nm->ny; j++)
        if (j != k && strcmp(nm->y[j], nm->y[k]) == 0)
            return -1; /* ambiguous without the subsystem */
    const long c = column(h, nh, "ref.", nm->y[k]);
    return c >= 0 ? c : column(h, nh, NULL, nm->y[k]);
}

static void no_output_column(const char *cmd, const char *path, size_t lineno,
                             const ref_csv_names *nm, size_t k)
{
    const char *sb = nm->ysub && nm->ysub[k] ? nm->ysub[k] : NULL;
    if (sb)
        cli_error(cmd, "--ref %s:%zu: no column for output '%s' of %s (named 'ref.%s.%s' or "
                       "'%s.%s', or where the name is unique 'ref.%s' or '%s')", path, lineno,
                  nm->y[k], sb, sb, nm->y[k], sb, nm->y[k], nm->y[k], nm->y[k]);
    else
        cli_error(cmd, "--ref %s:%zu: no column for output '%s' (named '%s' or 'ref.%s')", path,
                  lineno, nm->y[k], nm->y[k], nm->y[k]);
}

int ref_csv_read(const char *cmd, const char *path, const ref_csv_names *nm, double **t,
                 double **X, double **Y, size_t *n)
{
    *t = *X = *Y = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error(cmd, "--ref %s: cannot open: %s", path, strerror(errno));
        return CLI_EUSAGE; /* a file the user named, as --model-file and fmu-info */
    }
    int rc = CLI_EUSAGE;
    char *line = NULL, *hline = NULL, **h = NULL, **fld = NULL;
    size_t cap = 0, nh = 0, lineno = 0, hlineno = 0, rows = 0, rcap = 0;
    long *ycol = calloc(nm->ny + 1, sizeof *ycol), *xcol = calloc(nm->nx + 1, sizeof *xcol);
    double *tt = NULL, *xx = NULL, *yy = NULL;
    long tcol = -1;
    size_t nxfound = 0;
    if (!ycol || !xcol)
        goto nomem;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        const char *q = line + strspn(line, " \t\r\n");
        if (*q == '#' || *q == '\0')
            continue;
        if (!hline) { /* the header */
            if (!(hline = strdup(line)))
                goto nomem;
            hlineno = lineno;
            nh = 1;
            for (const char *c = hline; *c; c++)
                nh += *c == ',';
            h = calloc(nh + 1, sizeof *h);
            fld = calloc(nh + 1, sizeof *fld);
            if (!h || !fld)
                goto nomem;
            split(hline, h, nh);
            tcol = column(h, nh, NULL, "t");
            if (tcol < 0)
                tcol = column(h, nh, NULL, "time");
            if (tcol < 0) {
                cli_error(cmd, "--ref %s:%zu: no time column (a header row naming 't' or 'time' "
                               "first)", path, lineno);
                goto out;
            }
            for (size_t k = 0; k < nm->ny; k++) {
                ycol[k] = output_column(h, nh, nm, k);
                if (ycol[k] < 0) {
                    no_output_column(cmd, path, lineno, nm, k);
                    goto out;
                }
            }
            for (size_t k = 0; k < nm->nx; k++)
                nxfound += (xcol[k] = state_column(h, nh, nm, k)) >= 0;
            if (nxfound && nxfound < nm->nx) {
                size_t k = 0;
                while (xcol[k] >= 0)
                    k++;
                cli_error(cmd, "--ref %s:%zu: state columns for some states but not for '%s%s%s' "
                               "(give all states as x.SUB.NAME or none)", path, lineno,
                          nm->xsub[k] ? nm->xsub[k] : "", nm->xsub[k] ? "." : "", nm->x[k]);
                goto out;
            }
            continue;
        }
        size_t nf = split(line, fld, nh);
        if (nf != nh) {
            cli_error(cmd, "--ref %s:%zu: %zu fields, the header (line %zu) has %zu", path,
                      lineno, nf, hlineno, nh);
            goto out;
        }
        if (rows == rcap) {
            rcap = rcap ? 2 * rcap : 256;
            double *t2 = realloc(tt, rcap * sizeof *t2);
            if (t2)
                tt = t2;
            double *y2 = t2 ? realloc(yy, rcap * nm->ny * sizeof *y2) : NULL;
            if (y2)
                yy = y2;
            double *x2 = y2 ? realloc(xx, rcap * (nm->nx ? nm->nx : 1) * sizeof *x2) : NULL;
            if (x2)
                xx = x2;
            if (!x2)
                goto nomem;
        }
        double v;
        if (cli_parse_double(fld[tcol], &v) != 0) {
            cli_error(cmd, "--ref %s:%zu: time '%s' is not a finite number", path, lineno,
                      fld[tcol]);
            goto out;
        }
        if (rows && !(v > tt[rows - 1])) {
            cli_error(cmd, "--ref %s:%zu: time %s does not increase", path, lineno, fld[tcol]);
            goto out;
        }
        tt[rows] = v;
        for (size_t k = 0; k < nm->ny + (nxfound ? nm->nx : 0); k++) {
            const int isy = k < nm->ny;
            const long c = isy ? ycol[k] : xcol[k - nm->ny];
            if (cli_parse_double(fld[c], &v) != 0) {
                cli_error(cmd, "--ref %s:%zu: column '%s': '%s' is not a finite number", path,
                          lineno, h[c], fld[c]);
                goto out;
            }
            if (isy)
                yy[k + rows * nm->ny] = v;
            else
                xx[k - nm->ny + rows * nm->nx] = v;
        }
        rows++;
    }
    if (ferror(f)) {
        cli_error(cmd, "--ref %s: read error", path);
        rc = CLI_EFAIL;
        goto out;
    }
    if (!hline || rows < 2) {
        cli_error(cmd, "--ref %s: %s", path, !hline ? "no header row and no samples"
                                                    : "fewer than two samples");
        goto out;
    }
    *t = tt;
    *Y = yy;
    *X = nxfound ? xx : NULL;
    if (!nxfound)
        free(xx);
    tt = yy = xx = NULL;
    *n = rows;
    rc = CLI_OK;
    goto out;
nomem:
    cli_error(cmd, "out of memory");
    rc = CLI_EFAIL;
out:
    fclose(f);
    free(line);
    free(hline);
    free(h);
    free(fld);
    free(ycol);
    free(xcol);
    free(tt);
    free(xx);
    free(yy);
    return rc;
}
