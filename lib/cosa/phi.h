/* cosa/phi.h -- propagation-matrix layer: Phi, Phi*, z0, accuracy (NRMSE),
 * convergence, macro-step limits, point evaluation, the energy recurrence;
 * parameter sweeps are in cosa/sweep.h, which this header includes.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_PHI_H
#define COSA_PHI_H

#include "cosa/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cosa_model; /* cosa/models.h */

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

/* Initial information vector (doc/method.md): the co-simulation starts on the
 * reference trajectory at t = p dt: x = exp(A* p dt) x0,
 * ybar_{-j} = C* exp(A* (p-j) dt) x0 (j = 0..p), du = 0.  z0 has layout.dim entries. */
cosa_status cosa_z0_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double *z0, cosa_phi_workspace *w);

/* Iterative coupling (README "Iterative coupling"; lib/phi/phi_iter.c).
 * For an implicit scheme (s->implicit), M = d y^(j)_R / d yhat^(j-1)_R is the
 * iteration matrix of one sweep over the outputs R read as relaxed iterates
 * (Jacobi: every coupled output; Gauss-Seidel: those read by a unit that runs
 * no later than their own), T(omega) = (1 - omega) I + omega M, a_i = 1 - mu_i
 * over the eigenvalues mu_i of M. */
typedef struct cosa_iter_info {
    size_t nr;           /* |R|, the order of M                                       */
    double rho_iter;     /* rho(T(omega)) at omega = s->relax (0 if nr = 0)           */
    double relax_max;    /* sup of omega > 0 with rho(T) < 1 = min_i 2 Re a_i / |a_i|^2;
                            NaN ("none") if some Re a_i <= 0; +inf if nr = 0          */
    double relax_opt;    /* the omega in (0, relax_max) minimising rho(T); NaN if none;
                            1 if nr = 0                                                */
    double rho_iter_opt; /* that minimum (NaN if none)                                 */
} cosa_iter_info;

/* rho(T), relax_max, relax_opt and rho_iter_opt from the n eigenvalues
 * (wr, wi) of M at relaxation omega.  rho(T(omega)) = max_i |1 - omega a_i|
 * is convex in omega (a maximum of norms of affine functions), so relax_opt
 * is found by golden-section search on (0, relax_max) to ~DBL_EPSILON
 * relative in omega.  COSA_EINVAL (NULL with n > 0, out NULL), COSA_ENONFINITE. */
cosa_status cosa_relax_analysis(size_t n, const double *wr, const double *wi, double omega,
                                cosa_iter_info *out);

/* M of an implicit scheme s at macro step dt (its eigenvalues through dgeev)
 * and cosa_relax_analysis at omega = s->relax.  COSA_EUNSUPPORTED for an
 * explicit scheme; errors as cosa_phi_build. */
cosa_status cosa_phi_iter_info(const cosa_system *sys, const cosa_scheme *s, double dt,
                               cosa_iter_info *out, cosa_phi_workspace *w);

/* ------------------------------------------------------------------------ */
/* Accuracy (lib/nrmse.c)                                                   */
/* ------------------------------------------------------------------------ */

/* Error indicators of a co-simulation against its monolithic reference
 * (eqs 31-33, doc/method.md, section 9).  Only the slot ybar_n of
 * the information vector (rows lay->off_y .. lay->off_y + lay->ny - 1, "R")
 * enters.  The reference trajectory is given in state form: q_n = A*_d^n x0
 * (A*_d: nx x nx) and z*_n = T q_n (T: dim x nx, cosa_phi_ref_basis), with
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

/* Progress of long evaluations (a 1000-state chain takes a minute per
 * point): fn(stage, dim, done, total, user_data) is called as each stage of
 * cosa_evaluate starts, with done = total = 0: "start" (a new evaluation),
 * "Phi*", "rho(Phi*)", "Phi", "rho(Phi)", "reference basis", "NRMSE"; dim is
 * the order of the matrix the stage works on.  The NRMSE stage (most of a
 * long point) also reports its doubling steps: done of total (total =
 * log2 N + 1).  Every caller that passes the workspace on (cosa_dt_limit,
 * cosa_advise, ...) reports through it.  fn NULL (the default): none. */
typedef void (*cosa_stage_fn)(const char *stage, size_t dim, size_t done, size_t total,
                              void *user_data);

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
 * nx = 0), COSA_ERANGE (N = 0, no outputs (ny = 0), or every output component constant),
 * COSA_ENONFINITE (NaN/Inf in Phi, Phistar, Adstar, T or x0, rho NaN),
 * COSA_EWORKSPACE (dim or nx > dim_max), COSA_EUNSTABLEREF (reference
 * statistics overflow). */
