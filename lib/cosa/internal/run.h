/* cosa/internal/run.h -- the build tree's view of cosa/run.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/run.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_RUN_H
#define COSA_INTERNAL_RUN_H

#include "cosa/run.h"

/* COSA_ERANGE unless 0 < hmin <= h0 <= hmax, 0 < rate_min <= rate_max,
 * safety, rtol, atol >= 0 with rtol + atol > 0, finite gains. */
cosa_status cosa_ecco_reset(const cosa_ecco_params *p, cosa_ecco_state *s);

/* After a step of s->h_ns from t_ns: the residuals |P_a - P_b| of the bonds
 * (n of them) turn into the scaled error estimate (*err; NaN when the step
 * is not adjusted: the first one, or no bonds) and the next step s->h_ns,
 * exactly as libcosim's ecco_algorithm::adjust_step_size. */
cosa_status cosa_ecco_adjust(const cosa_ecco_params *p, cosa_ecco_state *s, long long t_ns,
                             size_t n, const double *residual, double *err);

cosa_status cosa_ecco_run(cosa_unitset *set, const double *x0, const cosa_ecco_params *p,
                          const cosa_power_bond *bonds, size_t nbond, double tend,
                          cosa_ecco_result **out);

void cosa_ecco_result_free(cosa_ecco_result *r);

/* libcosim's fixedStep with decimation (lib/td/osp_fixed.c): communication
 * points every base step h (whole nanoseconds), unit a stepping every k[a]
 * base steps (one step of k[a] h, outputs held in between), output j
 * reaching input i after the base steps that are multiples of the lcm of
 * their units' k; until tend as cosa_ecco_run, recorded alike (err NaN).
 * With every k = 1 it is cosa_ecco_run at the fixed step h, to the bit. */
cosa_status cosa_osp_fixed_run(cosa_unitset *set, const double *x0, double h,
                               const unsigned *k, double tend, cosa_ecco_result **out);

/* ---- The presets' own option structs ------------------------------------
 * What the configurations' internal presets (cosa_cosim_run, cosa_defect_run,
 * cosa_vo_run) read.  The public description is cosa_run_opts: lib/td/run.c
 * fills these from it, in one place (run_fill_*). */

typedef struct cosa_cosim_opts {
    size_t nsteps;           /* N = round(T_end / H) >= 1 macro steps           */
    double h_last;           /* > 0 (and < H): one more, shorter step after the
                                N full ones, to end the horizon at t[N] + h_last
                                (the end clip; the result has N + 1 steps, the
                                last one clipped); 0: none                      */
    cosa_master_opts master;
    double diverge_factor;   /* divergence threshold (see below); <= 0: 1e6    */
    const cosa_observer *observers; /* extra observers of the run (may be NULL) */
    size_t nobservers;       /* at most COSA_MASTER_OBSERVERS - 3               */
    int defects;             /* 1: also the defects of every step (defect paper,
                                issue 12 section 5): the scheme's own input
                                polynomial, output polynomials from the output
                                derivatives of order defect_out_order, the mid
                                sample from a snapshot (the run is unchanged,
                                bitwise); units need COSA_UNIT_CAN_SAVE_STATE */
    int defect_out_order;    /* 0..COSA_UNIT_DERMAX                             */
    int start_initial;       /* 1: start at t = 0 from the reference's x(0), y_0
                                from the algebraic loop, the extrapolation degree
                                capped by the samples that exist
                                (cosa_master_init_initial; energy paper);
                                t[n] = n H then                                 */
    const cosa_energy_opts *energy; /* NULL, or the energy paper's indicators at
                                every macro point (result.energy; an observer of
                                the run, over the unit set's power port) and,
                                with energy->correct, its correction force, the
                                master's input offset over the next step (Jacobi
                                schemes without +ocorr/+ecorr/+mbcorr only:
                                COSA_EUNSUPPORTED; no port: COSA_EINVAL)         */
    const cosa_iter_opts *iter; /* imp:, gs-imp:, gs:P/Q (cosa_iter): NULL = the
                                scheme's iterations, or to 1e-8 with at most
                                COSA_ITER_MAX_DEFAULT sweeps; no defects, start
                                on the reference, no energy correction       */
    const cosa_cancel *cancel; /* checked before every macro step (NULL: none):
                                once set, the run stops and returns
                                COSA_ECANCELLED (no result)                   */
} cosa_cosim_opts;

