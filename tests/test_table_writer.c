/* test_table_writer.c -- records and rows of formatted cells in the table
 * writer (tw_record_words, tw_row_words in analysis/table_writer.c): the
 * text joins the cells as given (',' in CSV, ' ' otherwise); JSON holds a
 * number cell as that number and any other word as a string; binary
 * records of words are an error.  The expected documents are written out
 * by hand from the JSON grammar, not taken from the writer. */
#include <criterion/criterion.h>

#include "table_writer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* table_writer.c's one use of the command line's error line (tw_finish) */
void cli_error(const char *cmd, const char *fmt, ...)
{
    (void)cmd;
    (void)fmt;
}

struct doc {
    FILE *f;
    char *buf;
    size_t len;
};

static void doc_open(struct doc *d)
{
    d->buf = NULL;
    d->len = 0;
    d->f = open_memstream(&d->buf, &d->len);
    cr_assert_not_null(d->f);
}

static const char *doc_text(struct doc *d)
{
    cr_assert_eq(fflush(d->f), 0);
    return d->buf;
}

static void doc_close(struct doc *d)
{
    fclose(d->f);
    free(d->buf);
}

/* d opened, w begun on it as fmt and kind */
static void begin(struct doc *d, tw *w, tw_format fmt, tw_kind kind)
{
    doc_open(d);
    cr_assert_eq(tw_begin(w, d->f, fmt, kind, "t", NULL, NULL), 0);
}

/* w ended; the text of d (closed by doc_close) */
static const char *end(struct doc *d, tw *w)
{
    cr_assert_eq(tw_end(w), 0);
    return doc_text(d);
}

static const char *const names[] = {"x", "status", "steps"};
static const char *const row1[] = {"0.5", "ok", "3"};
static const char *const row2[] = {"1e-300", "hmin", "nan"};

/* The records row1 and row2 under the columns names as fmt (CSV if csv): the
 * text of d */
static const char *two_records(struct doc *d, tw_format fmt, int csv)
{
    tw w;
    begin(d, &w, fmt, TW_DATA);
    if (csv)
        tw_csv(&w);
    tw_columns(&w, names, 3, NULL);
    tw_record_words(&w, row1, 3);
    tw_record_words(&w, row2, 3);
    return end(d, &w);
}

/* A report's table of the columns names with the row row1, as fmt */
static const char *one_row(struct doc *d, tw_format fmt)
{
    tw w;
    begin(d, &w, fmt, TW_REPORT);
    tw_table(&w, names, 3);
    tw_row_words(&w, row1, 3);
    return end(d, &w);
}

Test(table_writer, text_records_and_rows_of_words)
{
    struct doc d;
    cr_expect_str_eq(two_records(&d, TW_TEXT, 1), "x,status,steps\n0.5,ok,3\n1e-300,hmin,nan\n");
    doc_close(&d);
    cr_expect_str_eq(one_row(&d, TW_TEXT), "x status steps\n0.5 ok 3\n");
    doc_close(&d);
}

/* numbers stay numbers (their characters), words become strings; nan,
 * which JSON has no number for, is the string "nan" as for tw_record */
Test(table_writer, json_records_and_rows_of_words)
{
    struct doc d;
    const char *s = two_records(&d, TW_JSON, 0);
    cr_expect_not_null(strstr(s, "[0.5, \"ok\", 3]"), "%s", s);
    cr_expect_not_null(strstr(s, "[1e-300, \"hmin\", \"nan\"]"), "%s", s);
    doc_close(&d);
    s = one_row(&d, TW_JSON);
    cr_expect_not_null(strstr(s, "\"columns\": [\"x\", \"status\", \"steps\"], \"rows\": [\n      "
                                 "[0.5, \"ok\", 3]"),
                       "%s", s);
    doc_close(&d);
}

Test(table_writer, binary_records_of_words_are_an_error)
{
    struct doc d, b;
    doc_open(&d);
    doc_open(&b);
    tw w;
    cr_assert_eq(tw_begin(&w, d.f, TW_BIN, TW_DATA, "t", b.f, "b.bin"), 0);
    tw_columns(&w, names, 3, NULL);
    tw_record_words(&w, row1, 3);
    cr_expect_eq(tw_end(&w), -1);
    doc_close(&d);
    doc_close(&b);
}
