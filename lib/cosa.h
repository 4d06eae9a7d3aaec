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
#include <stdio.h> /* FILE, for cosa_model_dump */

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
 * Revalidates finiteness and the algebraic loop.  To change several
 * subsystems at once (an algebraic loop may pass through more than one),
 * store them all with cosa_system_store_subsystem and then call
 * cosa_system_validate once: a system checked half-updated could be
 * rejected (or accepted) wrongly. */
cosa_status cosa_system_set_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub);

/* Copy subsystem i's matrices (checks dimensions and finiteness) without
 * checking the algebraic loop; the system is invalid until validated. */
cosa_status cosa_system_store_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub);

/* Check (I - D L) after stores: COSA_OK or COSA_EALGLOOP.  Cheap when no
 * feedthrough block changed since the last check. */
cosa_status cosa_system_validate(cosa_system *sys);

/* 1 if the system is valid (stored matrices checked, I - D L solvable). */
int cosa_system_is_valid(const cosa_system *sys);

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
 * enters.  The reference trajectory is given in state form: q_n = A*_d^n x0
 * (A*_d: nx x nx) and z*_n = T q_n (T: dim x nx, cosa_reference_basis), with
 * Phi* T = T A*_d; the co-simulation starts on it: z_n = Phi^n T x0.  Then
 *   e_global     eps_n = R (z*_n - z_n),             n = 1..N      (eq 32)
 *   e_local      eps_n = R (Phi* - Phi) z_{n-1},     n = 1..N      (eq 31)
 *   e_local_ref  eps_n = R (Phi* - Phi) z*_{n-1},    n = 1..N
 * where (Phi* - Phi) T is taken as T A*_d - Phi T (equal in exact arithmetic;
 * the two differ by the rounding of the given matrices).
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
 *  - If the statistics of the reference output overflow (A*_d unstable),
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
 * and nx <= dim_max (19 dim_max^2 + 22 dim_max doubles). */
typedef struct cosa_nrmse_workspace cosa_nrmse_workspace;

cosa_nrmse_workspace *cosa_nrmse_workspace_alloc(size_t dim_max);
void cosa_nrmse_workspace_free(cosa_nrmse_workspace *w);

/* The three indicators for N >= 1 macro steps, in O(dim^3 log2 N) time.
 * Arguments: Phi, Phistar (dim x dim, leading dimension ld >= dim); the
 * reference in state form: nx >= 1 states, Adstar = A*_d (nx x nx, lda >= nx;
 * the leading block of Phi*), T (dim x nx, ldt >= dim) and x0 (nx entries);
 * dim must equal lay->dim; out required, sums optional (NULL).  Does not
 * allocate.
 * Method: the small matrix K = T A*_d - Phi T (local error of one step from
 * the reference state, ~ (omega dt)^(p+1)) is formed once with compensated
 * dot products, so it is accurate although its entries are far smaller than
 * the products they come from; the error then obeys e_{n+1} = Phi e_n +
 * K q_n and every sum is a quadratic form of [q_n; e_n], formed by doubling
 * on matrix powers with centred block statistics (Chan, Golub & LeVeque).
 * No large quantity is subtracted from another: for the twomass model the
 * componentwise cancellation |K||q| / |K q| is <= 2 (it is up to 3e16 for
 * (Phi* - Phi) z*, which is why forming sums of (Phi* - Phi) z from Gram
 * matrices of z fails), and the indicators agree with a long-double
 * stepping of the same matrices to <= 1e-12 relative (values >= 1e-14).
 * What limits their meaning is the rounding of the given matrices
 * themselves: an eps relative perturbation of Phi, T or A*_d changes
 * e_local by up to eps |Phi* - Phi| |z| / |(Phi* - Phi) z| relative
 * (twomass p4, dt = 1e-5: 5e-5) and e_global by up to ~N eps absolute
 * (twomass: e_global ~ 1.2e-12 at dt = 1e-6 for every p >= 2 is this floor).
 * Errors: COSA_EINVAL (NULL, dim/layout mismatch, ld/ldt < dim, lda < nx,
 * nx = 0, ny = 0), COSA_ERANGE (N = 0, or every output component constant),
 * COSA_ENONFINITE (NaN/Inf in Phi, Phistar, Adstar, T or x0, rho NaN),
 * COSA_EWORKSPACE (dim or nx > dim_max), COSA_EUNSTABLEREF (reference
 * statistics overflow). */
