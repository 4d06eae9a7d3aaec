/* cosa/td.h -- time-domain layer, by concept: 1. units (ODE systems,
 * integrators, the unit type), 2. unit sets and their coupling, 3. reference
 * trajectories, 4. the run loop and its tables (input builders, error
 * estimators, step controllers, observers, and the runs that configure it),
 * 5. FMU import.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_TD_H
#define COSA_TD_H

#include "cosa/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Time-domain co-simulation (lib/td/)                                      */
/* ------------------------------------------------------------------------ */

/* A co-simulation *unit* is one subsystem behind a small interface shaped like
 * FMI co-simulation (fmi3SetInputDerivatives / fmi3DoStep / fmi3Get... /
 * fmi3GetDirectionalDerivative / fmi3Get/SetFMUState):
 *   set_input   the input over the coming step as a polynomial, given by its
 *               value and time derivatives at the unit's current time t_c:
 *               u(t) = sum_k der_k (t - t_c)^k / k!;
 *   do_step     advance the state from t_c to t_c + h under that input;
 *   get_output  y = g(t, x, u(t)) at the current time (after a step: with the
 *               input polynomial evaluated at the end of the step);
 *   jacobian    df/dx, df/du, dg/dx, dg/du at a given point (analytic when
 *               the unit provides them, else central differences);
 *   get/set_state.
 * The master runs the coupling schemes of the Phi engine (cosa_scheme) on a
 * set of units in the time domain; a monolithic reference and a driver with
 * the start-up and error conventions of doc/method.md complete the picture. */

/* ======================================================================== */
/* 1. Units: subsystems, integrators, the unit type                         */
/* ======================================================================== */

/* ---- Nonlinear subsystems  x' = f(t, x, u),  y = g(t, x, u) ------------- */

/* Right-hand side or output: out = f(t, x, u) (nx entries) or g (ny).
 * Return 0 on success, > 0 for a recoverable failure (the integrator may
 * retry with a smaller step), < 0 for a fatal one (SUNDIALS convention). */
typedef int (*cosa_ode_fn)(double t, const double *x, const double *u, double *out,
                           void *user_data);
/* Analytic Jacobians at (t, x, u): A = df/dx (nx x nx), B = df/du (nx x nu),
 * C = dg/dx (ny x nx), D = dg/du (ny x nu), column-major, ld = rows.
 * Return codes as cosa_ode_fn. */
typedef int (*cosa_ode_jac_fn)(double t, const double *x, const double *u, double *A,
                               double *B, double *C, double *D, void *user_data);

typedef struct cosa_ode {
    size_t nx, nu, ny;
    cosa_ode_fn f;              /* required if nx > 0                        */
    cosa_ode_fn g;              /* required if ny > 0                        */
    cosa_ode_jac_fn jac;        /* may be NULL: central differences          */
    const unsigned char *kick;  /* nx flags or NULL: the states symplectic
                                   Euler advances first (velocities, flag 1);
                                   the others (positions) then use them      */
    void *user_data;            /* passed to f, g, jac; not owned            */
    int banded;                 /* 1: df/dx is banded (band_lower sub- and
                                   band_upper super-diagonals): CVODE uses a
                                   band matrix and its own band difference
                                   quotients (jac is not used for df/dx), and
                                   no dense nx x nx matrix is ever allocated
                                   (long chains, issue 11)                   */
    size_t band_lower, band_upper;
} cosa_ode;

/* A coupled nonlinear system: nsub ODE subsystems, stacked like eq 5, with
 * u = L y (eq 4).  Owns copies of the descriptors (not their user_data) and L. */
typedef struct cosa_odesys cosa_odesys;

/* Copies subs and L (nu_total x ny_total, column-major).  data (may be NULL)
 * becomes owned by the system and is released with data_free(data) by
 * cosa_odesys_free (also on failure here).  COSA_EINVAL for NULL/missing
 * callbacks or kick flags, COSA_ENONFINITE for a non-finite L. */
cosa_status cosa_odesys_create(cosa_odesys **out, size_t nsub, const cosa_ode *subs,
                               const double *L, void *data, void (*data_free)(void *));
/* Every linear model as a set of ODE subsystems: f = A_i x + B_i u,
 * g = C_i x + D_i u with analytic Jacobians (copies of the matrices).  Kick
 * flags for symplectic Euler are derived: a state whose row of [A_i B_i] is a
 * single 1 on another state (x_i' = x_j, a position) is drifted, all others
 * are kicked; if no state is a position, kick is NULL. */
cosa_status cosa_odesys_from_linear(const cosa_system *sys, cosa_odesys **out);
void cosa_odesys_free(cosa_odesys *s);
size_t cosa_odesys_nsub(const cosa_odesys *s);
size_t cosa_odesys_nx(const cosa_odesys *s);
size_t cosa_odesys_nu(const cosa_odesys *s);
size_t cosa_odesys_ny(const cosa_odesys *s);
const cosa_ode *cosa_odesys_sub(const cosa_odesys *s, size_t i); /* NULL if out of range */
const double *cosa_odesys_L(const cosa_odesys *s);

/* ---- Integrators ---------------------------------------------------------- */

typedef enum cosa_integrator_kind {
    COSA_INTEGRATOR_EXACT = 0,        /* linear units: Van Loan exponential   */
    COSA_INTEGRATOR_CVODE_BDF,        /* SUNDIALS CVODE, BDF, Newton, dense    */
    COSA_INTEGRATOR_CVODE_ADAMS,      /* SUNDIALS CVODE, Adams-Moulton         */
    COSA_INTEGRATOR_RK4,              /* classical Runge-Kutta, fixed micro step */
    COSA_INTEGRATOR_SYMPLECTIC_EULER, /* kick (flagged states) then drift      */
    COSA_INTEGRATOR_EULER,            /* forward Euler, fixed micro step       */
    COSA_INTEGRATOR_COUNT
} cosa_integrator_kind;

/* Most micro steps a fixed-step integrator takes in one macro step. */
#define COSA_MICRO_STEPS_MAX 10000000

typedef struct cosa_integrator {
    cosa_integrator_kind kind;
    double rtol;   /* CVODE relative tolerance (> 0)                         */
    double atol;   /* CVODE absolute tolerance; <= 0: per state i,
                      rtol * max(m_i, 1e-6 max_j m_j), m_i = largest |x_i| at
                      the macro points since the last cosa_unit_set_state
                      (rtol if all are 0)                                    */
    double hmicro; /* fixed-step methods: largest micro step [s]; each macro
                      step h is cut into ceil(h / hmicro) equal micro steps
                      (at most COSA_MICRO_STEPS_MAX: a step that would need
                      more fails with COSA_ERANGE);
                      <= 0: 100 micro steps per macro step                   */
} cosa_integrator;

/* "exact", "cvode" (= "cvode-bdf"), "cvode-adams", "rk4", "symplectic-euler",
 * "euler" (case-insensitive) with rtol = 1e-10, atol = 0, hmicro = 0.
 * COSA_EINVAL for anything else. */
cosa_status cosa_integrator_parse(const char *name, cosa_integrator *out);
/* Canonical name of a kind ("cvode-bdf", ...); "?" if out of range. */
const char *cosa_integrator_name(cosa_integrator_kind kind);
/* Classical order of the method (CVODE: the largest order it may use; 0 for
 * exact and out-of-range kinds), and 1 if it controls its own internal steps. */
int cosa_integrator_order(cosa_integrator_kind kind);
int cosa_integrator_is_adaptive(cosa_integrator_kind kind);

/* ---- Units ----------------------------------------------------------------- */

typedef struct cosa_unit cosa_unit;

/* Largest input-polynomial degree a unit accepts. */
#define COSA_UNIT_DEGMAX COSA_ORDER_MAX
/* Highest output derivative a unit reports (cosa_unit_get_output_derivatives). */
#define COSA_UNIT_DERMAX COSA_UNIT_DEGMAX

/* Capability flags of a unit type (cosa_unit_type.caps). */
enum {
    COSA_UNIT_CAN_EVAL = 1u << 0,       /* eval(): f and g at any point             */
    COSA_UNIT_HAS_JACOBIAN = 1u << 1,   /* jacobian(): analytic df/dx ... dg/du     */
    COSA_UNIT_CAN_SAVE_STATE = 1u << 2, /* snapshots (cosa_unit_save/restore) work  */
    COSA_UNIT_LINEAR = 1u << 3          /* exact steps and exact Jacobians          */
};

/* A unit type: the operations behind every cosa_unit of one kind (the
 * FMI-shaped seam: linear units, ODE units, and later FMUs plug in here).
 * The generic layer (lib/td/unit.c) validates arguments, keeps the time t_c,
 * the state x and the input polynomial, checks results for finiteness and
 * commits a step only when it succeeded; a type implements:
 *   step      advance from t_c by h under the current input polynomial
 *             (cosa_unit_input_at), writing the new state into xnew (nx);
 *             it must not change the unit's time or state;
 *   eval      xdot = f(t, x, uin), y = g(t, x, uin) (either may be NULL);
 *             required for outputs, the algebraic loop and finite differences;
 *   jacobian  analytic Jacobians (NULL: central differences on eval);
 *   reset     forget run history when a new state is set (may be NULL);
 *   save_state/restore_state/free_state
 *             the type's own state beyond (t_c, x, input), for step
 *             rejection: save_state fills *blob (allocating it when NULL,
 *             overwriting it otherwise, as fmi3GetFMUState); all three NULL
 *             when the type has no such state;
 *   destroy   free the type's data (cosa_unit_impl);
 *   state_derivatives (may be NULL)
 *             the state derivatives x^(j), j = 1..n, at the current point,
 *             written into columns 1..n of xder (nx x (n+1), ld nx; column 0
 *             holds x on entry), given uder (nu x n, ld nu): u^(0..n-1) at
 *             t_c of the input polynomial the last step integrated with, or
 *             of the current input if no step was taken since the state was
 *             set (cosa_unit_last_step tells which).  NULL: the model rule
 *             x' = f(t_c, x, u), x^(j) = A x^(j-1) + B u^(j-1) (j >= 2) with
 *             A, B the Jacobians at (t_c, x, u^(0)) -- exact for linear units;
 *             a type whose numerical solution has other derivatives (forward
 *             Euler: the slope of its step, defect paper eqs 45-47) sets it;
 *   step_mid  (may be NULL) one step of h as step, also giving the state at
 *             t_c + h/2 of the method's own solution in xmid (nx); NULL: the
 *             generic layer takes two steps of h/2 under the same input
 *             polynomial (cosa_unit_do_step_sampled).
 * max_input_degree: the highest input-polynomial degree the type integrates
 * exactly (<= COSA_UNIT_DEGMAX). */
typedef struct cosa_unit_type {
    const char *name;
    unsigned caps;
    int max_input_degree;
    cosa_status (*step)(cosa_unit *u, double h, double *xnew);
    cosa_status (*eval)(cosa_unit *u, double t, const double *x, const double *uin,
                        double *xdot, double *y);
    cosa_status (*jacobian)(cosa_unit *u, double t, const double *x, const double *uin,
                            double *A, double *B, double *C, double *D);
    void (*reset)(cosa_unit *u);
    cosa_status (*save_state)(cosa_unit *u, void **blob);
    cosa_status (*restore_state)(cosa_unit *u, const void *blob);
    void (*free_state)(cosa_unit *u, void *blob);
    void (*destroy)(cosa_unit *u);
    cosa_status (*state_derivatives)(cosa_unit *u, int n, const double *uder, double *xder);
    cosa_status (*step_mid)(cosa_unit *u, double h, double *xmid, double *xnew);
    /* Event Mode at the unit's current time (NULL: the type has no events):
     * resolve the pending event, update the state, announce the next time
     * event (cosa_unit_set_next_event); lib/td/unit_event.c */
    cosa_status (*event_update)(cosa_unit *u);
} cosa_unit_type;

/* A unit of the given type with nx states, nu inputs, ny outputs; impl is
 * the type's data (owned: released by type->destroy).  Time and state start
 * at 0.  COSA_EINVAL for a type without step or eval. */
cosa_status cosa_unit_create(const cosa_unit_type *type, size_t nx, size_t nu, size_t ny,
                             void *impl, cosa_unit **out);
