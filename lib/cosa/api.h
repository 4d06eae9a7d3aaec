/* cosa/api.h -- the one-call API (api/: a layer above models/ and the engine): a model at parameter values
 * (cosa_case) and one call per question -- point, Phi, limit, map, advise,
 * simulate -- each a thin wrapper of the engine (cosa_evaluate,
 * cosa_phi_build, cosa_dt_limit, cosa_sweep_run, cosa_advise_iter,
 * cosa_run) that checks its arguments the way the command line does and
 * gives the command line's numbers, bit for bit.
 *
 * Every call taking err returns a cosa_status and, on failure, one line in
 * err (errsize bytes; err may be NULL when errsize is 0): the command
 * line's message without its "cosa: CMD: " prefix; on success err is ""
 * (nothing of an earlier call's message is left).  The calls never print, exit
 * or keep state between calls.  Calls on different cases may run in
 * parallel; calls on one case must not overlap (the FMUs of a model file
 * are not reentrant).
 * doc/one-call-api.md has a complete example.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_API_H
#define COSA_API_H

#include "cosa/core.h"
#include "cosa/phi.h"
#include "cosa/td.h"
#include "cosa/models.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The case: a model at parameter values (api/case.c) -------------- */

typedef struct cosa_case cosa_case;

/* The built-in model name (cosa_model_find) at its default parameters.
 * COSA_EINVAL for a NULL argument or an unknown name ("unknown model
 * 'NAME' (see 'cosa models')"), COSA_ENOMEM. */
cosa_status cosa_case_builtin(const char *name, cosa_case **out, char *err, size_t errsize);
/* A model file (.cosa text, .ssp/.ssd, OspSystemStructure.xml: the
 * formats of cosa_model_file_load) at its default parameters; err holds the
 * loader's "path:line: message". */
cosa_status cosa_case_load(const char *path, cosa_case **out, char *err, size_t errsize);
/* Set parameter (or initial state) name to value, as --set NAME=VALUE:
 * COSA_EPARAM for an unknown name, a derived (let) one, or a value the
 * parameter's own rule refuses; the case is unchanged then.  Bounds
 * between parameters are checked when a call builds the system. */
cosa_status cosa_case_set(cosa_case *c, const char *name, double value, char *err,
                          size_t errsize);
/* The model and its parameter values (model->nparam entries; views valid
 * while c lives and is not set). */
const cosa_model *cosa_case_model(const cosa_case *c);
const double *cosa_case_par(const cosa_case *c);
void cosa_case_free(cosa_case *c); /* NULL is a no-op */
/* Make the calls on c (point, limit, map, advise, simulate) watch the
 * caller's cancellation flag (cosa/core.h; NULL: none, the default): once
 * it is set, from another thread or a signal handler, the running call
 * stops at its next check -- a grid point of a map, an evaluation of a
 * limit or advise scan, a macro step of a simulation (after its reference)
 * -- and returns COSA_ECANCELLED ("cancelled by the caller") with nothing
 * allocated and no result (a map's arrays hold NaN where it stopped).  The
 * flag must outlive the calls; set it before a call, not during one. */
void cosa_case_set_cancel(cosa_case *c, const cosa_cancel *cancel);

/* ---- Phi questions (api/phi_calls.c) --------------------------------- */

/* A scheme by name (cosa_scheme_parse: "zoh", "foh+mbcorr", "gs:p1",
 * "imp:foh", ...), checked against c's system as `cosa point --scheme`. */

/* `cosa point --scheme SCHEME --dt DT [--tend TEND]` (tend <= 0: the
 * model's): rho, rho_ref, the errors and, for imp:/gs-imp: schemes, the
 * iteration figures.  Where the NRMSE is undefined (one macro step, no
 * outputs, constant outputs, more than 1e15 steps) the errors are NaN and
 * note (notesize bytes, may be NULL) says why, as point's 'note' line;
 * otherwise note is "".  COSA_EUNSTABLEREF when the monolithic reference is
 * unstable (out->rho_ref filled). */
cosa_status cosa_case_point(const cosa_case *c, const char *scheme, double dt, double tend,
                            cosa_point_result *out, char *note, size_t notesize, char *err,
                            size_t errsize);

/* The dimension of the information vector z of scheme at c (the order of
 * Phi), with its block layout in *lay (may be NULL). */
cosa_status cosa_case_phi_dim(const cosa_case *c, const char *scheme, size_t *dim,
                              cosa_layout *lay, char *err, size_t errsize);
/* Phi (exact = 0) or the reference Phi* (exact = 1) of scheme at macro step
 * dt into the caller's column-major array phi (dim x dim, leading dimension
 * ld >= dim), as `cosa phi`. */
cosa_status cosa_case_phi(const cosa_case *c, const char *scheme, double dt, int exact,
                          double *phi, size_t ld, char *err, size_t errsize);

/* `cosa limit`: the largest macro step in [dt_min, dt_max] meeting the
 * criterion (tol for the error criteria; tend <= 0: the model's;
 * per_decade 0: 20), the crossings (the first cross_cap in cross) --
 * stability and accuracy windows. */
cosa_status cosa_case_limit(const cosa_case *c, const char *scheme, cosa_criterion crit,
                            double tol, double dt_min, double dt_max, unsigned per_decade,
                            double tend, cosa_limit *out, cosa_crossing *cross,
                            size_t cross_cap, char *err, size_t errsize);

/* `cosa map`: metric over the grid x times y (parameter names, or
 * "assume.P" for the assumed model of the output correction) at one macro
 * step dt, into the caller's array values (x.n * y.n entries, x-major:
 * values[ix * ny + iy]) and status (same size, may be NULL).  An axis is
 * name, lo, hi, log (1) or lin (0), n; ny = 1 with yname NULL is a
 * one-parameter map.  threads <= 0: the OpenMP default; tend <= 0: the
 * model's.  Failed points are NaN with their status (*nfailed counts them,
 * may be NULL), as the map's data file. */