cosa_status cosa_nrmse(size_t dim, const double *Phi, const double *Phistar, size_t ld,
                       const cosa_layout *lay, size_t nx, const double *Adstar, size_t lda,
                       const double *T, size_t ldt, const double *x0, size_t N, double rho,
                       cosa_errors *out, const cosa_nrmse_sums *sums, cosa_nrmse_workspace *w);

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
 * O(n) time (a sliding window), O(n) memory.
 * COSA_EINVAL (NULL), COSA_ERANGE (dt not strictly increasing, or no run of
 * two points), COSA_ENOMEM. */
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

/* ------------------------------------------------------------------------ */
/* One analysis point (lib/evaluate.c)                                      */
/* ------------------------------------------------------------------------ */

/* What cosa_evaluate computes. */
enum {
    COSA_WANT_RHO = 1,     /* rho(Phi)                                   */
    COSA_WANT_ERRORS = 2,  /* e_global, e_local, e_local_ref (eqs 31-33); implies RHO_REF */
    COSA_WANT_RHO_REF = 4, /* rho(Phi*)                                  */
    COSA_GIVEN_RHO = 8,    /* out->rho already holds rho(Phi) of this system, scheme
                              and dt (an earlier call with COSA_WANT_RHO): it is
                              used, not computed again (sweeps of the errors ask
                              for rho first, to skip unstable points) */
    COSA_WANT_RUN = 16,    /* with ERRORS: e_global and e_local of the run over the
                              horizon even when rho > 1 + COSA_RHO_TOL (finite while
                              its sums are; +inf once they overflow), not the +inf
                              of an unstable scheme: one run (cosa point), not a
                              sweep's stability mark */
    COSA_WANT_ITER = 32    /* out->iter: cosa_phi_iter_info (implicit schemes only;
                              COSA_EUNSUPPORTED for an explicit one) */
};

typedef struct cosa_point_result {
    double rho;         /* spectral radius of Phi (NaN if not wanted)        */
    double rho_ref;     /* spectral radius of Phi* (= rho(exp(A* dt))), NaN if not wanted */
    cosa_errors err;    /* NaN if not wanted                                  */
    size_t nsteps;      /* N = round(tend / dt) macro steps of the horizon    */
    cosa_iter_info iter;/* iteration figures (COSA_WANT_ITER), else NaN        */
    double rho_tol;     /* rho <= 1 + rho_tol counts as stable: COSA_RHO_TOL, or
                           for rho in (1 + COSA_RHO_TOL, 1 + 1e-8] the rounding
                           bound of the computed eigenvalue (dgeevx's RCONDE;
                           an eigenvalue 1 of Phi, a free mass, is 1 to it)    */
} cosa_point_result;

/* Workspace for cosa_evaluate: Phi/Phi* builders, eigenvalue and NRMSE
 * workspaces and buffers, for one system and schemes up to order pmax. */
typedef struct cosa_eval_workspace cosa_eval_workspace;

cosa_eval_workspace *cosa_eval_workspace_alloc(const cosa_system *sys, int pmax);
void cosa_eval_workspace_free(cosa_eval_workspace *w);

/* Evaluate scheme s at macro step dt: rho(Phi), rho(Phi*) and, if wanted,
 * the NRMSE indicators over the horizon tend (N = round(tend/dt) >= 1 steps)
 * from the initial state x0 (z0 by doc/method.md's convention).
 * Whenever rho_ref is computed and rho_ref > 1 + COSA_RHO_TOL, the function
 * returns COSA_EUNSTABLEREF (rho and rho_ref are still filled).
 * Errors of an unstable scheme are +inf (see cosa_nrmse), unless
 * COSA_WANT_RUN asks for the run's finite-horizon values.
 * COSA_ERANGE if tend / dt rounds to 0 steps or tend is not positive. */
cosa_status cosa_evaluate(const cosa_system *sys, const cosa_scheme *s, double dt,
                          const double *x0, double tend, unsigned want,
                          cosa_point_result *out, cosa_eval_workspace *w);

/* ---- Macro-step limits of a scheme (lib/limits.c) ----------------------- */

