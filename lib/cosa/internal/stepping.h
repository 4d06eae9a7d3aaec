/* cosa/internal/stepping.h -- the build tree's view of cosa/stepping.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/stepping.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_STEPPING_H
#define COSA_INTERNAL_STEPPING_H

#include "cosa/stepping.h"

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


/* The stepper of a fixed-step run for scheme s by its iteration entry
 * (cosa_iteration_of, lib/td/coupling.c): the master (*it NULL), or the
 * sweeps with their master (free both with cosa_iter_free). */
cosa_status cosa_coupling_stepper_create(cosa_unitset *set, const cosa_scheme *s, double H,
                                         const cosa_master_opts *mopt,
                                         const cosa_iter_opts *io, cosa_iter **it,
                                         cosa_master **m);

#endif /* COSA_INTERNAL_STEPPING_H */
