/* cosa/core.h -- core layer: status codes, matrix exponential, coupled linear
 * systems, coupling schemes and layouts, eigenvalues.  Includes no other module.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_CORE_H
#define COSA_CORE_H

#include <stddef.h>
#include <stdio.h> /* FILE, for cosa_model_template */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

typedef enum cosa_status {
    COSA_OK = 0,
    COSA_EINVAL,        /* invalid argument: NULL, zero or mismatched dimension */
    COSA_ERANGE,        /* argument out of range (e.g. dt <= 0, order < 0)     */
    COSA_ENONFINITE,    /* a NaN or Inf among the inputs                        */
    COSA_ENOMEM,        /* allocation failed                                    */
    COSA_EALGLOOP,      /* algebraic loop not solvable: I - D L is singular     */
    COSA_ECORRSINGULAR, /* output correction not solvable: I - G_p L singular   */
    COSA_ELAPACK,       /* LAPACK reported a numerical failure                  */
    COSA_ESCHEME,       /* unknown or malformed scheme name                     */
    COSA_EMODEL,        /* unknown model name                                   */
    COSA_EPARAM,        /* unknown model parameter or invalid parameter value   */
    COSA_EUNSTABLEREF,  /* the monolithic reference is unstable                 */
    COSA_EWORKSPACE,    /* workspace too small for this system/scheme           */
    COSA_EUNSUPPORTED,  /* combination not supported (yet)                      */
    COSA_ENOTCONVERGED, /* an iteration (e.g. scaling-and-squaring) overflowed  */
    COSA_EIO,           /* file could not be read or written                    */
    COSA_ESYNTAX,       /* malformed input text (model file)                    */
    COSA_EMODELSHAPE,   /* a scheme's correction model is not shaped like the system */
    COSA_EFMU,          /* an FMU could not be loaded, or one of its calls failed */
    COSA_EITERSINGULAR, /* implicit coupling: the fixed point's I - M is singular */
    COSA_EDISCARD,      /* a unit could not complete a step and said so (an FMU's
                           Discard): its state at the step's start is valid     */
    COSA_ECANCELLED,    /* the caller cancelled the call (cosa_cancel_request)   */
    COSA_ETERMINATED,   /* a unit asked to end the simulation (an FMU's
                           terminateSimulation) at the end of a completed step  */
    COSA_STATUS_COUNT
} cosa_status;

/* One-line, lower-case description of a status; never NULL. */
const char *cosa_strerror(cosa_status status);

/* Library version string, e.g. "0.1.0". */
const char *cosa_version(void);

/* ---- Cancellation (lib/core/cancel.c) ------------------------------------ */

/* A caller-owned cancellation flag for long calls (a map, a limit scan,
 * advise, a simulation; cosa_sweep_spec.cancel, cosa_run_opts.cancel,
 * cosa_case_set_cancel): the call checks it at a coarse grain (per grid
 * point, per evaluated macro step, per macro step of a run) and, once it is
 * set, stops with COSA_ECANCELLED and frees what it had built (caller-owned
 * arrays then hold no result).  Setting it is one atomic store: safe from
 * any thread and from a signal handler.  A flag stays set (allocate a new
 * one for the next call). */
typedef struct cosa_cancel cosa_cancel;

/* A new flag, not set; NULL when out of memory. */
cosa_cancel *cosa_cancel_alloc(void);
void cosa_cancel_free(cosa_cancel *c); /* NULL is a no-op */
/* Set the flag (c NULL: a no-op). */
void cosa_cancel_request(cosa_cancel *c);
/* 1 if the flag is set, else 0 (also for c NULL). */
int cosa_cancel_requested(const cosa_cancel *c);

/* ------------------------------------------------------------------------ */
/* Matrix exponential (lib/expm.c)                                          */
/* ------------------------------------------------------------------------ */

/* Workspace for cosa_expm on matrices of order up to nmax. */
typedef struct cosa_expm_workspace cosa_expm_workspace;

cosa_expm_workspace *cosa_expm_workspace_alloc(size_t nmax);
void cosa_expm_workspace_free(cosa_expm_workspace *w);

/* E = exp(A) for the n x n matrix A (column-major, leading dimensions lda,
 * lde >= n).  Scaling and squaring with Pade approximants of degree
 * 3, 5, 7, 9 or 13 (Higham 2005, SIAM J. Matrix Anal. Appl. 26(4)).
 * With the Al-Mohy & Higham (2009) refinement of the scaling parameter.
 * A and E may not alias.  On a failure E is filled with NaN.
 * Returns COSA_ENONFINITE if A has a NaN/Inf,
 * COSA_ENOTCONVERGED if the result overflows, COSA_EWORKSPACE if n > nmax,
 * COSA_ELAPACK if the Pade denominator is singular. */
