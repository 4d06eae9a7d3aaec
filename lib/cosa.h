/* cosa.h -- public API of libcosa (co-simulation analysis).
 *
 * Conventions (see README and ../shared/METHOD.md):
 *  - All matrices are dense, column-major, with an explicit leading dimension
 *    where the caller owns the storage.  Sizes are size_t.
 *  - Every entry point validates its arguments and returns a cosa_status;
 *    the library never prints, exits or aborts.  cosa_strerror() turns a
 *    status into a message.
 *  - Objects come in alloc/free pairs; every *_free accepts NULL.
 *  - Compute calls take a caller-owned workspace as their last argument and
 *    do not allocate.
 *  - Equation numbers "eq N" refer to the MBCorr paper
 *    (papers/model-based-corrector-mbcorr.txt).
 */
#ifndef COSA_H
#define COSA_H

#include <stddef.h>

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
    COSA_STATUS_COUNT
} cosa_status;

/* One-line, lower-case description of a status; never NULL. */
const char *cosa_strerror(cosa_status status);

/* Library version string, e.g. "0.1.0". */
const char *cosa_version(void);

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
 * Revalidates finiteness and the algebraic loop.  Used by sweeps. */
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
cosa_status cosa_system_reference(const cosa_system *sys, double *Astar, double *Cstar);

/* ------------------------------------------------------------------------ */
/* Coupling schemes (lib/scheme.c)                                          */
/* ------------------------------------------------------------------------ */

/* Correction flags; MBCorr = output | state. */
enum {
    COSA_CORR_NONE = 0,
    COSA_CORR_OUTPUT = 1, /* model-based output correction (eq 14, METHOD.md)   */
    COSA_CORR_STATE = 2,  /* state (energy) correction offset du (eq 22)         */
    COSA_CORR_MBCORR = 3
};

typedef enum cosa_exec { COSA_JACOBI = 0, COSA_GAUSS_SEIDEL = 1 } cosa_exec;

#define COSA_ORDER_MAX 8 /* largest extrapolation order accepted */

/* A coupling scheme: extrapolation order p (0 = ZOH, 1 = FOH, 2 = SOH, ...),
 * corrections, state-correction gain alpha, execution order.
 * For Gauss-Seidel, seq (length nsub, 0-based subsystem indices) gives the
 * order of execution; NULL means 0, 1, ..., nsub-1.  The scheme does not own seq. */
typedef struct cosa_scheme {
    int order;
    unsigned corr;
    double alpha;
    cosa_exec exec;
    const size_t *seq;
} cosa_scheme;

/* Parse "zoh", "foh", "soh", "p0".."p8", optionally prefixed "gs:" (Gauss-Seidel)
 * and followed by "+mbcorr", "+ecorr" (state correction only) or "+ocorr"
 * (output correction only); case-insensitive.  alpha is set to 1.
 * Returns COSA_ESCHEME for anything else. */
cosa_status cosa_scheme_parse(const char *text, cosa_scheme *out);

/* Canonical name ("ZOH", "FOH+MBCorr", "p3+ecorr", "gs:SOH") into buf. */
void cosa_scheme_name(const cosa_scheme *s, char *buf, size_t size);

/* Validate a scheme (order range, alpha finite, flags, Gauss-Seidel without
 * corrections) against a system (seq a permutation). sys may be NULL. */
cosa_status cosa_scheme_check(const cosa_scheme *s, const cosa_system *sys);

/* Information-vector layout (METHOD.md):
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

/* ------------------------------------------------------------------------ */
/* Propagation matrices (lib/phi.c)                                         */
/* ------------------------------------------------------------------------ */

/* Workspace for building Phi and Phi* of a given system for schemes up to
 * order pmax.  Holds per-subsystem discretisations, so a subsystem whose
 * matrices and dt did not change since the last build is not recomputed. */
typedef struct cosa_phi_workspace cosa_phi_workspace;

cosa_phi_workspace *cosa_phi_workspace_alloc(const cosa_system *sys, int pmax);
void cosa_phi_workspace_free(cosa_phi_workspace *w);

/* Phi (layout.dim x layout.dim, column-major, leading dimension ld >= dim) of
 * scheme s for macro step dt > 0: z_{n+1} = Phi z_n.
 * Errors: COSA_ERANGE (dt), COSA_ECORRSINGULAR, COSA_EWORKSPACE, ... */
