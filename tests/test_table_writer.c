/* test_table_writer.c -- records and rows of formatted cells in the table
 * writer (tw_record_words, tw_row_words in analysis/table_writer.c): the
 * text joins the cells as given (',' in CSV, ' ' otherwise); JSON holds a
 * number cell as that number and any other word as a string; binary
 * records of words are an error; a report's tables in markdown and CSV,
 * cell by cell, and prose; padded columns (against printf's widths); the
 * JSON emitter (analysis/json_out.c): its layouts, numbers, strings and
 * errors.  The expected documents are
 * written out by hand from the JSON grammar and the markdown table syntax,
 * not taken from the writer. */
#include <criterion/criterion.h>

#include "json_out.h"
#include "table_writer.h"

#include <math.h>
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

/* ---- the markdown and CSV styles of a report's tables, prose --------------- */

/* A report's table of names, row1 cell by cell, then a row of numbers, and
 * prose, as md (markdown) or csv */
static const char *styled(struct doc *d, tw_format fmt, int md)
{
    tw w;
    begin(d, &w, fmt, TW_REPORT);
    if (md)
        tw_markdown(&w);
    else
        tw_csv(&w);
    tw_field(&w, "model", "%s", "m");
    tw_table(&w, names, 3);
    for (size_t c = 0; c < 3; c++)
        tw_cell(&w, row1[c]);
    tw_row_end(&w);
    tw_row(&w, (const double[]){0.1, -2.0, 1e300}, 3);
    tw_prose(&w, "\nA caption, %d lines.\nSecond.\n", 2);
    return end(d, &w);
}

/* markdown: "| a | b |", "|---|---|", rows "| x | y |"; numbers %.17g (0.1
 * is 0.10000000000000001 to 17 digits); prose as given */
Test(table_writer, markdown_tables)
{
    struct doc d;
    cr_expect_str_eq(styled(&d, TW_TEXT, 1), "model m\n"
                                             "| x | status | steps |\n"
                                             "|---|---|---|\n"
                                             "| 0.5 | ok | 3 |\n"
                                             "| 0.10000000000000001 | -2 | 1.0000000000000001e+300 |\n"
                                             "\nA caption, 2 lines.\nSecond.\n");
    doc_close(&d);
}

Test(table_writer, csv_report_tables)
{
    struct doc d;
    cr_expect_str_eq(styled(&d, TW_TEXT, 0), "model m\n"
                                             "x,status,steps\n"
                                             "0.5,ok,3\n"
                                             "0.10000000000000001,-2,1.0000000000000001e+300\n"
                                             "\nA caption, 2 lines.\nSecond.\n");
    doc_close(&d);
}

/* JSON: the style does not matter; cells as tw_row_words, prose lines as
 * comments (empty lines dropped) */
Test(table_writer, json_cells_and_prose)
{
    struct doc d;
    cr_expect_str_eq(styled(&d, TW_JSON, 1),
                     "{\n"
                     "  \"command\": \"t\",\n"
                     "  \"comments\": [\n"
                     "    \"A caption, 2 lines.\",\n"
                     "    \"Second.\"\n"
                     "  ],\n"
                     "  \"fields\": {\n"
                     "    \"model\": \"m\"\n"
                     "  },\n"
                     "  \"tables\": [\n"
                     "    {\"columns\": [\"x\", \"status\", \"steps\"], \"rows\": [\n"
                     "      [0.5, \"ok\", 3],\n"
                     "      [0.10000000000000001, -2, 1.0000000000000001e+300]]}\n"
                     "  ]\n"
                     "}\n");
    doc_close(&d);
}

/* ---- padded columns (tw_padded) ------------------------------------------- */

/* A report's table of names, row1 and a row of numbers in padded columns:
 * lead "  ", the first cell in 6 characters, the others in 3 (a longer
 * cell is not cut) */
static const char *padded(struct doc *d, tw_format fmt, size_t nwidth)
{
    static const int width[TW_PAD_MAX + 1] = {6, 3};
    tw w;
    begin(d, &w, fmt, TW_REPORT);
    tw_padded(&w, "  ", width, nwidth);
    tw_table(&w, names, 3);
    tw_row_words(&w, row1, 3);
    tw_row(&w, (const double[]){0.1, -2.0, 1e300}, 3);
    return end(d, &w);
}

