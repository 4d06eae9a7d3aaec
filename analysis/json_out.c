/* json_out.c -- the JSON emitter of the commands (json_out.h). */
#include "json_out.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jo_init(json_out *j, FILE *f, int level)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->level = level;
}

static void indent(FILE *f, int level)
{
    for (int k = 0; k < level; k++)
        fputs("  ", f);
}

/* Before a value or a key: the separator of the innermost container. */
static void sep(json_out *j)
{
    if (j->key) {
        j->key = 0;
        return;
    }
    if (j->depth == 0)
        return;
    struct jo_frame *t = &j->st[j->depth - 1];
    if (t->layout == JO_INLINE) {
        fputs(t->n ? ", " : "", j->f);
    } else {
        fputs(t->n ? ",\n" : "\n", j->f);
        indent(j->f, t->level);
    }
    t->n++;
}

static void open_container(json_out *j, jo_layout layout, char open, char close)
{
    sep(j);
    if (j->depth == JO_MAX_DEPTH) {
        j->err = 1;
        return;
    }
    const int level = j->depth ? j->st[j->depth - 1].level : j->level;
    struct jo_frame *t = &j->st[j->depth++];
    t->layout = (unsigned char)layout;
    t->close = (unsigned char)close;
    t->level = layout == JO_INLINE ? level : level + 1;
    t->n = 0;
    fputc(open, j->f);
}

void jo_object(json_out *j, jo_layout layout) { open_container(j, layout, '{', '}'); }

void jo_array(json_out *j, jo_layout layout) { open_container(j, layout, '[', ']'); }

void jo_close(json_out *j)
{
    if (j->depth == 0) {
        j->err = 1;
        return;
    }
    const struct jo_frame *t = &j->st[--j->depth];
    if (t->layout == JO_BLOCK && t->n) {
        fputc('\n', j->f);
        indent(j->f, t->level - 1);
    }
    fputc(t->close, j->f);
}

int jo_end(json_out *j)
{
    while (j->depth)
        jo_close(j);
    fputc('\n', j->f);
    return j->err || ferror(j->f) ? -1 : 0;
}

size_t jo_count(const json_out *j) { return j->depth ? j->st[j->depth - 1].n : 0; }

static void put_string(FILE *f, const char *s, size_t n)
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

void jo_key(json_out *j, const char *name)
{
    sep(j);
    put_string(j->f, name, strlen(name));
    fputs(": ", j->f);
    j->key = 1;
}

void jo_string_n(json_out *j, const char *s, size_t n)
{
    sep(j);
    put_string(j->f, s, n);
}

void jo_string(json_out *j, const char *s)
{
    jo_string_n(j, s ? s : "", s ? strlen(s) : 0);
}

static void put_double(FILE *f, double v)
{
    if (isnan(v))
        fputs("\"nan\"", f);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "\"-inf\"", f);
    else
        fprintf(f, "%.17g", v);
}

void jo_double(json_out *j, double v)
{
    sep(j);
    put_double(j->f, v);
}

void jo_finite(json_out *j, double v)
{
    sep(j);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

void jo_int(json_out *j, long v)
{
    sep(j);
    fprintf(j->f, "%ld", v);
}

void jo_size(json_out *j, size_t v)
{
    sep(j);
    fprintf(j->f, "%zu", v);
}

void jo_bool(json_out *j, int b)
{
    sep(j);
    fputs(b ? "true" : "false", j->f);
}

void jo_null(json_out *j)
{
    sep(j);
    fputs("null", j->f);
}

void jo_raw(json_out *j, const char *text, size_t n)
{
    sep(j);
    if (n)
        fwrite(text, 1, n, j->f);
}

int jo_is_number(const char *t, size_t n, double *v)
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

void jo_word(json_out *j, const char *t, size_t n)
{
    double v = 0.0;
    jo_is_number(t, n, &v);
    sep(j);
    if (isfinite(v) && is_json_number(t, n))
        fwrite(t, 1, n, j->f);
    else
        put_double(j->f, v); /* the same double, in JSON's spelling */
}

int jo_next_word(const char *s, size_t n, size_t *i, const char **t, size_t *len)
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

void jo_text_value(json_out *j, const char *s, size_t n)
{
    const char *t;
    size_t len, words = 0, numbers = 0, i = 0;
    double v;
    while (jo_next_word(s, n, &i, &t, &len)) {
        words++;
        numbers += (size_t)jo_is_number(t, len, &v);
    }
    i = 0;
    if (words == 0) {
        jo_null(j);
    } else if (numbers < words) {
        jo_next_word(s, n, &i, &t, &len);
        jo_string_n(j, t, (size_t)(s + n - t));
    } else if (words == 1) {
        jo_next_word(s, n, &i, &t, &len);
        jo_word(j, t, len);
    } else {
        jo_array(j, JO_INLINE);
        while (jo_next_word(s, n, &i, &t, &len))
            jo_word(j, t, len);
        jo_close(j);
    }
}