cosa_status cosa_expm(size_t n, const double *A, size_t lda, double *E, size_t lde,
                      cosa_expm_workspace *w);

/* ------------------------------------------------------------------------ */
/* Coupled linear system (lib/system.c)                                     */
/* ------------------------------------------------------------------------ */

/* One linear subsystem  x' = A x + B u,  y = C x + D u  (eq 4/5).
 * Matrices column-major with leading dimension equal to their row count:
 * A is nx x nx, B nx x nu, C ny x nx, D ny x nu.  nx, nu or ny may be 0
 * (the corresponding pointers may then be NULL). */
typedef struct cosa_subsystem {
    size_t nx, nu, ny;
    const double *A, *B, *C, *D;
} cosa_subsystem;

/* A power port of a coupled system (energy paper, issue 10): nbond force
 * vectors f_b (dim components each, stacked output indices
 * force[b * dim + c]; outputs of subsystems with feedthrough) act on the
 * receiving subsystem whose velocity output is velocity[c] (dim stacked
 * output indices); an energy correction force is added to its inputs
 * input[c] (dim stacked input indices).  f_b . v has units of power. */
typedef struct cosa_energy_port {
    size_t dim, nbond;
    const size_t *force, *velocity, *input;
} cosa_energy_port;

/* N subsystems stacked block-diagonally (eq 5) with coupling u = L y (eq 4). */
typedef struct cosa_system cosa_system;

/* Create a coupled system from nsub subsystems and the coupling matrix L
 * (nu_total x ny_total, column-major).  Everything is copied.  Validation:
 * dimensions, finite entries, I - D L invertible (COSA_EALGLOOP).
 * On success *out owns a new system; on failure *out is NULL. */
cosa_status cosa_system_create(cosa_system **out, size_t nsub,
                               const cosa_subsystem *subs, const double *L);
void cosa_system_free(cosa_system *sys);

/* Replace the matrices of subsystem i (dimensions must be unchanged).
 * Revalidates finiteness and the algebraic loop.  To change several
 * subsystems at once (an algebraic loop may pass through more than one),
 * store them all with cosa_system_store_subsystem and then call
 * cosa_system_validate once: a system checked half-updated could be
 * rejected (or accepted) wrongly. */
cosa_status cosa_system_set_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub);

/* Replace the coupling matrix (same dimensions); revalidates. */
cosa_status cosa_system_set_coupling(cosa_system *sys, const double *L);

size_t cosa_system_nsub(const cosa_system *sys);
size_t cosa_system_nx(const cosa_system *sys);   /* total states  */
size_t cosa_system_nu(const cosa_system *sys);   /* total inputs  */
size_t cosa_system_ny(const cosa_system *sys);   /* total outputs */
/* Dimensions and offsets (into the stacked x, u, y) of subsystem i. */
cosa_status cosa_system_sub_dims(const cosa_system *sys, size_t i, size_t *nx, size_t *nu,
                                 size_t *ny, size_t *ox, size_t *ou, size_t *oy);
/* Read-only views of the stored matrices (column-major, ld = rows):
 * block-diagonal A (nx x nx), B (nx x nu), C (ny x nx), D (ny x nu), L (nu x ny). */
const double *cosa_system_A(const cosa_system *sys);
const double *cosa_system_B(const cosa_system *sys);
const double *cosa_system_C(const cosa_system *sys);
const double *cosa_system_D(const cosa_system *sys);
const double *cosa_system_L(const cosa_system *sys);

/* Monolithic reference (eq 35): A* = A + B L (I - D L)^{-1} C  (nx x nx, ld nx)
 * and C* = (I - D L)^{-1} C  (ny x nx, ld ny).  Either output may be NULL. */
cosa_status cosa_system_monolithic(const cosa_system *sys, double *Astar, double *Cstar);

/* ------------------------------------------------------------------------ */
/* Coupling schemes (lib/scheme.c)                                          */
/* ------------------------------------------------------------------------ */