cosa_status cosa_nrmse(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                       const cosa_layout *lay, size_t nx, const double *Adstar, size_t lda,
                       const double *T, size_t ldt, const double *x0, size_t N, double rho,
                       cosa_errors *out, const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w);

/* Same indicators by direct stepping: O(N dim^2), two passes over the
 * trajectories q_n, z*_n = T q_n and z_n = Phi z_{n-1}, z_0 = T x0 (mean first,
 * then centred sums with the corrected two-pass formula).  Errors are formed
 * literally as in eqs 31/32 (R (z*_n - z_n), R Phi* z - R Phi z), so it is an
 * independent cross-check of cosa_nrmse.  Its accuracy: local errors carry
 * the per-step cancellation DBL_EPSILON |Phi| |z| / |(Phi* - Phi) z|
 * (twomass p4, dt = 1e-5: ~1e-5 relative), global errors the rounding random
 * walk of the two trajectories (~ sqrt(N) DBL_EPSILON |z| absolute).
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
 * fails numerically (singular correction, overflow, QR failure) counts as
 * "not good"; if the monolithic reference is unstable at any evaluated dt
 * the result is COSA_EUNSTABLEREF, and any other failure of an evaluation
 * (workspace, arguments, memory, algebraic loop) is returned as it is.  Arguments as in
 * cosa_limit_find; w must hold schemes of order s->order. */
cosa_status cosa_dt_limit(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                          double tend, cosa_criterion crit, double tol, double dt_min,
                          double dt_max, unsigned per_decade, cosa_crossing *cross,
                          size_t cross_cap, cosa_limit *out, cosa_eval_workspace *w);

/* ------------------------------------------------------------------------ */
/* Sweeps (lib/sweep.c)                                                     */
/* ------------------------------------------------------------------------ */

struct cosa_model; /* models/, below */

/* What a sweep computes at every point (cosa_evaluate). */
typedef enum cosa_metric {
    COSA_METRIC_RHO = 0,     /* rho(Phi) (eq 29)                                  */
    COSA_METRIC_E_GLOBAL,    /* e_g (eqs 32-33); +inf when rho > 1 + COSA_RHO_TOL  */
    COSA_METRIC_E_LOCAL,     /* e_l on the co-simulation trajectory (eq 31); +inf when unstable */
    COSA_METRIC_E_LOCAL_REF, /* e_l on the reference trajectory                   */
    COSA_METRIC_COUNT
} cosa_metric;

/* "rho", "e_global", "e_local", "e_local_ref"; "?" for anything else. */
const char *cosa_metric_name(cosa_metric m);
/* Inverse of cosa_metric_name (also accepts "e_g", "e_l"); COSA_EINVAL if unknown. */
cosa_status cosa_metric_parse(const char *text, cosa_metric *out);

/* One axis of a parameter grid: n points from lo to hi (both included),
 * equally spaced in value (log = 0) or in log10(value) (log = 1, needs
 * 0 < lo, hi).  param is the index of a model parameter
 * (cosa_model_param_index); param = -1 with n = 1 means "no axis". */
typedef struct cosa_sweep_axis {
    int param;
    double lo, hi;
    int log;
    size_t n;
} cosa_sweep_axis;

/* Value of grid point k < a->n: exactly lo for k = 0 and hi for k = n - 1,
 * otherwise lo + (hi - lo) k/(n-1), or 10^(log10 lo + (log10 hi - log10 lo) k/(n-1)).
 * NaN for k >= n or a NULL axis. */
