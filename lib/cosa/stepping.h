/* cosa/stepping.h -- stepping: the run loop, its input builders (the master,
 * extrapolation, held multi-rate) and iterative coupling.
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_STEPPING_H
#define COSA_STEPPING_H

#include "cosa/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* The run loop and its tables (lib/td/evolve.c)                            */
/* ======================================================================== */

/* Every run is one loop, propose -> estimate -> decide -> commit (or
 * reject: restore the units and retry), with the variable parts as tables:
 *   input builders   the master (extrapolation of order p, Taylor, held
 *                    multi-rate, given polynomials) and the iteration;
 *   estimators       none, the per-step defects, the variable-order table;
 *   controllers      fixed, the controller table (PI, order, step) and the
 *                    variable-order rules behind it;
 *   observers        recording, energy indicators, progress.
 * The runs (cosa/run.h: cosa_cosim_run, cosa_defect_run, cosa_vo_run) are
 * configurations of that loop; cosa_run is their one entry point, with one
 * run description and one result.  Every run resets its units' counters
 * (cosa_unitset_counters_reset) at its start. */

/* ---- Input builders ------------------------------------------------------ */

/* ---- Master ------------------------------------------------------------------ */

/* How the master builds the inputs of a macro step (an extrapolation kind). */
typedef enum cosa_extrapolation {
    COSA_EXTRAP_HISTORY = 0, /* degree-p Lagrange polynomial through the stored
                                corrected outputs ybar_n .. ybar_{n-p} (MBCorr
                                paper; equidistant macro steps)               */
    COSA_EXTRAP_TAYLOR,      /* Taylor polynomial of degree q = min(p, n) from
                                the outputs' derivatives y^(0..n)(T_n), made
                                consistent by cosa_unitset_exchange_derivatives
                                (defect paper eq 15, Algorithm 1 step 1); the
                                macro step may change from step to step       */
    COSA_EXTRAP_GIVEN        /* the caller sets every proposal's input
                                polynomials (cosa_master_set_inputs) and its
                                macro step (cosa_master_set_step): the
                                variable-order engine's explicit and implicit
                                couplings (issue 11).  Plain Jacobi without
                                corrections; the units advance in parallel
                                (OpenMP), bitwise as on one thread             */
} cosa_extrapolation;

typedef struct cosa_master_opts {
    int lin_at_end;   /* MBCorr linearisation point: 0 = start of the step,
                         (x_n, u~(T_n)); 1 = end, (x_{n+1}, u~(T_{n+1}))       */
    int force_fd;     /* 1: finite-difference Jacobians even if analytic      */
    cosa_extrapolation extrapolation; /* default HISTORY                     */
    int out_order;    /* TAYLOR: n, the output derivatives read at T_n and at
                         T_{n+1} (0..COSA_UNIT_DERMAX)                        */
    int sample_mid;   /* 1: every proposal also samples the outputs at
                         T_n + H/2 through a unit snapshot (half step, read,
                         restore: the step itself is unchanged, bitwise);
                         units need COSA_UNIT_CAN_SAVE_STATE.  2: the same,
                         but a half step that fails (restored) loses that
                         step's sample only (ymid NULL, cosa_master_mid_lost)
                         instead of failing the step                         */
    const unsigned char *step_gains; /* NULL, or one flag per unit: 1 = the
                         output correction takes that unit's G_p and G_0 from
                         central differences through its snapshots over the
                         step itself (cosa_unit_step_gains, issue 13: "finite
                         differences through FMU state") instead of its
                         Jacobians (not linearised then; --linearize has no
                         effect on it); the unit needs COSA_UNIT_CAN_SAVE_STATE.
                         Copied by cosa_master_create; ignored with a
                         scheme's fixed model (cosa_scheme.model)              */
    int held;             /* 1: before each of its steps a unit gets the input
                         polynomial's value at the step's start, held constant
                         over the step (eq 9: a unit's outputs at T_{n+1} use
                         the input of its last step; K = 1 units see the last
                         sample).  held and the unit set's rates
                         (cosa_unitset_set_rates) need a plain Jacobi scheme
                         without the mid sample, gains by steps or TAYLOR:
                         else COSA_EUNSUPPORTED.  The master's time is
                         t0 + n H from a step counter, never a running sum     */
    int events;           /* 1: units with events (cosa_unit_has_events) may
                         end a step early at an event, and the proposal ends
                         there for every unit: the units with events step
                         first, a unit already past the event is restored
                         from its snapshot (taken before every step where the
                         unit can save its state) and stepped again to it;
                         the commit runs Event Mode on the units where it is
                         pending, reads their outputs again and restarts the
                         extrapolation's history there (its order builds up
                         again; the Lagrange basis on the samples' actual
                         times).  The macro step of each proposal is
                         cosa_master_set_step's.  Needs a plain Jacobi scheme
                         without corrections on the history's extrapolation,
                         no rates, held inputs, mid samples or gains by steps:
                         else COSA_EUNSUPPORTED (lib/td/master_event.c)        */
} cosa_master_opts;

