/* json_out.c -- the text form of a command as one JSON document
 * (json_out.h). */
#include "config.h"
#include "json_out.h"
#include "cli.h"
#include "table_writer.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int json_capture_begin(json_capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->mem = open_memstream(&c->buf, &c->len);
    if (!c->mem)
        return -1;
    fflush(stdout);
    c->saved = stdout;
    stdout = c->mem;
    return 0;
}

int json_capture_end(json_capture *c, const char *cmd, int rc)
{
    if (!c->mem)
        return rc;
    stdout = c->saved;
    int bad = fclose(c->mem) != 0;
    if (!bad && rc == CLI_OK)
        bad = json_from_text(stdout, cmd, c->buf, c->len) != 0;
    free(c->buf);
    c->buf = NULL;
    c->mem = NULL;
    if (bad && rc == CLI_OK) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    return rc;
}

/* ---- the words of a line ------------------------------------------------- */

#define MAXTOK 64

struct line {
    const char *s; /* the line, without its newline */
    size_t n;
    const char *tok[MAXTOK];
    size_t tlen[MAXTOK];
    size_t ntok; /* MAXTOK + 1: too many words (a field then) */
};

static void split(struct line *l)
{
    l->ntok = 0;
    size_t i = 0;
    while (i < l->n) {
        while (i < l->n && isspace((unsigned char)l->s[i]))
            i++;
        if (i == l->n)
            break;
        const size_t b = i;
        while (i < l->n && !isspace((unsigned char)l->s[i]))
            i++;
        if (l->ntok == MAXTOK) {
            l->ntok = MAXTOK + 1;
            return;
        }
        l->tok[l->ntok] = l->s + b;
        l->tlen[l->ntok++] = i - b;
    }
}

static int all_numbers(const struct line *l, size_t from)
{
    double v;
    if (l->ntok > MAXTOK || l->ntok <= from)
        return 0;
    for (size_t k = from; k < l->ntok; k++)
        if (!tw_is_number(l->tok[k], l->tlen[k], &v))
            return 0;
    return 1;
}

/* A table header: at least two words, none a number. */
static int all_names(const struct line *l)
{
    double v;
    if (l->ntok < 2 || l->ntok > MAXTOK)
        return 0;
    for (size_t k = 0; k < l->ntok; k++)
        if (tw_is_number(l->tok[k], l->tlen[k], &v))
            return 0;
    return 1;
}

/* ---- JSON values ----------------------------------------------------------- */

/* The value of a field line: a number, an array of numbers, or the rest of
 * the line as a string (null when there is none). */
static void put_value(FILE *f, const struct line *l)
{
    if (l->ntok <= 1) {
        fputs("null", f);
    } else if (all_numbers(l, 1) && l->ntok == 2) {
        tw_json_word(f, l->tok[1], l->tlen[1]);
    } else if (all_numbers(l, 1)) {
        fputc('[', f);
        for (size_t k = 1; k < l->ntok; k++) {
            fputs(k > 1 ? ", " : "", f);
            tw_json_word(f, l->tok[k], l->tlen[k]);
        }
        fputc(']', f);
    } else {
        const char *rest = l->tok[1];
        tw_json_string(f, rest, (size_t)(l->s + l->n - rest));
    }
}

/* ---- the document ---------------------------------------------------------- */

enum kind { K_BLANK, K_COMMENT, K_FIELD, K_HEADER, K_ROW };

static int same_name(const struct line *a, const struct line *b)
{
    return a->tlen[0] == b->tlen[0] && memcmp(a->tok[0], b->tok[0], a->tlen[0]) == 0;
}

/* Classify the lines: tables are a header of names followed by rows of as
 * many numbers. */
