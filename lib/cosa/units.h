/* cosa/units.h -- time-domain units: nonlinear subsystems, integrators, the unit type,
 * events, linearity, black-box identification, unit sets and their coupling.
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/td.h>
 * (the whole time-domain layer) or this file. */
#ifndef COSA_UNITS_H
#define COSA_UNITS_H

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
/* Units: subsystems, integrators, the unit type                            */
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
void *cosa_unit_impl(const cosa_unit *u);

void cosa_unit_input_at(const cosa_unit *u, double tau, double *v);
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

/* ---- Events (lib/td/unit_event.c; FMI 3.0 event mode, README "Events") ----
 * A unit with events (an FMI 3.0 FMU with hasEventMode, events on) may end
 * a step early at an event, or signal an event at its end; the master then
 * makes that time a communication point and runs Event Mode on it.
 * cosa_unit_do_step never ends early: a unit with events handles them
 * inside such a step itself. */

/* Snapshots (as fmi3GetFMUState / fmi3SetFMUState / fmi3FreeFMUState): the
 * unit's time, state, input polynomial and its type's own state.  save
 * allocates *snap when it is NULL and overwrites it otherwise (no allocation
 * in a stepping loop); restore puts the unit back exactly (a step repeated
 * after a restore gives bitwise the same result).  COSA_EUNSUPPORTED if the
 * type lacks COSA_UNIT_CAN_SAVE_STATE. */
typedef struct cosa_unit_snapshot cosa_unit_snapshot;

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

/* ---- Black-box identification (lib/td/identify.c; doc/black-box.md) -----
 * A linear input/output model of a unit around its operating point from its
 * behaviour alone -- set inputs, step, read outputs, and the unit's
 * snapshots where it has them (else cosa_unit_set_state back to the
 * operating point: for an FMU a fresh instance) -- by pulse responses
 * (Markov parameters) at a probe step h, a block Hankel matrix, its SVD and
 * a Ho-Kalman (ERA) realisation:
 *   x_{k+1} = Ad x_k + Bd du_k,  dy_k = C x_k + D du_k   (du held over a step),
 * du, dy the deviations from the operating point's free response; the
 * outputs after step k (input du_k still set) are C x_{k+1} + D du_k, as a
 * co-simulation reads them. */
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
/* The relative residual below which x0 explains the free response. */
#define COSA_IDENT_X0_RESID 1e-6

typedef struct cosa_ident {
    size_t n, nu, ny;  /* order found (0: static), inputs, outputs            */
    double h;          /* probe step                                          */
    double *Ad, *Bd, *C, *D; /* n x n, n x nu, ny x n, ny x nu, column-major  */
    double *x0;        /* n: the state that best explains the free response
                          (least squares), 0 if it does not                   */
    double x0_resid;   /* relative residual of that fit (1: none explained)   */
    int y_offset;      /* 1: x0 explains the free response only around
                          constant outputs (an affine unit): the state
                          relative to that equilibrium                        */
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
    int step_outputs;  /* 1: the unit updates its outputs only in its steps
                          (setting an input does not move them, unlike the
                          model's D): identified in the held reading          */
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
/* Unit sets and their coupling                                             */
/* ======================================================================== */

/* ---- Coupling variables -------------------------------------------------- */
/* (After the variable-order paper; issue 11.) */

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
/* Coupling variables of the set (copied; ctx borrowed; NULL removes them):
 * then the algebraic loop solves y = g(t, x, S phi(t, y)) and the CVODE
 * reference integrates x' = f(t, x, S phi(t, y)); the master (MBCorr
 * schemes, u = L ybar) does not take such a set (COSA_EUNSUPPORTED), the
 * variable-order engine (cosa_vo_run) does.  COSA_EINVAL for nc = 0 or a
 * missing phi / S, COSA_ENONFINITE for a non-finite S. */
cosa_status cosa_unitset_set_coupling(cosa_unitset *set, const cosa_coupling *c);
size_t cosa_unitset_count(const cosa_unitset *set);
cosa_unit *cosa_unitset_unit(const cosa_unitset *set, size_t i); /* NULL if out of range */
/* Names of the units (e.g. the model's subsystems; nunits strings, copied;
 * NULL removes them): what run results and failure reasons call the units
 * (cosa_run_result).  COSA_EINVAL for a NULL set or a NULL name. */
cosa_status cosa_unitset_set_names(cosa_unitset *set, const char *const *names);
/* The name of unit i, or NULL (no names, i out of range). */
const char *cosa_unitset_unit_name(const cosa_unitset *set, size_t i);
size_t cosa_unitset_nx(const cosa_unitset *set);
size_t cosa_unitset_nu(const cosa_unitset *set);
size_t cosa_unitset_ny(const cosa_unitset *set);

/* The iteration limit of cosa_unitset_loop_solve. */
#define COSA_UNITSET_LOOP_MAXIT 50

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

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/units.h"
#endif
#endif /* COSA_UNITS_H */