cosa_status cosa_phi_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                           double *Phi, size_t ld, cosa_phi_workspace *w);

/* Phi* (eq 37 on the layout of s): exact monolithic reference step. */
cosa_status cosa_phi_ref_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                               double *Phi, size_t ld, cosa_phi_workspace *w);

/* Initial information vector (METHOD.md): the co-simulation starts on the
 * reference trajectory at t = p dt: x = exp(A* p dt) x0,
 * ybar_{-j} = C* exp(A* (p-j) dt) x0 (j = 0..p), du = 0.  z0 has layout.dim entries. */
cosa_status cosa_z0_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double *z0, cosa_phi_workspace *w);

/* Reference basis T (layout.dim x nx, column-major, leading dimension
 * ldt >= dim): the information vector of the reference at state q is T q,
 *   T = [ A*_d^p ; C* A*_d^p ; C* A*_d^(p-1) ; ... ; C* ; 0 (du rows) ],
 * A*_d = exp(A* dt), so z0 = T x0 (cosa_z0_build), z*_n = T (A*_d)^n x0 and
 * Phi* T = T A*_d (up to rounding).  A*_d is the leading nx x nx block of
 * Phi* (cosa_phi_ref_build).  Errors as cosa_phi_ref_build, COSA_EINVAL for
 * T NULL or ldt < dim, COSA_ENOTCONVERGED if T overflows. */
cosa_status cosa_reference_basis(const cosa_system *sys, const cosa_scheme *s, double dt,
                                 double *T, size_t ldt, cosa_phi_workspace *w);

/* Discrete-time pieces of subsystem-stacked system for order p, step dt:
 * Ad = exp(A dt) (nx x nx) and Q_m = int_0^dt exp(A(dt-t)) B (t/dt)^m dt
 * for m = 0..p, stored consecutively in Q (p+1 blocks of nx x nu, ld nx).
 * Block-diagonal per subsystem; computed through the Van Loan exponential. */
cosa_status cosa_discretize(const cosa_system *sys, int p, double dt, double *Ad, double *Q,
                            cosa_phi_workspace *w);

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
/* Independent time-domain co-simulation of linear schemes (lib/cosim_linear.c) */
/* ------------------------------------------------------------------------ */

/* Runs the scheme as a master algorithm would: each subsystem is advanced
 * exactly over the macro step with its polynomial input, outputs are
 * exchanged, corrected (output correction) and the offset du updated
 * (state correction), as in section 2.3 of the MBCorr paper.  It does not use
 * the Phi assembly and serves as its cross-check.
 * z0: initial information vector (layout of s); traj: (nsteps+1) x dim,
 * column k = z_k (column-major, ld = dim).  The workspace is internal. */
cosa_status cosa_cosim_linear_run(const cosa_system *sys, const cosa_scheme *s, double dt,
                                  const double *z0, size_t nsteps, double *traj);

/* ------------------------------------------------------------------------ */
/* Accuracy (lib/nrmse.c)                                                   */
/* ------------------------------------------------------------------------ */

/* Error indicators of a co-simulation against its monolithic reference
 * (eqs 31-33, METHOD.md "Conventions for accuracy").  Only the slot ybar_n of
 * the information vector (rows lay->off_y .. lay->off_y + lay->ny - 1, "R")
 * enters.  With z*_n = Phi*^n z0 and z_n = Phi^n z0:
 *   e_global     eps_n = R (z*_n - z_n),             n = 1..N      (eq 32)
 *   e_local      eps_n = R (Phi* - Phi) z_{n-1},     n = 1..N      (eq 31)
 *   e_local_ref  eps_n = R (Phi* - Phi) z*_{n-1},    n = 1..N
 * Per output component k: RMS_n(eps_{k,n}) / std_n(y*_{k,n}), where y*_n =
 * R z*_n, n = 1..N and std is the population standard deviation (ddof = 0);
 * then the RMS over the components (eq 33).
 *
 * Constant components: a component with std_k <= COSA_NRMSE_STD_RTOL * rms_k
 * (rms_k = sqrt(mean_k^2 + std_k^2), the RMS of the reference output itself;
 * this includes an identically zero output) is left out of the RMS over
 * components, because its normalisation would be rounding noise.  ncomp
 * counts the components used.  If no component is left: COSA_ERANGE.
 *
 * Stability and overflow:
 *  - rho is the spectral radius of Phi, computed by the caller.  If
 *    rho > 1 + COSA_RHO_TOL, e_global and e_local (which involve the
 *    co-simulation trajectory) are +inf; e_local_ref is still computed.
 *    Pass rho = COSA_RHO_UNKNOWN (any negative value) to skip this rule and
 *    get finite-horizon values.  rho = +inf is allowed (unstable), NaN is not.
 *  - Independently of rho, an indicator whose sums overflow or become NaN
 *    is +inf.
 *  - If the statistics of the reference output overflow (Phi* unstable),
 *    the call fails with COSA_EUNSTABLEREF.
 * On COSA_OK each indicator is finite and >= 0, or +inf; never NaN.  On any
 * other status all three are NaN and ncomp is 0 (if out is not NULL).
 */
