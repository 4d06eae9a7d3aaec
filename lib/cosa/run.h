/* cosa/run.h -- running: run statistics, ECCO step control, observers (energy),
 * the runs (fixed-step, defect-controlled, variable-order) and cosa_run.
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_RUN_H
#define COSA_RUN_H

#include "cosa/reference.h"
#include "cosa/control.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- One run's statistics, the same for every run ------------------------ */

/* How a run of the loop ended. */
typedef enum cosa_run_end {
    COSA_RUN_OK = 0, /* the end of the horizon                                  */
    COSA_RUN_FAILED, /* a step failed and was not retried (a unit's failure, the
                        outputs left the finite numbers, the corrector)         */
    COSA_RUN_LIMIT,  /* the step or attempt limit before the end                */
    COSA_RUN_HMIN,   /* the next macro step below the floor                     */
    COSA_RUN_HALTED, /* an observer stopped it (the driver's divergence test)   */
    COSA_RUN_TERMINATED /* a unit asked to end the simulation after the accepted
                           step that reached t_end (an FMU's terminateSimulation) */
} cosa_run_end;
/* "ok", "failed", "limit", "hmin", "halted", "terminated"; NULL for another
 * value. */
const char *cosa_run_end_name(cosa_run_end e);

/* The loop's own figures (as ARKODE's ARKodeGetNumSteps, GetNumErrTestFails,
 * GetLastStep: the same names whatever the configuration); every run result
 * below carries one as its member run. */
typedef struct cosa_run_stats {
    cosa_run_end end;
    double t_end;                /* the time reached                            */
    size_t steps;                /* committed macro steps                       */
    size_t rejected;             /* attempts rejected (restored and retried; a
                                    failed attempt that ends the run is none:
                                    a fixed-step run has 0)                     */
    size_t attempts;             /* steps + rejected, + 1 for a failed last
                                    attempt                                     */
    double h_min, h_mean, h_max; /* over the committed steps (NaN without)      */
    cosa_status fail;            /* the failed attempt's status (else COSA_OK)  */
    double t_fail;               /* the end of the failed attempt (else NaN)    */
    size_t fail_unit;            /* the unit that failed, or (size_t)-1         */
    double seconds;              /* wall time of the loop                       */
    size_t rollbacks;            /* the run's restarts from a step's start:
                                    the rejected attempts it retried (a failed
                                    attempt that ends the run is not one), plus
                                    the iterations' (cosa_iter_stats.rollbacks;
                                    the variable-order implicit corrector: each
                                    corrector integration).  An estimator's
                                    comparative integration and the mid-step
                                    sample of the defects restore the units too
                                    (cosa_unit_counters.restores) but are
                                    measurements, not rollbacks                */
    size_t corrector_iterations; /* iterations of the coupling: sweeps of the
                                    schemes run by cosa_iter (imp:, gs-imp:,
                                    and gs:P/Q's one sweep per window;
                                    cosa_iter_stats.sweeps), the implicit
                                    corrector's integrations
                                    (cosa_vo_result.corrector_iters); 0 for
                                    every other coupling                       */
} cosa_run_stats;

/* ---- ECCO: libcosim's energy-conservation-based step control -------------- */

/* The EccoConfiguration of an OSP system structure (libcosim's
 * ecco_algorithm_params; doc/osp.md). */
typedef struct cosa_ecco_params {
    double h0, hmin, hmax;     /* StepSize, MinimumStepSize, MaximumStepSize [s] */
    double safety;             /* SafetyFactor                                  */
    double rate_min, rate_max; /* MinimumChangeRate, MaximumChangeRate          */
    double kp, ki;             /* ProportionalGain, IntegralGain                */
    double rtol, atol;         /* RelativeTolerance, AbsoluteTolerance          */
} cosa_ecco_params;

/* A power bond as libcosim names its four variables: input_a, output_a,
 * input_b, output_b (from the labels of the OSP file's two connections);
 * each is a global input (input[k] = 1: index into u, the value the unit
 * held over the step) or a global output (0: index into y, its value at the
 * step's end).  Power a = input_a output_a, power b = input_b output_b. */
