/* ref_csv.h -- `cosa simulate --ref FILE.csv`: a reference trajectory read
 * from a CSV file (analysis/ref_csv.c). */
#ifndef COSA_REF_CSV_H
#define COSA_REF_CSV_H

#include "cli.h"

/* Columns wanted from the file: the outputs (column "ref.SUB.NAME" or
 * "SUB.NAME", as simulate writes them; or "ref.NAME" or "NAME" when NAME is
 * unique among the outputs) and the states (column "x.SUB.NAME", or
 * "x.NAME" when NAME is unique among the states). */
typedef struct ref_csv_names {
    size_t ny, nx;
    const char *const *y;       /* ny output names                         */
    const char *const *x;       /* nx state names                          */
    const char *const *xsub;    /* nx: the subsystem of each state (or NULL) */
    const char *const *ysub;    /* ny: the subsystem of each output (NULL:
                                   the array or an entry)                  */
} ref_csv_names;

/* Read path: comment lines '#', blank lines, a header row naming the
 * columns ("t" or "time", then any names; columns not wanted are ignored),
 * then one row of numbers per sample.  On success *t (n), *Y (ny x n) and
 * *X (nx x n, or NULL when the file has no state columns) are allocated
 * (free them) and CLI_OK is returned; otherwise one line through cli_error
 * and CLI_EUSAGE (bad content) or CLI_EFAIL (unreadable file). */
int ref_csv_read(const char *cmd, const char *path, const ref_csv_names *nm, double **t,
                 double **X, double **Y, size_t *n);

#endif