const cosa_unit_type *cosa_unit_get_type(const cosa_unit *u);
unsigned cosa_unit_caps(const cosa_unit *u);
void *cosa_unit_impl(const cosa_unit *u);

/* For type implementers (inside step/eval): the current time t_c, the state
 * at t_c, the input polynomial's degree, and its value u(t_c + tau) (nu
 * entries, Horner on the coefficients). */
double cosa_unit_time(const cosa_unit *u);
const double *cosa_unit_state(const cosa_unit *u);
int cosa_unit_input_degree(const cosa_unit *u);
void cosa_unit_input_at(const cosa_unit *u, double tau, double *v);
/* The last step since the state was set: returns 1 and its length *h and the
 * state at its start *xprev (nx; either pointer may be NULL), or 0 if no
 * step was taken since cosa_unit_set_state. */
int cosa_unit_last_step(const cosa_unit *u, double *h, const double **xprev);
/* Record a failure message (printf-style), read back by cosa_unit_message. */
void cosa_unit_fail(cosa_unit *u, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Linear unit (A, B, C, D copied): each step is exact for polynomial inputs,
 * x(t+h) = e^{Ah} x + sum_m Q_m a_m through the Van Loan exponential of
 * cosa_discretize (cached while h and the degree do not change).  Jacobians
 * are (A, B, C, D).  State and time start at 0. */
cosa_status cosa_unit_linear_create(const cosa_subsystem *sub, cosa_unit **out);
/* Subsystem i of a linear coupled system as a linear unit. */
cosa_status cosa_unit_linear_from_system(const cosa_system *sys, size_t i, cosa_unit **out);
/* ODE unit integrated by integ (not COSA_INTEGRATOR_EXACT: COSA_EUNSUPPORTED;
 * symplectic Euler needs ode->kick: COSA_EUNSUPPORTED).  The descriptor is
 * copied; its user_data must outlive the unit.  CVODE restarts at every
 * macro step (the input polynomial changes there). */
cosa_status cosa_unit_ode_create(const cosa_ode *ode, const cosa_integrator *integ,
                                 cosa_unit **out);
void cosa_unit_free(cosa_unit *u);

size_t cosa_unit_nx(const cosa_unit *u);
size_t cosa_unit_nu(const cosa_unit *u);
size_t cosa_unit_ny(const cosa_unit *u);
/* 1 for a linear unit (exact steps, exact Jacobians): caps has COSA_UNIT_LINEAR. */
int cosa_unit_is_linear(const cosa_unit *u);

/* State and current time.  set_state keeps the input polynomial's
 * coefficients but moves its origin to t, and starts a new run (CVODE
 * tolerance scales are reset).  COSA_ENONFINITE for NaN/Inf. */
cosa_status cosa_unit_set_state(cosa_unit *u, double t, const double *x);
cosa_status cosa_unit_get_state(const cosa_unit *u, double *t, double *x); /* either may be NULL */

/* Input polynomial of degree deg (0..COSA_UNIT_DEGMAX) from the current time:
 * der is nu x (deg+1), column k = k-th time derivative at t_c. */
cosa_status cosa_unit_set_input(cosa_unit *u, int deg, const double *der);
/* Advance by h > 0.  COSA_ENOTCONVERGED if the integrator or a callback
 * failed, COSA_ENONFINITE if the state left the finite numbers; on failure the
 * state and time are unchanged (cosa_unit_message says why).  The first step
 * (and the first with a higher input degree) allocates the integrator's
 * memory; later steps do not allocate. */
cosa_status cosa_unit_do_step(cosa_unit *u, double h);
/* y = g(t_c, x, u(t_c)) (ny entries). */
cosa_status cosa_unit_get_output(cosa_unit *u, double *y);
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
/* Last failure of this unit as one line ("" if none); never NULL. */
const char *cosa_unit_message(const cosa_unit *u);

/* What a unit did since it was created or its counters were reset: the
 * generic layer counts committed steps (cosa_unit_do_step and
 * cosa_unit_do_step_sampled; a step taken in two halves counts once) and
 * restores (cosa_unit_restore: rollbacks of a rejected or iterated step, an
 * event, and the snapshots of finite differences through the unit's state);
 * a unit type counts its events and early returns (FMI 3.0 units).  The run
 * statistics report them per unit. */
typedef struct cosa_unit_counters {
    size_t steps;          /* committed steps                               */
    size_t restores;       /* restores to a snapshot                        */
    size_t events;         /* event handling (FMI 3.0 Event Mode entries)   */
    size_t early_returns;  /* steps that ended before their end (FMI 3.0)  */
    size_t defect_steps;   /* of steps, the half steps of the defects' mid
                              sample (cosa_master_opts.sample_mid)          */
} cosa_unit_counters;
/* *c = u's counters (zero for u NULL). */
void cosa_unit_get_counters(const cosa_unit *u, cosa_unit_counters *c);
void cosa_unit_counters_reset(cosa_unit *u);
/* For type implementers: the counters to update (NULL for u NULL). */
cosa_unit_counters *cosa_unit_counters_of(cosa_unit *u);

/* ---- Events (lib/td/unit_event.c; FMI 3.0 event mode, README "Events") ----
 * A unit with events (an FMI 3.0 FMU with hasEventMode, events on) may end
 * a step early at an event, or signal an event at its end; the master then
 * makes that time a communication point and runs Event Mode on it.
 * cosa_unit_do_step never ends early: a unit with events handles them
 * inside such a step itself. */
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
/* For type implementers: events on or off for this unit (the master asks
 * cosa_unit_has_events); inside step, whether the caller accepts an early
 * end, and the end reached (h_done < h: early; ignored when the caller does
 * not accept it) with event = 1 when Event Mode is pending there; the next
 * time event (INFINITY or NaN: none). */
void cosa_unit_set_events(cosa_unit *u, int on);
int cosa_unit_step_may_stop(const cosa_unit *u);
void cosa_unit_step_stopped(cosa_unit *u, double h_done, int event);
void cosa_unit_set_next_event(cosa_unit *u, double t);

/* Snapshots (as fmi3GetFMUState / fmi3SetFMUState / fmi3FreeFMUState): the
 * unit's time, state, input polynomial and its type's own state.  save
 * allocates *snap when it is NULL and overwrites it otherwise (no allocation
 * in a stepping loop); restore puts the unit back exactly (a step repeated
 * after a restore gives bitwise the same result).  COSA_EUNSUPPORTED if the
 * type lacks COSA_UNIT_CAN_SAVE_STATE. */
typedef struct cosa_unit_snapshot cosa_unit_snapshot;
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

/* ---- How far a unit is from its linearisation (lib/td/linearity.c) ------- */
typedef struct cosa_linearity {
    double nonlinear; /* max over finite perturbations dz (10 % of each state
                         and input, a joint one, both signs) of
                         |f(z0+dz) - f(z0) - J dz|_inf / max(|f(z0+dz) - f(z0)|_inf,
                         |J dz|_inf), f the state derivatives and the outputs  */
    double affine;    /* |f(x0,u0) - A x0 - B u0|_inf (and g - C x0 - D u0)
                         relative to |f(x0,u0)|_inf + |A x0|_inf + |B u0|_inf   */
    double affine_abs; /* the largest entry of that term, absolute             */
    int is_nonlinear; /* nonlinear > COSA_LINEARITY_TOL                         */
    int is_affine;    /* affine > COSA_LINEARITY_TOL (a constant term, such as
                         gravity, that x' = A x + B u drops)                    */
} cosa_linearity;
/* The threshold: central differences are accurate to ~eps^(2/3) = 4e-11
 * relative, and rounding of f to a few eps of its terms, so 1e-6 is far
 * above both for a linear unit, and far below the 2.5 % a 10 % step shows
 * for a power law |w|^1.5 (eq 43). */
#define COSA_LINEARITY_TOL 1e-6
/* Compare unit u (with eval) at time t with its linearisation A, B, C, D
 * (column-major) at (x0, u0): the affine residual at the point and the
 * nonlinear residual at perturbed states and inputs.  Perturbations are
 * 0.1 max(|z_j|, 1e-3 |z|_inf) per entry (0.1 for an all-zero z).
 * Evaluations through cosa_unit_eval (for an FMU, a second instance away
 * from its current point).  COSA_OK, or eval's status. */
cosa_status cosa_unit_linearity(cosa_unit *u, double t, const double *x0, const double *u0,
                                const double *A, const double *B, const double *C,
                                const double *D, cosa_linearity *out);

/* ---- Black-box identification (lib/td/identify.c; doc/black-box.md) -----
 * A linear input/output model of a unit around its operating point from its
 * behaviour alone -- set inputs, step, read outputs, and the unit's
 * snapshots where it has them (else cosa_unit_set_state back to the
 * operating point: for an FMU a fresh instance) -- by pulse responses
 * (Markov parameters) at a probe step h, a block Hankel matrix, its SVD and
 * a Ho-Kalman (ERA) realisation:
 *   x_{k+1} = Ad x_k + Bd du_k,  dy_k = C x_k + D du_k   (du held over a step),
 * du, dy the deviations from the operating point's free response. */
typedef struct cosa_ident_opts {
    double h;      /* probe step [s], > 0                                     */
    size_t nmax;   /* largest order considered (default 8); the Hankel matrix
                      has nmax + 1 block rows                                 */
    size_t window; /* probe steps per experiment (default 64; at least
                      2 (nmax + 1)): the Hankel matrix's block columns fill it,
                      so slow modes (|lambda| h small) are seen over more of
                      their period                                            */
    int order;     /* -1: from the Hankel singular values (default); >= 0: this */
    double amp;    /* pulse amplitude (default 1e-3): a trial pulse of amp
                      max(|u0_j|, 1) on input j is rescaled so that the largest
                      output deviation is amp times that output's largest
                      free-response value; a second run at twice it measures
                      nonlinearity                                            */
} cosa_ident_opts;
void cosa_ident_opts_default(cosa_ident_opts *o);

typedef struct cosa_ident {
    size_t n, nu, ny;  /* order found (0: static), inputs, outputs            */
    double h;          /* probe step                                          */
    double *Ad, *Bd, *C, *D; /* n x n, n x nu, ny x n, ny x nu, column-major  */
    double *x0;        /* n: the state that best explains the free response
                          (least squares), 0 if it does not                   */
    double x0_resid;   /* relative residual of that fit (1: none explained)   */
    double *hsv;       /* nhsv Hankel singular values (scaled, descending)    */
    size_t nhsv;
    double floor;      /* the noise floor they were compared with             */
    double fit;        /* relative output error on a validation input the fit
                          did not use (deterministic +-amp sequence)          */
    double nonlin;     /* relative difference of the responses to amp and 2 amp */
    double tvar;       /* relative difference of a pulse one step later's      */
    int nonlinear;     /* max(nonlin, tvar) > max(fit, COSA_LINEARITY_TOL)     */
    size_t steps;      /* unit steps spent                                     */
    size_t resets;     /* restores or fresh instances                          */
    int silent_out;    /* index + 1 of an output no input moves (0: none)      */
    char why[400];     /* one line when identification failed                 */
} cosa_ident;

/* Identify unit u around its current point (time t0, state, inputs u0: nu
 * values) with options o (NULL: defaults); u is left at that point
 * (restored or re-created).  *out is filled (free with cosa_ident_free,
 * also after a failure).  COSA_OK; COSA_EUNSUPPORTED when the order cannot
 * be decided (every Hankel singular value above the noise floor; why says
 * so); a unit step's status when the unit fails during the experiments
 * (why holds the unit's message); COSA_EINVAL/COSA_ERANGE for bad
 * arguments (h, nmax in 1..200, amp, an order above nmax or the Hankel
 * matrix's rank), COSA_ENONFINITE for a non-finite u0. */
cosa_status cosa_ident_run(cosa_unit *u, const double *u0, const cosa_ident_opts *o,
                           cosa_ident *out);
void cosa_ident_free(cosa_ident *id);

/* ======================================================================== */
/* 2. Unit sets and their coupling                                          */
/* ======================================================================== */

/* ---- Coupling variables (variable-order paper, issue 11) ------------------ */

/* The coupling variables of a system (the paper's u, eq 4): nc values
 * c = phi(t, y) of the stacked outputs y, and the units' inputs u = S c
 * (S nu x nc, column-major; e.g. force/force splits: +c on one body, -c on
 * the other, each coupling force counted once).  phi writes c (nc) and, when
 * J is not NULL, dphi/dy (nc x ny, column-major); returns COSA_OK or a
 * failure status.  Without one, a system's coupling variables are its inputs:
 * c = u = L y (nc = nu, S = I). */
typedef cosa_status (*cosa_coupling_fn)(void *ctx, double t, const double *y, double *c,
                                        double *J);
typedef struct cosa_coupling {
    size_t nc;
    cosa_coupling_fn phi;
    const double *S;   /* nu x nc                                            */
    void *ctx;         /* passed to phi; borrowed                            */
} cosa_coupling;

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
void *cosa_odesys_data(const cosa_odesys *s);
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

/* ---- Unit sets -------------------------------------------------------------- */

/* The units of a co-simulation (borrowed: they must outlive the set), stacked
 * in order (x, u, y as eq 5), their coupling u = L y (nu x ny, copied) and a
 * validated execution sequence (a permutation of 0..nunits-1; NULL = in
 * order) for sequential schemes.  Created once and taken by the master, the
 * CVODE reference and the algebraic-loop solver.  COSA_EINVAL for NULL units,
 * a missing L or a sequence that is not a permutation, COSA_ENONFINITE for a
 * non-finite L. */
typedef struct cosa_unitset cosa_unitset;
cosa_status cosa_unitset_create(size_t nunits, cosa_unit *const *units, const double *L,
                                const size_t *sequence, cosa_unitset **out);
void cosa_unitset_free(cosa_unitset *set);
/* The energy paper's multi-rate stepping: unit i takes rate[i] >= 1 equal
 * steps of H / rate[i] per macro step (copied; NULL: all 1).  COSA_ERANGE
 * for a 0.  The master takes them (plain Jacobi schemes only). */
cosa_status cosa_unitset_set_rates(cosa_unitset *set, const unsigned *rate);
unsigned cosa_unitset_rate(const cosa_unitset *set, size_t i); /* 1 if none */
/* The set's power port (energy paper; copied, checked against the set's
 * dimensions; NULL removes it): what cosa_cosim_opts.energy's indicators and
 * correction use.  NULL from cosa_unitset_port when there is none. */
cosa_status cosa_unitset_set_port(cosa_unitset *set, const cosa_energy_port *port);
const cosa_energy_port *cosa_unitset_port(const cosa_unitset *set);
/* Coupling variables of the set (copied; ctx borrowed; NULL removes them):
 * then the algebraic loop solves y = g(t, x, S phi(t, y)) and the CVODE
 * reference integrates x' = f(t, x, S phi(t, y)); the master (MBCorr
 * schemes, u = L ybar) does not take such a set (COSA_EUNSUPPORTED), the
 * variable-order engine (cosa_vo_run) does.  COSA_EINVAL for nc = 0 or a
 * missing phi / S, COSA_ENONFINITE for a non-finite S. */
cosa_status cosa_unitset_set_coupling(cosa_unitset *set, const cosa_coupling *c);
int cosa_unitset_has_coupling(const cosa_unitset *set);
/* The stacked system's bandwidths for the CVODE reference (band matrix and
 * band difference quotients instead of the dense analytic Jacobian). */
cosa_status cosa_unitset_set_band(cosa_unitset *set, size_t lower, size_t upper);
int cosa_unitset_band(const cosa_unitset *set, size_t *lower, size_t *upper);
/* nc: the coupling variables' count (nu without a coupling). */
size_t cosa_unitset_nc(const cosa_unitset *set);
/* S (nu x nc), or NULL without a coupling (S = I). */
const double *cosa_unitset_coupling_S(const cosa_unitset *set);
/* c = phi(t, y) (nc) and J = dphi/dy (nc x ny; may be NULL); without a
 * coupling c = L y, J = L.  COSA_ENONFINITE if phi gives NaN/Inf. */
cosa_status cosa_unitset_coupling_eval(const cosa_unitset *set, double t, const double *y,
                                       double *c, double *J);
/* The inputs of outputs y: u = S phi(t, y) (or L y), dudy = du/dy (nu x ny;
 * may be NULL).  Uses the set's scratch (not for concurrent use). */
cosa_status cosa_unitset_inputs(cosa_unitset *set, double t, const double *y, double *u,
                                double *dudy);
size_t cosa_unitset_count(const cosa_unitset *set);
cosa_unit *cosa_unitset_unit(const cosa_unitset *set, size_t i); /* NULL if out of range */
/* Names of the units (e.g. the model's subsystems; nunits strings, copied;
 * NULL removes them): what run results and failure reasons call the units
 * (cosa_run_result).  COSA_EINVAL for a NULL set or a NULL name. */
cosa_status cosa_unitset_set_names(cosa_unitset *set, const char *const *names);
/* The name of unit i, or NULL (no names, i out of range). */
const char *cosa_unitset_unit_name(const cosa_unitset *set, size_t i);
/* Every unit's counters to zero (cosa_unit_counters_reset): each run does
 * this at its start, so the counters are that run's. */
void cosa_unitset_counters_reset(cosa_unitset *set);
size_t cosa_unitset_nx(const cosa_unitset *set);
size_t cosa_unitset_nu(const cosa_unitset *set);
size_t cosa_unitset_ny(const cosa_unitset *set);
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
/* The iteration limit of cosa_unitset_loop_solve. */
#define COSA_UNITSET_LOOP_MAXIT 50
/* cosa_unitset_loop_solve, also reporting the Newton iterations done and the
 * residual ||y - g(t, x, L y)||_inf at the last iterate evaluated (NULL:
 * not wanted); on success the residual is the one before the last update. */
cosa_status cosa_unitset_loop_solve_stats(cosa_unitset *set, double t, const double *x,
                                          double *y, int *iterations, double *residual);

/* Taylor inputs (defect paper eq 15, Algorithm 1 step 1): every unit's input
 * polynomial of degree q is set to u^(j) = L y^(j), j = 0..q, from the
 * stacked output derivatives yder (ny x (q+1) at least, ld ldy >= ny) at the
 * units' current time.  Uses the set's workspace. */
cosa_status cosa_unitset_set_taylor_inputs(cosa_unitset *set, int q, const double *yder,
                                           size_t ldy);
/* Consistent output derivatives (issue 12 section 1): read every unit's
 * y^(0..n) (cosa_unit_get_output_derivatives) into yder (ny x (n+1), ld ny),
 * set the Taylor inputs of degree min(m, n) from them, and repeat until the
 * derivatives read are bitwise the same as the previous ones; on return the
 * inputs set are those of yder.  At t0 (no step yet) this makes the state
 * derivatives consistent too (for linear units y^(j) = C* A*^j x0 of the
 * monolithic system when m >= n - 1); after a step only feedthrough changes.
 * Without an algebraic loop this ends after at most nunits (n + 1) + 1
 * exchanges.  Past nunits (n + 1) + 3 only a loop keeps it going: it is the
 * loop's fixed-point iteration then, stopped when every order's change is
 * at most 4 eps of its largest derivative (a contraction, rho(D L) < 1,
 * gets there); COSA_ENOTCONVERGED after COSA_UNITSET_EXCHANGE_LOOP_MAXIT
 * more.  *iters (may be NULL) counts the readings.  COSA_ERANGE for m, n < 0, n > COSA_UNIT_DERMAX
 * or m above a unit's input degree. */
#define COSA_UNITSET_EXCHANGE_LOOP_MAXIT 2000
cosa_status cosa_unitset_exchange_derivatives(cosa_unitset *set, int m, int n, double *yder,
                                              size_t *iters);

/* ======================================================================== */
/* 3. References: trajectories and their distance                           */
/* ======================================================================== */

/* ---- Reference trajectories (the monolithic solution, sampled) -------------- */

/* "Reference" names three different things in cosa; each has its own name:
 * the reference *trajectory* here (time-domain samples of the monolithic
 * solution), the reference *propagation matrix* Phi* (cosa_phi_ref_build)
 * and the *monolithic* system matrices A*, C* (cosa_system_monolithic).
 *
 * A reference trajectory sampled at t_k = k H, k = 0..nsamples-1. */
typedef struct cosa_reftraj {
    size_t nx, ny, nsamples;
    double H;
    double *x;    /* nx x nsamples, column k = x(t_k)  */
    double *y;    /* ny x nsamples, column k = y(t_k)  */
    int exact;    /* 1: matrix exponential, 0: CVODE    */
    double rtol;  /* CVODE tolerance (0 when exact)     */
    long nsteps;  /* CVODE internal steps (0 when exact) */
    int loop;     /* cosa_reftraj_cosim: 1 when it solved an algebraic
                     loop at every fine point                        */
    int none;     /* cosa_reftraj_none: no reference -- only the start-up
                     samples are known, the rest NaN                 */
} cosa_reftraj;

/* No reference (black boxes, doc/simulate-black-box.md): a trajectory of
 * nsamples samples at H with the unit set's sizes whose first samples are
 * known's (may be NULL: then x(0) is the units' current states), the rest
 * NaN, and none = 1.  A fixed-step run on it (cosa_cosim_run, cosa_run)
 * starts as usual, computes no e_global (NaN) and takes its divergence
 * bound from the known samples' outputs (none: no bound but finiteness
 * when they are all 0).  COSA_EINVAL (sizes, known longer than nsamples),
 * COSA_ERANGE (H). */
cosa_status cosa_reftraj_none(const cosa_unitset *set, const cosa_reftraj *known, double H,
                              size_t nsamples, cosa_reftraj **out);

/* Exact reference of a linear coupled system: x_{k+1} = exp(A* H) x_k,
 * y_k = C* x_k (eq 35). */
cosa_status cosa_reftraj_exact(const cosa_system *sys, const double *x0, double H,
                               size_t nsamples, cosa_reftraj **out);
/* The same at the given times (strictly increasing, times[0] = 0, else
 * COSA_ERANGE): x(t_k) = exp(A* t_k) x0, one exponential per sample; H = 0. */
cosa_status cosa_reftraj_exact_at(const cosa_system *sys, const double *x0, size_t nsamples,
                                  const double *times, cosa_reftraj **out);
/* Reference of any unit set: the coupled system as one ODE,
 * x' = f(t, x, L y) with y = g(t, x, L y) solved by Newton inside the
 * right-hand side (the set's loop solver, warm-started), integrated by CVODE
 * BDF at relative tolerance rtol (e.g. 1e-12) from x0 at t = 0 and stopped at
 * every sample.  Two passes: the first finds the amplitude m_i of every state
 * over the samples, the second integrates with atol_i = rtol max(m_i, 1e-6
 * max_j m_j).  Uses only the units' model evaluations (cosa_unit_eval,
 * cosa_unit_jacobian), not their integrators or states.  COSA_ENOTCONVERGED
 * if CVODE fails. */
cosa_status cosa_reftraj_cvode(cosa_unitset *set, const double *x0, double H, size_t nsamples,
                               double rtol, cosa_reftraj **out);
/* The same at the given times (nsamples, strictly increasing, times[0] = 0;
 * else COSA_ERANGE); the result's H is 0 (not equidistant). */
cosa_status cosa_reftraj_cvode_at(cosa_unitset *set, const double *x0, size_t nsamples,
                                  const double *times, double rtol, cosa_reftraj **out);
/* The same keeping only the states sel[0..nsel-1] (r->nx = nsel, no outputs:
 * r->ny = 0): long chains whose full trajectory would not fit in memory.
 * A unit set with bandwidths (cosa_unitset_set_band) is integrated with a
 * band matrix (all three variants). */
cosa_status cosa_reftraj_cvode_sel(cosa_unitset *set, const double *x0, size_t nsamples,
                                   const double *times, double rtol, size_t nsel,
                                   const size_t *sel, cosa_reftraj **out);
/* Reference of a unit set by a fine co-simulation of the same units (for
 * units cosa cannot integrate as one ODE, e.g. nonlinear FMUs): scheme s
 * (e.g. SOH) at macro step H / factor from x0 at t = 0 (outputs from the
 * algebraic loop: cosa_master_init_loop), sampled every factor steps: x and
 * the (corrected) outputs.  Its error is the fine scheme's, O((H/factor)^(p+1))
 * plus its start-up.  The units are left at the end of the run (the
 * co-simulation that uses the reference sets their states again).
 * exact = 0, rtol = 0, nsteps = fine macro steps.
 * When units with direct feedthrough close an algebraic loop at x0
 * (cosa_unitset_find_loop), extrapolating the loop's outputs is unstable
 * (README "FMU import": an eigenvalue mu of D L under extrapolation of order
 * p is stable iff every (p+1)-th root w of (mu - 1)/mu has |1 - w| > 1, for
 * real mu < 0 iff |mu| < 1/(2^(p+1) - 1)); the loop is then solved at every
 * fine point instead (cosa_unitset_loop_solve at the committed states), the
 * degree-p extrapolation runs on those consistent outputs, the outputs
 * sampled are them, and loop = 1.  s must then be plain Jacobi (no
 * corrections: COSA_EUNSUPPORTED).  Without a loop the run is the plain
 * one, bitwise. */
cosa_status cosa_reftraj_cosim(cosa_unitset *set, const cosa_scheme *s, const double *x0,
                               double H, size_t nsamples, unsigned factor, cosa_reftraj **out);
/* A reference from n samples computed elsewhere (e.g. a monolithic
 * simulation tool's result): times t (strictly increasing, covering [0,
 * (nsamples - 1) H] within 1e-9 H), outputs Y (ny x n) and states X (nx x n)
 * or, without them (X = NULL), only the initial state x0 (the states at the
 * other samples are then NaN: a co-simulation can start from it at t = 0
 * only, i.e. p = 0).  The value at t_k = k H is the sample there (within
 * 1e-9 H), else the cubic through the four nearest samples (the two or three
 * there are when n < 4): exact for cubics, error O(dt^4 y'''') for smooth
 * data sampled dt apart.  exact = 0, rtol = 0, nsteps = n.  COSA_EINVAL for
 * times that do not increase, COSA_ERANGE when they do not cover the run,
 * COSA_ENONFINITE for NaN/Inf. */
cosa_status cosa_reftraj_samples(size_t nx, size_t ny, size_t n, const double *t, const double *X,
                                 const double *x0, const double *Y, double H, size_t nsamples,
                                 cosa_reftraj **out);
void cosa_reftraj_free(cosa_reftraj *r);

/* ---- NRMSE of sampled trajectories (lib/td/trajectory_nrmse.c) ----------- */

/* Global NRMSE (eq 33, doc/method.md) of N samples y (ny x N, ld ldy) against the
 * reference yref (ld ldr): per component k, RMS_n(y_kn - yref_kn) divided by
 * the population standard deviation of yref_k over the same samples, then the
 * RMS over the components; components with std_k <= COSA_NRMSE_STD_RTOL *
 * sqrt(mean_k^2 + std_k^2) are left out (as cosa_nrmse).  *e = +inf if a y
 * entry is not finite or the sums overflow.  ncomp (may be NULL) counts the
 * components used.  COSA_EINVAL (NULL, ny = 0, ld < ny), COSA_ERANGE (N = 0 or
 * every component constant), COSA_ENONFINITE (yref not finite). */
cosa_status cosa_traj_nrmse(size_t ny, size_t N, const double *y, size_t ldy,
                            const double *yref, size_t ldr, double *e, size_t *ncomp);

/* ======================================================================== */
/* 4. The run loop and its tables (lib/td/evolve.c)                         */
/* ======================================================================== */

/* Every run is one loop, propose -> estimate -> decide -> commit (or
 * reject: restore the units and retry), with the variable parts as tables:
 *   input builders   the master (extrapolation of order p, Taylor, held
 *                    multi-rate, given polynomials) and the iteration;
 *   estimators       none, the per-step defects, the variable-order table;
 *   controllers      fixed, the controller table (PI, order, step) and the
 *                    variable-order rules behind it;
 *   observers        recording, energy indicators, progress.
 * The runs below (cosa_cosim_run, cosa_defect_run, cosa_vo_run) are
 * configurations of that loop; cosa_run (4f) is their one entry point, with
 * one run description and one result.  Every run resets its units'
 * counters (cosa_unitset_counters_reset) at its start. */

/* ---- 4a. Input builders ---------------------------------------------------- */

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

/* GIVEN: the input polynomials of the next proposals, u^(0..q)(T_n) (nu x
 * (q+1), ld nu; copied), q <= COSA_UNIT_DEGMAX.  COSA_EUNSUPPORTED for the
 * other kinds. */
cosa_status cosa_master_set_inputs(cosa_master *m, int q, const double *uder);
/* The raw outputs y_{n+1} (ny) of the proposal waiting for commit (the
 * units' states are its states).  COSA_EINVAL without one. */
cosa_status cosa_master_proposal_outputs(const cosa_master *m, double *y);

/* What the last successful proposal saw (also after its commit, e.g. in an
 * observer; valid until the next propose or init; any pointer may be NULL): H, the input polynomials' derivatives
 * u^(0..q)(T_n) (nu x (q+1), ld nu; *q the input degree), the outputs'
 * derivatives at T_n + H with the step's input polynomial continued there,
 * y^(0..n) (ny x (n+1), ld ny; *n = out_order, TAYLOR only, else NULL and
 * *n = -1), and with sample_mid the outputs at T_n + H/2 (ny; else NULL).
 * COSA_EINVAL if there has been no successful proposal since init. */
cosa_status cosa_master_step_data(const cosa_master *m, double *H, int *q, const double **uder,
                                  int *n, const double **yder, const double **ymid);

/* With sample_mid = 2: the first unit whose mid-sample half step failed
 * since init (its message in *why, may be NULL), or the number of units if
 * none did.  The steps themselves went on unchanged. */
size_t cosa_master_mid_lost(const cosa_master *m, const char **why);

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
/* 1 when the master was created with opts.events. */
int cosa_master_has_events(const cosa_master *m);
/* Commit the proposal at time t (events: the run loop's clock, which is the
 * proposal's end to rounding); without events as cosa_master_commit. */
cosa_status cosa_master_commit_at(cosa_master *m, double t);

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
/* The unit that failed in the last step (or nunits). */
size_t cosa_iter_failed_unit(const cosa_iter *it);

/* ---- 4b. Error estimators -------------------------------------------------- */

/* ---- Defects (defect paper section 3, issue 12 "Per step") ------------------ */

/* On a step [t_k, t_{k+1}], H = t_{k+1} - t_k, with s in it:
 *   output polynomial  Y(s) = sum_{j<=n} y^(j)(t_{k+1}) (s - t_{k+1})^j / j!;
 *   input polynomial   U(s) = sum_{j<=m} u^(j)(t_k) (s - t_k)^j / j!;
 *   connection defect  U - Y_src (eq 17), Y_src = sum_l L_il Y_l for input i;
 *   output-defect estimate  Hhat - Y = c (s - t_{k+1})^(n+1) (eqs 30, 32), c
 *     such that Hhat(t_k + H/2) = ymid, the output sampled mid-step;
 * each measured by its RMS over the step, sqrt(int delta^2 ds / H) (run
 * figures: sqrt(sum_k H_k rms_k^2 / T)). */
typedef enum cosa_defect_control {
    COSA_DEFECT_BOTH = 0,       /* eps = max over outputs and inputs        */
    COSA_DEFECT_OUTPUT,         /* eps = max over the output defects only   */
    COSA_DEFECT_CONNECTION      /* eps = max over the connection defects    */
} cosa_defect_control;
#define COSA_DEFECT_EPS_FLOOR 1e-16 /* eps is never below this (eq 38) */

/* RMS of the output-defect estimate of one output: the closed form
 * 2^(n+1) |ymid - Y(t_k + H/2)| / sqrt(2n + 3); yder = y^(0..n)(t_{k+1}).
 * COSA_ERANGE for n outside 0..COSA_UNIT_DERMAX or H <= 0. */
cosa_status cosa_defect_output_rms(int n, double H, const double *yder, double ymid,
                                   double *rms);
/* RMS of U - Y for one signal: uder = u^(0..m)(t_k), yder = y^(0..n)(t_{k+1}),
 * exactly (the polynomial's square integrated term by term). */
cosa_status cosa_defect_connection_rms(double H, int m, const double *uder, int n,
                                       const double *yder, double *rms);
/* Every defect of a step on a unit set: uder (nu x (m+1), ld nu) the input
 * polynomials' derivatives at t_k, yder (ny x (n+1), ld ny) the outputs'
 * derivatives at t_{k+1}, ymid (ny) the mid samples; dout (ny) and dconn
 * (nu) receive the per-step RMS (either may be NULL), *eps (may be NULL) the
 * controlled defect max(..., COSA_DEFECT_EPS_FLOOR) over the kinds which
 * selects (eq 38).  No allocation. */
cosa_status cosa_defect_step(const cosa_unitset *set, double H, int m, const double *uder,
                             int n, const double *yder, const double *ymid,
                             cosa_defect_control which, double *dout, double *dconn,
                             double *eps);

/* ---- Error estimators of the variable-order paper (lib/td/vo_estimator.c) -- */

/* Error estimators (sect. 4): entries of a table.  Each estimates the local
 * error of a macro step and reports scaled (WRMS) norms:
 *   exlocal   eq 15: |z - z^|, z^ from a second integration with the degree
 *             k+1 extrapolation (explicit);
 *   exmilne   eq 19/20: (C^{k+1}/C^k) |z - z^|, z^ from the degree-k
 *             interpolation through (T_{N+1}, P^{k+1}(T_{N+1})) (explicit);
 *   exslocal  eq 21: |P^k(T_{N+1}) - u_{N+1}| on coupling variables (explicit);
 *   immilne   eq 22/23: (1 - C^{k+1}/C^k) |z^pre - z| (implicit);
 *   imslocal  eq 24: |u^pre_{N+1} - u_{N+1}| on coupling variables (implicit).
 * C^k: eq 17 (positions) and eq 20 (velocities) for the step's own nodes. */
/* An estimator is a const descriptor (issue 23: a user may write one and
 * pass it in cosa_vo_opts.estimator).  After the step T_N -> T_N + H of
 * degree k is integrated, the engine calls estimate() with what it saw
 * (arrays borrowed for the call) and the descriptor's user_data; estimate
 * writes the error vector eps (nx entries if on_states, else nc) and
 * returns COSA_OK.  The engine takes its WRMS norms (eqs 25-27).  Any other
 * status makes the norms +inf: the step fails the local error test (as a
 * unit's failure does).  comparative (explicit coupling only): 1 = the
 * engine first integrates a comparative solution with the degree k+1
 * extrapolation, 2 = with the degree-k interpolation through
 * (T_{N+1}, P^{k+1}(T_{N+1})), 0 = none. */
typedef struct cosa_vo_step_view {
    size_t nx, nc;               /* states, coupling variables               */
    int k;                       /* the step's degree                        */
    double H;                    /* its macro step                           */
    const double *x1;            /* nx: z_{N+1}, the step's states           */
    const double *xh;            /* nx: the comparative (explicit,
                                    comparative > 0) or predictor (implicit)
                                    states; NULL for neither                 */
    const double *c1;            /* nc: u_{N+1} (updated or corrected)       */
    const double *cpred;         /* nc: P^k(T_{N+1}) (u^ext, u^pre)          */
    const unsigned char *is_vel; /* nx: 1 velocity, 0 position               */
    double cpos[2], cvel[2];     /* C^k, C^{k+1} of eqs 17, 20 on the step's
                                    nodes (cosa_vo_error_constants)          */
} cosa_vo_step_view;
typedef struct cosa_vo_estimator {
    const char *name;
    int implicit;                /* 1: implicit coupling, 0: explicit        */
    int on_states;               /* 1: eps on states (eq 32 alpha), 0: on u  */
    int comparative;             /* 0, 1 or 2 (above)                        */
    cosa_status (*estimate)(const cosa_vo_step_view *s, double *eps, void *user_data);
    void *user_data;
} cosa_vo_estimator;
size_t cosa_vo_estimator_count(void);
const cosa_vo_estimator *cosa_vo_estimator_at(size_t i);          /* NULL past the end */
const cosa_vo_estimator *cosa_vo_estimator_lookup(const char *name); /* NULL: unknown */
const char *cosa_vo_estimator_name(const cosa_vo_estimator *e);
int cosa_vo_estimator_implicit(const cosa_vo_estimator *e); /* 1: implicit coupling */
int cosa_vo_estimator_on_states(const cosa_vo_estimator *e); /* 1: states, 0: u     */

/* ---- 4c. Step controllers -------------------------------------------------- */

/* ---- Variable order and macro-step control (variable-order paper, issue 11) */

/* Order and macro-step control (sect. 5, Figs 6-7), after every attempted
 * macro step T_N -> T_N + H_N of degree k:
 *  1. local error test (eqs 25-27): the step passes if its error norm
 *     (max(err_pos, err_vel) for estimators on states, err_u for those on
 *     coupling variables) is <= 1 and the corrector (implicit) converged;
 *     M = N + 1 if it passed, else M = N (eq 28);
 *  2. order (order = 1 only; sect. 5.2.2): with SDN(j) of the history ending
 *     at T_M (hist->sdn),
 *       k = 1 and SDN(1) <= SDN(2)/2                   -> k_new = 0,
 *       k > 1 and max(SDN(k), SDN(k-1)) <= SDN(k+1)    -> k_new = k - 1,
 *       N_fail > 5 -> 0;  N_fail > 3 -> min(k_new, 1);
 *     then, only after a passed step whose decrease tests left k unchanged,
 *     with k < kmax and N_succ > k:
 *       k = 0 and SDN(2) < SDN(1)/2                    -> 1,
 *       k > 0 and SDN(k) <= min(SDN(k+1), SDN(k+2))    -> k - 1,
 *       k > 0 and SDN(k+2) < SDN(k+1)                  -> k + 1;
 *     N_succ counts passed steps in a row at degree k; a degree change, a
 *     failed step or a step smaller than its predecessor restarts it (the
 *     next passed step counts 1);
 *  3. step (sect. 5.3, eqs 32-34): unchanged degree: r = min((SF err_pos)^(-1/(k+3)),
 *     (SF err_vel)^(-1/(k+2))) or (SF err_u)^(-1/(k+1)); changed degree:
 *     r = (SF ||eps~||)^(-1/(k_new+1)) with eps~ of eq 31 (hist->etilde); r =
 *     inf for a zero norm; then N_fail = 0: H = rmax H_N if r >= rmax,
 *     min(0.9, max(rmin, r)) H_N if r < 1, else H_N; N_fail = 1:
 *     min(0.9, max(0.25, 0.9 r)) H_N; N_fail > 1 or a failed corrector:
 *     0.25 H_N; H <= hmin: the run stops (decision.stop). */
typedef struct cosa_vo_control_params {
    int order;        /* 1: order and step size; 0: step size only          */
    int kmax;         /* 0..COSA_VO_KMAX                                     */
    double sf;        /* safety factor SF > 0 (6)                            */
    double rmin;      /* < 1 (0.5)                                           */
    double rmax;      /* > 1 (2)                                             */
    double hmin;      /* > 0 (1e-12): a positive floor                       */
} cosa_vo_control_params;
#define COSA_VO_KMAX 8

/* What the controller knows of the attempted step. */
typedef struct cosa_vo_control_input {
    double H;          /* H_N                                                */
    int k;             /* its degree                                         */
    int state_est;     /* 1: estimator on states (eq 32 alpha), 0: on u (beta) */
    double err_pos, err_vel; /* WRMS norms (state estimators)                */
    double err_u;      /* WRMS norm (coupling-variable estimators)           */
    int corr_failed;   /* 1: the implicit corrector did not converge         */
} cosa_vo_control_input;

/* The history the order and step decisions read, ending at T_M (passed = 1:
 * M = N + 1, the new point included; 0: M = N):
 *   sdn(ctx, passed, j)     SDN(j), j >= 1: the WRMS norm (weights atol_u +
 *                           rtol |u_M|) of j! times the leading coefficient
 *                           of P^j through T_M .. T_{M-j}, written in
 *                           s = (t - T_M) / H_N; negative: not available
 *                           (too little history: that test is skipped);
 *   etilde(ctx, passed, k)  the WRMS norm of eps~ (eq 31) of degree k at
 *                           T_{M+1} = T_M + H_N. */
typedef struct cosa_vo_history {
    double (*sdn)(void *ctx, int passed, int j);
    double (*etilde)(void *ctx, int passed, int k);
    void *ctx;
} cosa_vo_history;

/* The controller's memory between attempts (zero it, then cosa_vo_control_reset). */
typedef struct cosa_vo_control_state {
    int nfail;         /* failed attempts of the current step                */
    int nsucc;         /* passed steps in a row at the current degree        */
    int restart;       /* the next passed step restarts nsucc                */
    double hprev;      /* the last passed step (0: none yet)                 */
} cosa_vo_control_state;

typedef struct cosa_vo_decision {
    int accept;        /* 1: the step passed (commit), 0: repeat it          */
    int k;             /* degree of the next attempt                         */
    double H;          /* its macro step                                     */
    double r;          /* r^rho before the limits (inf: zero norm)           */
    int stop;          /* 1: H <= hmin, the run stops                        */
} cosa_vo_decision;

void cosa_vo_control_reset(cosa_vo_control_state *s);
/* One decision.  COSA_EINVAL (NULL), COSA_ERANGE (params or input out of
 * range: kmax, k > kmax, SF <= 0, rmin >= 1, rmax <= 1, H <= 0, norms < 0 or
 * NaN). */
cosa_status cosa_vo_control_decide(const cosa_vo_control_params *p, cosa_vo_control_state *s,
                                   const cosa_vo_control_input *in, const cosa_vo_history *hist,
                                   cosa_vo_decision *out);

/* ---- Step-size controllers ------------------------------------------------- */

/* A controller turns the error measure err of the step h just taken into the
 * next step (as SUNDIALS' SUNAdaptController_EstimateStep and GSL's
 * gsl_odeiv2_control hadjust).  Variants are const descriptors in a table;
 * the generic layer (lib/td/control.c) validates arguments and keeps the
 * parameters and the type's state (nstate <= 4 doubles), so stepping never
 * allocates.  Parameters: tol the target of err (> 0); kp, ki gains; grow
 * the largest growth per step, h_next <= grow h (> 1; +inf: no cap). */
typedef struct cosa_controller_params {
    double tol;
    double kp, ki;
    double grow;
    cosa_vo_control_params vo; /* the order and step rules' ("order", "step";
                                  vo.rmax is grow); the others keep hmin     */
} cosa_controller_params;

/* A controller type:
 *   defaults  fill the type's default kp, ki, grow (tol is the caller's);
 *   reset     a new run starts with the step h0;
 *   next      from (h, err > 0) the next step *hnext > 0 and whether the step
 *             just taken is accepted (*accept = 1) or must be repeated with
 *             *hnext (0: the caller restores the units, cosa_master_reject);
 *             the state is updated. */
typedef struct cosa_controller_type {
    const char *name;
    int nstate;
    void (*defaults)(cosa_controller_params *p);
    cosa_status (*reset)(const cosa_controller_params *p, double *state, double h0);
    cosa_status (*next)(const cosa_controller_params *p, double *state, double h, double err,
                        double *hnext, int *accept);
    /* (may be NULL) the variable-order engine's decision after an attempt
     * (cosa_controller_decide): step, acceptance and the next degree; NULL:
     * the generic layer drives next() with the attempt's error norm and
     * keeps the degree */
    cosa_status (*decide)(const cosa_controller_params *p, double *state,
                          const cosa_vo_control_input *in, const cosa_vo_history *hist,
                          cosa_vo_decision *out);
} cosa_controller_type;

/* The table: "pi" -- the PI law on the logarithm of the error of the defect
 * paper (eq 39; defaults KP = 0.13, KI = 1/15, grow = 2, eq 50):
 *   e = ln tol - ln err;  I' = I + KI e;  H' = exp(I' + KP e);
 *   H_next = min(H', grow h);  I = I' + ln H_next - ln H';  I_0 = ln h0;
 * it always accepts (the paper's method is non-iterative).
 * "fixed" -- h_next = h0 whatever err (fixed-step runs through the same loop).
 * "order", "step" -- the variable-order paper's order and macro-step control
 * (sect. 5, cosa_vo_control_decide; "step" keeps the degree): their decide()
 * is the engine's; their next() is the same rules for a scalar error norm
 * err (<= 1 passes) of a degree-0 estimate on coupling variables, r = (SF
 * err)^-1, with the limits of sect. 5.3. */
size_t cosa_controller_type_count(void);
const cosa_controller_type *cosa_controller_type_at(size_t i); /* NULL past the end */
const cosa_controller_type *cosa_controller_lookup(const char *name); /* NULL: unknown */
/* p = the type's defaults with the given tol (grow = +inf unless the type sets it). */
cosa_status cosa_controller_defaults(const cosa_controller_type *type, double tol,
                                     cosa_controller_params *p);

typedef struct cosa_controller cosa_controller;
/* COSA_EINVAL (NULL, a type without reset/next), COSA_ENONFINITE (tol, kp,
 * ki not finite or grow NaN), COSA_ERANGE (tol <= 0, grow <= 1). */
cosa_status cosa_controller_create(const cosa_controller_type *type,
                                   const cosa_controller_params *p, cosa_controller **out);
void cosa_controller_free(cosa_controller *c);
const cosa_controller_type *cosa_controller_get_type(const cosa_controller *c);
/* Start a run with the first step h0 > 0 (COSA_ERANGE otherwise). */
cosa_status cosa_controller_reset(cosa_controller *c, double h0);
/* The next step after a step h > 0 with error measure err > 0 (finite:
 * floor it, e.g. at 1e-16, before); accept may be NULL.  COSA_EINVAL before
 * reset; COSA_ERANGE if the law gives no positive finite step. */
cosa_status cosa_controller_next(cosa_controller *c, double h, double err, double *hnext,
                                 int *accept);
/* The type's state (nstate doubles; PI: the integral term I). */
cosa_status cosa_controller_state(const cosa_controller *c, double *state);
/* The decision after an attempted macro step of the variable-order engine:
 * the type's decide(), or, without one, next() on the attempt's error norm
 * (max(err_pos, err_vel) or err_u, floored at 1e-16; a failed corrector
 * repeats the step at a quarter), the degree unchanged, stop when the next
 * step is <= p->vo.hmin.  COSA_EINVAL before reset. */
cosa_status cosa_controller_decide(cosa_controller *c, const cosa_vo_control_input *in,
                                   const cosa_vo_history *hist, cosa_vo_decision *out);

/* ---- 4d. One run's statistics, the same for every run ---------------------- */

/* How a run of the loop ended. */
typedef enum cosa_run_end {
    COSA_RUN_OK = 0, /* the end of the horizon                                  */
    COSA_RUN_FAILED, /* a step failed and was not retried (a unit's failure, the
                        outputs left the finite numbers, the corrector)         */
    COSA_RUN_LIMIT,  /* the step or attempt limit before the end                */
    COSA_RUN_HMIN,   /* the next macro step below the floor                     */
    COSA_RUN_HALTED  /* an observer stopped it (the driver's divergence test)   */
} cosa_run_end;
/* "ok", "failed", "limit", "hmin", "halted"; NULL for another value. */
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
/* COSA_ERANGE unless 0 < hmin <= h0 <= hmax, 0 < rate_min <= rate_max,
 * safety, rtol, atol >= 0 with rtol + atol > 0, finite gains. */
cosa_status cosa_ecco_reset(const cosa_ecco_params *p, cosa_ecco_state *s);
/* After a step of s->h_ns from t_ns: the residuals |P_a - P_b| of the bonds
 * (n of them) turn into the scaled error estimate (*err; NaN when the step
 * is not adjusted: the first one, or no bonds) and the next step s->h_ns,
 * exactly as libcosim's ecco_algorithm::adjust_step_size. */
cosa_status cosa_ecco_adjust(const cosa_ecco_params *p, cosa_ecco_state *s, long long t_ns,
                             size_t n, const double *residual, double *err);

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
} cosa_ecco_result;
cosa_status cosa_ecco_run(cosa_unitset *set, const double *x0, const cosa_ecco_params *p,
                          const cosa_power_bond *bonds, size_t nbond, double tend,
                          cosa_ecco_result **out);
