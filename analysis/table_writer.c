/* table_writer.c -- the one writer of the commands' data: text, binary and
 * JSON back ends (table_writer.h). */
#include "config.h"
#include "table_writer.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TW_CACHE_COLS 4
#define TW_CACHE_SLOTS 256
struct tw_cache {
    struct tw_cache_slot {
        uint64_t bits;
        int used;
        char text[32];
    } slot[TW_CACHE_COLS][TW_CACHE_SLOTS];
};

struct tw_item {
    char *name;
    char *value; /* the text form's value */
};

/* ---- the writer ------------------------------------------------------------ */

int tw_begin(tw *w, FILE *f, tw_format fmt, tw_kind kind, const char *cmd, FILE *bin,
             const char *binname)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->fmt = fmt;
    w->kind = kind;
    w->cmd = cmd;
    w->bin = bin;
    w->binname = binname;
    if (fmt != TW_JSON)
        return 0;
    w->lines = open_memstream(&w->lines_buf, &w->lines_len);
    w->com = open_memstream(&w->com_buf, &w->com_len);
    w->tab = open_memstream(&w->tab_buf, &w->tab_len);
    if (!w->lines || !w->com || !w->tab) {
        tw_abandon(w);
        return -1;
    }
    /* the comments and the tables go into the top object (block level 1) */
    jo_init(&w->jdoc, f, 0);
    jo_init(&w->jcom, w->com, 1);
    jo_array(&w->jcom, JO_BLOCK);
    jo_init(&w->jtab, w->tab, 1);
    jo_array(&w->jtab, JO_BLOCK);
    return 0;
}

FILE *tw_stream(tw *w)
{
    return w->fmt == TW_JSON ? w->lines : w->f;
}

static void add_comment(tw *w, const char *s, size_t n)
{
    jo_string_n(&w->jcom, s, n);
}

static void add_field(tw *w, const char *name, size_t nn, const char *value, size_t nv)
{
    if (w->nfld == w->capfld) {
        const size_t cap = w->capfld ? 2 * w->capfld : 16;
        tw_item *p = realloc(w->fld, cap * sizeof *p);
        if (!p) {
            w->err = 1;
            return;
        }
        w->fld = p;
        w->capfld = cap;
    }
    tw_item *x = &w->fld[w->nfld];
    x->name = strndup(name, nn);
    x->value = strndup(value, nv);
    if (!x->name || !x->value) {
        free(x->name);
        free(x->value);
        w->err = 1;
        return;
    }
    w->nfld++;
}

/* JSON: the lines printers wrote into tw_stream, as comments and fields. */
static void drain(tw *w)
{
    if (w->fmt != TW_JSON || !w->lines || fflush(w->lines) != 0 || w->lines_len == 0)
        return;
    const char *s = w->lines_buf;
    for (size_t b = 0; b < w->lines_len;) {
        const char *nl = memchr(s + b, '\n', w->lines_len - b);
        const size_t e = nl ? (size_t)(nl - s) : w->lines_len;
        size_t i = b;
        const char *t;
        size_t len;
        if (s[b] == '#') { /* the text after '#' and its blanks */
            while (++i < e && s[i] == ' ')
                ;
            add_comment(w, s + i, e - i);
        } else if (jo_next_word(s, e, &i, &t, &len)) {
            add_field(w, t, len, s + i, e - i);
        }
        b = e + 1;
    }
    rewind(w->lines);
    w->lines_len = 0;
}

/* A comment (name NULL) or a field, its text formatted from fmt: in the
 * text form now, in JSON's lists for the end.  Any length (a long list of
 * crossings is one field). */
static void put_item(tw *w, const char *name, const char *fmt, va_list ap)
{
    char small[256], *buf = small;
    va_list aq;
    va_copy(aq, ap);
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0 || ((size_t)n >= sizeof small && !(buf = malloc((size_t)n + 1)))) {
        va_end(aq);
        w->err = 1;
        return;
    }
    if (buf != small)
        vsnprintf(buf, (size_t)n + 1, fmt, aq);
    va_end(aq);
    drain(w);
    if (w->fmt == TW_JSON && !name)
        add_comment(w, buf, (size_t)n);
    else if (w->fmt == TW_JSON)
        add_field(w, name, strlen(name), buf, (size_t)n);
    else if (!name)
        fprintf(w->f, "# %s\n", buf);
    else
        fprintf(w->f, *buf ? "%s %s\n" : "%s%s\n", name, buf);
    if (buf != small)
        free(buf);
}

void tw_comment(tw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_item(w, NULL, fmt, ap);
    va_end(ap);
}

void tw_field(tw *w, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_item(w, name, fmt, ap);
    va_end(ap);
}