#define COSA_RHO_TOL 1e-12        /* rho <= 1 + COSA_RHO_TOL counts as stable  */
#define COSA_RHO_UNKNOWN (-1.0)   /* rho argument: stability not known          */
#define COSA_NRMSE_STD_RTOL 1e-10 /* relative std below which an output is constant */

typedef struct cosa_errors {
    double e_global;    /* global NRMSE e_g (eq 32, 33)                  */
    double e_local;     /* local NRMSE e_l on the co-simulation trajectory (eq 31) */
    double e_local_ref; /* local NRMSE on the reference trajectory       */
    size_t ncomp;       /* output components that entered the RMS         */
} cosa_errors;

/* Optional per-component detail (arrays of lay->ny entries, owned by the
 * caller; any pointer may be NULL).  Filled whenever the arguments are valid,
 * even if the status is then COSA_ERANGE (all components constant, e.g.
 * N = 1) or COSA_EUNSTABLEREF.  Component k's NRMSE is
 * sqrt(ss_k / (N var_k)). */
typedef struct cosa_nrmse_sums {
    double *mean;         /* mean of y*_{k,n} over n = 1..N                  */
    double *var;          /* population variance of y*_{k,n} over n = 1..N   */
    double *ss_global;    /* sum_n eps_{k,n}^2 of e_global (+inf if unstable) */
    double *ss_local;     /* the same for e_local (+inf if unstable)          */
    double *ss_local_ref; /* the same for e_local_ref                         */
} cosa_nrmse_sums;

/* Workspace for cosa_nrmse / cosa_nrmse_direct on systems with dim <= dim_max
 * (22 dim_max^2 + 28 dim_max doubles). */
typedef struct cosa_nrmse_workspace cosa_nrmse_workspace;

cosa_nrmse_workspace *cosa_nrmse_workspace_alloc(size_t dim_max);
void cosa_nrmse_workspace_free(cosa_nrmse_workspace *w);

/* The three indicators for N >= 1 macro steps, in O(dim^3 log2 N) time:
 * sums over the trajectory are formed by doubling on matrix powers, with the
 * error propagated by its own recurrence (no differences of large sums) and
 * the reference variance combined from centred partial sums (Chan, Golub &
 * LeVeque), so neither suffers catastrophic cancellation.
 * Phi and Phistar: dim x dim, column-major, leading dimension ld >= dim;
 * z0: dim entries; dim must equal lay->dim; out required, sums optional
 * (NULL).  Does not allocate.
 * Errors: COSA_EINVAL (NULL, dim/layout mismatch, ld < dim, ny = 0),
 * COSA_ERANGE (N = 0, or every output component constant), COSA_ENONFINITE
 * (NaN/Inf in Phi, Phistar or z0, rho NaN), COSA_EWORKSPACE (dim > dim_max),
 * COSA_EUNSTABLEREF (reference statistics overflow). */
cosa_status cosa_nrmse(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                       const cosa_layout *lay, size_t nx, const double *Adstar, size_t lda,
                       const double *T, size_t ldt, const double *x0, size_t N, double rho,
                       cosa_errors *out, const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w);

