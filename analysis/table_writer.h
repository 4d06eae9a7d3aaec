/* table_writer.h -- the one writer of the data the commands print: a header
 * (comments, fields), tables and records, then the end, with three back
 * ends (doc/output-formats.md):
 *
 *   TW_TEXT  today's text: '# ' comment lines, 'name value' field lines,
 *            a table as a header line of names and rows of %.17g numbers, a
 *            data file's records as %.17g lines (gnuplot's blank lines
 *            between blocks with tw_shape); its tables and records also as
 *            CSV (tw_csv), its tables as markdown (tw_markdown);
 *   TW_BIN   a data file: the '#' header (with the '# binary' line of
 *            map_data.h) in the text stream, the records as float64 in a
 *            second stream;
 *   TW_JSON  one JSON document: {"command", "comments", then "fields" and
 *            "tables" (a report), or "columns" and "records" (a data
 *            file)}, written by the JSON emitter json_out.h.  Numbers
 *            are written with %.17g, as in the text, so
 *            both carry the same doubles; inf, -inf and nan, which JSON has
 *            no numbers for, are the strings "inf", "-inf", "nan".  A field
 *            name given more than once holds the array of its values.
 *
 * The text form is written as the calls come; the JSON document of a
 * report is kept in memory until tw_end (a few kB), a data file's records
 * are streamed (so its comments come before tw_columns).  Printers that write lines to a FILE (shared header
 * writers) write into tw_stream(): '#' lines there are comments, other
 * lines 'name value' fields.  Every write is checked: tw_end says whether
 * one failed. */
#ifndef COSA_TABLE_WRITER_H
#define COSA_TABLE_WRITER_H

#include "json_out.h"
#include "map_data.h"

#include <stddef.h>
#include <stdio.h>

typedef enum tw_format { TW_TEXT, TW_BIN, TW_JSON } tw_format;

/* What the JSON document holds: fields and tables, or columns and records. */
typedef enum tw_kind { TW_REPORT, TW_DATA } tw_kind;

typedef struct tw_item tw_item;

/* The most column widths of tw_padded. */
#define TW_PAD_MAX 8

typedef struct tw {
    FILE *f;          /* the text, the JSON, or (bin) the header     */
    FILE *bin;        /* TW_BIN: the records                         */
    tw_format fmt;
    tw_kind kind;
    const char *cmd;
    const char *binname; /* TW_BIN: the records' file, without directory */
    /* JSON: the pending lines of tw_stream, comments, fields, tables */
    FILE *lines, *com, *tab;
    char *lines_buf, *com_buf, *tab_buf;
    size_t lines_len, com_len, tab_len;
    json_out jdoc, jcom, jtab;     /* JSON: the document, comments, tables */
    tw_item *fld;
    size_t nfld, capfld;
    size_t ncell;                  /* cells of the current row (tw_cell) */
    int head_done;                 /* JSON data: the head is written  */
    md_shape shape;                /* tw_shape: blank lines of a text file */
    size_t nrec;
    int err;                       /* a write or an allocation failed */
    int csv;                       /* tw_csv: a CSV file                */
    int md;                        /* tw_markdown: markdown tables      */
    const char *pad_lead;          /* tw_padded: each line's lead      */
    int pad[TW_PAD_MAX];           /* tw_padded: the cells' widths      */
    size_t npad;
    struct tw_cache *cache;        /* the text of values seen (text form) */
    FILE *saved_stdout;            /* tw_capture_stdout                 */
} tw;

/* Begin a document on f (and, for TW_BIN, records on bin, whose file name
 * is binname); cmd names the command in JSON.  0, or -1 (out of memory). */
int tw_begin(tw *w, FILE *f, tw_format fmt, tw_kind kind, const char *cmd, FILE *bin,
             const char *binname);

/* The stream for printers of '#' comment lines and 'name value' lines. */
FILE *tw_stream(tw *w);

