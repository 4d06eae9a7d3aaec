/* map_contour.h -- the contour-line files of `cosa map` (NAME_SCHEME_lines.dat).
 *
 * Per scheme one text file of polylines, the lines metric = level that
 * cosa_contour_trace finds on the grid of each macro step: a comment
 * header (cosa version, scheme, metric, level, axes, column names), then
 * one block per dt in the data file's order, separated by two blank lines
 * (gnuplot's `index k`), each opened by "# dt DT lines N" and holding its
 * polylines as rows "x y" (%.17g, the axes' own units) with a blank line
 * between two lines; a block without a line holds the row "nan nan" so
 * that the blocks keep their numbers.  The tracing runs in the plotting
 * coordinates: log10 of a log axis and of an error metric.  A map over
 * (x, dt) has one block, rows "x dt", traced over log10 dt. */
#ifndef COSA_MAP_CONTOUR_H
#define COSA_MAP_CONTOUR_H

#include "cosa.h"

#include <stddef.h>

/* Write the lines file of scheme is of a map over (x, y) (over (x, dt)
 * with dt_axis) into path (a temporary renamed on success), after the
 * comment lines head.  0, or an errno value (ENOMEM when the tracing
 * could not allocate). */
int map_contour_write(const char *path, const cosa_sweep_spec *sp, size_t is, int dt_axis,
                      const double *values, double level, const char *head);

/* NAME_SCHEME_fill.bin: the side of the level of every grid point at the
 * largest dt, one byte each (0: metric > level or +inf, 1: failed (NaN),
 * 2: metric <= level), x fastest, rows from the first y value up: gnuplot's
 * `binary array=(NX,NY) format="%uchar"`, drawn `with image`.  0, or an
 * errno value. */
int map_fill_write(const char *path, const cosa_sweep_spec *sp, size_t is, const double *values,
                   double level);

#endif