typedef struct cosa_master cosa_master;

/* A master for scheme s (Jacobi or Gauss-Seidel, any order, corrections for
 * Jacobi as in the Phi engine) over a unit set (borrowed: it must outlive the
 * master).  A Gauss-Seidel scheme runs the units in the order s->seq when it
 * is given (it must be a permutation), else in the set's sequence.  H > 0 is
 * the macro step; opt may be NULL (defaults 0).
 * Per macro step T_n -> T_{n+1} (MBCorr paper section 2.3, doc/method.md):
 *  1. every input gets u~(s) = L P(s) + du_n, P the degree-p extrapolation
 *     of the corrected outputs ybar_n..ybar_{n-p} (s = (t - T_n)/H); for
 *     Gauss-Seidel, outputs of units already advanced in this step use the
 *     interpolation through y_{n+1}, ybar_n, ..., ybar_{n+1-p} instead;
 *  2. each unit gets its input polynomial (set_input), steps (do_step) and
 *     reports y_{n+1} (get_output);
 *  3. output correction: every unit is linearised (cosa_unit_jacobian) at the
 *     chosen point, the Jacobians are stacked into A_n, B_n, C_n, D_n and
 *     G_p = C_n sum_m w_m Q_m + D_n, G_0 = C_n Q_0 + D_n are formed with the
 *     Van Loan discretisation of the core (cosa_disc_compute); then
 *     (I - G_p L) ybar_{n+1} = y_{n+1} - G_p L E_p - G_0 du_n  (eq 14);
 *  4. state correction: du_{n+1} = (1 - alpha) du_n + alpha kappa_p L (ybar_{n+1} - E_p)
 *     (eq 22);
 *  5. the history shifts.
 * For linear units this is Phi z_n exactly (up to rounding). */
cosa_status cosa_master_create(cosa_unitset *set, const cosa_scheme *s, double H,
                               const cosa_master_opts *opt, cosa_master **out);
void cosa_master_free(cosa_master *m);

/* Start at time t0 with the stacked state x0 (nx), the history yhist (ny x (p+1),
 * column j = ybar_{-j}) and the offset du0 (nu entries, NULL = 0; ignored
 * without state correction).  Sets the units' states. */
cosa_status cosa_master_init(cosa_master *m, double t0, const double *x0, const double *yhist,
                             const double *du0);
/* Start from x0 alone: y0 from the algebraic loop (cosa_unitset_loop_solve,
 * starting at 0) copied into every history slot, du = 0.  (This injects an
 * O(H) start-up error for p > 0; doc/method.md starts on the reference instead.) */
cosa_status cosa_master_init_loop(cosa_master *m, double t0, const double *x0);
/* The same, but the history holds y0 only: the extrapolation degree is
 * capped by the samples that exist (step 1 ZOH, step 2 at most FOH, ...;
 * energy paper's start, `--start initial`).  Schemes without corrections
 * and with HISTORY extrapolation only (COSA_EUNSUPPORTED). */
cosa_status cosa_master_init_initial(cosa_master *m, double t0, const double *x0);

/* One macro step: cosa_master_propose, then cosa_master_commit.  On failure
 * (a unit's status, COSA_ECORRSINGULAR, ...) the master's history is
 * unchanged, the units' states may have advanced. */