typedef struct cosa_power_bond {
    int input[4];
    size_t index[4];
} cosa_power_bond;

/* The controller's state: the next step in integer nanoseconds (libcosim's
 * time unit), the previous error estimate (1 at the start), the steps
 * taken; cosa_ecco_reset starts it at p->h0. */
typedef struct cosa_ecco_state {
    long long h_ns, hmin_ns, hmax_ns;
    double prev_err;
    size_t steps;
} cosa_ecco_state;

/* A co-simulation under ECCO: plain Jacobi with held inputs (ZOH), every
 * step of the controller's size, from the units' state x0 (nx) at t = 0,
 * until tend as libcosim's execution::simulate_until: it stops once
 * tend - t is below 1 % of the step just taken (steps are not cut at tend:
 * the last may end past it).  The result records every communication
 * point. */
typedef struct cosa_ecco_result {
    cosa_run_stats run;
    size_t n, ny;  /* committed steps, outputs                              */
    double *t;     /* n + 1 times                                           */
    double *h;     /* n steps                                               */
    double *err;   /* n: the error estimate after each step (NaN: none)      */
    double *y;     /* ny x (n + 1), column-major                            */
    double t_hmax; /* the start of the first step of size hmax (NaN: none)  */
    int failed;    /* a unit failed (Discard): the run stopped at run.t_end */
    char reason[256];
    int terminated; /* a unit asked to end the simulation (terminateSimulation)
                       after the step to run.t_end, recorded; reason says who */
} cosa_ecco_result;

/* ---- Observers: energy indicators and correction ------------------------- */
/* (After the energy paper; issue 10.) */

/* The mechanical energy E(x) of the whole system at the stacked state x. */
typedef cosa_status (*cosa_energy_fn)(void *ctx, const double *x, double *E);

typedef struct cosa_energy_opts {
    cosa_energy_fn energy;   /* the power port is the unit set's (cosa_unitset_set_port) */
    void *ctx;
    int correct;          /* 1: the energy correction (eqs 13-17)               */
    double mu, nu;        /* mu: the fraction of the residual energy; nu >= 0    */
    double limit;         /* |f^c| <= limit |sum_b f_b| (>= 0; INFINITY: none)   */
    double limit_abs;     /* and |f^c| <= limit_abs (> 0; 0 or INFINITY: none)   */
} cosa_energy_opts;

/* The energy series at the macro points t[0..npoints-1] of the run. */
typedef struct cosa_energy_result {
    size_t npoints, dim;
    double *E, *Eref;      /* E(x_n), E(x_ref(t_n))                              */
    double *dP, *dE;       /* residual power (dP[0] = 0) and energy (eqs 9, 12)  */
    double *varsigma;      /* E - Eref (eq 10)                                   */
    double *U, *Ucal;      /* the uncorrected part of a step's correction and its
                              sum (eqs 15-16, one point late; 0 without)        */
    double *fcorr;         /* dim x npoints: f^c_n (0 without the correction)     */
    unsigned char *capped; /* 1 where the limit bound f^c_n                       */
    size_t caps;
    int correct;
    double mu, nu, limit, limit_abs;
} cosa_energy_result;

/* ---- Fixed-step run (driver) with the conventions of doc/method.md --------- */

/* The communication points of a run with events (opts.master.events) off
 * the grid t = (p + n) H -- event times and cuts at time events -- in time
 * order, each with the same columns as the grid points (ld = nx, nu, ny);
 * and per grid point whether it is an event point (Event Mode ran there). */
typedef struct cosa_cosim_events {
    size_t n, cap;        /* points recorded, room                           */
    double *t;            /* n times                                         */
    double *x, *u, *y, *ybar; /* nx, nu, ny, ny per point                    */
    unsigned char *grid;  /* N+1: 1 where grid point n is an event point     */
} cosa_cosim_events;

