/* cli.h -- shared pieces of the cosa command line: error reporting, strict
 * number parsing, and the --model/--model-file/--set/--assume options. */
#ifndef COSA_CLI_H
#define COSA_CLI_H

#include "cosa.h"
#include "opt_table.h"
#include <stdio.h>

/* Exit codes (GNU habits): 0 ok, 1 computation failed, 2 usage error. */
enum { CLI_OK = 0, CLI_EFAIL = 1, CLI_EUSAGE = 2 };

/* One-line error on stderr: "cosa: CMD: message". */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The one number parser of the command line.  Strict parse of a finite
 * double in decimal notation ("1e-4", "1E-4", "0.0001") or written 10^X
 * (= pow(10, X), X decimal: "10^-2.5").  Returns CLI_NUM_OK (0), or
 * CLI_NUM_SYNTAX, CLI_NUM_OVERFLOW (beyond DBL_MAX) or CLI_NUM_UNDERFLOW
 * (nonzero but below DBL_MIN: it would be 0 or a subnormal); *out is set on
 * success only. */
enum { CLI_NUM_OK = 0, CLI_NUM_SYNTAX = -1, CLI_NUM_OVERFLOW = -2, CLI_NUM_UNDERFLOW = -3 };
int cli_parse_double(const char *text, double *out);
/* Why a number was refused, for messages: "not a finite number",
 * "overflows (...)", "underflows to 0 (...)". */
const char *cli_number_why(int code);
/* Strict parse of a positive integer: digits, or an exact integer value
 * written as a number ("1e6", "10^3"; up to 2^53); 0 on success. */
int cli_parse_size(const char *text, size_t *out);

/* --threads N, the one rule of every command: an integer 1..CLI_THREADS_MAX
 * (more threads than that are never useful and may fail to start);
 * otherwise one line and CLI_EUSAGE. */
#define CLI_THREADS_MAX 4096
int cli_threads(const char *cmd, const char *text, size_t *n);

/* Model selection shared by every analysis subcommand. */
#define CLI_MAX_SETS 64
typedef struct cli_model {
    const char *name;      /* --model NAME            */
    const char *file;      /* --model-file PATH       */
    const char *set_name[CLI_MAX_SETS];
    double set_value[CLI_MAX_SETS];
    size_t nset;
    const char *assume_name[CLI_MAX_SETS]; /* --assume NAME=VALUE, in order */
    double assume_value[CLI_MAX_SETS];
    size_t nassume;
    unsigned load_flags;   /* cosa_model_file_load_flags (cosa linearize --jacobian) */
    const char *linearization; /* --linearization identify|declared (NULL: default) */
    int ident_optional;    /* a failed default identification is no error (simulate) */
    const char *probe_step; /* --probe-step H (NULL: the FMU's own)            */
    /* resolved by cli_model_resolve */
    const cosa_model *model;
    cosa_model *owned;     /* loaded from a file      */
    double *par;           /* model->nparam values    */
    /* imperfect model knowledge (README): NULL without --assume */
    double *apar;          /* assumed vector: par with the --assume values   */
    unsigned char *assumed; /* model->nparam flags: 1 = set by --assume        */
} cli_model;

/* "NAME=VALUE" of option opt ("--set", "--assume") appended to names and
 * values (*n of CLI_MAX_SETS used; the name is a malloc'ed copy freed by
 * cli_model_free); 0, or -1 with the one-line reason in msg. */
int cli_name_value(const char *opt, const char *arg, const char **names, double *values,
                   size_t *n, char *msg, size_t size);

/* Load/find the model (linear or nonlinear), apply defaults and the --set
 * values in order, then the --assume values on a copy (m->apar, m->assumed).
 * Default model when none given: "twomass".  An --assume naming an unknown
 * parameter or an initial state (not part of the assumed model: it only
 * concerns the output correction) is a usage error.  Returns CLI_OK or an
 * exit code. */
int cli_model_resolve(cli_model *m, const char *cmd);