/* the lines written out by hand: each cell left-aligned and blank-filled to
 * its width, a blank between cells, the lead first */
Test(table_writer, padded_columns)
{
    struct doc d;
    cr_expect_str_eq(padded(&d, TW_TEXT, 2), "  x      status steps\n"
                                             "  0.5    ok  3  \n"
                                             "  0.10000000000000001 -2  1.0000000000000001e+300\n");
    doc_close(&d);
    /* no widths, or more than TW_PAD_MAX: the plain text table */
    const char *plain = "x status steps\n0.5 ok 3\n0.10000000000000001 -2 1.0000000000000001e+300\n";
    cr_expect_str_eq(padded(&d, TW_TEXT, 0), plain);
    doc_close(&d);
    cr_expect_str_eq(padded(&d, TW_TEXT, TW_PAD_MAX + 1), plain);
    doc_close(&d);
    /* JSON does not change with the style */
    const char *s = padded(&d, TW_JSON, 2);
    cr_expect_not_null(strstr(s, "\"columns\": [\"x\", \"status\", \"steps\"], \"rows\": [\n"
                                 "      [0.5, \"ok\", 3],\n"
                                 "      [0.10000000000000001, -2, 1.0000000000000001e+300]]"),
                       "%s", s);
    doc_close(&d);
}

/* the same bytes as printf's "%-Ns" (an independent route): cosa demo's
 * "%-14s" then " %-13s" per column, and a listing's lead, widths and last
 * unpadded column (cosa models: "  %-8s %-14s %-8s %-24s %s") */
Test(table_writer, padded_columns_are_printf_widths)
{
    static const char *const c[5] = {"ZOH+mbcorr", "0.9997613002!", "error", "a-long-cell-x", ""};
    char want[256];
    struct doc d;
    tw w;
    begin(&d, &w, TW_TEXT, TW_REPORT);
    tw_padded(&w, "", (const int[]){14, 13}, 2);
    tw_row_words(&w, c, 4);
    snprintf(want, sizeof want, "%-14s %-13s %-13s %-13s\n", c[0], c[1], c[2], c[3]);
    cr_expect_str_eq(end(&d, &w), want);
    doc_close(&d);
    begin(&d, &w, TW_TEXT, TW_REPORT);
    tw_padded(&w, "  ", (const int[]){8, 14, 8, 24, 0}, 5);
    tw_row_words(&w, c, 5);
    tw_row_words(&w, (const char *const[]){"m1", "10", "kg", "> 0", "mass", "(x)"}, 6);
    snprintf(want, sizeof want, "  %-8s %-14s %-8s %-24s %s\n  %-8s %-14s %-8s %-24s %s %s\n",
             c[0], c[1], c[2], c[3], c[4], "m1", "10", "kg", "> 0", "mass", "(x)");
    cr_expect_str_eq(end(&d, &w), want);
    doc_close(&d);
}

/* ---- the JSON emitter (json_out.c) ----------------------------------------- */

/* A nested document: a block object holding an inline array, a block array
 * of inline objects, an empty array and object, a tight array */
Test(json_out, layouts)
{
    struct doc d;
    json_out j;
    doc_open(&d);
    jo_init(&j, d.f, 0);
    jo_object(&j, JO_BLOCK);
    jo_key(&j, "a");
    jo_array(&j, JO_INLINE);
    jo_int(&j, 1);
    jo_size(&j, 2);
    jo_close(&j);
    jo_key(&j, "b");
    jo_array(&j, JO_BLOCK);
    for (int k = 0; k < 2; k++) {
        jo_object(&j, JO_INLINE);
        jo_key(&j, "k");
        jo_bool(&j, k);
        jo_key(&j, "n");
        jo_null(&j);
        jo_close(&j);
    }
    cr_expect_eq(jo_count(&j), 2);
    jo_close(&j);
    jo_key(&j, "e");
    jo_array(&j, JO_BLOCK);
    jo_close(&j);
    jo_key(&j, "o");
    jo_object(&j, JO_BLOCK);
    jo_close(&j);
    jo_key(&j, "t");
    jo_array(&j, JO_TIGHT);
    jo_string(&j, "x");
    jo_string(&j, NULL);
    cr_expect_eq(jo_end(&j), 0);
    cr_expect_str_eq(doc_text(&d), "{\n"
                                   "  \"a\": [1, 2],\n"
                                   "  \"b\": [\n"
                                   "    {\"k\": false, \"n\": null},\n"
                                   "    {\"k\": true, \"n\": null}\n"
                                   "  ],\n"
                                   "  \"e\": [],\n"
                                   "  \"o\": {},\n"
                                   "  \"t\": [\n"
                                   "    \"x\",\n"
                                   "    \"\"]\n"
                                   "}\n");
    doc_close(&d);
}