typedef struct cosa_cosim_result {
    size_t nx, nu, ny;
    size_t nsteps;      /* N requested (with opts.h_last: N + 1, the last
                           one the short step)                               */
    size_t ndone;       /* macro steps completed (N unless diverged)          */
    int clipped;        /* 1: the last step is opts.h_last long, t[N] is the
                           end of the horizon and yref there is NaN (the
                           reference has samples at (p + n) H only): e_global
                           is over t[1..N-1]                                  */
    double *t;          /* N+1 times: t[n] = (p + n) H (clipped: t[N] =
                           t[N-1] + h_last)                                   */
    double *x;          /* nx x (N+1): unit states at t[n]                    */
    double *u;          /* nu x (N+1): input at the start of step n, L ybar_n + du_n */
    double *y;          /* ny x (N+1): raw outputs at t[n] (column 0: ybar_0)  */
    double *ybar;       /* ny x (N+1): corrected outputs at t[n]               */
    double *du;         /* nu x (N+1): state-correction offset (0 without)     */
    double *yref;       /* ny x (N+1): reference outputs at t[n]               */
    int diverged;       /* 1: stopped at t_diverged (columns > ndone are NaN)  */
    double t_diverged;
    char reason[160];   /* why it diverged ("" if not)                        */
    cosa_status fail;   /* diverged because a unit failed its step: that status
                           (COSA_EDISCARD: an FMU's Discard), else COSA_OK     */
    double yref_max;    /* largest |reference output| over t = 0 .. t[N]      */
    double e_global;    /* NRMSE of ybar vs yref at t[1..N] (cosa_traj_nrmse);
                           +inf if diverged; NaN where it is undefined (one
                           macro step, N = 1, or every output constant)      */
    size_t ncomp;       /* output components in e_global                      */
    double defect_out;  /* with opts.defects: the largest run RMS of an output
                           defect, sqrt(sum_n H rms_n^2 / (N H)) (NaN without) */
    double defect_conn; /* the same for the connection defects                */
    char defect_lost[200]; /* "" or why the defects are NaN although asked for:
                           "unit NAME: message" of a mid-sample half step that
                           failed (the run itself is unchanged)              */
    cosa_energy_result *energy; /* with opts.energy, else NULL                   */
    int iterative;      /* 1: iter holds the iteration's statistics            */
    cosa_iter_stats iter;
    cosa_run_stats run; /* the loop's statistics (cosa_run_stats)             */
    cosa_cosim_events *events; /* opts.master.events: the event points (else NULL;
                           e_global and the divergence test see the grid
                           points only; no defects or energy then)           */
} cosa_cosim_result;

/* ---- Defect-controlled co-simulation ------------------------------------- */
/* (The defect paper's Algorithm 1.) */

/* Non-iterative Jacobi with Taylor inputs of order m from output derivatives
 * of order n (the master with COSA_EXTRAP_TAYLOR and sample_mid), the
 * defects of every step (cosa_defect_step) and, with tol > 0, the macro step
 * chosen by a controller from the controlled defect (default "pi", eq 39;
 * first step h0).  The end of the run: a step that would end within
 * 1e-12 T of T, or beyond it, is shortened to end at T (fixed steps too). */
#define COSA_DEFECT_MAX_STEPS 1000000
/* The floor of a controlled defect run's step when opts.hmin is 0 [s]: the
 * variable-order engine's default too (cosa_vo_opts.hmin).  Without a floor
 * a tolerance the defects cannot reach (1e-20) halves the step into the
 * subnormals until a unit refuses it. */
#define COSA_DEFECT_HMIN 1e-12

/* How a run ended. */
typedef enum cosa_defect_end {
    COSA_DEFECT_END_OK = 0,    /* at T                                           */
    COSA_DEFECT_END_FAILED,    /* a unit failed, the outputs left the finite
                                  numbers, or an output passed 1e6 x the largest
                                  exact output (divergence)                      */
    COSA_DEFECT_END_MAX_STEPS, /* opts.max_steps steps taken before T            */
    COSA_DEFECT_END_HMIN       /* the controller's next step fell below opts.hmin */
} cosa_defect_end;