cosa_status cosa_master_step(cosa_master *m);

/* An offset added to every input (nu entries; NULL = 0) from the next
 * proposal on, as a constant over the step: u~(s) = L P(s) + du_n + off
 * (the energy paper's correction force, cosa_energy).  Outputs of units
 * with feedthrough see it like any input.  COSA_ENONFINITE for NaN/Inf. */
cosa_status cosa_master_set_input_offset(cosa_master *m, const double *off);

/* The stages of a macro step, for a controller that may reject it:
 * propose runs extrapolate -> advance -> correct outputs -> correct state
 * into a proposal (the master's time, history and offset are unchanged);
 * with save_units = 1 it first saves every unit's snapshot (units need
 * COSA_UNIT_CAN_SAVE_STATE; the snapshots are reused from step to step).
 * commit accepts the proposal (history shift, time T_n + H) and calls the
 * observers; reject restores the units' snapshots and drops the proposal.
 * After a failed propose the proposal is dropped; reject still restores. */
cosa_status cosa_master_propose(cosa_master *m, int save_units);
cosa_status cosa_master_commit(cosa_master *m);
cosa_status cosa_master_reject(cosa_master *m);

/* Observers (as OSP libcosim's): called after cosa_master_init /
 * cosa_master_init_loop (initialized) and after every committed step
 * (step_complete), in the order they were added, with the master in its new
 * state (read it with cosa_master_get / cosa_master_info).  Either callback
 * may be NULL.  A status other than COSA_OK from a callback is returned by
 * the init or step call (the step is committed nonetheless).  The observer is
 * copied; at most COSA_MASTER_OBSERVERS per master (COSA_ERANGE beyond). */
#define COSA_MASTER_OBSERVERS 8
typedef struct cosa_observer {
    cosa_status (*initialized)(const cosa_master *m, void *user_data);
    cosa_status (*step_complete)(const cosa_master *m, void *user_data);
    void *user_data;
} cosa_observer;
cosa_status cosa_master_add_observer(cosa_master *m, const cosa_observer *obs);

/* Current values (any pointer may be NULL): time T_n, stacked state x_n (nx),
 * input at the start of the next step u = L ybar_n + du_n (nu), raw outputs
 * y_n (ny; after init: ybar_0), corrected outputs ybar_n (ny), du_n (nu). */
cosa_status cosa_master_get(const cosa_master *m, double *t, double *x, double *u, double *y,
                            double *ybar, double *du);
/* The information vector z_n in the layout of the scheme (doc/method.md). */
cosa_status cosa_master_info(const cosa_master *m, double *z);
/* The macro step of the next proposal (TAYLOR and GIVEN extrapolation, and
 * any master with opts.events, whose history keeps its sample times: the
 * history of the others assumes equidistant macro points;
 * COSA_EUNSUPPORTED for them).  H > 0 finite, else COSA_ERANGE. */
cosa_status cosa_master_set_step(cosa_master *m, double H);

/* What the last successful proposal saw (also after its commit, e.g. in an
 * observer; valid until the next propose or init; any pointer may be NULL): H, the input polynomials' derivatives
 * u^(0..q)(T_n) (nu x (q+1), ld nu; *q the input degree), the outputs'
 * derivatives at T_n + H with the step's input polynomial continued there,
 * y^(0..n) (ny x (n+1), ld ny; *n = out_order, TAYLOR only, else NULL and
 * *n = -1), and with sample_mid the outputs at T_n + H/2 (ny; else NULL).
 * COSA_EINVAL if there has been no successful proposal since init. */
cosa_status cosa_master_step_data(const cosa_master *m, double *H, int *q, const double **uder,
                                  int *n, const double **yder, const double **ymid);

/* Index of the unit that failed in the last step or propose (or nunits). */
size_t cosa_master_failed_unit(const cosa_master *m);
/* Events (opts.events; lib/td/master_event.c): where the proposal waiting
 * for commit ends, *t (its T_n + H, or the earlier event), and whether Event
 * Mode is pending there (*event; either pointer may be NULL); returns 1 when
 * it ends before T_n + H, 0 otherwise (also without events or a proposal). */