/* Correction flags; MBCorr = output | state. */
enum {
    COSA_CORR_NONE = 0,
    COSA_CORR_OUTPUT = 1, /* model-based output correction (eq 14, doc/method.md) */
    COSA_CORR_STATE = 2,  /* state (energy) correction offset du (eq 22)         */
    COSA_CORR_MBCORR = 3
};

typedef enum cosa_exec { COSA_JACOBI = 0, COSA_GAUSS_SEIDEL = 1 } cosa_exec;

#define COSA_ORDER_MAX 8 /* largest extrapolation order accepted */

/* A coupling scheme: extrapolation order p (0 = ZOH, 1 = FOH, 2 = SOH, ...),
 * corrections, state-correction gain alpha, execution sequence, and the
 * model the output correction believes in.
 * For Gauss-Seidel, seq (length nsub, 0-based subsystem indices) gives the
 * sequence of execution; NULL means 0, 1, ..., nsub-1.
 * model (imperfect model knowledge, README): the system whose subsystem
 * matrices A_i, B_i, C_i, D_i the output correction uses for G_p, G_0 (and
 * the time-domain master for its fixed Jacobians) while the true system
 * evolves; it must have the true system's subsystem split; its coupling is
 * not used (the master knows L).  NULL means the true system (perfect
 * knowledge, the MBCorr paper's setting).  Only the output correction uses a
 * model: the state correction and the plain schemes are model-free.
 * The scheme owns neither seq nor model. */
typedef struct cosa_scheme {
    int order;
    unsigned corr;
    double alpha;
    cosa_exec exec;
    const size_t *seq;
    const cosa_system *model;
    /* Iterative coupling (README "Iterative coupling"); all zero: the explicit
     * scheme.  implicit = 1: every macro step is iterated (imp: with Jacobi,
     * gs-imp: with Gauss-Seidel exec), predictor the extrapolation E_p, then
     * `iterations` sweeps (0: to the converged fixed point) relaxed by relax.
     * q_extra = q - p in {0, 1}: inputs read inside a sweep are the degree-q
     * interpolants through the end value and ybar_n ... ybar_{n-q+1}
     * (Gauss-Seidel and implicit schemes; explicit Jacobi has none). */
    int implicit;
    int q_extra;
    unsigned iterations;
    double relax;
} cosa_scheme;

/* Interpolation degree q = order + q_extra of a scheme. */
#define COSA_SCHEME_Q(s) ((s)->order + (s)->q_extra)

/* Parse "zoh", "foh", "soh", "p0".."p8", optionally prefixed "gs:" (Gauss-Seidel),
 * "imp:" (implicit Jacobi) or "gs-imp:" (implicit Gauss-Seidel), then for gs:,
 * imp: and gs-imp: optionally "/Q" with the interpolation degree Q = p or
 * p + 1 (<= 8), and optionally "+mbcorr", "+ecorr" (state correction only)
 * or "+ocorr" (output correction only); case-insensitive.  alpha and relax
 * are set to 1, iterations to 0 (converged).  Returns COSA_ESCHEME for
 * anything else. */
cosa_status cosa_scheme_parse(const char *text, cosa_scheme *out);

/* Canonical name ("ZOH", "FOH+MBCorr", "p3+ecorr", "gs:SOH", "gs:ZOH/1",
 * "imp:FOH", "gs-imp:ZOH/1") into buf. */
void cosa_scheme_name(const cosa_scheme *s, char *buf, size_t size);

/* Validate a scheme (order range, alpha finite, flags, Gauss-Seidel and
 * implicit schemes without corrections (COSA_EUNSUPPORTED), q_extra 0 or 1
 * and only for Gauss-Seidel or implicit schemes, q <= COSA_ORDER_MAX, relax
 * of an implicit scheme finite and nonzero (COSA_ERANGE)) against a system
 * (seq a permutation; model with the same subsystem split, else
 * COSA_EMODELSHAPE). sys may be NULL. */
cosa_status cosa_scheme_check(const cosa_scheme *s, const cosa_system *sys);

/* Information-vector layout (doc/method.md):
 *   z = [ x | ybar_n | ybar_{n-1} | ... | ybar_{n-p} | du ]
 * du is present only when the scheme has a state correction. */
typedef struct cosa_layout {
    size_t nx, ny, nu;  /* sizes of x, one output slot, du            */
    size_t nhist;       /* number of output slots = p + 1             */
    int has_du;         /* 1 if du is part of z                       */
    size_t off_x;       /* = 0                                        */
    size_t off_y;       /* offset of ybar_n; slot j at off_y + j*ny   */
    size_t off_du;      /* offset of du (== dim when !has_du)         */
    size_t dim;         /* length of z                                */
} cosa_layout;

