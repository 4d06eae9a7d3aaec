/* sweep_cli.h -- pieces shared by `cosa map`, `cosa curve` and `cosa bench`:
 * grid/list options, progress on stderr, output files, gnuplot scripts
 * from the templates in plots/ and running gnuplot. */
#ifndef COSA_SWEEP_CLI_H
#define COSA_SWEEP_CLI_H

#include "cli.h"

#include <stdio.h>

/* A number as cli_parse_double (which reads "10^X" too); 0 on success. */
int scli_number(const char *text, double *out);

/* "NAME=LO:HI:log|lin:N" into name (size namesz) and the axis (param not
 * set).  One-line error and CLI_EUSAGE on failure, before any value is
 * computed: N not a whole number >= 1, more than cap points
 * (cli_points_cap), one point with HI != LO, several with LO = HI, two
 * neighbouring points that are the same double. */
int scli_axis(const char *cmd, const char *opt, const char *text, char *name, size_t namesz,
              cosa_sweep_axis *ax, size_t cap);

/* "LO:HI:log|lin:N" (no name) into ax, refused as scli_axis refuses it
 * (cap: at most that many points), with two neighbouring points that are
 * the same double refused too: 0, or -1 with the one line in msg (without
 * "cosa: CMD: "), -2 when the one fault is more points than cap (cap 0:
 * the text alone is checked, N >= 1, before the cap is known).  For a command whose values are not a parameter axis
 * (defect's --dt and --tol sweeps). */
int scli_range(const char *opt, const char *text, size_t cap, cosa_sweep_axis *ax, char *msg,
               size_t size);

/* The OPTK_CUSTOM check of an axis option (map --x, --y; curve --x):
 * NAME=LO:HI:log|lin:N as scli_axis reads it, so that an error about an
 * axis read from an @FILE names FILE:LINE; the cap and the degenerate
 * ranges are scli_axis's, later (the cap is --max-points). */
int scli_row_axis_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size);

/* The parameter an axis NAME sweeps: "assume.P" sweeps P in the assumed
 * parameter vector (sets ax->assumed; README "Imperfect model knowledge"),
 * any other NAME the true parameter NAME.  Sets ax->param (-1 if the model
 * has no such parameter: the caller reports it).  An assumed axis over an
 * initial state is a one-line error, CLI_EUSAGE; otherwise CLI_OK. */
int scli_axis_param(const char *cmd, const char *opt, const cosa_model *m, const char *name,
                    cosa_sweep_axis *ax);

/* The name of an axis' parameter: the model parameter's, or "relax" /
 * "iterations" for the iteration axes (COSA_AXIS_RELAX, COSA_AXIS_ITERATIONS). */
const char *scli_axis_name(const cosa_model *m, const cosa_sweep_axis *ax);

/* Axis label "NAME [unit]" ("assumed NAME [unit]" for an assumed axis). */
void scli_axis_label(const cosa_model *m, const cosa_sweep_axis *ax, char *buf, size_t size);

/* The comment lines of the assumed model for a data header: "# assume NAME
 * VALUE" per parameter set by --assume, "# assume NAME (swept)" per assumed
 * axis of axes[0..nax-1]; nothing without either. */
void scli_header_assume(FILE *f, const cli_model *m, const cosa_sweep_axis *const *axes,
                        size_t nax);

/* The values fixed by --set and --assume for a picture's title:
 * ", NAME = VALUE" per parameter set by --set (its final value) and
 * ", assumed NAME = VALUE" per parameter set by --assume, in model order,
 * leaving out the parameters swept by axes[0..nax-1]; "" without either. */
void scli_title_sets(const cli_model *m, const cosa_sweep_axis *const *axes, size_t nax,
                     char *buf, size_t size);

/* "DT[,DT...]" or "LO:HI:log|lin:N": a new array of positive steps (a range
 * refused as scli_axis refuses it, at most cap steps). */
int scli_dt_list(const char *cmd, const char *text, double **dt, size_t *n, size_t cap);

/* "S[,S...]": a new array of schemes (alpha set).  */
int scli_schemes(const char *cmd, const char *text, double alpha, cosa_scheme **s, size_t *n);

/* Metric name with a one-line error. */
int scli_metric(const char *cmd, const char *text, cosa_metric *m);

/* Progress reporter for cosa_sweep_spec.progress: on stderr, \r-updated on
 * a terminal, one line every few seconds otherwise. */
typedef struct scli_progress {
    const char *cmd;
    int tty;
    double t0, last;
} scli_progress;
void scli_progress_init(scli_progress *p, const char *cmd);
void scli_progress_fn(size_t done, size_t total, void *user_data);
double scli_now(void); /* monotonic seconds */

/* Options shared by map and curve: --level (default 1 for rho, 0.01 for
 * errors), --threads (nthreads, 0: not given; its row checks 1..
 * CLI_THREADS_MAX), --plot format; resolve the model and the parameter
 * axes ax[i] (parsed by scli_axis; named axname[i], given as opt[i]: param
 * and assumed are set here, an unknown name is an error); then build the
 * system, with the Gauss-Seidel order of the schemes (seq set in every gs:
 * scheme), at the base parameters or, when the model rejects them (e.g. an
 * invalid default of a swept parameter), at the first valid grid point: only
 * the swept points matter.  No valid point at all is an error naming the
 * reason; axes partly outside a parameter's declared range get a note (those
 * points are NaN).  One-line errors; returns CLI_OK or an exit code. */