void cosa_ecco_result_free(cosa_ecco_result *r);

/* ---- 4e. Observers and runs ------------------------------------------------ */

/* ---- Energy indicators and correction (energy paper, issue 10) -------------- */

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
void cosa_energy_result_free(cosa_energy_result *r);

/* ---- Fixed-step run (driver) with the conventions of doc/method.md --------- */

typedef struct cosa_cosim_opts {
    size_t nsteps;           /* N = round(T_end / H) >= 1 macro steps           */
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
} cosa_cosim_opts;

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
    size_t nsteps;      /* N requested                                        */
    size_t ndone;       /* macro steps completed (N unless diverged)          */
    double *t;          /* N+1 times: t[n] = (p + n) H                        */
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

/* Start-up (doc/method.md): the co-simulation starts at t = p H on the reference,
 * x = x_ref(pH), ybar_{-j} = y_ref((p-j) H), du = 0, then runs N macro steps
 * (ref must have nsamples >= p + N + 1 at the same H, else COSA_ERANGE).
 * Divergence (a result, not an error: COSA_OK with diverged = 1): an output
 * (raw or corrected) exceeds diverge_factor * yref_max or is not finite, or a
 * unit / the correction fails numerically (reason says which).  The result is
 * owned by the caller (cosa_cosim_result_free). */