/* TW_TEXT as CSV: the columns a header row of names joined by ',', the
 * records joined by ',' with printf's %.17g (which spells a NaN with its
 * sign bit "-nan"). */
void tw_csv(tw *w);

/* TW_TEXT: a report's tables in markdown: the header row "| a | b |", the
 * separator "|---|---|", rows "| x | y |"; tw_prose for the text around
 * them. */
void tw_markdown(tw *w);

/* TW_TEXT: a report's tables in padded columns, for people (listings,
 * tables to read on a terminal): each line begins with lead, cell c is
 * left-aligned in width[c] characters (the cells after the n-th in
 * width[n-1]; 0: not padded; a longer cell is not cut), the cells a blank
 * apart.  1 <= n <= TW_PAD_MAX (else nothing changes).  The names of
 * tw_table, the numbers of tw_row (%.17g) and the cells of tw_cell and
 * tw_row_words alike; JSON is not changed. */
void tw_padded(tw *w, const char *lead, const int *width, size_t n);

/* A report whose printers write 'name value' lines to stdout: for TW_JSON,
 * stdout is tw_stream(w) until tw_finish (glibc's stdout is assignable);
 * nothing for the text form.  0, or -1 (nothing changed). */
int tw_capture_stdout(tw *w);

/* A comment: "# TEXT" in the text form (printf format). */
void tw_comment(tw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A field: "NAME VALUE" (VALUE a printf format).  In JSON the value is a
 * number when it is one number, an array when it is several, a string
 * otherwise, null when empty. */
void tw_field(tw *w, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A field holding one computed number: "NAME %.17g". */
void tw_field_num(tw *w, const char *name, double v);

/* A table of a report: its header line of names, then tw_row per row. */
void tw_table(tw *w, const char *const *names, size_t n);
void tw_row(tw *w, const double *v, size_t n);

/* A report's row cell by cell (a cell can take long to compute: each is
 * written as it comes): the next cell, already formatted (as
 * tw_row_words), then the end of the row. */
void tw_cell(tw *w, const char *text);
void tw_row_end(tw *w);

/* Prose around a report's tables (captions; printf format): written as it
 * is in the text form; in JSON each of its non-empty lines a comment. */
void tw_prose(tw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The records of a data file: the line "# columns: NAMES[SUFFIX]" (suffix
 * may be NULL; JSON holds the names), then tw_record per record.  TW_BIN
 * adds the '# binary' line of shape (map_data.h). */
void tw_shape(tw *w, const md_shape *s);
void tw_columns(tw *w, const char *const *names, size_t n, const char *suffix);
void tw_record(tw *w, const double *v, size_t n);

/* A record (tw_record_words) or a report's row (tw_row_words) of cells
 * already formatted (numbers with %.17g, or words such as a status): the
 * text joins them as tw_record and tw_row do; JSON holds the numbers as
 * numbers, the other words as strings.  No binary records (an error). */
void tw_record_words(tw *w, const char *const *cells, size_t n);
void tw_row_words(tw *w, const char *const *cells, size_t n);

/* The end of a block of records: a blank line in the text form (gnuplot
 * draws each block on its own); nothing in binary and JSON. */
void tw_block_end(tw *w);

/* The end: the JSON document completed, the buffers freed.  0, or -1 if a
 * write (or an allocation) failed: errno says why. */
int tw_end(tw *w);

/* The end of a command's report on stdout with exit code rc: on success
 * tw_end (a JSON report is written only now: a failed run leaves stdout
 * empty), else tw_abandon.  Returns rc, or CLI_EFAIL after one line when
 * memory ran out; a failed write to stdout is left to
 * outfile_close_stdout, which names the reason.  Nothing for a zeroed w. */
int tw_finish(tw *w, const char *cmd, int rc);

/* Free the buffers of a writer that is not ended (a failed run). */
void tw_abandon(tw *w);

#endif