int scli_sweep_setup(const char *cmd, cosa_metric metric, const char *level_text,
                     size_t nthreads, const char *plot, cli_case *cs,
                     cosa_scheme *schemes, size_t ns, double *level, size_t *threads,
                     const char *const *opt, const char *const *axname, cosa_sweep_axis *const *ax,
                     size_t nax, cosa_system **sys);

/* Sweeps over the processes of an MPI run (analysis/sweep_mpi.c; README
 * "Large sweeps").  scli_mpi_init starts MPI when mpirun/srun launched the
 * command (else, and without ./configure --with-mpi, there is one process);
 * rank 0 writes and prints.  scli_sweep_run and scli_sweep_adaptive are
 * cosa_sweep_run and cosa_sweep_adaptive with the grid points dealt out to
 * the processes and the values gathered on all of them (bitwise the values
 * of one process); scli_sweep_list is the list runner they use. */
int scli_mpi_init(int *argc, char ***argv);
void scli_mpi_finalize(void);
int scli_mpi_rank(void);
int scli_mpi_size(void);
cosa_status scli_sweep_run(const cosa_sweep_spec *sp, double *values, cosa_status *status,
                           size_t *nfailed);
cosa_status scli_sweep_list(const cosa_sweep_spec *sp, const size_t *list, size_t n,
                            double *values, cosa_status *status, size_t *nfailed, void *data);
cosa_status scli_sweep_adaptive(const cosa_sweep_spec *sp, const cosa_adaptive_opts *o,
                                double *values, cosa_status *status, unsigned char *exact,
                                size_t *nfailed, size_t *nevaluated);

/* --adaptive [--coarse K] [--margin M] of map and curve: the options of
 * cosa_sweep_adaptive (defaults K = 8, margin 0.02 relative for rho, 0.5
 * decades for the errors) and a one-line description for the data files'
 * headers.  coarse 0 and margin NaN: not given (their rows check the values
 * and that --adaptive is given). */
void scli_adaptive(int adaptive, size_t coarse, double margin, cosa_metric metric, double level,
                   cosa_adaptive_opts *o, char *desc, size_t size);

/* Finish a sweep spec shared by map and curve: parse --tend (NULL = the
 * model's horizon), check every dt fits in it for error metrics, fill the
 * remaining fields and hook progress (on a terminal or when progress is
 * set) to prog.  One-line errors; returns CLI_OK or CLI_EUSAGE. */
int scli_spec_finish(const char *cmd, cosa_sweep_spec *sp, const cosa_model *m, const double *par,
                     const double *dt, size_t ndt, const cosa_scheme *schemes, size_t ns,
                     cosa_metric metric, const char *tend_text, size_t threads, int progress,
                     scli_progress *prog);

typedef struct scli_out {
    const char *dir;
    int explicit_dir;
} scli_out;
int scli_out_prepare(const char *cmd, scli_out *o);
/* dir/name into buf; CLI_OK, or an error if it exists and !explicit_dir. */
int scli_out_path(const char *cmd, const scli_out *o, const char *name, char *buf, size_t size);
/* -o DIR (explicit_dir): remove DIR/BASE.png, .svg and .pdf, the pictures an
 * earlier run drew from the script BASE.gp this run rewrites, so that a
 * directory never shows a picture of older data next to newer data (also when
 * the drawing is interrupted or not asked for).  Nothing without -o. */
void scli_remove_pictures(const scli_out *o, const char *base);

/* Lower-case file-name form of a scheme name: "ZOH+MBCorr" -> "zoh_mbcorr",
 * "gs:FOH" -> "gs-foh". */
void scli_slug(const char *name, char *buf, size_t size);

/* Comment header shared by data files: tool, command, model and parameters
 * (swept ones marked).  Lines start with "# ". */
void scli_header(FILE *f, const char *cmd, const cosa_model *m, const double *par,
                 const int *swept, size_t nswept);

/* Write template tpl to path with every @KEY@ replaced by its value
 * (keys/values: n pairs).  CLI_OK or CLI_EFAIL with a one-line error. */
int scli_write_script(const char *cmd, const char *path, const char *tpl, size_t n,
                      const char *const *keys, const char *const *values);

/* Run gnuplot with -e 'fmt="FMT"' on script (in directory dir).  If gnuplot
 * cannot be found: one-line error, CLI_EFAIL. */
int scli_gnuplot(const char *cmd, const char *dir, const char *script, const char *fmt);
/* The same for n scripts (NULL entries skipped), at most maxpar at a time;
 * multi-panel scripts (names ending "_all.gp", the longest to render) start
 * first, so that no core idles at the end while one of them runs alone. */
int scli_gnuplot_many(const char *cmd, const char *dir, char *const *scripts, size_t n,
                      const char *fmt, int maxpar);
/* Valid --plot format (png, svg, pdf)? */
int scli_plot_format(const char *cmd, const char *fmt);

/* Templates from plots/NAME.gp (analysis/plot_templates.c, generated). */
extern const char cosa_plot_map[];
extern const char cosa_plot_heatmap[];
extern const char cosa_plot_curve[];

#endif