static void classify(struct line *l, enum kind *k, size_t n)
{
    size_t ncol = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].ntok == 0) {
            k[i] = K_BLANK;
            ncol = 0;
        } else if (l[i].tok[0][0] == '#') {
            k[i] = K_COMMENT;
        } else if (ncol && l[i].ntok == ncol && all_numbers(&l[i], 0)) {
            k[i] = K_ROW;
        } else if (all_names(&l[i]) && i + 1 < n && l[i + 1].ntok == l[i].ntok &&
                   all_numbers(&l[i + 1], 0)) {
            k[i] = K_HEADER;
            ncol = l[i].ntok;
        } else {
            k[i] = K_FIELD;
            ncol = 0;
        }
    }
}

static void put_fields(FILE *f, const struct line *l, const enum kind *k, size_t n)
{
    fputs("  \"fields\": {", f);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (k[i] != K_FIELD)
            continue;
        size_t count = 0, seen = 0;
        for (size_t j = 0; j < n; j++)
            if (k[j] == K_FIELD && same_name(&l[i], &l[j]))
                seen |= j < i, count++;
        if (seen) /* written with its first line */
            continue;
        fputs(first ? "\n    " : ",\n    ", f);
        first = 0;
        tw_json_string(f, l[i].tok[0], l[i].tlen[0]);
        fputs(": ", f);
        if (count > 1)
            fputc('[', f);
        for (size_t j = i, w = 0; j < n; j++)
            if (k[j] == K_FIELD && same_name(&l[i], &l[j])) {
                fputs(w++ ? ", " : "", f);
                put_value(f, &l[j]);
            }
        if (count > 1)
            fputc(']', f);
    }
    fputs(first ? "}" : "\n  }", f);
}

static void put_tables(FILE *f, const struct line *l, const enum kind *k, size_t n)
{
    fputs("  \"tables\": [", f);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (k[i] != K_HEADER)
            continue;
        fputs(first ? "\n    {\"columns\": [" : ",\n    {\"columns\": [", f);
        first = 0;
        for (size_t c = 0; c < l[i].ntok; c++) {
            fputs(c ? ", " : "", f);
            tw_json_string(f, l[i].tok[c], l[i].tlen[c]);
        }
        fputs("], \"rows\": [", f);
        size_t j = i + 1;
        for (; j < n && k[j] == K_ROW; j++) {
            fputs(j > i + 1 ? ",\n      [" : "\n      [", f);
            for (size_t c = 0; c < l[j].ntok; c++) {
                fputs(c ? ", " : "", f);
                tw_json_word(f, l[j].tok[c], l[j].tlen[c]);
            }
            fputc(']', f);
        }
        fputs("]}", f);
    }
    fputs(first ? "]" : "\n  ]", f);
}

int json_from_text(FILE *f, const char *cmd, const char *text, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    n += len > 0 && text[len - 1] != '\n';
    struct line *l = calloc(n ? n : 1, sizeof *l);
    enum kind *k = calloc(n ? n : 1, sizeof *k);
    if (!l || !k) {
        free(l);
        free(k);
        return -1;
    }
    for (size_t i = 0, b = 0; i < n; i++) {
        const char *nl = memchr(text + b, '\n', len - b);
        const size_t e = nl ? (size_t)(nl - text) : len;
        l[i].s = text + b;
        l[i].n = e - b;
        split(&l[i]);
        b = e + 1;
    }
    classify(l, k, n);
    fputs("{\n  \"command\": ", f);
    tw_json_string(f, cmd, strlen(cmd));
    fputs(",\n  \"comments\": [", f);
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (k[i] == K_COMMENT) {
            const char *c = l[i].tok[0] + 1;
            while (c < l[i].s + l[i].n && *c == ' ')
                c++;
            fputs(first ? "\n    " : ",\n    ", f);
            first = 0;
            tw_json_string(f, c, (size_t)(l[i].s + l[i].n - c));
        }
    fputs(first ? "],\n" : "\n  ],\n", f);
    put_fields(f, l, k, n);
    fputs(",\n", f);
    put_tables(f, l, k, n);
    fputs("\n}\n", f);
    free(l);
    free(k);
    return 0;
}