typedef struct cosa_defect_result {
    size_t ny, nu, nsteps;      /* signals; macro steps taken                 */
    int failed;                 /* 1: the run stopped short of T (end, reason) */
    cosa_defect_end end;        /* how it ended                               */
    double t_failed;            /* where: the end of the failed step (a unit,
                                   non-finite outputs), the first step past the
                                   divergence bound, or the time reached
                                   (max-steps, hmin)                          */
    char reason[192];
    double t_end;               /* T (or where it failed)                     */
    double h_min, h_avg, h_max; /* over the steps; h_avg = t_end / nsteps     */
    double eps_max;             /* largest controlled defect of a step        */
    double *defect_out;         /* ny: run RMS sqrt(sum_k H_k rms_k^2 / T)    */
    double *defect_conn;        /* nu: the same for the connection defects    */
    double *error;              /* ny: sqrt(int_0^T (Y - y_exact)^2 dt / T),
                                   continuous in time (8-point Gauss-Legendre
                                   per step); NaN without a reference         */
    double *y_end;              /* ny: Y at the end (y^(0) of the last step)  */
    /* per step k (nsteps of each): end time, H, controlled defect, the
     * per-step RMS of every output and connection defect, and the output
     * polynomial Y's coefficients y^(0..n)(t_{k+1}) */
    double *t, *h, *eps;
    double *step_out;           /* ny x nsteps                                */
    double *step_conn;          /* nu x nsteps                                */
    double *coef;               /* ny x (n+1) x nsteps                        */
    int out_order;
    cosa_run_stats run; /* the loop's statistics (cosa_run_stats)             */
    double seconds_reference; /* wall time in the exact solution (its bound
                                 before the run, the error integrals of every
                                 step) [s]; NaN without exact               */
} cosa_defect_result;

/* ---- Variable-order co-simulation engine (lib/td/vo_*.c) ------------------ */

typedef enum cosa_vo_coupling_kind { COSA_VO_EXPLICIT = 0, COSA_VO_IMPLICIT } cosa_vo_coupling_kind;
typedef enum cosa_vo_jacobian { COSA_VO_JAC_FD = 0, COSA_VO_JAC_LOS, COSA_VO_JAC_EXACT } cosa_vo_jacobian;
typedef enum cosa_vo_control_kind {
    COSA_VO_CONTROL_NONE = 0, /* fixed H and k                               */
    COSA_VO_CONTROL_STEP,     /* macro step controlled, k fixed              */
    COSA_VO_CONTROL_ORDER     /* order and macro step controlled             */
} cosa_vo_control_kind;

/* The reference the engine reads: the monolithic states at the times
 * t[0..n-1] (increasing, t[0] = 0) from the run's initial state, all of them
 * (sel = NULL: X is nx x n) or the states sel[0..nsel-1] (X nsel x n). */
typedef cosa_status (*cosa_vo_ref_fn)(void *ctx, size_t n, const double *t, size_t nsel,
                                      const size_t *sel, double *X);


typedef enum cosa_vo_status {
    COSA_VO_OK = 0, COSA_VO_HMIN, COSA_VO_DIVERGED, COSA_VO_MAXSTEPS,
    COSA_VO_NOREF           /* the monolithic reference failed (reason says
                               where); no error figures (NaN, xref NULL)     */
} cosa_vo_status;

