/* varorder_cli.h -- shared set-up of `cosa simulate --coupling ...` and
 * `cosa estimate` (variable-order paper, issue 11): options, the units of a
 * model with its coupling variables, and the reference callback. */
#ifndef COSA_VARORDER_CLI_H
#define COSA_VARORDER_CLI_H

#include "cli.h"

/* Option texts (NULL: not given). */
struct vo_cli_opts {
    const char *cmd; /* the subcommand, for vo_cli_extra's errors (set before cli_parse) */
    const char *coupling, *estimator, *control, *kmax, *ctl_rtol, *atol_x, *atol_v, *atol_u;
    const char *rtol_u, *max_attempts;
    const char *sf, *rmin, *rmax, *hmin, *ctl_vars, *jacobian, *corr_tol, *corr_max, *threads;
    const char *tend, *integrator, *rtol, *atol, *micro, *refrtol, *output, *name, *plot, *t0;
    /* the spelling jacobian was given with: "--corrector-jacobian", or
     * "--jacobian" (deprecated: vo_cli_notes says so) */
    const char *jacobian_opt;
};

/* The getopt_long entries (terminated) and their handler for cli_parse. */
extern const struct option vo_cli_options[];
int vo_cli_extra(void *ctx, int opt, const char *arg);
/* The help lines of the shared options. */
extern const char vo_cli_help[];

/* Everything a run needs, built from the parsed options. */
struct vo_cli {
    const cosa_model *m;
    const double *par;
    cosa_system *sys;        /* linear form (NULL for a nonlinear model)   */
    cosa_odesys *os;         /* ODE form: kick flags, coupling variables   */
    cosa_model_units *mu;    /* the units and their set (owns them)      */
    cosa_unit *const *units; /* mu's units, nsub entries                 */
    size_t nsub, nx;
    cosa_unitset *set;       /* mu's set                                 */
    double *x0;
    unsigned char *is_vel;
    double refrtol;
    cosa_vo_opts vo;
    cosa_scheme scheme;
    const char *iname;       /* the integrator's name                      */
    double ref_seconds;      /* wall-clock time spent in the reference     */
};

/* --corrector-jacobian (or its deprecated spelling --jacobian) with value
 * arg into o: CLI_OK, or one line and CLI_EUSAGE when the other spelling
 * was given too. */
int vo_cli_jacobian(const char *cmd, struct vo_cli_opts *o, const char *opt, const char *arg);
/* The notes of accepted options (stderr, one line each): the deprecated
 * --jacobian.  Call once the run has been set up, so that an error stays
 * one line. */
void vo_cli_notes(const char *cmd, const struct vo_cli_opts *o);

/* Parse and check every option (one-line errors, CLI_EUSAGE), build the
 * units; dt_text may be NULL (estimate sets vo.H itself). */
int vo_cli_setup(const char *cmd, cli_case *cs, const struct vo_cli_opts *o, const char *dt_text,
                 struct vo_cli *r);
void vo_cli_free(struct vo_cli *r);
/* The reference callback (ctx: the struct vo_cli): exact for linear
 * models, CVODE at --ref-rtol otherwise. */
cosa_status vo_cli_ref(void *ctx, size_t n, const double *t, size_t nsel, const size_t *sel,
                       double *X);

/* Wall-clock seconds (monotonic). */
double vo_cli_now(void);

/* `cosa simulate --coupling ...` after the command line was parsed
 * (analysis/cmd_simulate.c decides the mode): cs and o as cli_parse and
 * vo_cli_extra left them. */
int cmd_simulate_vo(cli_case *cs, struct vo_cli_opts *o);
/* Its --help. */
void cmd_simulate_vo_help(void);

#endif
