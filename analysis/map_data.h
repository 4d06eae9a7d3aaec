/* map_data.h -- the two formats of `cosa map` data files.
 *
 * text: NAME.dat holds the self-describing '#' header and the records as
 *   text ("%.17g" per column, one record a line), in gnuplot's grid layout:
 *   a blank line after each x value, two between blocks (one block per
 *   macro step).
 * bin:  NAME.dat holds the same header plus one line
 *     # binary NAME.bin: float64 little-endian, C columns, B blocks of NX x NI records
 *   and NAME.bin the same records as raw float64 (the host's byte order,
 *   which the line names), block after block, x-major, without separators;
 *   gnuplot reads it with md_gnuplot_spec.
 * The text of a record is a function of its doubles alone, so converting
 * one format into the other (cosa convert) reproduces the other's file
 * byte for byte. */
#ifndef COSA_MAP_DATA_H
#define COSA_MAP_DATA_H

#include <stddef.h>
#include <stdio.h>

/* Shape of a data file's records. */
typedef struct md_shape {
    size_t ncol;   /* columns of a record             */
    size_t nblock; /* blocks (macro steps of a map)   */
    size_t nx;     /* x values of a block             */
    size_t ninner; /* records per x value             */
} md_shape;

/* A column value as in the text files: "%.17g", "nan", "inf", "-inf". */
void md_num(char *buf, size_t size, double v);

/* Write record v[0..ncol-1] as a text line. */
void md_text_record(FILE *f, const double *v, size_t ncol);

/* The separator before record k (0-based) of a text file of this shape:
 * nothing, one blank line (a new x value) or two (a new block). */
void md_text_separator(FILE *f, const md_shape *s, size_t k);

/* The header line of a binary file: "# binary BINNAME: ..." (BINNAME
 * without directory). */
void md_binary_line(FILE *f, const char *binname, const md_shape *s);

/* Parse a header line written by md_binary_line: 1 and the name and shape
 * if it is one (and names this host's byte order), 0 if it is not a binary
 * line, -1 if it is one for the other byte order. */
int md_parse_binary_line(const char *line, char *binname, size_t size, md_shape *s);

/* gnuplot's data specifier of a binary file of this shape:
 * 'binary record=(NI,NX):... format="%Cfloat64"' (index k selects block k). */
void md_gnuplot_spec(char *buf, size_t size, const md_shape *s);

#endif