/* CLI_OK if the resolved model has a linear form; otherwise the one-line
 * error "model NAME is nonlinear: WHY" and CLI_EUSAGE.  why == NULL means
 * "Phi analysis needs a linear model (use cosa simulate)". */
int cli_model_linear(const cli_model *m, const char *cmd, const char *why);

/* The one rule for models without outputs (ny = 0, e.g. no coupling
 * signals, or chain with r = 1): stability (rho) is computed everywhere;
 * accuracy and time-domain runs are undefined, and every command that needs
 * them refuses with the same line, CLI_NO_OUTPUTS ("model 'NAME' has no
 * outputs: ..."), exit 2.  `point` prints the errors as nan with
 * CLI_NO_OUTPUTS_NOTE. */
#define CLI_NO_OUTPUTS_NOTE "model has no outputs: accuracy (NRMSE) undefined"
int cli_need_outputs(const cli_model *m, const char *cmd, size_t ny);

/* CLI_OK if par satisfies every declared parameter range of the model;
 * otherwise one line naming the --set (or the model) and the rule, e.g.
 * "--set m1=0: m1 must be > 0", and CLI_EUSAGE. */
int cli_model_check(const cli_model *m, const char *cmd, const double *par);

/* Build the linear system (refusing a nonlinear model with
 * cli_model_linear's error) or, for a model without a linear form, the ODE
 * system; one-line errors. */
int cli_model_system(cli_model *m, const char *cmd, cosa_system **sys);
int cli_model_odesys(cli_model *m, const char *cmd, cosa_odesys **os);
/* Allocate x0 (nx entries) and fill it with the model's initial state. */
int cli_model_x0(cli_model *m, const char *cmd, size_t nx, double **x0);

void cli_model_free(cli_model *m);

/* ---- Imperfect model knowledge: --assume (README) ------------------------ */

/* 1 if --assume was given (after cli_model_resolve). */
int cli_assume_given(const cli_model *m);

/* The assumed parameter vector for the true vector par (model->nparam
 * entries): par with the --assume values on top, so parameters not named by
 * --assume follow the true ones.  apar may equal par (in place). */
void cli_assume_par(const cli_model *m, const double *par, double *apar);

/* 1 if some scheme of s[0..n-1] has an output correction (the only part of
 * a scheme that uses the assumed model); otherwise 0 and the one-line note
 * "cosa: CMD: note: --assume has no effect on SCHEMES (no output
 * correction)" on stderr.  Call it once, when an assumed model is given. */
int cli_assume_note(const char *cmd, const cosa_scheme *s, size_t n);

/* The assumed system for the true parameter vector par (m resolved, sys
 * the true system at par): model->create at cli_assume_par(par), set as
 * .model of every scheme of s[0..n-1] with an output correction.  *model
 * stays NULL and the schemes untouched without --assume, when no scheme has
 * an output correction, or when the assumed vector equals par bit for bit
 * (the true system: bitwise the results without --assume).  Caller frees
 * *model after the schemes' last use.  One-line errors "model 'NAME'
 * (assumed): ..." with the exit code of the same failure of the true model
 * (2 for parameters the model rejects), or 2 for an assumed system of
 * another shape. */
int cli_assume_system(const cli_model *m, const char *cmd, const double *par,
                      const cosa_system *sys, cosa_scheme *s, size_t n, cosa_system **model);

/* Lines "PREFIXassume NAME VALUE" (%.17g), one per parameter set by
 * --assume, in the model's parameter order; nothing without --assume. */
void cli_assume_print(FILE *f, const char *prefix, const cli_model *m);

/* Parse a scheme name with a one-line error on failure. */
int cli_scheme(const char *cmd, const char *text, cosa_scheme *s);

/* The help text describing the scheme names (an OPTK_TEXT row). */
extern const char cli_scheme_help[];

/* The --metric list of 'cosa map' and 'cosa curve' (help text, no final
 * newline; analysis/sweep_cli.c parses the names). */