typedef struct cosa_vo_result {
    size_t nx;             /* states kept at the macro points (rows of x)   */
    size_t nx_total;       /* the system's states                           */
    size_t *stored;        /* nx: their indices in the stacked state        */
    int all_stored;        /* 1: every state (stored[i] = i)                */
    size_t nc;
    cosa_vo_status status;
    char reason[192];
    size_t steps, rejected, corrector_iters, k_changes;
    double t_start, t_end;
    double H_mean, H_min, H_max;     /* over the accepted steps              */
    size_t k_hist[COSA_VO_KMAX + 1]; /* accepted steps per degree            */
    double e36_coupling, e36_all;    /* eq 36 over the accepted macro points */
    double e_end;                    /* max_i |z_i - zref_i| (end) / max_n |zref_i| */
    /* every attempt a = 0..nattempts-1: end time, H, k, accepted, norms,
     * corrector iterations */
    size_t nattempts;
    double *at, *aH, *aerr_pos, *aerr_vel, *aerr_u;
    int *ak, *aacc, *aiters;
    /* the accepted macro points n = 0..steps (0: t_s): times, the kept
     * states and their reference (nx x (steps+1)); coupling-body flags (nx) */
    double *t, *x, *xref;
    unsigned char *coupling_body;
    cosa_run_stats run; /* the loop's statistics (cosa_run_stats)             */
    size_t ny;          /* outputs kept at the macro points: the unit set's, or
                           0 when there are more than store_max (20000)       */
    double *y;          /* ny x (steps+1): the outputs at the accepted points
                           (the update step's consistent y; the implicit
                           coupling's last corrector integration) -- a black
                           box's errors are measured on them                   */
} cosa_vo_result;

/* One macro step for `cosa estimate`: from the reference at t0 (states),
 * history u at t0 - j H (j = 0..k+2) from the reference, one step of H with
 * degree k.  Fills (each may be NULL) err_pos/est_pos/err_vel/est_vel (state
 * estimators: 2-norms over all positions / velocities, err against the
 * monolithic step = the reference at t0 + H) or err_u/est_u (|u_pred -
 * u_exact|, 2-norm).  t0 >= (k+1) H (COSA_ERANGE otherwise). */
typedef struct cosa_vo_estimate {
    double err_pos, est_pos, err_vel, est_vel, err_u, est_u;
} cosa_vo_estimate;

/* ---- One run description, one entry point, one result -------------------- */

/* The configurations of the one loop a run description selects. */
typedef enum cosa_run_kind {
    COSA_RUN_FIXED = 0, /* a coupling scheme at a fixed macro step (cosa_cosim_run) */
    COSA_RUN_DEFECT,    /* the defect paper's run, fixed or controlled (cosa_defect_run) */
    COSA_RUN_VO,        /* the variable-order engine (cosa_vo_run)                */
    COSA_RUN_KIND_COUNT
} cosa_run_kind;
/* "fixed", "defect", "vo"; NULL for another value. */
const char *cosa_run_kind_name(cosa_run_kind k);

/* The fixed-step configuration's own settings (FIXED only). */
typedef struct cosa_run_fixed_opts {
    cosa_master_opts master; /* the master's options (events, inputs, ...)   */
    double diverge_factor;   /* divergence threshold x the reference's largest
                                output; <= 0: 1e6                            */
    int defects;             /* 1: also the defects of every step (the run is
                                unchanged, bitwise; units need
                                COSA_UNIT_CAN_SAVE_STATE)                    */
    int defect_out_order;    /* their output polynomials' order, 0..COSA_UNIT_DERMAX */
    const cosa_energy_opts *energy; /* NULL, or the energy paper's indicators
                                (result.fixed->energy) and, with
                                energy->correct, its correction (Jacobi
                                schemes without corrections only)            */
    const cosa_iter_opts *iter; /* imp:, gs-imp:, gs:P/Q: NULL = the scheme's
                                iterations, or to 1e-8 with at most
                                COSA_ITER_MAX_DEFAULT sweeps                 */
} cosa_run_fixed_opts;

/* The defect configuration's own settings (DEFECT only): Jacobi with
 * Taylor inputs of degree in_order from output derivatives of order
 * out_order.  Its error estimate is the defects themselves (eq 38):
 * control says which of them the controller measures. */
typedef struct cosa_run_defect_opts {
    int in_order;                /* m, 0..2                                  */
    int out_order;               /* n, 0..2                                  */
    cosa_defect_control control; /* the controlled defects                   */
} cosa_run_defect_opts;