cosa_status cosa_layout_get(const cosa_system *sys, const cosa_scheme *s, cosa_layout *out);

/* NRMSE convention shared by the Phi engine and the time-domain driver
 * (doc/method.md): an output whose reference standard deviation is below this
 * fraction of its RMS is constant and left out of the error. */
#define COSA_NRMSE_STD_RTOL 1e-10 /* relative std below which an output is constant */

/* ------------------------------------------------------------------------ */
/* Interpolation and extrapolation coefficients (lib/core/tables.c)         */
/* ------------------------------------------------------------------------ */

/* The same on p+1 distinct nodes s[0..p] in any spacing (the master's
 * history at the actual times of its samples after an event):
 * lag[j*(p+1)+m] = coefficient of s^m of l_j(s) = prod_{k != j} (s - s_k) /
 * (s_j - s_k), 0 <= p <= COSA_ORDER_MAX. */
void cosa_lagrange_nodes(int p, const double *s, double *lag);

/* ------------------------------------------------------------------------ */
/* Exact discretisation through the Van Loan exponential (lib/core/discretize.c) */
/* ------------------------------------------------------------------------ */

/* For x' = A x + B u with u a polynomial in t/h of degree p over [0, h]:
 *   M = [[hA, hB, 0, ..., 0], [0, 0, I, ..., 0], ..., [0, ..., 0, I], [0, ..., 0]]
 * (order nx + (p+1) nu) has exp(M) = [[A_d, Q_0/0!, Q_1/1!, ..., Q_p/p!], ...]
 * with A_d = e^{Ah} and Q_m = int_0^h e^{A(h-t)} B (t/h)^m dt.  Never A^{-1}. */
typedef struct cosa_vanloan_workspace cosa_vanloan_workspace;

/* Scratch for Van Loan matrices of order up to nmax = max(nx + (p+1) nu). */
cosa_vanloan_workspace *cosa_vanloan_workspace_alloc(size_t nmax);
void cosa_vanloan_workspace_free(cosa_vanloan_workspace *w);

/* The one block builder: A_d (nx x nx, ld ldad) and Q_m, m = 0..p (nx x nu
 * each, ld ldq, block m at Q + m*qstride) of one subsystem.  A (ld lda),
 * B (ld ldb).  COSA_EWORKSPACE if the order exceeds the workspace. */
cosa_status cosa_vanloan(size_t nx, size_t nu, int p, double h, const double *A, size_t lda,
                         const double *B, size_t ldb, double *Ad, size_t ldad, double *Q,
                         size_t ldq, size_t qstride, cosa_vanloan_workspace *w);

/* Discretisation of every subsystem of a coupled system, stacked
 * block-diagonally, with a per-subsystem cache: a subsystem whose A_i, B_i,
 * h and p did not change since the last call is not recomputed (the cache
 * returns bitwise what a recomputation gives). */
typedef struct cosa_disc_workspace cosa_disc_workspace;

/* ------------------------------------------------------------------------ */
/* Spectral radius (lib/eig.c)                                              */
/* ------------------------------------------------------------------------ */

typedef struct cosa_eig_workspace cosa_eig_workspace;

/* Workspace for eigenvalues of matrices of order up to nmax (LAPACK workspace
 * size queried once here). */
cosa_eig_workspace *cosa_eig_workspace_alloc(size_t nmax);
void cosa_eig_workspace_free(cosa_eig_workspace *w);

/* rho = max |eig(M)| of the n x n matrix M (column-major, ld lda).
 * M is overwritten (destroyed).  COSA_ELAPACK if the QR iteration failed. */
cosa_status cosa_spectral_radius(size_t n, double *M, size_t lda, double *rho,
                                 cosa_eig_workspace *w);

/* All eigenvalues (wr, wi of length n); M is destroyed. */
cosa_status cosa_eigenvalues(size_t n, double *M, size_t lda, double *wr, double *wi,
                             cosa_eig_workspace *w);

/* ------------------------------------------------------------------------ */
/* Continuous model of a ZOH-sampled one (lib/core/zoh_log.c)               */
/* ------------------------------------------------------------------------ */

