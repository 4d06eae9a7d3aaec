/* table_writer.c -- the one writer of the commands' data: text, binary and
 * JSON back ends (table_writer.h). */
#include "config.h"
#include "table_writer.h"
#include "cli.h"

#include <ctype.h>
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

/* ---- JSON pieces ----------------------------------------------------------- */

void tw_json_string(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void tw_json_double(FILE *f, double v)
{
    if (isnan(v))
        fputs("\"nan\"", f);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
    else
        fprintf(f, "%.17g", v);
}

int tw_is_number(const char *t, size_t n, double *v)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return 0;
    memcpy(buf, t, n);
    buf[n] = '\0';
    char *end = NULL;
    *v = strtod(buf, &end);
    return end == buf + n;
}

/* The JSON number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_json_number(const char *t, size_t n)
{
    size_t i = 0;
    if (i < n && t[i] == '-')
        i++;
    if (i < n && t[i] == '0')
        i++;
    else if (i < n && t[i] >= '1' && t[i] <= '9')
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
    else
        return 0;
    if (i < n && t[i] == '.') {
        const size_t d = ++i;
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        const size_t d = i;
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

void tw_json_word(FILE *f, const char *t, size_t n)
{
    double v = 0.0;
    tw_is_number(t, n, &v);
    if (isfinite(v) && is_json_number(t, n))
        fwrite(t, 1, n, f);
    else
        tw_json_double(f, v); /* the same double, in JSON's spelling */
}

/* The next word of s[*i..n): its start and length; 0 at the end. */
static int next_word(const char *s, size_t n, size_t *i, const char **t, size_t *len)
{
    while (*i < n && isspace((unsigned char)s[*i]))
        (*i)++;
    if (*i == n)
        return 0;
    *t = s + *i;
    while (*i < n && !isspace((unsigned char)s[*i]))
        (*i)++;
    *len = (size_t)(s + *i - *t);
    return 1;
}

void tw_json_value(FILE *f, const char *s, size_t n)
{
    const char *t;
    size_t len, words = 0, numbers = 0, i = 0;
    double v;
    while (next_word(s, n, &i, &t, &len)) {
        words++;
        numbers += (size_t)tw_is_number(t, len, &v);
    }
    i = 0;
    if (words == 0) {
        fputs("null", f);
    } else if (numbers < words) {
        next_word(s, n, &i, &t, &len);
        tw_json_string(f, t, (size_t)(s + n - t));
    } else {
        fputs(words > 1 ? "[" : "", f);
        for (size_t k = 0; next_word(s, n, &i, &t, &len); k++) {
            fputs(k ? ", " : "", f);
            tw_json_word(f, t, len);
        }
        fputs(words > 1 ? "]" : "", f);
    }
}

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
    return 0;
}

FILE *tw_stream(tw *w)
{
    return w->fmt == TW_JSON ? w->lines : w->f;
}