typedef struct cosa_defect_opts {
    int in_order;              /* m, 0..2 (at most the units' input degree)  */
    int out_order;             /* n, 0..2                                     */
    double H;                  /* fixed macro step (> 0), or 0 with tol       */
    double tol;                /* defect tolerance (> 0) for a controlled run */
    double h0;                 /* first step of a controlled run (> 0)        */
    double tend;               /* T > 0                                       */
    cosa_defect_control control;     /* which defects are controlled          */
    const cosa_controller_type *controller; /* NULL: "pi"                     */
    size_t max_steps;          /* steps before the run stops short of T
                                  (end COSA_DEFECT_END_MAX_STEPS; every step
                                  is kept, so this bounds the memory);
                                  0: COSA_DEFECT_MAX_STEPS                    */
    double hmin;               /* a controlled run stops (COSA_DEFECT_END_HMIN)
                                  when the controller's next step is below
                                  hmin (>= 0; 0: COSA_DEFECT_HMIN -- there is
                                  always a positive floor)                    */
    const cosa_observer *observers; /* nobservers (at most COSA_MASTER_OBSERVERS)
                                  observers of the run's master: initialized
                                  at t = 0 (e.g. the FMU initialization loop
                                  again there), step_complete after commits   */
    size_t nobservers;
} cosa_defect_opts;

typedef struct cosa_vo_opts {
    cosa_vo_coupling_kind coupling;
    int k;                 /* the (initial) degree, 0..kmax                  */
    int kmax;              /* 0..COSA_VO_KMAX (5)                            */
    double H;              /* macro step (fixed) or H0 (controlled)          */
    double tend;           /* the run covers [t_s, t_s + tend]               */
    const cosa_vo_estimator *estimator; /* NULL: none (control none only)    */
    cosa_vo_control_kind control;
    double rtol, atol_x, atol_v, atol_u;
    double rtol_u;         /* rtol of the coupling variables (0: rtol)        */
    double sf, rmin, rmax, hmin;
    int ctl_coupling;      /* 1: n* = the coupling bodies' states only       */
    cosa_vo_jacobian jacobian;
    double corr_tol;       /* 1e-10                                          */
    int corr_max;          /* 10                                             */
    const unsigned char *is_vel; /* nx: 1 velocity, 0 position (NULL: the
                              units' kick flags are not known: all velocities) */
    size_t max_attempts;   /* 0: 10^7                                        */
    const cosa_controller_type *controller; /* NULL: "order" or "step" of the
                              controller table by control; else any entry
                              (e.g. "pi": the step alone, from the error norm
                              with tol 1)                                     */
    size_t store_max;      /* keep every state at the macro points when nx <=
                              store_max (0: 20000), else only the coupling
                              bodies' (e36_all is then NaN)                  */
    const cosa_observer *observers; /* nobservers (at most COSA_MASTER_OBSERVERS)
                              observers of the engine's master: initialized
                              where the run (or the estimate's step) starts,
                              e.g. the FMU initialization loop again there;
                              step_complete after the master's commits       */
    size_t nobservers;
    int start_initial;     /* 0: the start-up samples u(T_j), j = 0..K+1, and
                              the states at t_s = (K+1) H from the reference;
                              1: from the units' own state at t = 0 (x(0) of
                              the reference, the units instantiated afresh:
                              black boxes), K+1 committed steps of H of
                              degree min(j, k) for step j = 0..K (the degree
                              the samples that exist allow), then the run
                              from t_s = (K+1) H as with 0                    */
} cosa_vo_opts;

void cosa_cosim_result_free(cosa_cosim_result *r);

/* "ok", "failed", "max-steps", "hmin" (NULL past the end). */
const char *cosa_defect_end_name(cosa_defect_end e);

void cosa_defect_result_free(cosa_defect_result *r);

/* The error constants of a step T_N -> T_N + H with the extrapolation nodes
 * s_j = (T_{N-j} - T_N)/H, j = 0..k-1 (s_0 = 0): with
 * L^k(s) = prod_{j<k} (s - s_j)/(1 - s_j),
 *   C_vel^k = int_0^1 L^k ds (eq 20),  C_pos^k = int_0^1 (1 - s) L^k ds (eq 17)
 * (Gauss-Legendre, exact for k <= 14).  k = 0: 1 and 1/2. */
cosa_status cosa_vo_error_constants(int k, const double *s, double *cpos, double *cvel);

/* Defaults of the issue: k 0, kmax 5, rtol 1e-5, atol_x 1e-3 rtol, atol_v
 * rtol, atol_u 1e2 rtol, SF 6, rmin 0.5, rmax 2, hmin 1e-12, corr_tol 1e-10,
 * corr_max 10, explicit, control none, fd. */
void cosa_vo_opts_default(cosa_vo_opts *o);

/* "ok", "hmin", "diverged", "max-steps", "reference-failed" */
const char *cosa_vo_status_name(cosa_vo_status s);