/* The variable-order configuration's own settings (VO only). */
typedef struct cosa_run_vo_opts {
    cosa_vo_coupling_kind coupling; /* explicit, or the implicit corrector   */
    int kmax;                /* the largest degree with the "order" controller,
                                0..COSA_VO_KMAX                              */
    double atol_x, atol_v, atol_u; /* absolute tolerances of positions,
                                velocities and coupling variables           */
    double rtol_u;           /* rtol of the coupling variables (0: tol)      */
    int ctl_coupling;        /* 1: n* = the coupling bodies' states only     */
    cosa_vo_jacobian jacobian;
    double corr_tol;         /* the implicit corrector's tolerance (1e-10)   */
    int corr_max;            /* and its iterations (10)                      */
    const unsigned char *is_vel; /* nx: 1 velocity, 0 position (NULL: all
                                velocities)                                  */
    size_t store_max;        /* keep every state at the macro points when nx
                                <= store_max (0: 20000), else only the
                                coupling bodies' (e36_all NaN)               */
} cosa_run_vo_opts;

/* One run description.  The loop's settings come first and mean the same
 * in every configuration; the three blocks at the end hold only what is
 * special to one configuration (doc/architecture.md has the table of which
 * configuration reads which field).  kind selects the configuration: it is
 * not derived from the settings, because every configuration can run at
 * fixed steps without an estimator -- the same settings describe three
 * different runs (the scheme's extrapolation, the defect paper's Taylor
 * inputs, the variable-order engine).  A setting a configuration cannot
 * honour is refused (COSA_EUNSUPPORTED), never ignored. */
typedef struct cosa_run_opts {
    cosa_run_kind kind;
    /* the horizon and the step */
    double t0;               /* the time of the initial state: 0 (every
                                configuration starts its units at t = 0;
                                another value is COSA_EUNSUPPORTED)         */
    double tend;             /* the horizon's length from where the loop
                                starts (> 0): FIXED from t = p H on a
                                reference (its start-up) or from t = 0, VO
                                from t_s = (K+1) H, DEFECT from t = 0.  FIXED:
                                floor(tend / H) full steps (within 1e-9 of a
                                whole number is that number) and a short last
                                one to tend                                  */
    double H;                /* the macro step (fixed steps), or the first
                                step of a controlled run (> 0).  FIXED with a
                                reference trajectory: 0 = the trajectory's
                                H, another value must be it (COSA_EINVAL)   */
    /* the controller (NULL: fixed steps of H) and its parameters */
    const cosa_controller_type *controller; /* DEFECT: any entry of the table
                                (e.g. "pi"); VO: "order" (degree and step),
                                "step", or another entry (the step alone);
                                FIXED: NULL only (COSA_EUNSUPPORTED)         */
    double tol;              /* the controller's target: DEFECT the defect
                                tolerance (absolute), VO rtol (relative, the
                                WRMS norms; also read without a controller
                                when an estimator runs)                      */
    double safety;           /* VO: the safety factor SF                     */
    double rmin, rmax;       /* VO: the step ratio's limits (0 < rmin < 1 < rmax) */
    double hmin;             /* the floor of a controlled step (> 0): the run
                                stops (status hmin) below it; DEFECT, VO     */
    /* limits (0: the configuration's default) */
    size_t max_steps;        /* DEFECT: committed steps before it stops short
                                (COSA_DEFECT_MAX_STEPS); FIXED: a horizon of
                                more steps is COSA_ERANGE; VO: 0 only
                                (it limits attempts)                        */
    size_t max_attempts;     /* VO: attempts (10^7); the others: 0 only      */
    /* the coupling, the estimator */
    cosa_scheme scheme;      /* FIXED: the coupling scheme; VO: a plain
                                Jacobi degree (zoh, foh, soh, pK: the
                                extrapolation degree k); DEFECT: zoh only
                                (its inputs are defect.in_order's Taylor
                                polynomials); else COSA_EUNSUPPORTED        */
    const cosa_vo_estimator *estimator; /* VO: the error estimator (NULL:
                                none; a controller needs one); the others:
                                NULL only (DEFECT's estimate is the defects,
                                defect.control)                             */
    int start_initial;       /* 1: start at t = 0 from the units' own states
                                (FIXED: y_0 from the algebraic loop, the
                                extrapolation degree capped by the samples
                                that exist; VO: K+1 committed steps of H
                                first).  0: start on the reference.  Without
                                a reference FIXED and VO need 1 (FIXED sets
                                it itself); DEFECT always starts at t = 0  */
    /* observers of the run's master, and cancellation */
    const cosa_observer *observers; /* (may be NULL) initialized where the run
                                starts, step_complete after each commit    */
    size_t nobservers;       /* FIXED at most COSA_MASTER_OBSERVERS - 3, the
                                others COSA_MASTER_OBSERVERS                */
    const cosa_cancel *cancel; /* FIXED: checked before every macro step
                                (once set: COSA_ECANCELLED, no result); the
                                others: NULL only                           */
    /* what is special to one configuration */
    cosa_run_fixed_opts fixed;
    cosa_run_defect_opts defect;
    cosa_run_vo_opts vo;
} cosa_run_opts;