/* What "good" means for cosa_dt_limit. */
typedef enum cosa_criterion {
    COSA_CRIT_STABLE = 0,  /* rho(Phi) <= 1 + COSA_RHO_TOL            */
    COSA_CRIT_ACCURATE,    /* e_global <= tol                          */
    COSA_CRIT_LOCAL,       /* e_local <= tol (co-simulation trajectory) */
    COSA_CRIT_ITERATION    /* implicit schemes: the iteration converges with the
                              best relaxation, rho_iter_opt <= 1 - COSA_RHO_TOL */
} cosa_criterion;

/* Largest stable / accurate macro step of scheme s for sys between dt_min and
 * dt_max: cosa_limit_find on rho(dt) or e(dt) from cosa_evaluate (x0 and tend
 * are used by the accuracy criteria only).  A point where the evaluation
 * fails numerically (singular correction, overflow, QR failure) counts as
 * "not good"; if the monolithic reference is unstable at any evaluated dt
 * the result is COSA_EUNSTABLEREF, and any other failure of an evaluation
 * (workspace, arguments, memory, algebraic loop, COSA_ECANCELLED from w's
 * cancellation flag) is returned as it is.  Arguments as in
 * cosa_limit_find; w must hold schemes of order s->order. */
cosa_status cosa_dt_limit(const cosa_system *sys, const cosa_scheme *s, const double *x0,
                          double tend, cosa_criterion crit, double tol, double dt_min,
                          double dt_max, unsigned per_decade, cosa_crossing *cross,
                          size_t cross_cap, cosa_limit *out, cosa_eval_workspace *w);

/* ---- Which scheme, which macro step (lib/phi/advise.c) ------------------ */

#define COSA_ADVICE_CROSSINGS 8 /* crossings kept per criterion */

/* The verdict on one candidate scheme. */
typedef struct cosa_advice {
    cosa_scheme scheme;
    cosa_status status;      /* COSA_OK, or why the scheme could not be judged
                                (e.g. COSA_EUNSTABLEREF); then dt = 0        */
    cosa_limit stable;       /* cosa_dt_limit, criterion stable              */
    cosa_limit accurate;     /* cosa_dt_limit, the error criterion           */
    cosa_crossing cross_stable[COSA_ADVICE_CROSSINGS];
    cosa_crossing cross_accurate[COSA_ADVICE_CROSSINGS];
    int usable;              /* stable and accurate at dt_min                */
    double dt;               /* min(stable.dt_max, accurate.dt_max) if usable, else 0 */
    size_t steps;            /* round(tend / dt) (0 if not usable)           */
    double cost;             /* steps * (1 + cost_corr if the scheme corrects), or
                                steps * iterations * (1 + cost_rollback) for an
                                implicit one; +inf if not usable              */
    /* implicit schemes (README "Iterative coupling"; zero otherwise) */
    cosa_limit converge;     /* cosa_dt_limit, criterion iteration            */
    cosa_crossing cross_converge[COSA_ADVICE_CROSSINGS];
    double rho_iter_opt;     /* at dt (NaN if not usable or explicit)         */
    unsigned iterations;     /* sweeps per macro step: 1 + the least j >= 1 with
                                rho_iter_opt^j <= iter_tol (the accepted step
                                uses the iterate of the sweep before); 1 if
                                explicit or no output is iterated              */
} cosa_advice;

#define COSA_ADVISE_ITER_TOL 1e-8     /* default relative tolerance of the iteration */
#define COSA_ADVISE_COST_ROLLBACK 0.1 /* default cost of saving/restoring the units per
                                         sweep, relative to one unit step          */

/* For every candidate scheme: the largest stable macro step and the largest
 * accurate one (criterion crit = COSA_CRIT_ACCURATE or COSA_CRIT_LOCAL with
 * threshold tol), each by cosa_dt_limit over [dt_min, dt_max] with
 * per_decade grid points (the first loss scanning upward, refined; later
 * windows in the crossings), the usable step dt = the smaller of the two, the
 * macro steps over the horizon and the cost.  A candidate that cannot be
 * judged gets its status in out[i].status (the call itself succeeds); an
 * unusable one (not good at dt_min) gets cost = +inf.  w must hold the
 * largest order among the schemes.  Errors: COSA_EINVAL, COSA_ERANGE (tol,
 * dt range, cost_corr < 0, tend), COSA_EMODELSHAPE. */