double cosa_sweep_axis_value(const cosa_sweep_axis *a, size_t k);

/* Progress report, called from the calling thread only, about every
 * 0.1 % of the points and once at the end: done of total points finished. */
typedef void (*cosa_sweep_progress_fn)(size_t done, size_t total, void *user_data);

/* A sweep: model parameters x (and y) over a grid, times a list of macro
 * steps, times a list of schemes; one metric per point. */
typedef struct cosa_sweep_spec {
    const struct cosa_model *model;
    const double *par;         /* base parameter values (model->nparam); NULL: defaults */
    cosa_sweep_axis x, y;      /* y.param = -1, y.n = 1 for a one-parameter sweep       */
    const double *dt;          /* ndt macro steps > 0 [s]                               */
    size_t ndt;
    const cosa_scheme *schemes;/* nscheme schemes (seq of Gauss-Seidel schemes must stay valid) */
    size_t nscheme;
    cosa_metric metric;
    double tend;               /* horizon for the error metrics [s]; <= 0: model->tend */
    int threads;               /* OpenMP threads; <= 0: the OpenMP default              */
    cosa_sweep_progress_fn progress; /* may be NULL */
    void *user_data;
} cosa_sweep_spec;

/* Number of results: nscheme * ndt * x.n * y.n (0 for an invalid spec). */
size_t cosa_sweep_size(const cosa_sweep_spec *spec);

/* Position of (scheme is, step it, x point ix, y point iy) in the result
 * arrays: ((is * ndt + it) * x.n + ix) * y.n + iy, i.e. x-major per (scheme, dt). */
size_t cosa_sweep_index(const cosa_sweep_spec *spec, size_t is, size_t it, size_t ix,
                        size_t iy);

/* Run the sweep in parallel (OpenMP).  values (cosa_sweep_size entries) and
 * status (same size, may be NULL) are caller-allocated.  Each point is
 * evaluated independently by cosa_evaluate on a per-thread copy of the
 * system and workspace (allocated before the parallel region; rebuilt only
 * when a swept parameter changes the model's structure, e.g. chain's n or
 * r), so every
 * value is bitwise the one `cosa point` computes, for any thread count and
 * schedule.  A point that fails stores NaN and its status (e.g. COSA_EPARAM
 * from the model, COSA_EALGLOOP, COSA_EUNSTABLEREF for an error metric with
 * an unstable reference) and the sweep goes on; *nfailed (may be NULL)
 * counts them.  For e_global and e_local, points with rho > 1 + COSA_RHO_TOL
 * are +inf without computing the indicators.  The library leaves BLAS
 * threading alone: link a single-threaded BLAS or call
 * openblas_set_num_threads(1) (the cosa command does).
 * Returns COSA_OK when the sweep ran (even with failed points); COSA_EINVAL /
 * COSA_ERANGE / COSA_ENONFINITE / COSA_EPARAM for an invalid spec (bad
 * parameter index, log axis with lo <= 0, dt <= 0, ...), a scheme's status
 * from cosa_scheme_check, COSA_ENOMEM, or the model's status if no system
 * can be created at the base parameters or the first grid point. */
cosa_status cosa_sweep_run(const cosa_sweep_spec *spec, double *values, cosa_status *status,
                           size_t *nfailed);

/* ------------------------------------------------------------------------ */
/* Time-domain co-simulation (lib/unit*.c, lib/master.c)                    */
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
 * the start-up and error conventions of METHOD.md complete the picture. */

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

typedef struct cosa_integrator {
    cosa_integrator_kind kind;
    double rtol;   /* CVODE relative tolerance (> 0)                         */
    double atol;   /* CVODE absolute tolerance; <= 0: per state i,
                      rtol * max(m_i, 1e-6 max_j m_j), m_i = largest |x_i| at
                      the macro points since the last cosa_unit_set_state
                      (rtol if all are 0)                                    */
    double hmicro; /* fixed-step methods: largest micro step [s]; each macro
                      step h is cut into ceil(h / hmicro) equal micro steps;
                      <= 0: 100 micro steps per macro step                   */
} cosa_integrator;

