/* cosa/internal/units.h -- the build tree's view of cosa/units.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/units.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_UNITS_H
#define COSA_INTERNAL_UNITS_H

#include "cosa/units.h"

const cosa_ode *cosa_odesys_sub(const cosa_odesys *s, size_t i); /* NULL if out of range */

const double *cosa_odesys_L(const cosa_odesys *s);

const cosa_unit_type *cosa_unit_get_type(const cosa_unit *u);

unsigned cosa_unit_caps(const cosa_unit *u);

/* For type implementers (inside step/eval): the current time t_c, the state
 * at t_c, the input polynomial's degree, and its value u(t_c + tau) (nu
 * entries, Horner on the coefficients). */
double cosa_unit_time(const cosa_unit *u);

const double *cosa_unit_state(const cosa_unit *u);

/* 1 for a linear unit (exact steps, exact Jacobians): caps has COSA_UNIT_LINEAR. */
int cosa_unit_is_linear(const cosa_unit *u);

/* The output derivatives at the current time t_c, as FMI's
 * getRealOutputDerivatives (defect paper section 3, issue 12 section 1):
 * dy (ny x (n+1), ld ny), column j = y^(j), j = 0..n <= COSA_UNIT_DERMAX:
 *   y^(0) = g(t_c, x, u(t_c)) (as cosa_unit_get_output),
 *   y^(j) = C x^(j) + D u^(j) (j >= 1), C = dg/dx, D = dg/du at (t_c, x, u(t_c)),
 * where the state derivatives x^(j) are fixed by the last step (the input
 * polynomial it integrated with, continued to t_c; the type's
 * state_derivatives rule) -- or, before the first step after
 * cosa_unit_set_state, taken with the current input -- and u^(j) are the
 * derivatives at t_c of the input polynomial currently set, so a feedthrough
 * output changes when new inputs are set.  COSA_ERANGE for n out of range.
 * Does not allocate. */
cosa_status cosa_unit_get_output_derivatives(cosa_unit *u, int n, double *dy);

/* One step of h as cosa_unit_do_step that also samples the output at the
 * middle of the step: ymid (ny) = g(t_c + h/2, x(t_c + h/2), u(t_c + h/2))
 * with the same input polynomial.  x(t_c + h/2) is the type's own
 * (step_mid: forward Euler's step line), else the result of a first step of
 * h/2 (the step is then taken in two halves; for linear units both are
 * exact).  On failure the unit's time, state, input and last-step record
 * are unchanged (an adaptive integrator's carried tolerance scales may have
 * seen the midpoint). */
cosa_status cosa_unit_do_step_sampled(cosa_unit *u, double h, double *ymid);

/* The model itself at any point: xdot = f(t, x, uin), y = g(t, x, uin);
 * either output may be NULL.  Does not touch the unit's state. */
cosa_status cosa_unit_eval(cosa_unit *u, double t, const double *x, const double *uin,
                           double *xdot, double *y);

/* Jacobians at (t, x, uin) into A (nx x nx), B (nx x nu), C (ny x nx),
 * D (ny x nu), column-major, ld = rows; any output may be NULL.  Analytic
 * when the unit has them and force_fd is 0; otherwise central differences
 * with steps delta_j = cbrt(eps) max(|z_j|, 1e-3 ||z||_inf) (cbrt(eps) if z
 * is 0) for each entry z_j of x (z = x) and of uin (z = uin): relative error
 * ~ eps^(2/3) where f, g are smooth; across a kink the average of the
 * one-sided slopes. */
cosa_status cosa_unit_jacobian(cosa_unit *u, double t, const double *x, const double *uin,
                               int force_fd, double *A, double *B, double *C, double *D);

/* One step of at most h that may end early: committed at t_c + *h_done
 * (0 < *h_done <= h); *event = 1 when Event Mode is pending at the end
 * (cosa_unit_event_update).  Without events: cosa_unit_do_step, *h_done =
 * h, *event = 0. */
cosa_status cosa_unit_do_step_event(cosa_unit *u, double h, double *h_done, int *event);

/* Event Mode at the unit's time (the type's event_update; nothing for a
 * unit without events); *t_next (may be NULL) = the next time event the
 * unit announced, INFINITY for none.  A failure leaves one line in
 * cosa_unit_message. */
cosa_status cosa_unit_event_update(cosa_unit *u, double *t_next);

int cosa_unit_has_events(const cosa_unit *u);    /* events on and handled */

int cosa_unit_event_pending(const cosa_unit *u); /* after do_step_event   */