cosa_status cosa_advise(const cosa_system *sys, const double *x0, double tend,
                        cosa_criterion crit, double tol, const cosa_scheme *schemes,
                        size_t nschemes, double dt_min, double dt_max, unsigned per_decade,
                        double cost_corr, cosa_advice *out, cosa_eval_workspace *w);

/* Order of advice for a table: by cost, ties by larger dt, then by input
 * order (qsort-compatible on cosa_advice; stable for equal schemes). */
int cosa_advice_compare(const void *a, const void *b);

/* cosa_advise with the iteration settings of implicit candidates: an
 * implicit scheme is usable where it is stable, accurate and its iteration
 * converges (criterion COSA_CRIT_ITERATION) at dt_min, its dt the least of
 * the three limits, and its cost steps * k * (1 + cost_rollback) with k the
 * sweeps to reach iter_tol (relative) at rho_iter_opt at dt.  cosa_advise is
 * this with COSA_ADVISE_ITER_TOL and COSA_ADVISE_COST_ROLLBACK.  COSA_ERANGE
 * also for iter_tol not in (0, 1) or cost_rollback < 0.  Both return
 * COSA_ECANCELLED (out then holds no advice) when w's cancellation flag is
 * set during the scans (the one-call API's cosa_case_set_cancel). */
cosa_status cosa_advise_iter(const cosa_system *sys, const double *x0, double tend,
                             cosa_criterion crit, double tol, const cosa_scheme *schemes,
                             size_t nschemes, double dt_min, double dt_max, unsigned per_decade,
                             double cost_corr, double iter_tol, double cost_rollback,
                             cosa_advice *out, cosa_eval_workspace *w);

/* ------------------------------------------------------------------------ */
/* Energy of the coupling as a recurrence (lib/phi/energy_phi.c)            */
/* ------------------------------------------------------------------------ */
/* (After the energy paper's coupling.) */

/* Jacobi with held inputs (energy paper eq 9): unit i takes rate[i] steps of
 * H / rate[i], before each the extrapolation of degree q <= p through the
 * last samples at the step's start, held; its outputs at T_{n+1} use the
 * input of its last step.  One integrator step per unit step. */
typedef enum { COSA_MR_EXACT, COSA_MR_SYMPLECTIC_EULER, COSA_MR_EULER } cosa_mr_integrator;

typedef struct cosa_mr_scheme {
    int p;                          /* extrapolation order (ZOH 0, FOH 1, SOH 2, ...) */
    cosa_mr_integrator integrator;
    const unsigned *rate;           /* nsub unit steps per macro step (NULL: 1)     */
    const unsigned char *kick;      /* nx: symplectic Euler's kicked states (1)      */
    int start_initial;              /* 1: from x0 at t = 0, y0 = C* x0, the order
                                       capped by the samples (steps 1..p: q = 0..p-1);
                                       0: on the reference at t = p H (doc/method.md)    */
} cosa_mr_scheme;

/* Phi_q (dim x dim, ld >= dim) of one macro step H with extrapolation degree
 * q <= p: z_{n+1} = Phi_q z_n. */
cosa_status cosa_mr_phi(const cosa_system *sys, const cosa_mr_scheme *s, int q, double H,
                        double *Phi, size_t ld);

typedef struct cosa_mr_energy {
    double rho;          /* spectral radius of Phi_p                          */
    double t_end;        /* t0 + N H                                          */
    double E0, E_end, E_ref_end, dE_end, varsigma_end, mu_measured;
} cosa_mr_energy;

/* The energy figures of N macro steps from x0 without time stepping: E =
 * x' W x (W symmetric nx x nx), dE_N = H sum_n z_n' Q_n z_n (Q_n =
 * sym(sum_b (e_f e_v' - e_v e_f') Phi_n), the port's forces and velocity in
 * the y_n slot), the steady part by doubling (direct = 1: step by step),
 * E_ref(t_N) from e^{A* t_N} x0, varsigma = E - E_ref, mu_measured =
 * varsigma / dE. */
cosa_status cosa_mr_energy_eval(const cosa_system *sys, const cosa_mr_scheme *s, double H,
                                size_t N, const double *x0, const double *W,
                                const cosa_energy_port *port, int direct, cosa_mr_energy *out);

#ifdef __cplusplus
}
#endif

/* Sweeps, maps, contour lines and adaptive sweeps over the above. */
#include "cosa/sweep.h"

#ifdef COSA_INTERNAL /* the build tree: lib/, models/, api/, analysis/, tests/ */
#include "cosa/internal/phi.h"
#endif
#endif /* COSA_PHI_H */