/* Same indicators by direct stepping: O(N dim^2), two passes over the
 * trajectories (mean first, then centred sums with the corrected two-pass
 * formula).  Errors are formed literally as differences of the two
 * trajectories, so it is an independent cross-check of cosa_nrmse; it cannot
 * resolve errors below ~ sqrt(N) * DBL_EPSILON * |z| (cosa_nrmse can).
 * Faster than cosa_nrmse only for N below about 20 dim.
 * Same arguments, rules and status codes as cosa_nrmse. */
cosa_status cosa_nrmse_direct(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                              const cosa_layout *lay, size_t nx, const double *Adstar,
                              size_t lda, const double *T, size_t ldt, const double *x0,
                              size_t N, double rho, cosa_errors *out,
                              const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w);

/* ---- Convergence order and macro-step limits (lib/convergence.c) -------- */

/* Least-squares fit of log(err) = order * log(dt) + log(c) over the points
 * with finite dt > 0 and finite err > 0 (others are skipped).  Outputs:
 * order, log10c = log10(c) (either may be NULL), nused = points used (may be
 * NULL).  COSA_EINVAL for NULL arrays, COSA_ERANGE if fewer than two usable
 * points with distinct dt. */
cosa_status cosa_order_fit(size_t n, const double *dt, const double *err, double *order,
                           double *log10c, size_t *nused);

#define COSA_ORDER_EMAX 0.1      /* default: errors above this are pre-asymptotic */
#define COSA_ORDER_SLOPE_TOL 0.3 /* default: spread allowed among local slopes    */

/* Asymptotic range of a convergence study.  dt must be strictly increasing.
 * Rule: among runs of consecutive points i..j (j > i) with finite
 * 0 < err <= emax, whose local slopes
 *   s_k = log(err_{k+1}/err_k) / log(dt_{k+1}/dt_k),  k = i..j-1,
 * satisfy max s - min s <= slope_tol, take the longest; ties go to the run
 * at smaller dt.  emax <= 0 / slope_tol <= 0 select the defaults above.
 * Result: the index range [*first, *last]; feed it to cosa_order_fit
 * (dt + first, err + first, last - first + 1).
 * COSA_EINVAL (NULL), COSA_ERANGE (dt not strictly increasing, or no run of
 * two points). */
cosa_status cosa_order_range(size_t n, const double *dt, const double *err, double emax,
                             double slope_tol, size_t *first, size_t *last);

/* Metric of a macro step for cosa_limit_find, e.g. rho(Phi(dt)) or e_g(dt).
 * Return NaN on failure; NaN counts as "not good". */
typedef double (*cosa_metric_fn)(double dt, void *user_data);

/* A change of f(dt) <= threshold ("good") between two neighbouring grid
 * points, refined by bisection in log(dt) until dt_hi / dt_lo - 1 <= 1e-6. */
typedef struct cosa_crossing {
    double dt;     /* the good end of the refined bracket               */
    double dt_lo, dt_hi;
    int enters;    /* 1: good above dt (enters the good region scanning
                      upward); 0: good below dt (leaves it)              */
} cosa_crossing;

typedef struct cosa_limit {
    double dt_max;    /* first loss scanning upward from dt_min, refined (the
                         good end); dt_min if dt_min itself is not good;
                         the upper end of the range if never lost        */
    int never_lost;   /* 1 if good on the whole grid                      */
    int good_at_min;  /* 1 if dt_min is good                              */
    int monotone;     /* 1 if at most one crossing                        */
    size_t ncross;    /* crossings found (all counted, see cross_cap)     */
    size_t nevals;    /* calls of f                                       */
} cosa_limit;

#define COSA_LIMIT_PER_DECADE 20 /* default grid density */

/* Scan f upward on a log grid from dt_min to dt_max (both included,
 * per_decade points per decade, 0 = COSA_LIMIT_PER_DECADE), find every
 * change of "good" (f(dt) <= threshold and not NaN) between neighbouring
 * grid points and refine it.  The first cross_cap crossings, in increasing
 * dt, are stored in cross (may be NULL if cross_cap = 0).  Crossings closer
 * together than one grid cell can be missed.  For stability use
 * f = rho and threshold = 1 + COSA_RHO_TOL; for accuracy f = e_g, threshold
 * = tol.  COSA_EINVAL (NULL f/out), COSA_ERANGE (not 0 < dt_min < dt_max
 * finite, threshold NaN). */