/* Numbers: %.17g (0.1 reads back from 0.10000000000000001); what JSON has
 * no number for: strings (jo_double) or null (jo_finite); a number word
 * keeps its characters when they are a JSON number, else its double */
Test(json_out, numbers_and_words)
{
    struct doc d;
    json_out j;
    doc_open(&d);
    jo_init(&j, d.f, 0);
    jo_array(&j, JO_INLINE);
    jo_double(&j, 0.1);
    jo_double(&j, INFINITY);
    jo_double(&j, -INFINITY);
    jo_double(&j, NAN);
    jo_finite(&j, 0.1);
    jo_finite(&j, INFINITY);
    jo_finite(&j, NAN);
    jo_word(&j, "1e-300", 6);
    jo_word(&j, "1.", 2);    /* not a JSON number: the double 1 */
    jo_word(&j, "+2", 2);    /* nor this */
    jo_word(&j, "-inf", 4);
    cr_expect_eq(jo_end(&j), 0);
    cr_expect_str_eq(doc_text(&d), "[0.10000000000000001, \"inf\", \"-inf\", \"nan\", "
                                   "0.10000000000000001, null, null, 1e-300, 1, 2, \"-inf\"]\n");
    cr_expect_eq(strtod("0.10000000000000001", NULL), 0.1);
    doc_close(&d);
}

/* Strings: '"' and '\' escaped with a backslash, control characters as
 * \u00XX, other bytes (UTF-8) as they are; the value of a 'name value'
 * text: null, a number, an array of numbers, or the string */
Test(json_out, strings_and_text_values)
{
    struct doc d;
    json_out j;
    doc_open(&d);
    jo_init(&j, d.f, 0);
    jo_array(&j, JO_INLINE);
    jo_string(&j, "a\"b\\c\n\t\x01 \xc3\xa9");
    jo_text_value(&j, "", 0);
    jo_text_value(&j, " 2.5", 4);
    jo_text_value(&j, "1 2 nan", 7);
    jo_text_value(&j, "0.1 ok", 6);
    cr_expect_eq(jo_end(&j), 0);
    cr_expect_str_eq(doc_text(&d), "[\"a\\\"b\\\\c\\u000a\\u0009\\u0001 \xc3\xa9\", null, 2.5, "
                                   "[1, 2, \"nan\"], \"0.1 ok\"]\n");
    doc_close(&d);
}

/* Nesting deeper than JO_MAX_DEPTH, or a close with nothing open: jo_end
 * says so */
Test(json_out, bad_nesting_is_an_error)
{
    struct doc d;
    json_out j;
    doc_open(&d);
    jo_init(&j, d.f, 0);
    for (int k = 0; k <= JO_MAX_DEPTH; k++)
        jo_array(&j, JO_INLINE);
    cr_expect_eq(jo_end(&j), -1);
    jo_init(&j, d.f, 0);
    jo_close(&j);
    cr_expect_eq(jo_end(&j), -1);
    doc_close(&d);
}

/* A write that fails (a full stream) is jo_end's -1 */
Test(json_out, failed_write_is_an_error)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        cr_skip_test("no /dev/full");
    setvbuf(f, NULL, _IONBF, 0);
    json_out j;
    jo_init(&j, f, 0);
    jo_object(&j, JO_BLOCK);
    jo_key(&j, "a");
    jo_int(&j, 1);
    cr_expect_eq(jo_end(&j), -1);
    fclose(f);
}