/* "exact", "cvode" (= "cvode-bdf"), "cvode-adams", "rk4", "symplectic-euler",
 * "euler" (case-insensitive) with rtol = 1e-10, atol = 0, hmicro = 0.
 * COSA_EINVAL for anything else. */
cosa_status cosa_integrator_parse(const char *name, cosa_integrator *out);
/* Canonical name of a kind ("cvode-bdf", ...); "?" if out of range. */
const char *cosa_integrator_name(cosa_integrator_kind kind);

/* ---- Units ----------------------------------------------------------------- */

typedef struct cosa_unit cosa_unit;

/* Largest input-polynomial degree a unit accepts. */
#define COSA_UNIT_DEGMAX COSA_ORDER_MAX

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
/* 1 for a linear unit (exact steps, exact Jacobians). */
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

/* Solve the algebraic loop y = g(t, x, L y) of a set of units at the stacked
 * state x by Newton's method (Jacobian I - D L with D = dg/du from
 * cosa_unit_jacobian); y holds the initial guess on entry (e.g. zeros).
 * COSA_ENOTCONVERGED if 50 iterations do not bring the update below
 * 1e-10 ||y||_inf (plus one more iteration for the last digits), COSA_EALGLOOP
 * if I - D L is singular. */
cosa_status cosa_units_loop_solve(size_t nunits, cosa_unit *const *units, const double *L,
                                  double t, const double *x, double *y);

/* ---- Master ------------------------------------------------------------------ */

typedef struct cosa_master_opts {
    int lin_at_end;   /* MBCorr linearisation point: 0 = start of the step,
                         (x_n, u~(T_n)); 1 = end, (x_{n+1}, u~(T_{n+1}))       */
    int force_fd;     /* 1: finite-difference Jacobians even if analytic      */
} cosa_master_opts;

typedef struct cosa_master cosa_master;

/* A master for scheme s (Jacobi or Gauss-Seidel, any order, corrections for
 * Jacobi as in the Phi engine) over the units (borrowed: they must outlive
 * the master) coupled by L (nu_total x ny_total, copied, units stacked in
 * order).  H > 0 is the macro step; opt may be NULL (defaults 0).
 * Per macro step T_n -> T_{n+1} (MBCorr paper section 2.3, METHOD.md):
 *  1. every input gets u~(s) = L P(s) + du_n, P the degree-p extrapolation
 *     of the corrected outputs ybar_n..ybar_{n-p} (s = (t - T_n)/H); for
 *     Gauss-Seidel, outputs of units already advanced in this step use the
 *     interpolation through y_{n+1}, ybar_n, ..., ybar_{n+1-p} instead;
 *  2. each unit gets its input polynomial (set_input), steps (do_step) and
 *     reports y_{n+1} (get_output);
 *  3. output correction: every unit is linearised (cosa_unit_jacobian) at the
 *     chosen point, the Jacobians are stacked into A_n, B_n, C_n, D_n and
 *     G_p = C_n sum_m w_m Q_m + D_n, G_0 = C_n Q_0 + D_n are formed with the
 *     Van Loan discretisation of the Phi engine (cosa_discretize); then
 *     (I - G_p L) ybar_{n+1} = y_{n+1} - G_p L E_p - G_0 du_n  (eq 14);
 *  4. state correction: du_{n+1} = (1 - alpha) du_n + alpha kappa_p L (ybar_{n+1} - E_p)
 *     (eq 22);
 *  5. the history shifts.
 * For linear units this is Phi z_n exactly (up to rounding). */