double cosa_unit_next_event(const cosa_unit *u); /* INFINITY: none        */

cosa_status cosa_unit_save(cosa_unit *u, cosa_unit_snapshot **snap);

cosa_status cosa_unit_restore(cosa_unit *u, const cosa_unit_snapshot *snap);

void cosa_unit_snapshot_free(cosa_unit *u, cosa_unit_snapshot *snap);

/* The unit's input-output gains over a step of h from its current point and
 * input polynomial, by central differences through snapshots ("finite
 * differences through FMU state", issue 13): save; for each input k and
 * sign, restore, add +-d_k e_k w(tau/h) to the input polynomial (w given by
 * its nw monomial coefficients in s = tau/h), step, read y(t + h); restore.
 * Gw (ny x nu) = dy(t + h)/d eps along w; G0 (may be NULL) the same for
 * w = 1.  With w = w_p these are MBCorr's G_p and G_0 (doc/method.md) without
 * Jacobians; for a linear unit exact up to rounding.  The steps d_k are
 * those of cosa_unit_jacobian over the input values at t.  *snap as
 * cosa_unit_save (reused); work holds 2 ny + nu doubles.  The unit is left
 * as it was (state, time, input).  COSA_EUNSUPPORTED without
 * COSA_UNIT_CAN_SAVE_STATE; a failed step's status otherwise. */
cosa_status cosa_unit_step_gains(cosa_unit *u, double h, int nw, const double *w, double *Gw,
                                 double *G0, cosa_unit_snapshot **snap, double *work);

/* Compare unit u (with eval) at time t with its linearisation A, B, C, D
 * (column-major) at (x0, u0): the affine residual at the point and the
 * nonlinear residual at perturbed states and inputs.  Perturbations are
 * 0.1 max(|z_j|, 1e-3 |z|_inf) per entry (0.1 for an all-zero z).
 * Evaluations through cosa_unit_eval (for an FMU, a second instance away
 * from its current point).  COSA_OK, or eval's status. */
cosa_status cosa_unit_linearity(cosa_unit *u, double t, const double *x0, const double *u0,
                                const double *A, const double *B, const double *C,
                                const double *D, cosa_linearity *out);

/* An ODE system's coupling variables (copied; S copied, ctx borrowed -- e.g.
 * the system's own data).  Its L stays what the linear analyses use (for a
 * linear phi, L = S dphi/dy).  COSA_EINVAL for nc = 0 or a missing phi/S. */
cosa_status cosa_odesys_set_coupling(cosa_odesys *s, const cosa_coupling *c);

const cosa_coupling *cosa_odesys_coupling(const cosa_odesys *s); /* NULL: none */

/* The bandwidths of the whole system's df/dx with the subsystems' states
 * stacked (e.g. a chain with its masses in order): the CVODE reference then
 * uses a band matrix (cosa_unitset_set_band).  Unset (cosa_odesys_band
 * returns 0): dense. */
cosa_status cosa_odesys_set_band(cosa_odesys *s, size_t lower, size_t upper);

int cosa_odesys_band(const cosa_odesys *s, size_t *lower, size_t *upper);

/* Linear parameter sets of a nonlinear model (issue 23 item 6): the model
 * declares that, at its parameter values, every subsystem is linear and
 * time-invariant (f = A x + B u, g = C x + D u with constant Jacobians, no
 * forcing) and its coupling phi is linear (then L = S dphi/dy is exact).
 * cosa_odesys_linear_system builds that linear coupled system (A..D from the
 * analytic Jacobians at x = 0, u = 0, t = 0; L) for exact units and the
 * exact reference.  COSA_EUNSUPPORTED when the system was not declared
 * linear, a subsystem has no analytic Jacobian, or f or g is not 0 at
 * x = 0, u = 0 (a forcing term); else cosa_system_create's statuses. */
cosa_status cosa_odesys_set_linear(cosa_odesys *s);

int cosa_odesys_is_linear(const cosa_odesys *s); /* 1: declared linear */

cosa_status cosa_odesys_linear_system(const cosa_odesys *s, cosa_system **out);

/* The energy paper's multi-rate stepping: unit i takes rate[i] >= 1 equal
 * steps of H / rate[i] per macro step (copied; NULL: all 1).  COSA_ERANGE
 * for a 0.  The master takes them (plain Jacobi schemes only). */