void tw_field_num(tw *w, const char *name, double v)
{
    char b[32];
    md_num(b, sizeof b, v);
    tw_field(w, name, "%s", b);
}

/* A line of numbers with printf's %.17g (a NaN with its sign bit is
 * "-nan"), joined by sep: the rows of reports and CSV files. */
static void printf_record(FILE *f, const double *v, size_t n, char sep)
{
    for (size_t c = 0; c < n; c++) {
        if (c)
            fputc(sep, f);
        fprintf(f, "%.17g", v[c]);
    }
    fputc('\n', f);
}

/* The text of v (md_num) in column c: from the column's cache when the
 * value was seen (a map's x, y and dt come again and again: formatting is
 * most of the cost of writing a large map), else formatted and cached. */
static const char *cached_num(tw *w, size_t c, double v, char *b)
{
    if (c >= TW_CACHE_COLS || (!w->cache && !(w->cache = calloc(1, sizeof *w->cache)))) {
        md_num(b, 32, v);
        return b;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    const size_t h = (size_t)((bits * 0x9E3779B97F4A7C15u) >> 56) % TW_CACHE_SLOTS;
    struct tw_cache_slot *e = &w->cache->slot[c][h];
    if (!e->used || e->bits != bits) {
        md_num(e->text, sizeof e->text, v);
        e->bits = bits;
        e->used = 1;
    }
    return e->text;
}

/* A record in the text form: a CSV line, or md_num's words. */
static void text_record(tw *w, const double *v, size_t n)
{
    if (w->csv) {
        printf_record(w->f, v, n, ',');
        return;
    }
    for (size_t c = 0; c < n; c++) {
        char b[32];
        if (c)
            fputc(' ', w->f);
        fputs(cached_num(w, c, v[c], b), w->f);
    }
    fputc('\n', w->f);
}

/* JSON: the open table of a report (its rows array and its object) closed */
static void json_table_close(tw *w)
{
    if (w->jtab.depth > 1) {
        jo_close(&w->jtab); /* "rows" */
        jo_close(&w->jtab); /* the table */
    }
}

/* JSON: the strings names[0..n) as an inline array. */
static void json_names(json_out *j, const char *const *names, size_t n)
{
    jo_array(j, JO_INLINE);
    for (size_t c = 0; c < n; c++)
        jo_string(j, names[c]);
    jo_close(j);
}

void tw_table(tw *w, const char *const *names, size_t n)
{
    drain(w);
    w->ncell = 0;
    if (w->fmt == TW_JSON) {
        json_table_close(w);
        jo_object(&w->jtab, JO_INLINE);
        jo_key(&w->jtab, "columns");
        json_names(&w->jtab, names, n);
        jo_key(&w->jtab, "rows");
        jo_array(&w->jtab, JO_TIGHT);
    } else if (w->npad && !w->md && !w->csv) {
        for (size_t c = 0; c < n; c++)
            tw_cell(w, names[c]);
        tw_row_end(w);
    } else if (w->md) { /* "| a | b |" and "|---|---|" */
        fputc('|', w->f);
        for (size_t c = 0; c < n; c++)
            fprintf(w->f, " %s |", names[c]);
        fputs("\n|", w->f);
        for (size_t c = 0; c < n; c++)
            fputs("---|", w->f);
        fputc('\n', w->f);
    } else {
        const char sep = w->csv ? ',' : ' ';
        for (size_t c = 0; c < n; c++) {
            if (c)
                fputc(sep, w->f);
            fputs(names[c], w->f);
        }
        fputc('\n', w->f);
    }
}

/* JSON: v[0..n) as an inline array of numbers. */
static void json_array(json_out *j, const double *v, size_t n)
{
    jo_array(j, JO_INLINE);
    for (size_t c = 0; c < n; c++)
        jo_double(j, v[c]);
    jo_close(j);
}

/* JSON: a formatted cell, a number as a number, another word as a string */
static void json_cell(json_out *j, const char *cell)
{
    const size_t len = strlen(cell);
    double v;
    if (jo_is_number(cell, len, &v))
        jo_word(j, cell, len);
    else
        jo_string_n(j, cell, len);
}

/* The text form's padded cell (tw_padded): the lead or a blank, then the
 * cell in its width. */
static void padded_cell(tw *w, const char *text)
{
    const int width = w->pad[w->ncell < w->npad ? w->ncell : w->npad - 1];
    fprintf(w->f, "%s%-*s", w->ncell ? " " : w->pad_lead, width, text);
}

void tw_cell(tw *w, const char *text)
{
    if (w->fmt == TW_JSON) {
        if (w->ncell == 0)
            jo_array(&w->jtab, JO_INLINE);
        json_cell(&w->jtab, text);
    } else if (w->npad && !w->md && !w->csv) {
        padded_cell(w, text);
    } else if (w->md) {
        fprintf(w->f, w->ncell ? " %s |" : "| %s |", text);
    } else {
        if (w->ncell)
            fputc(w->csv ? ',' : ' ', w->f);
        fputs(text, w->f);
    }
    w->ncell++;
}

void tw_row_end(tw *w)
{
    if (w->fmt == TW_JSON) {
        if (w->ncell == 0)
            jo_array(&w->jtab, JO_INLINE);
        jo_close(&w->jtab);
    } else {
        fputc('\n', w->f);
    }
    w->ncell = 0;
}

void tw_row(tw *w, const double *v, size_t n)
{
    if (w->fmt == TW_JSON) {
        json_array(&w->jtab, v, n);
    } else if (w->md || w->npad) {
        for (size_t c = 0; c < n; c++) {
            char b[32];
            snprintf(b, sizeof b, "%.17g", v[c]);
            tw_cell(w, b);
        }
        tw_row_end(w);
    } else {
        printf_record(w->f, v, n, w->csv ? ',' : ' ');
    }
}

void tw_padded(tw *w, const char *lead, const int *width, size_t n)
{
    if (n == 0 || n > TW_PAD_MAX)
        return;
    w->pad_lead = lead ? lead : "";
    memcpy(w->pad, width, n * sizeof *width);
    w->npad = n;
}

void tw_csv(tw *w)
{
    w->csv = 1;
}

void tw_markdown(tw *w)
{
    w->md = 1;
}

void tw_prose(tw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (w->fmt != TW_JSON) {
        vfprintf(w->f, fmt, ap);
        va_end(ap);
        return;
    }
    va_list aq;
    va_copy(aq, ap);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    char *buf = n < 0 ? NULL : malloc((size_t)n + 1);
    if (buf)
        vsnprintf(buf, (size_t)n + 1, fmt, aq);
    va_end(aq);
    va_end(ap);
    if (!buf) {
        w->err = 1;
        return;
    }
    drain(w);
    for (const char *p = buf; *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len)
            add_comment(w, p, len);
        p += len + (e ? 1 : 0);
    }
    free(buf);
}