cosa_status cosa_master_create(size_t nunits, cosa_unit *const *units, const double *L,
                               const cosa_scheme *s, double H, const cosa_master_opts *opt,
                               cosa_master **out);
void cosa_master_free(cosa_master *m);

/* Start at time t0 with the stacked state x0 (nx), the history yhist (ny x (p+1),
 * column j = ybar_{-j}) and the offset du0 (nu entries, NULL = 0; ignored
 * without state correction).  Sets the units' states. */
cosa_status cosa_master_init(cosa_master *m, double t0, const double *x0, const double *yhist,
                             const double *du0);
/* Start from x0 alone: y0 from the algebraic loop (cosa_units_loop_solve,
 * starting at 0) copied into every history slot, du = 0.  (This injects an
 * O(H) start-up error for p > 0; METHOD.md starts on the reference instead.) */
cosa_status cosa_master_init_loop(cosa_master *m, double t0, const double *x0);

/* One macro step.  On failure (a unit's status, COSA_ECORRSINGULAR, ...) the
 * master's history is unchanged, the units' states may have advanced. */
cosa_status cosa_master_step(cosa_master *m);

/* Current values (any pointer may be NULL): time T_n, stacked state x_n (nx),
 * input at the start of the next step u = L ybar_n + du_n (nu), raw outputs
 * y_n (ny; after init: ybar_0), corrected outputs ybar_n (ny), du_n (nu). */
cosa_status cosa_master_get(const cosa_master *m, double *t, double *x, double *u, double *y,
                            double *ybar, double *du);
/* The information vector z_n in the layout of the scheme (METHOD.md). */
cosa_status cosa_master_info(const cosa_master *m, double *z);
/* Index of the unit that failed in the last cosa_master_step (or nunits). */
size_t cosa_master_failed_unit(const cosa_master *m);

/* ---- Monolithic reference -------------------------------------------------- */

/* Reference trajectory sampled at t_k = k H, k = 0..nsamples-1. */
typedef struct cosa_reference {
    size_t nx, ny, nsamples;
    double H;
    double *x;    /* nx x nsamples, column k = x(t_k)  */
    double *y;    /* ny x nsamples, column k = y(t_k)  */
    int exact;    /* 1: matrix exponential, 0: CVODE    */
    double rtol;  /* CVODE tolerance (0 when exact)     */
    long nsteps;  /* CVODE internal steps (0 when exact) */
} cosa_reference;

/* Exact reference of a linear coupled system: x_{k+1} = exp(A* H) x_k,
 * y_k = C* x_k (eq 35). */
cosa_status cosa_reference_exact(const cosa_system *sys, const double *x0, double H,
                                 size_t nsamples, cosa_reference **out);
/* Reference of any unit set: the coupled system as one ODE,
 * x' = f(t, x, L y) with y = g(t, x, L y) solved by Newton inside the
 * right-hand side (cosa_units_loop_solve, warm-started), integrated by CVODE
 * BDF at relative tolerance rtol (e.g. 1e-12) from x0 at t = 0 and stopped at
 * every sample.  Two passes: the first finds the amplitude m_i of every state
 * over the samples, the second integrates with atol_i = rtol max(m_i, 1e-6
 * max_j m_j).  Uses only the units' model evaluations (cosa_unit_eval,
 * cosa_unit_jacobian), not their integrators or states.  COSA_ENOTCONVERGED
 * if CVODE fails. */
cosa_status cosa_reference_cvode(size_t nunits, cosa_unit *const *units, const double *L,
                                 const double *x0, double H, size_t nsamples, double rtol,
                                 cosa_reference **out);
void cosa_reference_free(cosa_reference *r);

/* ---- Driver: one co-simulation run with the conventions of METHOD.md --------- */