cosa_status cosa_limit_find(cosa_metric_fn f, void *user_data, double threshold,
                            double dt_min, double dt_max, unsigned per_decade,
                            cosa_crossing *cross, size_t cross_cap, cosa_limit *out);

/* ------------------------------------------------------------------------ */
/* One analysis point (lib/evaluate.c)                                      */
/* ------------------------------------------------------------------------ */

/* What cosa_evaluate computes. */
enum {
    COSA_WANT_RHO = 1,     /* rho(Phi)                                   */
    COSA_WANT_ERRORS = 2,  /* e_global, e_local, e_local_ref (eqs 31-33); implies RHO_REF */
    COSA_WANT_RHO_REF = 4  /* rho(Phi*)                                  */
};

typedef struct cosa_point_result {
    double rho;         /* spectral radius of Phi (NaN if not wanted)        */
    double rho_ref;     /* spectral radius of Phi* (= rho(exp(A* dt))), NaN if not wanted */
    cosa_errors err;    /* NaN if not wanted                                  */
    size_t nsteps;      /* N = round(tend / dt) macro steps of the horizon    */
} cosa_point_result;

/* Workspace for cosa_evaluate: Phi/Phi* builders, eigenvalue and NRMSE
 * workspaces and buffers, for one system and schemes up to order pmax. */
typedef struct cosa_eval_workspace cosa_eval_workspace;

cosa_eval_workspace *cosa_eval_workspace_alloc(const cosa_system *sys, int pmax);
void cosa_eval_workspace_free(cosa_eval_workspace *w);

/* Evaluate scheme s at macro step dt: rho(Phi), rho(Phi*) and, if wanted,
 * the NRMSE indicators over the horizon tend (N = round(tend/dt) >= 1 steps)
 * from the initial state x0 (z0 by METHOD.md's convention).
 * Whenever rho_ref is computed and rho_ref > 1 + COSA_RHO_TOL, the function
 * returns COSA_EUNSTABLEREF (rho and rho_ref are still filled).
 * Errors of an unstable scheme are +inf (see cosa_nrmse).
 * COSA_ERANGE if tend / dt rounds to 0 steps or tend is not positive. */
cosa_status cosa_evaluate(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double tend, unsigned want,
                          cosa_point_result *out, cosa_eval_workspace *w);

/* ---- Macro-step limits of a scheme (lib/limits.c) ----------------------- */

/* What "good" means for cosa_dt_limit. */
typedef enum cosa_criterion {
    COSA_CRIT_STABLE = 0,  /* rho(Phi) <= 1 + COSA_RHO_TOL            */
    COSA_CRIT_ACCURATE,    /* e_global <= tol                          */
    COSA_CRIT_LOCAL        /* e_local <= tol (co-simulation trajectory) */
} cosa_criterion;

/* Largest stable / accurate macro step of scheme s for sys between dt_min and
 * dt_max: cosa_limit_find on rho(dt) or e(dt) from cosa_evaluate (x0 and tend
 * are used by the accuracy criteria only).  A point where the evaluation
 * fails counts as "not good"; if the monolithic reference is unstable at any
 * evaluated dt the result is COSA_EUNSTABLEREF.  Arguments as in
 * cosa_limit_find; w must hold schemes of order s->order. */
cosa_status cosa_dt_limit(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                          double tend, cosa_criterion crit, double tol, double dt_min,
                          double dt_max, unsigned per_decade, cosa_crossing *cross,
                          size_t cross_cap, cosa_limit *out, cosa_eval_workspace *w);

/* ------------------------------------------------------------------------ */
/* Models (models/)                                                         */
/* ------------------------------------------------------------------------ */

/* A named scalar model parameter.  Initial-state entries are parameters too
 * (kind COSA_PARAM_INITIAL) so that --set works on them. */
typedef enum { COSA_PARAM_MODEL = 0, COSA_PARAM_INITIAL = 1 } cosa_param_kind;

typedef struct cosa_param {
    const char *name;
    double value;       /* default */
    const char *unit;
    const char *doc;
    cosa_param_kind kind;
} cosa_param;

typedef struct cosa_model cosa_model;