void cosa_vo_result_free(cosa_vo_result *r);

cosa_status cosa_vo_estimate_step(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                                  const cosa_vo_opts *o, double t0, cosa_vo_estimate *out);

/* ---- The per-paper runs: the configurations cosa_run starts -------------
 * Presets behind cosa_run (lib/td/run.c runs the same configuration after
 * the same check; tests/test_run_api.c compares them bitwise): the public
 * run API is cosa_run with its one description, cosa_run_opts, and the
 * one-call API (cosa/api.h). */

/* Start-up (doc/method.md): the co-simulation starts at t = p H on the reference,
 * x = x_ref(pH), ybar_{-j} = y_ref((p-j) H), du = 0, then runs N macro steps
 * (ref must have nsamples >= p + N + 1 at the same H, else COSA_ERANGE).
 * Divergence (a result, not an error: COSA_OK with diverged = 1): an output
 * (raw or corrected) exceeds diverge_factor * yref_max or is not finite, or a
 * unit / the correction fails numerically (reason says which).  The result is
 * owned by the caller (cosa_cosim_result_free). */
cosa_status cosa_cosim_run(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt, cosa_cosim_result **out);

/* One run from the stacked initial state x0 (the units' states are set).
 * exact (may be NULL): the coupled linear system whose monolithic solution
 * y* = C* e^{A* t} x0 is the reference of the error figures (the units must
 * be its subsystems).  A unit's failure, the step limit and the step floor
 * are results (failed = 1, end, COSA_OK); so is divergence (README
 * "Failures"): with exact, the first committed step whose output y^(0)
 * exceeds 1e6 x the largest |y*| over [0, T] (1024 uniform samples) ends
 * the run there (end FAILED, run.end COSA_RUN_HALTED, the reason names the
 * output, value and bound); without it only non-finite outputs are seen.
 * Errors: COSA_EINVAL, COSA_ERANGE (orders, H, tol, h0, T, hmin), the
 * master's. */
cosa_status cosa_defect_run(cosa_unitset *set, const double *x0, const cosa_system *exact,
                            const cosa_defect_opts *opts, cosa_defect_result **out);

/* One run on a unit set (its coupling variables: cosa_unitset_set_coupling,
 * else u = L y), from the reference's x(0) (start-up of the issue: u at
 * T_j = j H0, j = 0..K+1, K = k or kmax with order control, and z(t_s) from
 * the reference; t_s = (K+1) H0).  A run that stops (H <= hmin, divergence)
 * is a result (status), COSA_OK.  Divergence (README "Failures"): a failed
 * step (non-finite values, a unit's failure, the corrector), or -- checked
 * after the run, when the reference is evaluated -- a kept state beyond
 * 1e6 x the largest |x_ref| over the horizon (the accepted points, t = 0
 * and, for a run that stopped short, 1025 uniform samples of [0, tend]):
 * COSA_VO_DIVERGED at the first such accepted point, the reason naming the
 * state, value, bound and time, every figure cut back to that point
 * (steps, attempts, k_hist, H_*, t_end, run with end COSA_RUN_HALTED) and
 * e36_coupling, e36_all, e_end +inf.  Errors: COSA_EINVAL, COSA_ERANGE (options),
 * COSA_EUNSUPPORTED (an estimator of the other coupling, exact Jacobian on
 * nonlinear units, control without estimator). */
cosa_status cosa_vo_run(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                        const cosa_vo_opts *o, cosa_vo_result **out);

/* ---- The end clip of a fixed-step run (lib/td/end_clip.c) ---- */

/* The number n of full macro steps of H in the horizon T (> 0, H > 0), a
 * whole number as a double (the caller checks its range: T / H may be
 * 3e299), and the rest *h_last = T - n H (0 when T is a whole number of
 * steps to COSA_END_CLIP_RTOL: 0.3 / 1e-4 counts as 3000 steps exactly).
 * 0: T shorter than H, or not positive. */
double cosa_end_clip_steps(double T, double H, double *h_last);

/* A rest below COSA_END_CLIP_RTOL T (relative, against the rounding of T / H
 * and of n H: a few eps, far above) is no step. */
#define COSA_END_CLIP_RTOL 1e-9

/* Why a fixed-step run of the scheme s with the options o cannot take a
 * short last step (its master or loop assumes equal steps), NULL when it
 * can: the iterative schemes and gs:P/Q, the output and state corrections
 * (their weights are for equal steps), the energy indicators (sampled on
 * the reference's grid). */
const char *cosa_end_clip_refusal(const cosa_scheme *s, const cosa_cosim_opts *o);

#endif /* COSA_INTERNAL_RUN_H */