/* The inverse of the zero-order-hold discretisation: A, B with
 * exp(h [[A, B], [0, 0]]) = [[Ad, Bd], [0, I]], i.e. A = log(Ad) / h and
 * B = (sum_k (A h)^k / (k+1)!)^{-1} Bd / h, through the eigen decomposition
 * Ad = V diag(mu) V^{-1} (LAPACK dgeev; complex LU solves, no inverse):
 *   A = V diag(log mu / h) V^{-1},  B = V diag(log mu / (h (mu - 1))) V^{-1} Bd
 * (1/h at mu = 1: an integrator).  Ad n x n, Bd n x nu, A, B the same
 * shapes, column-major.  Refused with COSA_EUNSUPPORTED and one clause in
 * why (size bytes; may be NULL) where the real principal logarithm is not
 * defined or not meaningful: an eigenvalue with |mu| <= COSA_ZOH_LOG_MU_MIN
 * (a one-step lag), on the negative real axis (a mode at the probe step's
 * Nyquist frequency), eigenvectors with reciprocal condition below
 * COSA_ZOH_LOG_RCOND (Ad defective or nearly: a Jordan block), or an
 * imaginary part of A or B above 1e-8 of its largest entry. */
#define COSA_ZOH_LOG_MU_MIN 1e-6
#define COSA_ZOH_LOG_RCOND 1e-10
cosa_status cosa_zoh_log(size_t n, size_t nu, double h, const double *Ad, const double *Bd,
                         double *A, double *B, char *why, size_t size);

/* ------------------------------------------------------------------------ */
/* Numbers as text (lib/core/number.c)                                      */
/* ------------------------------------------------------------------------ */

/* x with the fewest significant digits (<= 17) that read back as x bit for
 * bit, an exponent counting two extra characters ("1000", "1e6", "2.5e-7"),
 * into buf (COSA_NUMBER_MAX bytes); returns buf. */
enum { COSA_NUMBER_MAX = 40 };
char *cosa_number_format(char *buf, double x);

/* ------------------------------------------------------------------------ */
/* The model descriptor (lib/core/model.c, lib/core/param_range.c; the     */
/* built-in models and model files are models/, cosa/models.h)              */
/* ------------------------------------------------------------------------ */

/* The ODE form of a model is a time-domain object (cosa/td.h); models.h only
 * names it, so that the Phi layer's sweeps (which use the linear form) do not
 * depend on the time-domain layer. */
typedef struct cosa_odesys cosa_odesys;

/* A named scalar model parameter.  Initial-state entries are parameters too
 * (kind COSA_PARAM_INITIAL) so that --set works on them. */
typedef enum { COSA_PARAM_MODEL = 0, COSA_PARAM_INITIAL = 1 } cosa_param_kind;

/* The declared range of a parameter: any combination of a lower bound
 * (> or >=), an upper bound (< or <=) and "integer".  A bound is the number
 * lo/hi, or the current value of another parameter of the model when
 * lo_param/hi_param names one (e.g. chain's r <= n).  flags 0: any finite
 * value.  Written as in model files: "> 0", "integer, >= 1, <= n". */
enum {
    COSA_RANGE_GT = 1u,  /* value >  lower bound */
    COSA_RANGE_GE = 2u,  /* value >= lower bound */
    COSA_RANGE_LT = 4u,  /* value <  upper bound */
    COSA_RANGE_LE = 8u,  /* value <= upper bound */
    COSA_RANGE_INT = 16u /* an integer            */
};

typedef struct cosa_range {
    unsigned flags;
    double lo, hi;
    const char *lo_param, *hi_param; /* NULL: the numbers lo, hi */
} cosa_range;

typedef struct cosa_param {
    const char *name;
    double value;       /* default */
    const char *unit;
    const char *doc;
    cosa_param_kind kind;
    cosa_range range;   /* values create() accepts (zero: any finite value) */
} cosa_param;

typedef struct cosa_model cosa_model;

/* How cosa_model_dump writes a model with parameter expressions: the
 * subsystems and connections of a model file in terms of the model's
 * parameter names (the header and the param lines are generated), either
 * fixed text or written by write() for the parameter values par (returns 0,
 * or -1 on a write error).  Parameters named in fixed (NULL-terminated; may
 * be NULL) are structural: the text holds their values, so they are written
 * as comments, not as settable params.  A template is used only if reading
 * it back reproduces the model's system bit for bit. */
typedef struct cosa_model_template {
    const char *text;
    int (*write)(FILE *f, const cosa_model *m, const double *par);
    const char *const *fixed;
} cosa_model_template;