cosa_status cosa_cosim_run(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt, cosa_cosim_result **out);
void cosa_cosim_result_free(cosa_cosim_result *r);

/* ---- Defect-controlled co-simulation (defect paper Algorithm 1) ----------- */

/* Non-iterative Jacobi with Taylor inputs of order m from output derivatives
 * of order n (the master with COSA_EXTRAP_TAYLOR and sample_mid), the
 * defects of every step (cosa_defect_step) and, with tol > 0, the macro step
 * chosen by a controller from the controlled defect (default "pi", eq 39;
 * first step h0).  The end of the run: a step that would end within
 * 1e-12 T of T, or beyond it, is shortened to end at T (fixed steps too). */
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
/* "ok", "failed", "max-steps", "hmin" (NULL past the end). */
const char *cosa_defect_end_name(cosa_defect_end e);

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
void cosa_defect_result_free(cosa_defect_result *r);

/* ---- Variable-order co-simulation engine (lib/td/vo_*.c) ------------------ */

typedef enum cosa_vo_coupling_kind { COSA_VO_EXPLICIT = 0, COSA_VO_IMPLICIT } cosa_vo_coupling_kind;
typedef enum cosa_vo_jacobian { COSA_VO_JAC_FD = 0, COSA_VO_JAC_LOS, COSA_VO_JAC_EXACT } cosa_vo_jacobian;
typedef enum cosa_vo_control_kind {
    COSA_VO_CONTROL_NONE = 0, /* fixed H and k                               */
    COSA_VO_CONTROL_STEP,     /* macro step controlled, k fixed              */
    COSA_VO_CONTROL_ORDER     /* order and macro step controlled             */
} cosa_vo_control_kind;

