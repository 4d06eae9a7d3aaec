/* varorder_cli.h -- shared set-up of `cosa simulate --coupling ...` and
 * `cosa estimate` (variable-order paper, issue 11): options, the units of a
 * model with its coupling variables, and the reference callback. */
#ifndef COSA_VARORDER_CLI_H
#define COSA_VARORDER_CLI_H

#include "cli.h"

/* The options of the variable-order engine, as the option rows leave them
 * (vo_cli_opts_init first: NAN, -1, 0 and NULL mean "not given", the
 * engine's default then). */
struct vo_cli_opts {
    const char *cmd;                /* the subcommand, for messages             */
    const char *coupling;           /* --coupling explicit|implicit              */
    const char *estimator;          /* --estimator (the library's lookup)        */
    int control;                    /* --control: cosa_vo_control_kind, or -1    */
    long kmax, corr_max;            /* --kmax, --corr-max, or -1                 */
    double ctl_rtol, atol_x, atol_v, atol_u, rtol_u, sf, rmin, rmax, hmin, corr_tol;
    int ctl_vars;                   /* --ctl-vars: 0 all, 1 coupling, or -1      */
    int jacobian;                   /* --corrector-jacobian: cosa_vo_jacobian, or -1 */
    const char *jacobian_old;       /* --jacobian (deprecated spelling), as given */
    size_t max_attempts, threads;   /* 0: not given                              */
    /* the units, the reference and the horizon */
    const char *integrator;
    double rtol, atol, micro, refrtol, tend, t0;
    const char *output, *name, *plot;
    const char *ref;                /* --ref auto|fine|none (simulate)           */
    int start;                      /* --start: 0 reference, 1 initial, or -1    */
};

/* The "not given" values of every field; cmd as given. */
void vo_cli_opts_init(struct vo_cli_opts *o, const char *cmd);

/* The option rows of the engine (dest: a struct vo_cli_opts), for
 * `cosa simulate` (included with .modes = its --coupling mode) and
 * `cosa estimate`: --coupling ... --threads. */
extern const opt_row vo_cli_rows[];
/* --control none|step|order (simulate only). */
extern const opt_row vo_cli_control_rows[];
/* The units' rows of `cosa estimate` (simulate shares its own): --integrator,
 * --rtol, --atol, --micro, --ref-rtol. */
extern const opt_row vo_cli_unit_rows[];

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
    double fine_seconds;     /* of it, the fine reference before the run   */
    char kmax_capped_by[64]; /* --control order without --kmax: the FMU whose
                                input smoothness capped kmax ("": none)     */
    int kmax_capped_interp;  /* 1: its input interpolation capped it (a held
                                input), not its recommended smoothness      */
    size_t nbb;              /* black boxes (sim_blackbox.h): no reference  */
    char bbnames[128];
    int refmode;             /* VO_REF_MONOLITHIC, _FINE or _NONE           */
    cosa_reftraj *fine;      /* the fine co-simulation, sampled at every fine
                                step (refmode VO_REF_FINE, vo_cli_fine)     */
    char refdesc[96];        /* the 'reference' line ("" for monolithic)    */
};

/* The references of a --coupling run: the monolithic one (exact or CVODE,
 * the default), the fine co-simulation (black boxes' default) or none. */
enum { VO_REF_MONOLITHIC = 0, VO_REF_FINE, VO_REF_NONE };

/* --jacobian (the deprecated spelling of --corrector-jacobian), o->jacobian_old,
 * into o->jacobian: CLI_OK, or one line and CLI_EUSAGE for a bad value or
 * when --corrector-jacobian was given too. */
int vo_cli_jacobian_old(const char *cmd, struct vo_cli_opts *o);
/* The notes of accepted options (stderr, one line each): the deprecated
 * --jacobian, and kmax capped by an FMU's input smoothness (r may be NULL).
 * Call once the run has been set up, so that an error stays one line. */
void vo_cli_notes(const char *cmd, const struct vo_cli_opts *o, const struct vo_cli *r);

/* Parse and check every option (one-line errors, CLI_EUSAGE), build the
 * units; dt_text may be NULL (estimate sets vo.H itself).  The FMUs' input
 * smoothness rule (cosa_fmu_smoothness_degree, README "FMU import") bounds
 * every input polynomial the engine gives an FMU with
 * recommendedIntermediateInputSmoothness K >= 1: the degree k (one line
 * and CLI_EUSAGE above K, the fixed-step run's line), k + 1 for the
 * exlocal estimator's comparative integration, kmax with --control order
 * (--kmax above K is refused; without --kmax, kmax is capped at K, a
 * note). */
int vo_cli_setup(const char *cmd, cli_case *cs, const struct vo_cli_opts *o, const char *dt_text,
                 struct vo_cli *r);
void vo_cli_free(struct vo_cli *r);
/* The reference callback (ctx: the struct vo_cli): exact for linear
 * models, CVODE at --ref-rtol otherwise. */
cosa_status vo_cli_ref(void *ctx, size_t n, const double *t, size_t nsel, const size_t *sel,
                       double *X);

/* The fine reference (refmode VO_REF_FINE; else nothing): the same units
 * co-simulated from x0 at t = 0 with SOH (or the highest input degree every
 * FMU takes) at H0 / 64 (or H0 / K on a fixed-step FMU's grid) over the
 * engine's horizon, every fine step kept (r->fine), refdesc set.  CLI_OK, or
 * one line and CLI_EUSAGE / CLI_EFAIL.  Before the run: the units are left
 * at its end, and the engine sets them again. */
int vo_cli_fine(const char *cmd, struct vo_cli *r);

/* State i (outputs = 0) or output i (outputs = 1) of the sampled
 * trajectory tr (a sample every tr->H from t = 0) at time t: the sample at
 * t, else the cubic through the four nearest samples. */
double vo_cli_fine_at(const cosa_reftraj *tr, int outputs, size_t i, double t);

/* Wall-clock seconds (monotonic). */
double vo_cli_now(void);

/* `cosa simulate --coupling ...` after the command line was parsed
 * (analysis/cmd_simulate.c decides the mode): cs and o as the option rows
 * left them. */
int cmd_simulate_vo(cli_case *cs, struct vo_cli_opts *o);

/* The cap of a simulate run's macro steps without --max-points N (their
 * trajectories take about 300 bytes a step for two small units). */
#define SIM_STEPS_MAX ((size_t)100000000)
/* CLI_OK if nsteps (T / DT) is at most the cap (cs->max_points, else
 * SIM_STEPS_MAX); otherwise one line and CLI_EUSAGE (cmd_simulate.c). */
int sim_steps_check(const char *cmd, const cli_case *cs, double nsteps);
/* Its --help: the usage and description before the option rows, and what
 * it prints after them. */
extern const char cmd_simulate_vo_usage[], cmd_simulate_vo_prints[];

#endif
