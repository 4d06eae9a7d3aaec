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
 * The runs (fixed-step, defect-controlled, variable-order) are
 * configurations of that loop; cosa_run (cosa/run.h) is their one entry
 * point, with one run description (cosa_run_opts) and one result
 * (cosa_run_result).  Every run resets its units' counters
 * (cosa_unitset_counters_reset) at its start. */

/* ---- Input builders: the master (lib/td/master.c) ------------------------ */

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

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/stepping.h"
#endif
#endif /* COSA_STEPPING_H */