/* The error constants of a step T_N -> T_N + H with the extrapolation nodes
 * s_j = (T_{N-j} - T_N)/H, j = 0..k-1 (s_0 = 0): with
 * L^k(s) = prod_{j<k} (s - s_j)/(1 - s_j),
 *   C_vel^k = int_0^1 L^k ds (eq 20),  C_pos^k = int_0^1 (1 - s) L^k ds (eq 17)
 * (Gauss-Legendre, exact for k <= 14).  k = 0: 1 and 1/2. */
cosa_status cosa_vo_error_constants(int k, const double *s, double *cpos, double *cvel);

/* The reference the engine reads: the monolithic states at the times
 * t[0..n-1] (increasing, t[0] = 0) from the run's initial state, all of them
 * (sel = NULL: X is nx x n) or the states sel[0..nsel-1] (X nsel x n). */
typedef cosa_status (*cosa_vo_ref_fn)(void *ctx, size_t n, const double *t, size_t nsel,
                                      const size_t *sel, double *X);

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
} cosa_vo_opts;

/* Defaults of the issue: k 0, kmax 5, rtol 1e-5, atol_x 1e-3 rtol, atol_v
 * rtol, atol_u 1e2 rtol, SF 6, rmin 0.5, rmax 2, hmin 1e-12, corr_tol 1e-10,
 * corr_max 10, explicit, control none, fd. */