typedef struct cosa_case_axis {
    const char *name;
    double lo, hi;
    int log;
    size_t n;
} cosa_case_axis;
cosa_status cosa_case_map(const cosa_case *c, const char *scheme, double dt, cosa_metric metric,
                          const cosa_case_axis *x, const cosa_case_axis *y, double tend,
                          int threads, double *values, cosa_status *status, size_t *nfailed,
                          char *err, size_t errsize);
/* The same for the rows ix0 <= ix < ix1 of x only (values and status
 * full-size; only those rows written, bitwise as the whole map writes
 * them): a long map in pieces, e.g. to stay interruptible. */
cosa_status cosa_case_map_rows(const cosa_case *c, const char *scheme, double dt,
                               cosa_metric metric, const cosa_case_axis *x,
                               const cosa_case_axis *y, double tend, int threads, size_t ix0,
                               size_t ix1, double *values, cosa_status *status,
                               size_t *nfailed, char *err, size_t errsize);
/* The grid values of an axis (n entries of the caller), exactly those the
 * map evaluates (cosa_sweep_axis_value). */
cosa_status cosa_case_axis_values(const cosa_case_axis *a, double *v);

/* `cosa advise`: the settings (cosa_case_advise_defaults gives the
 * command's defaults). */
typedef struct cosa_case_advise_opts {
    cosa_criterion crit;  /* COSA_CRIT_ACCURATE (global, default) or COSA_CRIT_LOCAL */
    double tol;           /* error threshold (required: > 0)                      */
    double tend;          /* horizon (0: the model's)                             */
    const char *schemes;  /* candidates, comma-separated (NULL: advise's default)   */
    double dt_min;        /* 1e-7                                                 */
    double dt_max;        /* 0: 1e-2, at most tend                                */
    unsigned per_decade;  /* 20                                                   */
    double cost_corr;     /* 0.2 (--cost-mbcorr)                                   */
    double iter_tol;      /* COSA_ADVISE_ITER_TOL                                 */
    double cost_rollback; /* COSA_ADVISE_COST_ROLLBACK                            */
} cosa_case_advise_opts;
void cosa_case_advise_defaults(cosa_case_advise_opts *o);
/* The candidates' advice in advise's rank order (those the model's FMUs
 * can run first, cosa_case_runnable; then cheapest first) into out
 * (cap entries; *n the number of candidates, also when cap is too small:
 * then COSA_ERANGE and nothing is written), and the settings used in
 * *used (may be NULL: tend and dt_max resolved). */
cosa_status cosa_case_advise(const cosa_case *c, const cosa_case_advise_opts *o,
                             cosa_advice *out, size_t cap, size_t *n,
                             cosa_case_advise_opts *used, char *err, size_t errsize);

/* 1 if the FMUs of c's model can run scheme s as `cosa simulate` with its
 * defaults would (their input degree, smoothness and capabilities:
 * cosa_fmu_capability_check; for FMUs with event mode the combination
 * rules of event points, and whether fixed-step FMUs can stop at them),
 * else 0 and why (advise's reason: "FMU NAME: ...") in why (size bytes,
 * may be NULL); 1 for a model without FMUs. */
int cosa_case_runnable(const cosa_case *c, const cosa_scheme *s, char *why, size_t size);

/* ---- Simulation (api/simulate.c) ------------------------------------- */

/* The reference a fixed-step run is compared with. */
typedef enum cosa_case_ref {
    COSA_CASE_REF_AUTO = 0, /* as `cosa simulate`: exact for a linear form (the
                               linearised network of linear FMUs), the fine
                               co-simulation for nonlinear or affine FMUs or FMU
                               events, CVODE (rtol 1e-12) for a nonlinear model */
    COSA_CASE_REF_FINE,     /* the fine co-simulation (--ref fine)                */
    COSA_CASE_REF_NONE      /* no reference, no error figures (--ref none): the
                               run starts from the units' own states at t = 0;
                               e_global is NaN                                  */
} cosa_case_ref;

/* Whatever `cosa simulate` takes beyond model, scheme, dt and tend; all
 * zero (or a NULL opts) is the command's default. */
typedef struct cosa_case_sim_opts {
    cosa_case_ref ref;
    const char *integrator; /* NULL: exact for a linear form, else cvode     */
} cosa_case_sim_opts;

/* The outcome of a run: the run itself (cosa_run's result: status,
 * statistics, e_global, the trajectory run->t, run->y, run->x; every
 * figure of the fixed-step run in run->fixed) and the output names (ny of
 * them, "SUB.NAME" such as "I.s1": the trajectory file's column names
 * without their "y." prefix). */
typedef struct cosa_case_sim {
    cosa_run_result *run;
    size_t ny;
    char **yname;
    char reference[160]; /* what the reference was, as simulate's 'reference' line */
} cosa_case_sim;

/* `cosa simulate --scheme SCHEME --dt DT --tend TEND` (tend <= 0: the
 * model's), fixed-step: the units of the model (FMU subsystems run the FMU
 * itself), the reference, the run.  A run that stops (diverged, failed) is
 * a result: COSA_OK with (*out)->run->status.  Free with
 * cosa_case_sim_free. */
cosa_status cosa_case_simulate(const cosa_case *c, const char *scheme, double dt, double tend,
                               const cosa_case_sim_opts *opts, cosa_case_sim **out, char *err,
                               size_t errsize);
void cosa_case_sim_free(cosa_case_sim *s); /* NULL is a no-op */

#ifdef __cplusplus
}
#endif
#endif /* COSA_API_H */