int tw_capture_stdout(tw *w)
{
    if (w->fmt != TW_JSON || !w->lines || w->saved_stdout)
        return w->fmt == TW_JSON && !w->lines ? -1 : 0;
    fflush(stdout);
    w->saved_stdout = stdout;
    stdout = w->lines;
    return 0;
}

/* stdout back after tw_capture_stdout. */
static void release_stdout(tw *w)
{
    if (!w->saved_stdout)
        return;
    fflush(stdout);
    stdout = w->saved_stdout;
    w->saved_stdout = NULL;
}

void tw_shape(tw *w, const md_shape *s)
{
    w->shape = *s;
}

/* JSON: the document's top object opened, its command and comments. */
static void json_head(tw *w)
{
    jo_close(&w->jcom);
    fflush(w->com);
    jo_object(&w->jdoc, JO_BLOCK);
    jo_key(&w->jdoc, "command");
    jo_string(&w->jdoc, w->cmd);
    jo_key(&w->jdoc, "comments");
    jo_raw(&w->jdoc, w->com_buf, w->com_len);
    w->head_done = 1;
}

void tw_columns(tw *w, const char *const *names, size_t n, const char *suffix)
{
    drain(w);
    if (w->fmt != TW_JSON && w->csv) {
        for (size_t c = 0; c < n; c++)
            fprintf(w->f, c ? ",%s" : "%s", names[c]);
        fputc('\n', w->f);
        return;
    }
    if (w->fmt != TW_JSON) {
        fputs("# columns:", w->f);
        for (size_t c = 0; c < n; c++)
            fprintf(w->f, " %s", names[c]);
        fprintf(w->f, "%s\n", suffix ? suffix : "");
        if (w->fmt == TW_BIN)
            md_binary_line(w->f, w->binname, &w->shape);
        return;
    }
    json_head(w);
    jo_key(&w->jdoc, "columns");
    json_names(&w->jdoc, names, n);
    jo_key(&w->jdoc, "records");
    jo_array(&w->jdoc, JO_BLOCK);
}

void tw_record(tw *w, const double *v, size_t n)
{
    switch (w->fmt) {
    case TW_TEXT:
        md_text_separator(w->f, &w->shape, w->nrec);
        text_record(w, v, n);
        break;
    case TW_BIN:
        if (fwrite(v, sizeof *v, n, w->bin) != n)
            w->err = 1;
        break;
    case TW_JSON:
        json_array(&w->jdoc, v, n);
        break;
    }
    w->nrec++;
}