static void add_comment(tw *w, const char *s, size_t n)
{
    fputs(w->ncom++ ? ",\n    " : "\n    ", w->com);
    tw_json_string(w->com, s, n);
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
        } else if (next_word(s, e, &i, &t, &len)) {
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

void tw_table(tw *w, const char *const *names, size_t n)
{
    drain(w);
    w->ncol = n;
    w->nrow = 0;
    if (w->fmt != TW_JSON) {
        for (size_t c = 0; c < n; c++)
            fprintf(w->f, "%s%s", c ? " " : "", names[c]);
        fputc('\n', w->f);
        return;
    }
    fputs(w->ntab++ ? "]},\n    {\"columns\": [" : "\n    {\"columns\": [", w->tab);
    for (size_t c = 0; c < n; c++) {
        fputs(c ? ", " : "", w->tab);
        tw_json_string(w->tab, names[c], strlen(names[c]));
    }
    fputs("], \"rows\": [", w->tab);
}

static void json_array(FILE *f, const double *v, size_t n)
{
    fputc('[', f);
    for (size_t c = 0; c < n; c++) {
        fputs(c ? ", " : "", f);
        tw_json_double(f, v[c]);
    }
    fputc(']', f);
}

/* JSON: the stream of the current table's next row, after its separator */
static FILE *json_next_row(tw *w)
{
    fputs(w->nrow++ ? ",\n      " : "\n      ", w->tab);
    return w->tab;
}

/* JSON: the stream of a data file's next record, after its separator */
static FILE *json_next_record(tw *w)
{
    fputs(w->nrec ? ",\n    " : "\n    ", w->f);
    return w->f;
}

void tw_row(tw *w, const double *v, size_t n)
{
    if (w->fmt != TW_JSON)
        printf_record(w->f, v, n, ' ');
    else
        json_array(json_next_row(w), v, n);
}

void tw_csv(tw *w)
{
    w->csv = 1;
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

/* JSON: the document up to the value of its last member's name. */
static void json_head(tw *w)
{
    fflush(w->com);
    fputs("{\n  \"command\": ", w->f);
    tw_json_string(w->f, w->cmd, strlen(w->cmd));
    fputs(",\n  \"comments\": [", w->f);
    if (w->com_len)
        fwrite(w->com_buf, 1, w->com_len, w->f);
    fputs(w->ncom ? "\n  ],\n" : "],\n", w->f);
    w->head_done = 1;
}

void tw_columns(tw *w, const char *const *names, size_t n, const char *suffix)
{
    drain(w);
    w->ncol = n;
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
    fputs("  \"columns\": [", w->f);
    for (size_t c = 0; c < n; c++) {
        fputs(c ? ", " : "", w->f);
        tw_json_string(w->f, names[c], strlen(names[c]));
    }
    fputs("],\n  \"records\": [", w->f);
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
        json_array(json_next_record(w), v, n);
        break;
    }
    w->nrec++;
}

/* JSON: an array of the cells, numbers as numbers, other words as strings */
static void json_words(FILE *f, const char *const *cells, size_t n)
{
    fputc('[', f);
    for (size_t c = 0; c < n; c++) {
        const size_t len = strlen(cells[c]);
        double v;
        fputs(c ? ", " : "", f);
        if (tw_is_number(cells[c], len, &v))
            tw_json_word(f, cells[c], len);
        else
            tw_json_string(f, cells[c], len);
    }
    fputc(']', f);
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
        json_words(json_next_record(w), cells, n);
    }
    w->nrec++;
}

void tw_row_words(tw *w, const char *const *cells, size_t n)
{
    if (w->fmt != TW_JSON)
        text_words(w->f, cells, n, ' ');
    else
        json_words(json_next_row(w), cells, n);
}

void tw_block_end(tw *w)
{
    if (w->fmt == TW_TEXT)
        fputc('\n', w->f);
}

/* JSON report: the fields (a name given again: the array of its values). */
static void json_fields(tw *w)
{
    FILE *f = w->f;
    fputs("  \"fields\": {", f);
    int first = 1;
    for (size_t i = 0; i < w->nfld; i++) {
        size_t count = 0, seen = 0;
        for (size_t j = 0; j < w->nfld; j++)
            if (strcmp(w->fld[i].name, w->fld[j].name) == 0)
                seen |= j < i, count++;
        if (seen) /* written with its first */
            continue;
        fputs(first ? "\n    " : ",\n    ", f);
        first = 0;
        tw_json_string(f, w->fld[i].name, strlen(w->fld[i].name));
        fputs(count > 1 ? ": [" : ": ", f);
        for (size_t j = i, k = 0; j < w->nfld; j++)
            if (strcmp(w->fld[i].name, w->fld[j].name) == 0) {
                fputs(k++ ? ", " : "", f);
                tw_json_value(f, w->fld[j].value, strlen(w->fld[j].value));
            }
        fputs(count > 1 ? "]" : "", f);
    }
    fputs(first ? "},\n" : "\n  },\n", f);
}

static void json_end(tw *w)
{
    drain(w);
    if (w->kind == TW_DATA) {
        if (!w->head_done)
            tw_columns(w, NULL, 0, NULL);
        fputs(w->nrec ? "\n  ]\n}\n" : "]\n}\n", w->f);
        return;
    }
    json_head(w);
    json_fields(w);
    fflush(w->tab);
    fputs("  \"tables\": [", w->f);
    if (w->tab_len)
        fwrite(w->tab_buf, 1, w->tab_len, w->f);
    fputs(w->ntab ? "]}\n  ]\n}\n" : "]\n}\n", w->f);
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