typedef struct cosa_cosim_opts {
    size_t nsteps;           /* N = round(T_end / H) >= 1 macro steps           */
    cosa_master_opts master;
    double diverge_factor;   /* divergence threshold (see below); <= 0: 1e6    */
} cosa_cosim_opts;

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
    double yref_max;    /* largest |reference output| over t = 0 .. t[N]      */
    double e_global;    /* NRMSE of ybar vs yref at t[1..N] (cosa_traj_nrmse);
                           +inf if diverged                                   */
    size_t ncomp;       /* output components in e_global                      */
} cosa_cosim_result;

/* Start-up (METHOD.md): the co-simulation starts at t = p H on the reference,
 * x = x_ref(pH), ybar_{-j} = y_ref((p-j) H), du = 0, then runs N macro steps
 * (ref must have nsamples >= p + N + 1 at the same H, else COSA_ERANGE).
 * Divergence (a result, not an error: COSA_OK with diverged = 1): an output
 * (raw or corrected) exceeds diverge_factor * yref_max or is not finite, or a
 * unit / the correction fails numerically (reason says which).  The result is
 * owned by the caller (cosa_cosim_result_free). */
cosa_status cosa_cosim_run(size_t nunits, cosa_unit *const *units, const double *L,
                           const cosa_scheme *s, const cosa_reference *ref,
                           const cosa_cosim_opts *opt, cosa_cosim_result **out);
void cosa_cosim_result_free(cosa_cosim_result *r);

/* ---- NRMSE of sampled trajectories (lib/trajectory_nrmse.c) -------------- */

/* Global NRMSE (eq 33, METHOD.md) of N samples y (ny x N, ld ldy) against the
 * reference yref (ld ldr): per component k, RMS_n(y_kn - yref_kn) divided by
 * the population standard deviation of yref_k over the same samples, then the
 * RMS over the components; components with std_k <= COSA_NRMSE_STD_RTOL *
 * sqrt(mean_k^2 + std_k^2) are left out (as cosa_nrmse).  *e = +inf if a y
 * entry is not finite or the sums overflow.  ncomp (may be NULL) counts the
 * components used.  COSA_EINVAL (NULL, ny = 0, ld < ny), COSA_ERANGE (N = 0 or
 * every component constant), COSA_ENONFINITE (yref not finite). */
cosa_status cosa_traj_nrmse(size_t ny, size_t N, const double *y, size_t ldy,
                            const double *yref, size_t ldr, double *e, size_t *ncomp);

/* ---- Nonlinear models (models/nlregistry.c) -------------------------------- */

/* A parameterised family of coupled nonlinear systems (e.g. twomass-nl).
 * Parameters work like cosa_model's (struct cosa_param, below).  create()
 * builds the ODE subsystems and coupling; initial_state() writes x0. */
typedef struct cosa_nlmodel cosa_nlmodel;
struct cosa_nlmodel {
    const char *name;
    const char *doc;
    size_t nparam;
    const struct cosa_param *params;
    double tend;  /* natural horizon [s] */
    cosa_status (*create)(const cosa_nlmodel *m, const double *par, cosa_odesys **out);
    cosa_status (*initial_state)(const cosa_nlmodel *m, const double *par, double *x0);
    const char *(*output_name)(const cosa_nlmodel *m, const double *par, size_t k);
    const char *(*input_name)(const cosa_nlmodel *m, const double *par, size_t k);
    const char *(*sub_name)(const cosa_nlmodel *m, const double *par, size_t k);
};

size_t cosa_nlmodel_count(void);
const cosa_nlmodel *cosa_nlmodel_at(size_t i);
const cosa_nlmodel *cosa_nlmodel_find(const char *name); /* NULL if unknown */
void cosa_nlmodel_defaults(const cosa_nlmodel *m, double *par);
/* Index of a parameter by name, or -1. */
int cosa_nlmodel_param_index(const cosa_nlmodel *m, const char *name);
/* COSA_EPARAM if unknown, COSA_ENONFINITE if value is not finite. */
cosa_status cosa_nlmodel_set(const cosa_nlmodel *m, double *par, const char *name, double value);

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