/* The defaults: kind FIXED, t0 0, tend 0 and H 0 (set them), no
 * controller, tol 1e-5, safety 6, rmin 0.5, rmax 2, hmin
 * COSA_DEFECT_HMIN, limits 0, scheme ZOH (cosa_scheme_parse("zoh")), no
 * estimator, start on the reference, no observers, no cancel; fixed: all
 * zero; defect: in_order 1, out_order 1, control BOTH; vo: explicit, kmax
 * 5, atol_x 1e-8, atol_v 1e-5, atol_u 1e-3 (1e-3 tol, tol, 1e2 tol at the
 * default tol: they do not follow a tol set later), rtol_u 0, FD Jacobian,
 * corr_tol 1e-10, corr_max 10.  NULL is a no-op. */
void cosa_run_opts_default(cosa_run_opts *o);

/* What a run compares against, by configuration (the whole argument may be
 * NULL: no reference, no error figures -- NaN): FIXED the reference
 * trajectory traj (start-up and e_global; NULL: the run starts at t = 0
 * from the units' own states and the divergence test checks finiteness
 * only); DEFECT the initial state x0 (NULL: the units' own states) and the
 * coupled linear system exact (NULL: no error figures); VO the reference
 * function fn with its context (NULL: start_initial must be 1, x(0) is the
 * units' own states, the reference NaN at every other time -- vo->xref --,
 * no error figures, the divergence bound 1e6 x the largest |x(0)|). */
typedef struct cosa_run_ref {
    const cosa_reftraj *traj;
    const double *x0;
    const cosa_system *exact;
    cosa_vo_ref_fn fn;
    void *ctx;
} cosa_run_ref;

/* How a run ended, the same in every configuration (README "Failures"):
 * every one is a result (cosa_run returns COSA_OK). */
typedef enum cosa_run_status {
    COSA_RUN_STATUS_OK = 0,   /* the end of the horizon                        */
    COSA_RUN_STATUS_DIVERGED, /* the divergence test stopped it (a value beyond
                                 1e6 x the reference's largest magnitude, or
                                 not finite)                                  */
    COSA_RUN_STATUS_FAILED,   /* a step failed: a unit's call (an FMU Discard,
                                 an integrator), non-finite values, a singular
                                 loop or correction, the corrector            */
    COSA_RUN_STATUS_LIMIT,    /* the step or attempt limit before the end      */
    COSA_RUN_STATUS_HMIN,     /* the next macro step below the floor           */
    COSA_RUN_STATUS_NOREF,    /* the reference failed (VO): no error figures   */
    COSA_RUN_STATUS_TERMINATED /* a unit asked to end the simulation (an FMU's
                                  terminateSimulation) at t_stop: the data end
                                  there, errors over the horizon reached       */
} cosa_run_status;
/* "ok", "diverged", "failed", "limit", "hmin", "reference-failed",
 * "terminated"; NULL for another value. */
const char *cosa_run_status_name(cosa_run_status s);