void cosa_vo_opts_default(cosa_vo_opts *o);

typedef enum cosa_vo_status {
    COSA_VO_OK = 0, COSA_VO_HMIN, COSA_VO_DIVERGED, COSA_VO_MAXSTEPS,
    COSA_VO_NOREF           /* the monolithic reference failed (reason says
                               where); no error figures (NaN, xref NULL)     */
} cosa_vo_status;
/* "ok", "hmin", "diverged", "max-steps", "reference-failed" */
const char *cosa_vo_status_name(cosa_vo_status s);

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
} cosa_vo_result;
void cosa_vo_result_free(cosa_vo_result *r);

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

/* One macro step for `cosa estimate`: from the reference at t0 (states),
 * history u at t0 - j H (j = 0..k+2) from the reference, one step of H with
 * degree k.  Fills (each may be NULL) err_pos/est_pos/err_vel/est_vel (state
 * estimators: 2-norms over all positions / velocities, err against the
 * monolithic step = the reference at t0 + H) or err_u/est_u (|u_pred -
 * u_exact|, 2-norm).  t0 >= (k+1) H (COSA_ERANGE otherwise). */
typedef struct cosa_vo_estimate {
    double err_pos, est_pos, err_vel, est_vel, err_u, est_u;
} cosa_vo_estimate;
cosa_status cosa_vo_estimate_step(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                                  const cosa_vo_opts *o, double t0, cosa_vo_estimate *out);

/* ---- 4f. One run description, one entry point, one result ---------------- */

/* The configurations of the one loop a run description selects. */
typedef enum cosa_run_kind {
    COSA_RUN_FIXED = 0, /* a coupling scheme at a fixed macro step (cosa_cosim_run) */
    COSA_RUN_DEFECT,    /* the defect paper's run, fixed or controlled (cosa_defect_run) */
    COSA_RUN_VO,        /* the variable-order engine (cosa_vo_run)                */
    COSA_RUN_KIND_COUNT
} cosa_run_kind;
/* "fixed", "defect", "vo"; NULL for another value. */
const char *cosa_run_kind_name(cosa_run_kind k);

/* One run description: the configuration and the options of each (only
 * the selected one's are read). */
typedef struct cosa_run_opts {
    cosa_run_kind kind;
    cosa_scheme scheme;      /* FIXED: the coupling scheme                   */
    cosa_cosim_opts fixed;   /* FIXED: N, master options, ...; the macro step
                                is the reference trajectory's H           */
    double H;                /* FIXED without a reference (cosa_run_ref.traj
                                NULL): the macro step; the run starts at
                                t = 0 from the units' own states
                                (start_initial), e_global is NaN and the
                                divergence test checks finiteness only
                                (cosa_reftraj_none)                       */
    cosa_defect_opts defect; /* DEFECT                                       */
    cosa_vo_opts vo;         /* VO                                           */
} cosa_run_opts;

/* The defaults: kind FIXED; scheme ZOH (Jacobi, order 0, no corrections,
 * alpha = relax = 1: cosa_scheme_parse("zoh")); fixed: zero (nsteps 0 --
 * set it --, master options 0, diverge_factor 0 = 1e6, no defects, no
 * energy, no iteration options); defect: in_order 1, out_order 1 (first
 * order Taylor inputs and outputs), H 0, tol 0, h0 0, tend 0 (a fixed run needs H
 * and tend, a controlled one tol, h0 and tend), control BOTH, controller
 * NULL ("pi"), max_steps 0 (COSA_DEFECT_MAX_STEPS), hmin 0; vo:
 * cosa_vo_opts_default (H and tend 0: set them).  NULL is a no-op. */
void cosa_run_opts_default(cosa_run_opts *o);

/* What a run compares against, by configuration: FIXED the reference
 * trajectory traj (start-up and e_global; NULL: none, see cosa_run_opts.H);
 * DEFECT the initial state x0 and
 * the coupled linear system exact (may be NULL: no error figures); VO the
 * reference function fn with its context. */
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
    COSA_RUN_STATUS_NOREF     /* the reference failed (VO): no error figures   */
} cosa_run_status;
/* "ok", "diverged", "failed", "limit", "hmin", "reference-failed"; NULL for
 * another value. */
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
    /* the configuration's own result (the one of kind; the others NULL),
     * owned by this result: every figure of that configuration */
    cosa_cosim_result *fixed;
    cosa_defect_result *defect;
    cosa_vo_result *vo;
} cosa_run_result;

/* One run of the configuration o->kind on the unit set: validates the
 * description once (the configuration's own checks: COSA_EINVAL for a NULL
 * argument, a missing reference of that configuration or an unknown kind;
 * COSA_ERANGE for numbers out of range or not finite -- a macro step <= 0,
 * a NaN tolerance, ...; COSA_EUNSUPPORTED as the configuration), then runs
 * it as the configuration's entry point does (cosa_cosim_run,
 * cosa_defect_run, cosa_vo_run: bitwise the same figures, the description
 * not checked a second time) and fills the one result.  A run that stops is a result (status, reason), COSA_OK; errors
 * (a broken FMU, memory) are returned.  Free with cosa_run_result_free. */
cosa_status cosa_run(cosa_unitset *set, const cosa_run_opts *o, const cosa_run_ref *ref,
                     cosa_run_result **out);
void cosa_run_result_free(cosa_run_result *r);

/* ======================================================================== */
/* 5. FMU import                                                            */
/* ======================================================================== */

/* ---- FMU import (lib/td/fmu*.c) ------------------------------------------ */

/* An FMI 3.0 or 2.0 co-simulation FMU, opened: unzipped into a private
 * temporary directory (removed by cosa_fmu_close), modelDescription.xml
 * parsed, the binary for this platform (binaries/x86_64-linux/ID.so for 3.0,
 * binaries/linux64/ID.so for 2.0) loaded and its functions resolved. */
typedef struct cosa_fmu cosa_fmu;

enum cosa_fmu_causality {
    COSA_FMU_PARAMETER, COSA_FMU_CALCULATED_PARAMETER, COSA_FMU_INPUT, COSA_FMU_OUTPUT,
    COSA_FMU_LOCAL, COSA_FMU_INDEPENDENT, COSA_FMU_STRUCTURAL_PARAMETER
};
enum cosa_fmu_variability { COSA_FMU_CONSTANT, COSA_FMU_FIXED, COSA_FMU_TUNABLE,
                            COSA_FMU_DISCRETE, COSA_FMU_CONTINUOUS };

/* A Float64 (3.0) or Real (2.0) variable of the model description. */
typedef struct cosa_fmu_var {
    char *name;
    unsigned vr;            /* valueReference                                 */
    int causality;          /* enum cosa_fmu_causality (default local)        */
    int variability;        /* enum cosa_fmu_variability (default continuous) */
    int has_start;
    double start;
    long derivative_of;     /* index (in the variable list) of the variable it
                               is the derivative of, or -1                     */
    int intermediate_update; /* FMI 3.0 intermediateUpdate="true": settable
                                during a step (intermediate update mode)       */
    const size_t *clocks;   /* FMI 3.0 `clocks` attribute: the clocks the
                               variable belongs to, as indices into the clock
                               list (cosa_fmu_clock_at); NULL if unclocked     */
    size_t nclocks;
} cosa_fmu_var;