int cosa_master_reached(const cosa_master *m, double *t, int *event);
/* The earliest time event the units with events announced (INFINITY: none,
 * or events off). */
double cosa_master_next_event(const cosa_master *m);
/* 1 when the last commit was an event point (Event Mode ran there). */
int cosa_master_at_event(const cosa_master *m);

/* ---- Iterative coupling in the time domain (lib/td/iterate.c) -------------- */

/* The schemes imp:P[/Q], gs-imp:P[/Q] and the explicit gs:P/Q (one sweep) run
 * on units with rollback (README "Iterative coupling"): per macro step the
 * predictor E_p, then sweeps j = 1, 2, ... from x_n with the degree-q input
 * polynomials through the iterate's end values and ybar_n .. ybar_{n-q+1},
 * relaxed yhat^(j) = yhat^(j-1) + omega (y^(j) - yhat^(j-1)); accepted
 * x_{n+1} = x^(j), ybar_{n+1} = y^(j) of the last sweep. */
#define COSA_ITER_MAX_DEFAULT 100
typedef struct cosa_iter_opts {
    unsigned iterations; /* fixed sweeps per macro step (converge = 0), or the
                            most sweeps when converging; 0: the scheme's
                            iterations, COSA_ITER_MAX_DEFAULT if those are 0 */
    int converge;        /* 1: stop at the first sweep with |yhat^(j) -
                            yhat^(j-1)|_2 <= tol |yhat^(j)|_2 over the outputs
                            read as iterates (preCICE's relative measure)   */
    double tol;          /* > 0; also what windows_not_converged counts
                            against in fixed mode                          */
    int aitken;          /* 1: Aitken's dynamic relaxation (preCICE), starting
                            from the scheme's relax                         */
} cosa_iter_opts;

typedef struct cosa_iter_stats {
    size_t windows;       /* committed macro steps                           */
    size_t sweeps;        /* sweeps over all of them (accepted ones included) */
    unsigned sweeps_max;  /* most sweeps in one macro step                   */
    size_t not_converged; /* macro steps whose last update missed tol        */
    double contraction;   /* geometric mean over the macro steps of the
                             contraction per sweep: exp of the least-squares
                             slope of log d_j, j = 2 .. the last sweep with
                             d_j > 1e-11 |yhat^(j)| (d_j the update norms;
                             steps with fewer than 3 such sweeps are left
                             out; NaN if all are)                            */
    size_t nest;          /* macro steps in contraction                      */
    double relax_last;    /* the last sweep's omega (Aitken's varies)        */
    size_t rollbacks;     /* restarts from the window's start: Jacobi sweeps
                             after the first (J - 1 per window), Gauss-Seidel
                             sweeps after the first and the replay of the
                             accepted one through the master (J per window)  */
} cosa_iter_stats;

typedef struct cosa_iter cosa_iter;
/* An iteration over a unit set (borrowed) for scheme s (implicit or q_extra,
 * no corrections: else COSA_EUNSUPPORTED) with macro step H; it owns a
 * master (COSA_EXTRAP_GIVEN, a plain Jacobi scheme of order p) made with
 * mopt (may be NULL; held, sample_mid, unit rates and coupling variables:
 * COSA_EUNSUPPORTED; step_gains and lin_at_end are ignored: no correction).  Gauss-Seidel sweeps step the units
 * directly from snapshots (COSA_UNIT_CAN_SAVE_STATE needed, as for the
 * Jacobi rollback).  COSA_ERANGE for H, tol or q out of range. */
cosa_status cosa_iter_create(cosa_unitset *set, const cosa_scheme *s, double H,
                             const cosa_master_opts *mopt, const cosa_iter_opts *opt,
                             cosa_iter **out);
void cosa_iter_free(cosa_iter *it);
/* The master (initialise it with cosa_master_init; observers, read-out). */
cosa_master *cosa_iter_master(cosa_iter *it);
/* One macro step (sweeps, then commit).  On failure the master's history is
 * unchanged, the units may have advanced. */
cosa_status cosa_iter_step(cosa_iter *it);
cosa_status cosa_iter_get_stats(const cosa_iter *it, cosa_iter_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* COSA_STEPPING_H */