#define CLI_METRIC_HELP                                                                           \
    "rho (default), e_global, e_local, e_local_ref; or the\n"                                     \
    "energy paper's E_ratio (E/E_ref), dE, varsigma,\n"                                           \
    "mu_measured at T (models with an energy: twomass-fd,\n"                                      \
    "multi-fd; plain Jacobi schemes; its Phi route in the\n"                                      \
    "paper's setting: symplectic Euler, one step per unit\n"                                      \
    "step, held inputs, start from x0; 'cosa point --energy')\n"                                  \
    "or rho_iter: rho(T(omega)) of imp:/gs-imp: schemes"

/* Subcommands (analysis/cmd_*.c). */
int cmd_models(int argc, char **argv);
int cmd_point(int argc, char **argv);
int cmd_phi(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_limit(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_converge(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_defect(int argc, char **argv);
int cmd_model_dump(int argc, char **argv);
int cmd_linearize(int argc, char **argv);

/* Optional positive number option (text may be NULL: v unchanged); the one
 * positive-number parser (analysis/cli.c): one line naming opt and, for an
 * overflow or underflow, which. */
int cli_positive(const char *cmd, const char *opt, const char *text, double *v);
/* CLI_OK if the macro step dt (option opt, e.g. "--dt-max") can be
 * discretised for sys: dt |[A B]|_inf <= CLI_DT_NORM_MAX; otherwise one line
 * naming what overflows and the largest usable value, and CLI_EUSAGE. */
#define CLI_DT_NORM_MAX 1e300
int cli_dt_fits(const char *cmd, const char *opt, double dt, const cosa_system *sys);
/* 'crossings DT:leaves|enters,...' and 'monotone yes|no' fields on w
 * (table_writer.h). */
struct tw;
void cli_print_crossings(struct tw *w, const cosa_crossing *cr, size_t n, int monotone);

/* Options common to analysis subcommands: model, scheme(s), dt, alpha. */
typedef struct cli_case {
    cli_model mod;
    const char *scheme_text; /* --scheme */
    const char *dt_text;     /* --dt     */
    double alpha;            /* --alpha (default 1) */
    const char *seq_text;    /* --sequence (Gauss-Seidel execution order) */
    int seq_deprecated;      /* given as --order (deprecated spelling)     */
    size_t *seq;             /* resolved sequence (owned)                 */
    int progress;            /* --progress                                 */
    const char *iter_text;   /* --iterations K|inf (iterative schemes)     */
    const char *relax_text;  /* --relax W (iterative schemes)              */
    int td_relax;            /* set before parsing by `simulate`: --relax
                                aitken[:W0] is accepted (time domain only) */
    size_t max_points;       /* --max-points (0: CLI_POINTS_MAX)           */
    int format;              /* --format: 0 text, 1 json (table_writer.h)  */
} cli_case;

/* The cap of a sweep's size, checked when the axes are parsed, before any
 * axis value is computed or memory allocated: points of one axis, and the
 * product of all sizes (grid points x macro steps x schemes).  Raised with
 * --max-points N (map, curve).  10^7 points take about 130 MB of results. */
#define CLI_POINTS_MAX ((size_t)10000000)
/* cs->max_points, or CLI_POINTS_MAX when not given. */
size_t cli_points_cap(const cli_case *cs);
/* CLI_OK if the product of n[0..k-1] is at most cap (no overflow);
 * otherwise one line naming the sizes and the cap and CLI_EUSAGE. */
int cli_points_check(const char *cmd, size_t cap, const size_t *n, size_t k, const char *what);

/* Progress of long single runs (analysis/progress.c), on stderr: on a
 * terminal (updated in place, from 0.5 s on) or when --progress is given
 * (a line every 5 s and a closing line).  Lines start with the subcommand's
 * name ("point: 12.0 s, evaluation 1: rho(Phi), dim 2004"), not "cosa:",
 * which marks errors and notes. */
typedef struct cli_progress {
    const char *cmd;
    int on, tty, printed, requested;
    double t0, last;
    size_t evals;            /* evaluations started (stage "start")      */
    const char *stage;       /* current stage of cosa_evaluate            */
    size_t dim, sdone, stotal; /* its sub-steps (stotal 0: none)          */
    size_t done, total;      /* steps of a time-domain run (total 0: none) */
} cli_progress;
void cli_progress_init(cli_progress *p, const char *cmd, int requested);
/* A cosa_stage_fn (user_data: the cli_progress): pass it to
 * cosa_eval_workspace_set_progress. */
void cli_progress_stage(const char *stage, size_t dim, size_t done, size_t total,
                        void *user_data);
/* done of total steps of a time-domain run. */
void cli_progress_steps(cli_progress *p, size_t done, size_t total);
/* The closing line (if anything was printed, or --progress was given). */
void cli_progress_end(cli_progress *p);

/* --iterations and --relax of cs applied to the schemes s[0..n-1]
 * (analysis/iter_cli.c; README "Iterative coupling"): K an integer >= 1 or
 * inf, W finite and nonzero; either option with a scheme that is not
 * imp:/gs-imp:, or a correction with one, is a one-line error (CLI_EUSAGE). */
int cli_iter_apply(const char *cmd, const cli_case *cs, cosa_scheme *s, size_t n);
/* 1 if --relax is aitken[:W0] (Aitken's dynamic relaxation, time domain
 * only: refused by cli_iter_apply unless cs->td_relax; the scheme's relax is
 * then W0, default 0.5). */
int cli_iter_aitken(const cli_case *cs);
/* `cosa point` lines of an iterative scheme: iterations, relax, rho_iter,
 * relax_max, relax_opt, rho_iter_opt ("none" where undefined). */
struct tw;
void cli_iter_print(struct tw *w, const cosa_scheme *s, const cosa_iter_info *it);
/* Data-file header lines "# iterations K|inf|(swept)" and "# relax W|(swept)"
 * of an implicit scheme (nothing for an explicit one); x, y: the sweep axes. */
void cli_iter_header(FILE *f, const cosa_scheme *s, const cosa_sweep_axis *x,
                     const cosa_sweep_axis *y);

/* Required --dt / --scheme of a cli_case, with one-line errors
 * (cli_case_scheme applies --alpha, --iterations and --relax). */
int cli_case_dt(const char *cmd, const char *text, double *dt);
int cli_case_scheme(const char *cmd, const cli_case *cs, cosa_scheme *s);

/* Resolve the model, build its system, resolve --sequence into s->seq and check
 * the scheme against the system; one-line errors.  s must be parsed. */
int cli_case_system(const char *cmd, cli_case *cs, cosa_scheme *s, cosa_system **sys);

/* The last two steps of cli_case_system for a resolved model of nsub
 * subsystems: --sequence into s->seq, then the scheme checked against sys
 * (NULL for a nonlinear model: the scheme alone). */
int cli_case_sequence(const char *cmd, cli_case *cs, cosa_scheme *s, size_t nsub,
                   const cosa_system *sys);

/* Free what parsing (--set, --assume) and cli_case_system allocated. */
void cli_case_free(cli_case *cs);

/* ---- Option tables (analysis/opt_table.h, analysis/cli_rows.c) ----------
 * The shared rows of the analysis commands, to include (OPTK_INCLUDE) in a
 * command's table at the offset of its cli_model or cli_case:
 *   cli_model_rows     --model, --model-file, --set NAME=VALUE  (cli_model)
 *   cli_set_rows       --set NAME=VALUE alone                    (cli_model)
 *   cli_assume_rows    --assume NAME=VALUE                       (cli_model)
 *   cli_scheme_rows    --scheme SCHEME                           (cli_case)
 *   cli_dt_rows        --dt DT                                   (cli_case)
 *   cli_case_rest_rows --alpha, --sequence (--order: deprecated),
 *                      --iterations, --relax                     (cli_case)
 *   cli_case_head_rows "Model:", the model rows, --assume, the scheme
 *                      syntax, "Options:"                        (cli_case)
 *   cli_case_point_rows --scheme, --dt, cli_case_rest_rows       (cli_case)
 *   cli_case_scan_rows --scheme, cli_case_rest_rows              (cli_case)
 *   cli_progress_rows  --progress                                (cli_case)
 *   cli_max_points_rows --max-points N                           (cli_case)
 *   cli_format_rows    --format text|json                        (cli_case)
 *   cli_help_rows      -h, --help                                (none)
 * Commands whose --scheme or --dt take lists have their own rows for them
 * (into cli_case.scheme_text, .dt_text). */
extern const opt_row cli_model_rows[], cli_set_rows[], cli_assume_rows[], cli_scheme_rows[], cli_dt_rows[],
    cli_case_rest_rows[], cli_case_head_rows[], cli_case_point_rows[], cli_case_scan_rows[],
    cli_progress_rows[], cli_help_rows[], cli_max_points_rows[], cli_format_rows[];

/* OPTK_CUSTOM parsers of number options whose text the command reads later
 * (a const char * at the row's offset), checked while parsing so that an
 * error names the @FILE line: a positive finite number (--dt, --tend), a
 * finite number (--level), a list of macro steps "DT[,DT...]" or a range
 * "LO:HI:log|lin:N" with LO, HI > 0 (its N is checked with the sweep's
 * size, scli_dt_list). */
int cli_row_positive_text(const opt_row *row, const char *value, void *dst, char *msg,
                          size_t size);
int cli_row_number_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size);
int cli_row_dt_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                         size_t size);

/* A number option kept as text, checked while parsing by
 * cli_row_rule_text (row->data points to the rule): a finite number in the
 * interval (open: 1 excludes lo, 2 excludes hi), nonzero if asked, or the
 * word; else "--NAME must be WHAT, got 'V'" (why: an overflow reads
 * "--NAME must be WHAT: 'V' out of range", as cli_positive words it). */
typedef struct cli_number_rule {
    const char *what; /* "a positive finite number"               */
    const char *word; /* also accepted as it is ("auto"), or NULL */
    double lo, hi;
    unsigned open;
    int nonzero, why;
} cli_number_rule;
int cli_row_rule_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size);