/* JSON: an array of the cells, numbers as numbers, other words as strings */
static void json_words(json_out *j, const char *const *cells, size_t n)
{
    jo_array(j, JO_INLINE);
    for (size_t c = 0; c < n; c++)
        json_cell(j, cells[c]);
    jo_close(j);
}

static void text_words(FILE *f, const char *const *cells, size_t n, char sep)
{
    for (size_t c = 0; c < n; c++) {
        if (c)
            fputc(sep, f);
        fputs(cells[c], f);
    }
    fputc('\n', f);
}

void tw_record_words(tw *w, const char *const *cells, size_t n)
{
    if (w->fmt == TW_BIN) {
        w->err = 1; /* no binary form of a word */
    } else if (w->fmt == TW_TEXT) {
        md_text_separator(w->f, &w->shape, w->nrec);
        text_words(w->f, cells, n, w->csv ? ',' : ' ');
    } else {
        json_words(&w->jdoc, cells, n);
    }
    w->nrec++;
}

void tw_row_words(tw *w, const char *const *cells, size_t n)
{
    w->ncell = 0;
    for (size_t c = 0; c < n; c++)
        tw_cell(w, cells[c]);
    tw_row_end(w);
}

void tw_block_end(tw *w)
{
    if (w->fmt == TW_TEXT)
        fputc('\n', w->f);
}

/* JSON report: the fields (a name given again: the array of its values). */
static void json_fields(tw *w)
{
    json_out *j = &w->jdoc;
    jo_key(j, "fields");
    jo_object(j, JO_BLOCK);
    for (size_t i = 0; i < w->nfld; i++) {
        size_t count = 0, seen = 0;
        for (size_t k = 0; k < w->nfld; k++)
            if (strcmp(w->fld[i].name, w->fld[k].name) == 0)
                seen |= k < i, count++;
        if (seen) /* written with its first */
            continue;
        jo_key(j, w->fld[i].name);
        if (count > 1)
            jo_array(j, JO_INLINE);
        for (size_t k = i; k < w->nfld; k++)
            if (strcmp(w->fld[i].name, w->fld[k].name) == 0)
                jo_text_value(j, w->fld[k].value, strlen(w->fld[k].value));
        if (count > 1)
            jo_close(j);
    }
    jo_close(j);
}

static void json_end(tw *w)
{
    drain(w);
    if (w->kind == TW_DATA) {
        if (!w->head_done)
            tw_columns(w, NULL, 0, NULL);
        jo_close(&w->jdoc); /* "records" */
    } else {
        json_head(w);
        json_fields(w);
        json_table_close(w);
        jo_close(&w->jtab);
        fflush(w->tab);
        jo_key(&w->jdoc, "tables");
        jo_raw(&w->jdoc, w->tab_buf, w->tab_len);
    }
    /* (a failed write is the stream's error flag, which tw_end checks) */
    if (jo_end(&w->jdoc) != 0 && (w->jdoc.err || w->jcom.err || w->jtab.err))
        w->err = 1;
}

int tw_end(tw *w)
{
    release_stdout(w);
    if (w->fmt == TW_JSON && !w->err)
        json_end(w);
    const int err = w->err;
    errno = 0;
    tw_abandon(w);
    int bad = err;
    if (w->bin && (fflush(w->bin) != 0 || ferror(w->bin)))
        bad = 1;
    /* stdout is flushed by outfile_close_stdout, which names the reason of
     * a failed write (a flush here would leave it nothing to report but the
     * error flag) */
    if (w->f == stdout ? ferror(w->f) != 0 : fflush(w->f) != 0 || ferror(w->f))
        bad = 1;
    if (!bad)
        return 0;
    if (err)
        errno = ENOMEM;
    else if (errno == 0)
        errno = EIO;
    return -1;
}

void tw_abandon(tw *w)
{
    release_stdout(w);
    FILE **s[3] = {&w->lines, &w->com, &w->tab};
    char **b[3] = {&w->lines_buf, &w->com_buf, &w->tab_buf};
    for (int k = 0; k < 3; k++) {
        if (*s[k])
            fclose(*s[k]);
        *s[k] = NULL;
        free(*b[k]);
        *b[k] = NULL;
    }
    for (size_t i = 0; i < w->nfld; i++) {
        free(w->fld[i].name);
        free(w->fld[i].value);
    }
    free(w->fld);
    w->fld = NULL;
    free(w->cache);
    w->cache = NULL;
    w->nfld = w->capfld = 0;
}

int tw_finish(tw *w, const char *cmd, int rc)
{
    if (!w->f)
        return rc;
    if (rc != CLI_OK) {
        tw_abandon(w);
        return rc;
    }
    if (tw_end(w) != 0 && errno == ENOMEM) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    return rc;
}