/* A model: a parameterised family of coupled systems, in a linear form, an
 * ODE form, or both.  Parameters are m->params (values passed as par, in
 * that order); callbacks return COSA_EPARAM for parameter values they
 * cannot build.
 *
 * Linear form (create != NULL, cosa_model_is_linear): create() builds a new
 * coupled linear system; update() rewrites an existing system of the same
 * model in place (fast path for sweeps; may touch only the subsystems that
 * depend on the changed parameters; COSA_EINVAL when the structure changed).
 * Phi analyses need this form.
 *
 * ODE form (create_ode != NULL): create_ode() builds the coupled nonlinear
 * system for time-domain co-simulation.  When it is NULL (every linear
 * built-in model and model files), a time-domain run uses
 * cosa_odesys_from_linear of create()'s system instead.
 *
 * initial_state() writes x0 (nx entries) for either form.  The name
 * callbacks are optional (may be NULL) and return NULL past the end.
 * data is the model's private description (NULL if it has none).
 * dump_template (may be NULL) is how cosa_model_dump keeps expressions.
 * destroy (NULL for static models) frees a model made at run time (model
 * files); call it through cosa_model_free. */
struct cosa_model {
    const char *name;
    const char *doc;
    size_t nparam;
    const cosa_param *params;
    double tend;  /* natural horizon [s] for accuracy analyses and simulate */
    /* linear form (both NULL for a nonlinear model) */
    cosa_status (*create)(const cosa_model *m, const double *par, cosa_system **out);
    cosa_status (*update)(const cosa_model *m, const double *par, cosa_system *sys);
    /* ODE form (NULL: cosa_odesys_from_linear of the linear form) */
    cosa_status (*create_ode)(const cosa_model *m, const double *par, cosa_odesys **out);
    cosa_status (*initial_state)(const cosa_model *m, const double *par, double *x0);
    /* optional names of states, inputs, outputs and subsystems (the latter
     * for --sequence of Gauss-Seidel schemes) */
    const char *(*state_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*input_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*output_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*sub_name)(const cosa_model *m, const double *par, size_t k);
    const void *data;
    const cosa_model_template *dump_template;
    void (*destroy)(cosa_model *m);
    /* energy paper (optional, both or neither): the mechanical energy E(x) of
     * the whole system at the stacked state x, and its power port at the
     * parameter values par, whose index arrays go into idx (nidx entries;
     * COSA_ERANGE if that is too small) */
    cosa_status (*energy)(const cosa_model *m, const double *par, const double *x, double *E);
    cosa_status (*energy_port)(const cosa_model *m, const double *par, cosa_energy_port *port,
                               size_t *idx, size_t nidx);
};

/* 1 if m has a linear form (m->create), else 0 (also for NULL). */
int cosa_model_is_linear(const cosa_model *m);

/* Index of a parameter by name, or -1. */
int cosa_model_param_index(const cosa_model *m, const char *name);

/* Copy the defaults into par (m->nparam entries). */
void cosa_model_defaults(const cosa_model *m, double *par);

/* Set parameter `name` to value in par; COSA_EPARAM if unknown,
 * COSA_ENONFINITE if value is not finite. */
cosa_status cosa_model_set(const cosa_model *m, double *par, const char *name, double value);

/* Check value for parameter k of m against its declared range.  Bounds
 * given by other parameters are read from par; with par NULL they are
 * skipped (only the numeric rules are checked, e.g. for a --set value before
 * the other parameters are known).  COSA_OK, or COSA_EPARAM with one line in
 * msg (if size > 0) that names the parameter and the rule, e.g.
 * "m1 must be > 0", "r must be an integer in 1..n (n = 5)";
 * COSA_ENONFINITE for NaN/inf, COSA_EINVAL for NULL m or k out of range. */
cosa_status cosa_param_check(const cosa_model *m, size_t k, const double *par, double value,
                             char *msg, size_t size);

/* Check every parameter in par (m->nparam values) against its range (as
 * cosa_param_check with par); the first violation's index goes to *culprit
 * (may be NULL) and its message to msg. */
cosa_status cosa_model_check(const cosa_model *m, const double *par, size_t *culprit, char *msg,
                             size_t size);

/* Free a model made at run time through its destroy slot; NULL and static
 * models (destroy == NULL, e.g. the built-in ones) are ignored.  Systems
 * created from the model stay valid. */
void cosa_model_free(cosa_model *m);

#ifdef __cplusplus
}
#endif
#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/core.h"
#endif
#endif /* COSA_CORE_H */