/* A model: a parameterised family of coupled linear systems.
 * create() builds a new system from the parameter values (in the order of
 * params); update() rewrites an existing system of the same model in place
 * (fast path for sweeps; may touch only the subsystems that depend on the
 * changed parameters); initial_state() writes x0 (nx entries).
 * data is the model's private description (NULL for built-in models). */
struct cosa_model {
    const char *name;
    const char *doc;
    size_t nparam;
    const cosa_param *params;
    double tend;  /* natural horizon [s] for accuracy analyses */
    cosa_status (*create)(const cosa_model *m, const double *par, cosa_system **out);
    cosa_status (*update)(const cosa_model *m, const double *par, cosa_system *sys);
    cosa_status (*initial_state)(const cosa_model *m, const double *par, double *x0);
    /* optional names for states, inputs, outputs, subsystems (may be NULL) */
    const char *(*state_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*input_name)(const cosa_model *m, const double *par, size_t k);
    const char *(*output_name)(const cosa_model *m, const double *par, size_t k);
    const void *data;
    /* optional name of subsystem k (for --order of Gauss-Seidel schemes) */
    const char *(*sub_name)(const cosa_model *m, const double *par, size_t k);
};

/* Registry of built-in models. */
size_t cosa_model_count(void);
const cosa_model *cosa_model_at(size_t i);
const cosa_model *cosa_model_find(const char *name); /* NULL if unknown */

/* Index of a parameter by name, or -1. */
int cosa_model_param_index(const cosa_model *m, const char *name);

/* Copy the defaults into par (m->nparam entries). */
void cosa_model_defaults(const cosa_model *m, double *par);

/* Set parameter `name` to value in par; COSA_EPARAM if unknown,
 * COSA_ENONFINITE if value is not finite. */
cosa_status cosa_model_set(const cosa_model *m, double *par, const char *name, double value);

/* ------------------------------------------------------------------------ */
/* Model files (models/modelfile.c)                                         */
/* ------------------------------------------------------------------------ */

#include <stdio.h> /* FILE, for cosa_model_dump */

/* Read a model file (format: README, "Model files") into a new model whose
 * create/update/initial_state/names work like a built-in model's; matrix
 * entries are expressions of the file's parameters, compiled once.
 * On failure *out is NULL and err (if errsize > 0) holds one line
 * "path:line: message" (or "path: message" when the file cannot be read).
 * Status: COSA_EIO (cannot read), COSA_ESYNTAX (malformed text, missing or
 * misshaped blocks, unknown subsystem/input/output names, an input with no
 * or two sources), COSA_EPARAM (unknown parameter in an expression),
 * COSA_ENONFINITE (a number, or an entry at the default parameter values,
 * is not finite), COSA_ERANGE (tend <= 0), COSA_ENOMEM.
 * Free the model with cosa_model_file_free. */
cosa_status cosa_model_file_load(const char *path, cosa_model **out, char *err, size_t errsize);

/* The same for text in memory (len bytes, need not be NUL-terminated);
 * name_for_errors (may be NULL) prefixes messages and names the model when
 * the text has no "model" line. */
cosa_status cosa_model_file_parse(const char *text, size_t len, const char *name_for_errors,
                                  cosa_model **out, char *err, size_t errsize);

/* Free a model from cosa_model_file_load/parse; NULL and built-in models
 * are ignored.  Systems created from it stay valid. */
void cosa_model_file_free(cosa_model *m);

/* Write model m at parameter values par (m->nparam entries; NULL = the
 * defaults) as a model file to f.  Reading the file back gives bit-identical
 * A, B, C, D, L and x0 (hence the same Phi to the last bit); this is checked
 * before anything is written.  File models keep their expressions; built-in
 * models keep parameter expressions where cosa knows them (twomass,
 * twomass-fd, rotational, chain with n and r fixed), otherwise entries are
 * numbers and only initial-state parameters stay settable.
 * Status: COSA_ENONFINITE (a parameter or x0 entry is not finite),
 * m->create's status for invalid par, COSA_EUNSUPPORTED if the coupling is
 * not a 0/1 selection, COSA_EIO on a write error. */
cosa_status cosa_model_dump(FILE *f, const cosa_model *m, const double *par);

#ifdef __cplusplus
}
#endif
#endif /* COSA_H */
