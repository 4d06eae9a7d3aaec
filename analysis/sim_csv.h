/* sim_csv.h -- the trajectory file of `cosa simulate` (analysis/sim_csv.c):
 * column names qualified by subsystem, --outputs and --output-interval. */
#ifndef COSA_SIM_CSV_H
#define COSA_SIM_CSV_H

#include "cli.h"

/* The columns: every input, output and state by name (SUB.NAME where the
 * model names its subsystems; "u1", "y1", "x1" ... without names), which of
 * them the file holds, and every how many macro points a row is written. */
typedef struct sim_csv {
    size_t nu, ny, nx;
    char **uname, **yname, **xname;   /* qualified names (nu, ny, nx)          */
    unsigned char *usel, *ysel, *xsel; /* in the file: without --outputs every
                                          input and output, no state          */
    unsigned char *anon;              /* nu + ny + nx: the model has no name  */
    size_t nusel, nysel, nxsel;
    size_t every;                     /* --output-interval / dt (1 without)    */
} sim_csv;

/* The names of the run's columns (set: its units) and the selection of
 * --outputs LIST (comma-separated: an output, an input or a state, as
 * SUB.NAME or NAME where NAME is unique; NULL: the default) and of
 * --output-interval DT (a whole multiple of dt; NULL: every macro point).
 * CLI_OK, or one line through cli_error and CLI_EUSAGE / CLI_EFAIL. */
int sim_csv_init(const char *cmd, const cosa_model *m, const double *par,
                 const cosa_unitset *set, const char *outputs, const char *interval, double dt,
                 sim_csv *c);
void sim_csv_free(sim_csv *c);

/* Write the trajectory file path: the comment header (the run's settings),
 * a header row, one row per selected macro point: t, then the selected
 * inputs u (at the start of the step), raw outputs y, corrected outputs
 * ybar, state-correction offsets du, reference outputs ref, states x.
 * With jpath (not NULL) also the same header and records as one JSON
 * document there (table_writer.h). */
int sim_csv_write(const char *cmd, const char *path, const char *jpath, const cli_model *cm,
                  const sim_csv *c, const char *scheme, const char *integ, const char *refdesc,
                  double dt, double tend, const cosa_cosim_result *r);

#endif
