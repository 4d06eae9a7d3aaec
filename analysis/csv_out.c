/* csv_out.c -- a CSV data file on the table writer (csv_out.h). */
#include "csv_out.h"

#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int csv_out_open(csv_out *c, const char *cmd, const char *path)
{
    if (csv_out_open_text(c, cmd, path) != 0)
        return -1;
    tw_csv(&c->w);
    return 0;
}

int csv_out_open_text(csv_out *c, const char *cmd, const char *path)
{
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->path = path;
    FILE *f = outfile_open(&c->of, path, 0);
    if (!f) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    if (tw_begin(&c->w, f, TW_TEXT, TW_DATA, cmd, NULL, NULL) != 0) {
        outfile_abandon(&c->of);
        cli_error(cmd, "out of memory");
        return -1;
    }
    return 0;
}

FILE *csv_out_stream(csv_out *c) { return tw_stream(&c->w); }

static void names_vadd(csv_names *l, const char *fmt, va_list ap)
{
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            l->err = 1;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    va_list aq;
    va_copy(aq, ap);
    const int len = vsnprintf(NULL, 0, fmt, ap);
    char *t = len < 0 ? NULL : malloc((size_t)len + 1);
    if (t) {
        vsnprintf(t, (size_t)len + 1, fmt, aq);
        l->v[l->n++] = t;
    } else {
        l->err = 1;
    }
    va_end(aq);
}

void csv_names_add(csv_names *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    names_vadd(l, fmt, ap);
    va_end(ap);
}

void csv_names_free(csv_names *l)
{
    for (size_t k = 0; k < l->n; k++)
        free(l->v[k]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

void csv_out_name(csv_out *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    names_vadd(&c->names, fmt, ap);
    va_end(ap);
}

int csv_out_columns(csv_out *c)
{
    c->n = c->names.n;
    if (c->names.err || (!c->err && !(c->rec = malloc((c->n ? c->n : 1) * sizeof *c->rec))))
        c->err = 1;
    if (c->err)
        return -1;
    tw_columns(&c->w, (const char *const *)c->names.v, c->n, NULL);
    return 0;
}

void csv_out_record(csv_out *c) { tw_record(&c->w, c->rec, c->n); }

void csv_out_words(csv_out *c, const char *const *cells) { tw_record_words(&c->w, cells, c->n); }

void csv_out_block_end(csv_out *c) { tw_block_end(&c->w); }

int csv_out_close(csv_out *c, int rc)
{
    if (rc == CLI_OK && (c->err || c->names.err)) {
        cli_error(c->cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    if (rc != CLI_OK) {
        tw_abandon(&c->w);
        outfile_abandon(&c->of);
    } else if (tw_end(&c->w) != 0 && errno == ENOMEM) {
        outfile_abandon(&c->of);
        cli_error(c->cmd, "out of memory");
        rc = CLI_EFAIL;
    } else if (outfile_commit(&c->of) != 0) { /* a failed write: named here */
        cli_error(c->cmd, "cannot write '%s': %s", c->path, strerror(errno));
        rc = CLI_EFAIL;
    }
    csv_names_free(&c->names);
    free(c->rec);
    return rc;
}