/* Capability flags of the CoSimulation element (cosa_fmu_caps). */
enum {
    COSA_FMU_CAP_GET_SET_STATE = 1u << 0,     /* canGetAndSetFMUState (2: ..FMUstate) */
    COSA_FMU_CAP_DIRECTIONAL = 1u << 1,       /* providesDirectionalDerivative(s)      */
    COSA_FMU_CAP_INTERPOLATE_INPUTS = 1u << 2, /* canInterpolateInputs (2.0)          */
    COSA_FMU_CAP_INTERMEDIATE_UPDATE = 1u << 3, /* providesIntermediateUpdate (3.0)   */
    COSA_FMU_CAP_VARIABLE_STEP = 1u << 4,     /* canHandleVariableCommunicationStepSize */
    COSA_FMU_CAP_EVENT_MODE = 1u << 5,        /* hasEventMode (3.0)                     */
    COSA_FMU_CAP_EARLY_RETURN = 1u << 6,      /* canReturnEarlyAfterIntermediateUpdate  */
    COSA_FMU_CAP_CLOCKS = 1u << 7,            /* a Clock variable (3.0)                 */
    COSA_FMU_CAP_SCHEDULED = 1u << 8,         /* a ScheduledExecution element (3.0)     */
    COSA_FMU_CAP_MODEL_EXCHANGE = 1u << 9     /* imported as Model Exchange: no
                                                 CoSimulation element, cosa integrates
                                                 the FMU's derivatives itself           */
};
/* recommendedIntermediateInputSmoothness of the CoSimulation element (3.0;
 * 0 when absent or for 2.0): the number of continuous derivatives the FMU
 * recommends for inputs set during a step. */
int cosa_fmu_input_smoothness(const cosa_fmu *fmu);

/* Open the FMU at path.  On failure a status (COSA_EFMU for a bad FMU,
 * COSA_EIO for an unreadable file, COSA_ENOMEM) and a one-line message in
 * err that says what is wrong (no file name: the caller adds it), nothing
 * left on disk, *out = NULL. */
cosa_status cosa_fmu_open(const char *path, cosa_fmu **out, char *err, size_t errsize);
/* The same with flags: COSA_FMU_OPEN_DISCRETE_IO makes the Real inputs and
 * outputs of variability discrete of an FMI 2.0 FMU inputs and outputs too
 * (values sampled at the communication points, as libcosim exchanges
 * them; OSP system structures, doc/osp.md). */
enum {
    COSA_FMU_OPEN_DISCRETE_IO = 1u << 0,
    COSA_FMU_OPEN_CS = 1u << 1, /* the co-simulation interface (COSA_FMU_IFACE_CS)   */
    COSA_FMU_OPEN_ME = 1u << 2  /* the model-exchange interface (COSA_FMU_IFACE_ME) */
};
/* The flag of interface iface (COSA_FMU_IFACE_AUTO, _CS, _ME: 0, CS, ME). */
#define COSA_FMU_OPEN_IFACE(iface) ((unsigned)(iface) << 1)
cosa_status cosa_fmu_open_flags(const char *path, unsigned flags, cosa_fmu **out, char *err,
                                size_t errsize);
/* The interface of an FMU that offers both: AUTO (cosa_fmu_open)
 * co-simulation where the FMU has a CoSimulation element, else Model
 * Exchange; CS and ME insist (a missing element is one line in err). */
enum { COSA_FMU_IFACE_AUTO = 0, COSA_FMU_IFACE_CS = 1, COSA_FMU_IFACE_ME = 2 };
cosa_status cosa_fmu_open_as(const char *path, int iface, cosa_fmu **out, char *err,
                             size_t errsize);
/* Unload the binary and remove the temporary directory; NULL is a no-op. */
void cosa_fmu_close(cosa_fmu *fmu);

/* Unzip archive (an FMU, an SSP; kind names it in messages: "not an SSP:
 * ...") into a new private directory under $TMPDIR, whose name is stored in
 * dir (dirsize >= 4096 for long TMPDIRs); an entry with an absolute name or
 * a ".." component is refused before anything is written.  COSA_OK, or
 * COSA_ESYNTAX (not a zip archive, a corrupt or escaping entry), COSA_EIO
 * (cannot read the file or write the directory), COSA_ENOMEM, COSA_EINVAL,
 * with a one-line message in err (no file name) and nothing left on disk.
 * Remove the directory with cosa_archive_remove. */
cosa_status cosa_archive_extract(const char *archive, const char *kind, char *dir,
                                 size_t dirsize, char *err, size_t errsize);
void cosa_archive_remove(const char *dir);

int cosa_fmu_version(const cosa_fmu *fmu);                 /* 2 or 3            */
const char *cosa_fmu_model_name(const cosa_fmu *fmu);
const char *cosa_fmu_identifier(const cosa_fmu *fmu);      /* modelIdentifier   */
const char *cosa_fmu_token(const cosa_fmu *fmu);           /* token (3) / guid (2) */
const char *cosa_fmu_directory(const cosa_fmu *fmu);       /* the unzipped tree */
unsigned cosa_fmu_caps(const cosa_fmu *fmu);               /* COSA_FMU_CAP_*    */
size_t cosa_fmu_nvar(const cosa_fmu *fmu);
const cosa_fmu_var *cosa_fmu_var_at(const cosa_fmu *fmu, size_t i);
/* The continuous states (the variables whose derivatives ModelStructure
 * lists), inputs and outputs, as indices into the variable list (SIZE_MAX
 * for i out of range). */
size_t cosa_fmu_nstate(const cosa_fmu *fmu);
size_t cosa_fmu_state(const cosa_fmu *fmu, size_t i);
size_t cosa_fmu_state_derivative(const cosa_fmu *fmu, size_t i);
size_t cosa_fmu_ninput(const cosa_fmu *fmu);
size_t cosa_fmu_input(const cosa_fmu *fmu, size_t i);
size_t cosa_fmu_noutput(const cosa_fmu *fmu);
size_t cosa_fmu_output(const cosa_fmu *fmu, size_t i);
/* A variable cosa does not read: another type than Float64/Real (type is the
 * element's name: Int32, Boolean, String, ...) or an array ("Float64 array",
 * "Clock array", ...).  Scalar Clock variables are not listed here: they are
 * cosa_fmu_clock_at's. */
typedef struct cosa_fmu_other {
    char *name;
    char *type;             /* "Int32", ..., "Float64 array"                  */
    unsigned vr;
    int causality;          /* enum cosa_fmu_causality                        */
    int variability;        /* enum cosa_fmu_variability                      */
} cosa_fmu_other;
size_t cosa_fmu_nother(const cosa_fmu *fmu);
const cosa_fmu_other *cosa_fmu_other_at(const cosa_fmu *fmu, size_t i);

/* FMI 3.0 Clock variables (lib/td/fmu_clocks.c; scalar ones: a Clock
 * array is a "Clock array" of cosa_fmu_other_at, which cosa does not drive).  intervalVariability: constant, fixed,
 * calculated and tunable clocks are periodic (interval and shift known to
 * the importer: from the description for constant ones, from
 * fmi3GetIntervalDecimal/fmi3GetShiftDecimal after initialization for the
 * others); changing and countdown clocks are aperiodic, their next interval
 * told by the FMU; triggered clocks tick when the importer (input) or the
 * FMU (output) says. */
enum cosa_fmu_interval_variability {
    COSA_FMU_CLOCK_CONSTANT, COSA_FMU_CLOCK_FIXED, COSA_FMU_CLOCK_CALCULATED,
    COSA_FMU_CLOCK_TUNABLE, COSA_FMU_CLOCK_CHANGING, COSA_FMU_CLOCK_COUNTDOWN,
    COSA_FMU_CLOCK_TRIGGERED
};
typedef struct cosa_fmu_clock {
    char *name;
    unsigned vr;               /* valueReference                              */
    int causality;             /* enum cosa_fmu_causality: input (the importer
                                  activates it), output (the FMU ticks it) or
                                  local                                        */
    int interval_variability;  /* enum cosa_fmu_interval_variability          */
    int periodic;              /* constant, fixed, calculated or tunable      */
    double interval;           /* intervalDecimal [s], or intervalCounter /
                                  resolution; NaN when the description gives
                                  neither                                      */
    double shift;              /* shiftDecimal [s] (or shiftCounter /
                                  resolution); 0 when absent: the first tick
                                  of a periodic clock is at start + shift      */
    int can_be_deactivated;    /* canBeDeactivated                            */
    long priority;             /* priority, -1 when absent                    */
} cosa_fmu_clock;
/* The Clock variables in the description's order; clock_at returns NULL
 * for i out of range. */
size_t cosa_fmu_nclock(const cosa_fmu *fmu);
const cosa_fmu_clock *cosa_fmu_clock_at(const cosa_fmu *fmu, size_t i);
/* The name of an interval variability ("constant", ..., "triggered"; "?"
 * out of range). */
const char *cosa_fmu_interval_variability_name(int iv);
/* DefaultExperiment's startTime and stopTime (NaN where not given). */
double cosa_fmu_start_time(const cosa_fmu *fmu);
double cosa_fmu_stop_time(const cosa_fmu *fmu);

/* The FMU as a unit (lib/td/unit_fmu.c; the FMU must outlive the unit): its
 * continuous states, inputs and outputs in the description's order (FMI 3.0
 * clocked outputs and inputs after them: a clocked input is set only in the
 * Event Mode of its clock's tick, README "Clocks"); one FMU
 * instance named instance_name (NULL: the model identifier), instantiated
 * again whenever the unit's state is set (start values of the states = the
 * state, initialisation at the unit's time), starting at t = 0 with the
 * states' start values.  Input polynomials of degree >= 1 need an FMI 2.0
 * FMU with canInterpolateInputs (fmi2SetRealInputDerivatives) or an FMI 3.0
 * FMU with providesIntermediateUpdate and intermediateUpdate inputs (set to
 * the polynomial's value whenever the FMU asks during a step); else the step
 * fails with COSA_EUNSUPPORTED and says why.  eval and the Jacobians
 * (directional derivatives; without them the generic central differences)
 * run on the FMU at its current time and state, elsewhere on a second
 * instance initialised at that time with those states as start values
 * (assumes no hidden state beyond states and parameters); snapshots need
 * get/set FMU state.
 * An fmi3DoStep whose lastSuccessfulTime is not t + h (to rounding) fails
 * with COSA_EFMU; one that was given a polynomial of degree >= 1 and never
 * asked for its inputs inside the step (intermediate update declared, not
 * used) with COSA_EUNSUPPORTED.  The FMU gets its resources/ directory at
 * instantiation (3.0: a path ending in '/'; 2.0: a file:// URI).
 * A failing FMU call gives COSA_EFMU (COSA_EDISCARD for a Discard: the step
 * could not be completed, a result of the run) and one line in
 * cosa_unit_message;
 * when the first instantiation fails, create returns COSA_EFMU with *out
 * set nonetheless, so that cosa_unit_message says why (free it). */
cosa_status cosa_unit_fmu_create(cosa_fmu *fmu, const char *instance_name, cosa_unit **out);
/* Record a start value for the FMU variable called name (a parameter) and
 * re-instantiate with it (at the unit's time and state).  COSA_EPARAM for
 * an unknown name, COSA_EINVAL if u is not an FMU unit. */
cosa_status cosa_unit_fmu_set_start(cosa_unit *u, const char *name, double value);
/* The same for an Integer (Int32), Boolean or String variable, the value as
 * text ("42"; "true"/"false"/"1"/"0"; any string), set with fmi2SetInteger/
 * SetBoolean/SetString (fmi3SetInt32/...) before initialization (OSP
 * InitialValues).  COSA_EPARAM for an unknown name, COSA_EUNSUPPORTED for
 * another type, COSA_ERANGE for a value that is not one of the type. */
cosa_status cosa_unit_fmu_set_start_text(cosa_unit *u, const char *name, const char *value);
/* A = df/dx, B = df/du, C = dg/dx, D = dg/du (column-major, ld = rows) of the
 * FMU unit at its current time and state with the inputs at their start
 * values (0 without one): its operating point after cosa_unit_fmu_create.
 * From the directional derivatives when the FMU provides them and force_fd
 * is 0; else central differences, the states perturbed through fresh
 * instances (their start values; no doStep) and the inputs through eval,
 * steps cbrt(eps) max(|z_j|, 1e-3 ||z||_inf) (cbrt(eps) for z = 0).  The
 * unit is left at its operating point.  An FMU without continuous states
 * (a gain, a table) has only D (A, B, C are empty). */