/* The affine term of the coupling u = L y + c (nu entries; NULL or all 0:
 * none, the linear coupling): an SSP LinearTransformation's offset.  Copied.
 * It shifts the operating point only: Phi (deviations) does not see it.
 * COSA_ENONFINITE for a NaN or Inf entry; on any error the set has none. */
cosa_status cosa_unitset_set_input_offset(cosa_unitset *set, const double *c);

/* c, or NULL when it is 0. */
const double *cosa_unitset_input_offset(const cosa_unitset *set);

cosa_status cosa_unitset_set_rates(cosa_unitset *set, const unsigned *rate);

/* The set's power port (energy paper; copied, checked against the set's
 * dimensions; NULL removes it): what cosa_cosim_opts.energy's indicators and
 * correction use.  NULL from cosa_unitset_port when there is none. */
cosa_status cosa_unitset_set_port(cosa_unitset *set, const cosa_energy_port *port);

/* The stacked system's bandwidths for the CVODE reference (band matrix and
 * band difference quotients instead of the dense analytic Jacobian). */
cosa_status cosa_unitset_set_band(cosa_unitset *set, size_t lower, size_t upper);

/* nc: the coupling variables' count (nu without a coupling). */
size_t cosa_unitset_nc(const cosa_unitset *set);

/* Offsets of unit i in the stacked x, u, y (any pointer may be NULL). */
cosa_status cosa_unitset_offsets(const cosa_unitset *set, size_t i, size_t *ox, size_t *ou,
                                 size_t *oy);

const double *cosa_unitset_L(const cosa_unitset *set);

const size_t *cosa_unitset_sequence(const cosa_unitset *set); /* nunits entries */

/* 1 if seq (NULL = in order) is a permutation of the set's units. */
int cosa_unitset_is_sequence(const cosa_unitset *set, const size_t *seq);

/* Solve the algebraic loop y = g(t, x, L y) of the set at the stacked state x
 * by Newton's method (Jacobian I - D L with D = dg/du from
 * cosa_unit_jacobian); y holds the initial guess on entry (e.g. zeros).
 * COSA_ENOTCONVERGED if 50 iterations do not bring the update below
 * 1e-10 ||y||_inf (plus one more iteration for the last digits), COSA_EALGLOOP
 * if I - D L is singular.  Uses the set's own workspace (no allocation; not
 * for concurrent use on one set). */
cosa_status cosa_unitset_loop_solve(cosa_unitset *set, double t, const double *x, double *y);

cosa_status cosa_unitset_exchange_derivatives(cosa_unitset *set, int m, int n, double *yder,
                                              size_t *iters);

/* Discrete signals (lib/td/discrete.c; doc/ssp.md "Discrete signals"): an
 * Integer, Boolean or Enumeration output out of FMU unit from feeds the
 * input in of FMU unit to (units of the set, by index).  The value is
 * copied at every communication point -- after the units' outputs are
 * read, before the next step (the master's init and commit) -- and held in
 * between: no extrapolation, no part in the Float64 coupling u = L y + c or
 * in Phi.  COSA_OK; COSA_EPARAM (no such variable), COSA_EUNSUPPORTED (a
 * type cosa does not exchange, a missing get/set function, or the two
 * classes differ: type mismatch; Integer and Enumeration join) with one
 * clause in why; COSA_EINVAL for units that are no FMUs or indices out of
 * range. */
cosa_status cosa_unitset_discrete_link(cosa_unitset *set, size_t from, const char *out,
                                       size_t to, const char *in, char *why, size_t whysize);
/* The same with a transformation: a Float64/Real output of variability
 * discrete, fixed, tunable or constant feeding a Float64/Real input, which
 * receives gain * output + offset (held; a continuous input through its
 * row of the affine term c, no part of L or Phi).  Integer, Boolean and
 * Enumeration links take gain 1 and offset 0 only (else
 * COSA_EUNSUPPORTED). */
cosa_status cosa_unitset_discrete_link_affine(cosa_unitset *set, size_t from, const char *out,
                                              size_t to, const char *in, double gain,
                                              double offset, char *why, size_t whysize);
/* The set's discrete links. */
size_t cosa_unitset_ndiscrete(const cosa_unitset *set);
/* Copy every discrete link's output to its input now (in link order: all
 * values are read before any is set, so a unit's input never sees another
 * link's new value first).  On failure *failed (may be NULL) is the unit
 * whose call failed, with its one line (cosa_unit_message). */
cosa_status cosa_unitset_discrete_exchange(cosa_unitset *set, size_t *failed);

#endif /* COSA_INTERNAL_UNITS_H */