/* More OPTK_CUSTOM checks of texts the command reads later, with the
 * words of its own later check: "DT[,DT...]" of positive numbers (demo
 * --dt), "N[,N...]" of thread counts (bench --threads), --iterations (K in
 * 1..1000000 or inf), --relax (finite nonzero, or aitken[:W0] with W0 in
 * (0, 2]), --rate NAME=K (K in 1..1000000; NAME against the model later;
 * an OPTK_LIST row's check, dst its slot). */
int cli_row_positive_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                               size_t size);
int cli_row_threads_list_text(const opt_row *row, const char *value, void *dst, char *msg,
                              size_t size);
int cli_row_iterations_text(const opt_row *row, const char *value, void *dst, char *msg,
                            size_t size);
int cli_row_relax_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size);
int cli_row_rate_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size);

/* The OPTK_CUSTOM parser of --set and --assume NAME=VALUE (dst: the
 * cli_model; row->data == &cli_row_assume_tag for --assume), for a
 * command that words their help differently. */
int cli_row_model_pair(const opt_row *row, const char *value, void *dst, char *msg, size_t size);
extern const int cli_row_assume_tag;

/* Parse argv of subcommand cmd against rows into dest (cs: the cli_case in
 * dest, or NULL; its alpha defaults to 1).  --help prints usage (the usage
 * line and the description, hand-written) and the rows (opt_help) on
 * stdout.  Returns CLI_OK, CLI_EUSAGE (one line printed), or -1 when the
 * help (or --list-options) was printed. */
int cli_parse_rows(const char *cmd, const opt_row *rows, void *dest, cli_case *cs, int argc,
                   char **argv, const char *usage);

/* Sweeps (analysis/cmd_map.c, cmd_curve.c, cmd_bench.c). */
int cmd_map(int argc, char **argv);
int cmd_curve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_fmu_info(int argc, char **argv);
/* CLI_OK if name is a plain file stem for --name (files NAME.dat, NAME.gp,
 * ...: no directory part, nothing the gnuplot scripts would have to quote);
 * else a one-line error naming opt and CLI_EUSAGE. */
int cli_file_stem(const char *cmd, const char *opt, const char *name);

#endif
