/* csv_out.h -- a CSV data file of a command on the table writer
 * (table_writer.h, TW_TEXT as CSV, or its plain text form): written under a
 * temporary name (outfile.h), its '#' header lines into csv_out_stream, then
 * the row of column names, then one record per line (doubles with %.17g, or
 * formatted cells), renamed into place by csv_out_close.  Every write is
 * checked there. */
#ifndef COSA_CSV_OUT_H
#define COSA_CSV_OUT_H

#include "outfile.h"
#include "table_writer.h"

#include <stddef.h>
#include <stdio.h>

/* A list of names, each malloc'd (err: out of memory). */
typedef struct csv_names {
    char **v;
    size_t n, cap;
    int err;
} csv_names;

/* Add a name (printf format); free the list. */
void csv_names_add(csv_names *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void csv_names_free(csv_names *l);

typedef struct csv_out {
    outfile of;
    tw w;
    const char *cmd, *path;
    csv_names names; /* the column names */
    size_t n;        /* their number, after csv_out_columns */
    double *rec;     /* one record of n values, after csv_out_columns */
    int err;         /* out of memory */
} csv_out;

/* Open path for the command cmd (both kept, not copied): 0, or -1 after one
 * line "cannot write 'PATH': REASON".  csv_out_open_text: the writer's text
 * form instead of CSV (the names on a '# columns:' line, the cells joined by
 * ' '). */
int csv_out_open(csv_out *c, const char *cmd, const char *path);
int csv_out_open_text(csv_out *c, const char *cmd, const char *path);

/* The stream of the '#' header lines. */
FILE *csv_out_stream(csv_out *c);

/* The next column's name (printf format). */
void csv_out_name(csv_out *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The header row of the names; c->rec then holds one record.  0, or -1
 * (out of memory: csv_out_close says so). */
int csv_out_columns(csv_out *c);

/* The record c->rec[0 .. n-1]; a record of n formatted cells (words). */
void csv_out_record(csv_out *c);
void csv_out_words(csv_out *c, const char *const *cells);

/* The end of a block of records: a blank line (gnuplot draws each block on
 * its own). */
void csv_out_block_end(csv_out *c);

/* With rc CLI_OK: the file completed and staged for its final name (rc, or
 * CLI_EFAIL after one line when a write or an allocation failed); else the
 * file abandoned (rc).  Frees the names and the record. */
int csv_out_close(csv_out *c, int rc);

#endif