cosa_status cosa_unit_fmu_linearize(cosa_unit *u, int force_fd, double *A, double *B, double *C,
                                    double *D);
/* A message an FMU logged: the instance's name, the status it logged with
 * (0 OK .. 4 Fatal), its category and text (one message, maybe several
 * lines). */
typedef void cosa_fmu_log_fn(void *user, const char *instance, int status, const char *category,
                             const char *message);
/* Turn the FMU's logging on (loggingOn at instantiation) and pass every
 * message it logs to fn (NULL: logging off again); the FMU is instantiated
 * again now, at the unit's time and state.  COSA_EINVAL if u is not an FMU
 * unit, COSA_EFMU if the new instance fails (cosa_unit_message says why). */
cosa_status cosa_unit_fmu_set_logger(cosa_unit *u, cosa_fmu_log_fn *fn, void *user);
/* The first Warning status an FMU call of the unit returned, as one line
 * (the instance, the function, the time and what the FMU logged), or "" if
 * none did; NULL if u is not an FMU unit. */
const char *cosa_unit_fmu_warning(const cosa_unit *u);
/* FMI 3.0 events (lib/td/fmu_event.c; README "Events"): on = 1 instantiates
 * the FMU again (at the unit's time and state) with eventModeUsed, and
 * earlyReturnAllowed when it declares canReturnEarlyAfterIntermediateUpdate;
 * its steps then may end early at an event (cosa_unit_do_step_event) and
 * Event Mode runs fmi3EnterEventMode, fmi3UpdateDiscreteStates until no
 * further update is needed (at most COSA_FMU_EVENT_ITER_MAX calls, else
 * COSA_EUNSUPPORTED and one line), fmi3EnterStepMode, and reads
 * nextEventTime.  A plain cosa_unit_do_step handles the events inside the
 * step.  on = 0: today's instantiation (no event mode; an FMU asking for
 * event handling fails the step).  COSA_EUNSUPPORTED for on = 1 and an FMU
 * without hasEventMode, or whose binary does not export
 * fmi3EnterEventMode, fmi3UpdateDiscreteStates and fmi3EnterStepMode (one line); COSA_EINVAL if u is not an FMU unit; COSA_EFMU if
 * the new instance fails (cosa_unit_message says why).  An fmi3DoStep that
 * returns early when that was not allowed fails with COSA_EUNSUPPORTED. */
#define COSA_FMU_EVENT_ITER_MAX 100
cosa_status cosa_unit_fmu_set_events(cosa_unit *u, int on);
/* 1 when events are on for the FMU unit u (0 otherwise, or not an FMU). */
int cosa_unit_fmu_events(const cosa_unit *u);
/* The integrator of a Model Exchange FMU unit (default: CVODE BDF, rtol
 * 1e-10; doc/model-exchange.md); a co-simulation FMU integrates itself:
 * COSA_OK, nothing changes.  COSA_EINVAL for COSA_INTEGRATOR_EXACT,
 * COSA_EUNSUPPORTED (one line) for symplectic Euler (needs kick flags). */
cosa_status cosa_unit_fmu_set_integrator(cosa_unit *u, const cosa_integrator *cfg);
/* The instance name of an FMU unit, NULL for other units. */
const char *cosa_unit_fmu_name(const cosa_unit *u);
/* Connect an output clock of FMU unit from to a triggered input clock of
 * FMU unit to (README "Clocks"): whenever out_clock ticks (fmi3GetClock
 * active in from's Event Mode at t), in_clock ticks at t -- to's next event
 * is set to t and its Event Mode there (the master runs it at the same
 * communication point) activates in_clock with fmi3SetClock.  Both units
 * need events on (cosa_unit_fmu_set_events, before or after linking: the
 * link survives a new instance).
 * COSA_EPARAM for a name that is no clock of that FMU, COSA_EINVAL for a
 * non-FMU unit, an out_clock that is no output clock or an in_clock that
 * is no triggered input clock, COSA_ENOMEM. */
cosa_status cosa_unit_fmu_clock_link(cosa_unit *from, const char *out_clock, cosa_unit *to,
                                     const char *in_clock);
/* How many output clocks are linked to the input clock in_clock of FMU
 * unit u (cosa_unit_fmu_clock_link); 0 for an unlinked or unknown clock or
 * a unit that is no FMU.  A triggered input clock with none never ticks. */
unsigned cosa_unit_fmu_clock_driven(const cosa_unit *u, const char *in_clock);

/* Keep the FMU unit u in Initialization Mode: it is instantiated afresh at
 * time t with states x (as cosa_unit_set_state), entered into Initialization
 * Mode and left there, so that its inputs can be set and its outputs read
 * (cosa_unit_eval at (t, x)) while a loop is iterated; no step until
 * cosa_unit_fmu_init_exit.  COSA_EINVAL if u is not an FMU unit, COSA_EFMU
 * if the instantiation fails (cosa_unit_message says why). */
cosa_status cosa_unit_fmu_init_enter(cosa_unit *u, double t, const double *x);
/* Leave Initialization Mode (fmi3/fmi2ExitInitializationMode); COSA_OK if
 * u is not in it.  COSA_EFMU with one line if the FMU fails. */
cosa_status cosa_unit_fmu_init_exit(cosa_unit *u);

/* The initialization loop (lib/td/fmu_init.c, README "FMU import"). */
typedef struct cosa_fmu_init_result {
    int loop;          /* 1: FMU units with direct feedthrough are in an algebraic
                          loop (a cycle of u = L y through D != 0); 0: nothing done */
    int iterations;    /* Newton iterations in Initialization Mode              */
    double residual;   /* ||y - g(t, x, L y)||_inf at the last iterate          */
} cosa_fmu_init_result;
/* At time t and stacked state x, find the units whose direct feedthrough
 * (D_i from cosa_unit_jacobian at inputs 0: a structural zero there is taken
 * as none) closes a cycle of the coupling u = L y; in_loop (nunits, may be
 * NULL) flags them.  When an FMU unit is among them, every FMU unit of the
 * loop is put in Initialization Mode at (t, x_i) (cosa_unit_fmu_init_enter),
 * the loop y = g(t, x, L y) is solved there by cosa_unitset_loop_solve's
 * Newton method and tolerance (||dy||_inf <= 1e-10 ||y||_inf, then one more
 * iteration; at most COSA_UNITSET_LOOP_MAXIT), from y = 0, and the FMUs
 * leave Initialization Mode; y (ny) receives the outputs.  Every unit is set
 * to (t, x_i) first.  COSA_ENOTCONVERGED (no convergence within the limit)
 * or COSA_EALGLOOP (I - D L singular: no unique fixed point), with the
 * iterations and residual in *res; other statuses from the units. */
cosa_status cosa_fmu_init_loop(cosa_unitset *set, double t, const double *x, double *y,
                               unsigned char *in_loop, cosa_fmu_init_result *res);
/* The feedthrough cycle test of cosa_fmu_init_loop alone, for any units: at
 * (t, x), with every unit already at its point (an FMU's Jacobians exist at
 * its current point only), in_loop[i] (nunits) = 1 for the units on a cycle
 * of u = L y through D != 0, and *loop (may be NULL) = 1 when there is one. */
cosa_status cosa_unitset_find_loop(cosa_unitset *set, double t, const double *x,
                                   unsigned char *in_loop, int *loop);

/* What an FMU can do for a master (lib/td/fmu_capability.c), read from its
 * model description: the summary a model file carries per FMU subsystem
 * (cosa_model_file_fmu_capability) and every command consults. */
typedef struct cosa_fmu_capability {
    int fmi_version;          /* 2 or 3                                          */
    int input_degree_max;     /* largest input polynomial degree a step accepts:
                                 COSA_UNIT_DEGMAX with FMI 2.0
                                 canInterpolateInputs (fmi2SetRealInputDerivatives
                                 takes any order) or FMI 3.0
                                 providesIntermediateUpdate with every input
                                 intermediateUpdate="true"; else 0 (held inputs);
                                 COSA_UNIT_DEGMAX for an FMU without inputs      */
    int max_output_derivative_order; /* maxOutputDerivativeOrder (what
                                 fmi2/3GetOutputDerivatives may be asked; cosa
                                 extrapolates outputs itself, so it does not
                                 bound the input degree)                         */
    int directional;          /* providesDirectionalDerivative(s): Jacobians     */
    int fmu_state;            /* canGetAndSetFMUState: snapshots, finite
                                 differences through the FMU's state             */
    int variable_step;        /* canHandleVariableCommunicationStepSize          */
    double fixed_step;        /* fixedInternalStepSize (3.0) [s]; 0: not given   */
    double default_step;      /* DefaultExperiment stepSize [s]; 0: not given    */
    int event_mode;           /* hasEventMode (3.0)                              */
    int early_return;         /* canReturnEarlyAfterIntermediateUpdate (3.0)     */
    int clocks;               /* has Clock variables (3.0)                       */
    int scheduled;            /* offers ScheduledExecution too (3.0; cosa uses
                                 CoSimulation only)                              */
    int smoothness;           /* recommendedIntermediateInputSmoothness (0: none) */
    char degree_why[160];     /* why input_degree_max is 0 ("" otherwise)        */
    int model_exchange;       /* imported as Model Exchange (no CoSimulation
                                 element): cosa integrates it, so any input
                                 degree, any step and snapshots (the state is
                                 the continuous states) -- input_degree_max,
                                 variable_step and fmu_state say so            */
} cosa_fmu_capability;

/* The largest input polynomial degree that recommendedIntermediateInputSmoothness
 * k allows (README "FMU import"): k for k >= 1 (derivatives above the k the
 * FMU's solver is built for come from the extrapolation's least accurate
 * terms), COSA_UNIT_DEGMAX for k = 0 or absent (the standard's default). */
int cosa_fmu_smoothness_degree(int k);
/* Whether scheme s's input degree (nu > 0) is within the smoothness cap of
 * cap: COSA_OK, or COSA_EUNSUPPORTED with the reason in why (one clause);
 * part of cosa_fmu_capability_check, and what cosa simulate checks before a
 * run. */
cosa_status cosa_fmu_smoothness_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size);
/* The capability summary of fmu into *cap (zeroed for NULL fmu). */
void cosa_fmu_capability_get(const cosa_fmu *fmu, cosa_fmu_capability *cap);
/* Whether a co-simulation unit of this FMU can run scheme s: its input
 * polynomials have degree s->order (none needed without inputs: nu = 0),
 * within the smoothness cap (cosa_fmu_smoothness_check),
 * and an output correction (MBCorr) without an assumed model (s->model)
 * needs Jacobians -- directional derivatives, or the FMU's state for finite
 * differences through it.  COSA_OK, or COSA_EUNSUPPORTED with the reason in
 * why (one clause, no FMU name; may be NULL); COSA_EINVAL for NULL cap/s. */
cosa_status cosa_fmu_capability_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size);
/* Whether the FMU can take a communication step of h (> 0): with a fixed
 * internal step hf (fixedInternalStepSize), h must be a whole number n >= 1
 * of them (to 1e-9 h), since such an FMU stops on its own grid.  COSA_OK (no
 * fixed step, or a multiple), COSA_ERANGE with the reason in why ("it takes
 * fixed internal steps of HF s ...: a step of H s is not a multiple of it";
 * may be NULL), COSA_EINVAL (NULL cap, h not > 0). */
cosa_status cosa_fmu_step_check(const cosa_fmu_capability *cap, double h, char *why, size_t size);
/* The largest K in 1..kmax for which H / K is a step every FMU of
 * caps[0..n) can take (cosa_fmu_step_check; NULL entries: not FMUs), as a
 * double; 1 if none larger is.  The fine reference's factor (dt / K). */
double cosa_fmu_step_grid(const cosa_fmu_capability *const *caps, size_t n, double H,
                          unsigned kmax);
/* The scheme of a fine reference over fmus[0..n) (NULL entries: not FMUs):
 * "soh", or the highest input degree every FMU with inputs accepts ("foh",
 * "zoh": one holds its inputs, e.g. a sampled controller with clocks). */
const char *cosa_fmu_fine_scheme(cosa_fmu *const *fmus, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* COSA_TD_H */