typedef struct cosa_run_result {
    cosa_run_kind kind;
    cosa_run_status status;
    char reason[640];     /* "" for ok; else one line: a failed unit's name
                             (or index) and the step's end time, then the
                             unit's message (the call that failed: "FMU II:
                             fmi3DoStep at t = ... returned Discard", "CVODE
                             CVode: ..."); for the others the time and what
                             stopped the run                                  */
    double t_stop;        /* where it stopped: the failed step's end, the
                             diverged point, the time reached (NaN for ok)    */
    size_t fail_unit;     /* the unit whose call failed, or (size_t)-1        */
    cosa_run_stats run;   /* steps, rejected, attempts, h_min, h_mean, h_max,
                             rollbacks, corrector_iterations, the loop's wall
                             time (as the configuration's result.run)         */
    size_t nunits;
    cosa_unit_counters *units; /* nunits: what each unit did in this run
                             (cosa_unit_get_counters; reset at its start)    */
    /* the errors against the reference that the configuration computes (NaN
     * where it computes none; +inf once diverged where it says so): */
    double e_global;      /* FIXED: NRMSE of the corrected outputs (eq 33)    */
    double e_output;      /* DEFECT: the largest RMS over the outputs of Y -
                             y*, continuous in time (cosa_defect_result.error) */
    double defect_out, defect_conn; /* FIXED (with defects) and DEFECT: the
                             largest run RMS of the output / connection defects */
    double e36_coupling, e36_all, e_end; /* VO (cosa_vo_result)               */
    /* wall times [s]: the whole call, the loop (run.seconds; for DEFECT it
     * includes the error integrals), and the reference evaluations of the
     * run (VO: its reference function; DEFECT: the exact solution,
     * cosa_defect_result.seconds_reference; NaN for FIXED -- the caller
     * computed the trajectory before -- and for DEFECT without exact)     */
    double seconds_total, seconds_loop, seconds_reference;
    /* the trajectory, the same in every configuration (owned by this
     * result): the start and every accepted macro point, npoints of them --
     * FIXED t = p H (or 0) and the steps done (the grid: event points off
     * it are in fixed->events), DEFECT t = 0 and the steps' ends, VO t_s
     * and its accepted points */
    size_t npoints;
    double *t;            /* npoints times                                    */
    size_t ny;            /* outputs (VO: 0 when it keeps none)               */
    double *y;            /* ny x npoints, column-major: the units' outputs at
                             t[n] (FIXED the raw y -- the corrected ones are
                             fixed->ybar --, DEFECT y^(0) at the step's end
                             and NaN at t = 0, where it records none, VO the
                             update step's y)                                 */
    size_t nx;            /* states kept (0: none -- DEFECT, or VO keeping only
                             the coupling bodies')                           */
    double *x;            /* nx x npoints: the stacked states at t[n]         */
    /* the configuration's own result (the one of kind; the others NULL),
     * owned by this result: every figure of that configuration */
    cosa_cosim_result *fixed;
    cosa_defect_result *defect;
    cosa_vo_result *vo;
} cosa_run_result;

/* One run of the configuration o->kind on the unit set, against ref (may
 * be NULL: no reference, see cosa_run_ref): validates the description once
 * -- COSA_EINVAL for a NULL set, o or out, an unknown kind, observers
 * counted but not given, a fixed run's H that is not its trajectory's, a
 * variable-order run with neither a reference nor start_initial;
 * COSA_ERANGE for numbers out of range or not finite (a macro step <= 0, a
 * NaN tolerance, tend <= 0, ...); COSA_EUNSUPPORTED for a start t0 other
 * than 0 and a setting the configuration cannot honour (cosa_run_opts) --
 * then runs it as the configuration's preset does (cosa_cosim_run,
 * cosa_defect_run, cosa_vo_run: internal presets, not part of this API;
 * their comments in the source tree's lib/cosa/internal/run.h say how each
 * configuration starts up and when it diverges; bitwise the same figures)
 * and fills the one result.  A run that stops is a result (status,
 * reason), COSA_OK; errors (a broken FMU, memory) are returned.  Free with
 * cosa_run_result_free. */
cosa_status cosa_run(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                     cosa_run_result **out);
void cosa_run_result_free(cosa_run_result *r);

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/run.h"
#endif
#endif /* COSA_RUN_H */
