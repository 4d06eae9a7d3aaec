/* cosa/sweep.h -- sweeps of the propagation-matrix layer: metrics, sweep
 * specifications and runs (maps and curves), contour lines, adaptive sweeps.
 * Part of the public API; include <cosa.h> (the umbrella header), <cosa/phi.h>
 * (which includes this file) or this file. */
#ifndef COSA_SWEEP_H
#define COSA_SWEEP_H

#include "cosa/phi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Sweeps (lib/sweep.c)                                                     */
/* ------------------------------------------------------------------------ */

struct cosa_model; /* models/, below */

/* What a sweep computes at every point (cosa_evaluate; rho_iter: every
 * scheme implicit, else the sweep is COSA_EUNSUPPORTED). */
typedef enum cosa_metric {
    COSA_METRIC_RHO = 0,     /* rho(Phi) (eq 29)                                  */
    COSA_METRIC_E_GLOBAL,    /* e_g (eqs 32-33); +inf when rho > 1 + COSA_RHO_TOL  */
    COSA_METRIC_E_LOCAL,     /* e_l on the co-simulation trajectory (eq 31); +inf when unstable */
    COSA_METRIC_E_LOCAL_REF, /* e_l on the reference trajectory                   */
    /* the energy paper's coupling (cosa_sweep_spec.energy; models with an
     * energy and a power port, plain Jacobi schemes), from cosa_mr_energy_eval
     * over the horizon: */
    COSA_METRIC_E_RATIO,     /* E(T) / E_ref(T)                                    */
    COSA_METRIC_DE,          /* the residual energy dE(T)                          */
    COSA_METRIC_VARSIGMA,    /* the energy error E(T) - E_ref(T)                   */
    COSA_METRIC_MU_MEASURED, /* varsigma(T) / dE(T)                               */
    COSA_METRIC_RHO_ITER,    /* rho(T(omega)) of an iterative scheme (cosa_phi_iter_info) */
    COSA_METRIC_COUNT
} cosa_metric;

/* "rho", "e_global", "e_local", "e_local_ref", "E_ratio", "dE", "varsigma",
 * "mu_measured", "rho_iter"; "?" for anything else. */
const char *cosa_metric_name(cosa_metric m);
/* 1 for the NRMSE metrics (positive, +inf when unstable: logarithmic
 * scales), 0 otherwise. */
int cosa_metric_is_error(cosa_metric m);
/* 1 for the energy metrics. */
int cosa_metric_is_energy(cosa_metric m);
/* Inverse of cosa_metric_name (also accepts "e_g", "e_l"); COSA_EINVAL if unknown. */
cosa_status cosa_metric_parse(const char *text, cosa_metric *out);

/* One axis of a parameter grid: n points from lo to hi (both included),
 * equally spaced in value (log = 0) or in log10(value) (log = 1, needs
 * 0 < lo, hi).  param is the index of a model parameter
 * (cosa_model_param_index); param = -1 with n = 1 means "no axis".
 * assumed = 0: the axis sets the true parameter (the system that evolves);
 * assumed = 1: it sets the parameter in the assumed parameter vector, the
 * model the output correction believes in (cosa_sweep_spec.apar; README
 * "Imperfect model knowledge"), and leaves the true system alone.  An axis
 * over ck and an assumed axis over ck may be combined (a mismatch map). */
/* Axes over a scheme's iteration settings (cosa_sweep_axis.param; every
 * scheme of the sweep must be implicit): the relaxation omega (nonzero) and
 * the sweeps per macro step k (values rounded to integers >= 1). */
#define COSA_AXIS_RELAX (-2)
#define COSA_AXIS_ITERATIONS (-3)

typedef struct cosa_sweep_axis {
    int param;
    double lo, hi;
    int log;
    size_t n;
    int assumed;
} cosa_sweep_axis;

/* Value of grid point k < a->n: exactly lo for k = 0 and hi for k = n - 1,
 * otherwise lo + (hi - lo) k/(n-1), or 10^(log10 lo + (log10 hi - log10 lo) k/(n-1)).
 * NaN for k >= n or a NULL axis. */
double cosa_sweep_axis_value(const cosa_sweep_axis *a, size_t k);

/* Progress report, called from the calling thread only, about every
 * 0.1 % of the points and once at the end: done of total points finished. */
typedef void (*cosa_sweep_progress_fn)(size_t done, size_t total, void *user_data);

/* A sweep: model parameters x (and y) over a grid, times a list of macro
 * steps, times a list of schemes; one metric per point.
 *
 * Imperfect model knowledge (cosa_scheme.model; README "Imperfect model
 * knowledge").  The assumed model is the same model at other parameter
 * values.  It is present when apar != NULL or an axis is assumed; then at
 * every grid point, with p the true parameter vector of the point (par with
 * the true axes applied), the assumed vector a is
 *   a[k] = apar[k]  where apar_fixed[k] != 0 (apar_fixed NULL: every k),
 *   a[k] = p[k]     otherwise (the assumed value follows the true one, also
 *                   along a true axis),
 * and then the assumed axes set their parameters in a.  Every scheme with
 * an output correction is evaluated with .model = model->create(a) (kept
 * per thread and rewritten by model->update as the true system is), or
 * with .model = NULL (the true system) where a equals p bit for bit, which
 * is what `cosa point --assume` does; schemes without output correction
 * are model-free and evaluated as given.  A point where the model rejects a
 * (or where the assumed system has another shape, COSA_EMODELSHAPE) fails
 * for the schemes with output correction only, as any failed point.
 * apar == NULL and no assumed axis: no assumed model, the schemes are
 * evaluated exactly as given (bitwise the behaviour without these fields). */
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
    const double *apar;        /* assumed parameter values (model->nparam); NULL: none  */
    const unsigned char *apar_fixed; /* nparam flags: apar[k] is fixed (1) or follows the
                                        true value (0); NULL: all fixed */
    const struct cosa_mr_scheme *energy; /* the energy metrics' coupling (its p is each
                                        scheme's order, its kick flags the system's);
                                        NULL: the paper's setting (symplectic Euler, one
                                        step per unit step, single rate, start from x0) */
    const cosa_cancel *cancel; /* checked before every grid point (NULL: none): once
                                  set, the remaining points are not evaluated (NaN,
                                  status COSA_ECANCELLED) and the sweep returns
                                  COSA_ECANCELLED: the values are no result */
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
 * With an assumed model (see cosa_sweep_spec) a thread keeps an assumed
 * system beside the true one, set per grid point in the same way.
 * Returns COSA_OK when the sweep ran (even with failed points); COSA_EINVAL /
 * COSA_ERANGE / COSA_ENONFINITE / COSA_EPARAM for an invalid spec (bad
 * parameter index, log axis with lo <= 0, dt <= 0, two axes over the same
 * parameter of the same vector, an assumed axis without a parameter, a
 * fixed apar entry that is not finite, ...), a scheme's status
 * from cosa_scheme_check, COSA_ENOMEM, or the model's status if no system
 * can be created at the base parameters or the first grid point;
 * COSA_ECANCELLED when spec->cancel was set before every point was done. */
cosa_status cosa_sweep_run(const cosa_sweep_spec *spec, double *values, cosa_status *status,
                           size_t *nfailed);

/* The same for the n results listed: list holds result positions
 * (cosa_sweep_index), each < cosa_sweep_size (else COSA_EINVAL); values and
 * status are full-size arrays of which only the listed entries are written
 * (bitwise what cosa_sweep_run writes there).  Sorted by grid point is
 * fastest (a thread keeps its system at a point across schemes and steps).
 * *nfailed counts the failed listed results; progress counts listed
 * results.  Adaptive maps and distributed sweeps are built on it. */
cosa_status cosa_sweep_run_list(const cosa_sweep_spec *spec, const size_t *list, size_t n,
                                double *values, cosa_status *status, size_t *nfailed);

/* ---- Contour lines (lib/phi/contour.c) --------------------------------- */

/* Polylines of a level set: line k has the vertices (x[i], y[i]) for
 * start[k] <= i < start[k + 1]; a closed line ends on its first vertex. */
typedef struct cosa_contour {
    size_t nline, nvertex;
    size_t *start; /* nline + 1 offsets */
    double *x, *y; /* nvertex each      */
} cosa_contour;

/* The level lines z = level of the field z[ix * ny + iy] given at the grid
 * points (u[ix], v[iy]) (any monotone coordinates, e.g. log10 of a log
 * axis), by marching squares: one vertex per cell edge whose corners lie on
 * either side (z > level is above; +inf is above, its vertex sits at the
 * finite corner), linearly interpolated, so on the level set of the cell's
 * bilinear interpolant; saddles resolved by the cell mean; cells with a NaN
 * corner skipped; segments joined into polylines.  out is overwritten
 * (free it with cosa_contour_free, also after a failure).  COSA_EINVAL for
 * NULL or nx, ny < 2, COSA_ENONFINITE for a non-finite level or coordinate,
 * COSA_ENOMEM. */
cosa_status cosa_contour_trace(const double *z, size_t nx, size_t ny, const double *u,
                               const double *v, double level, cosa_contour *out);

/* Free the arrays of c and zero it (c may be NULL). */
void cosa_contour_free(cosa_contour *c);

/* Adaptive sweeps (lib/phi/sweep_adaptive.c): maps and curves at the cost of
 * their contour value = level.  Per plane (a scheme and a macro step of a
 * map; a scheme of a curve) the grid is evaluated every coarse-th point, then
 * every cell whose corners straddle the level, come within margin of it or
 * failed is halved along its long sides, round by round, down to single grid
 * cells; the points of the other cells are interpolated (bilinear, or the
 * nearest corner where one is infinite) and marked exact[i] = 0; then every
 * contour found is traced across interpolated cells it enters.  Every
 * point next to the contour is evaluated (exact[i] = 1), bitwise as
 * cosa_sweep_run.  "Near" is scale-free: a corner's distance from the level
 * is at most margin times the spread of the cell's finite corner values, in
 * the metric's scale (log10 for the errors: log_scale 1). */
typedef struct cosa_adaptive_opts {
    double level;
    size_t coarse;   /* K >= 1 (1: every point, the full sweep)          */
    double margin;   /* >= 0                                            */
    int log_scale;
} cosa_adaptive_opts;

/* The defaults of the cosa command (chosen on the MBCorr paper's Figs 4 and
 * 6: README "Adaptive maps"). */
#define COSA_ADAPTIVE_COARSE 12
#define COSA_ADAPTIVE_MARGIN 0.5

/* values, status (may be NULL) and exact: cosa_sweep_size entries.  Returns
 * cosa_sweep_run's statuses, COSA_ERANGE for bad options (coarse 0, margin
 * < 0 or not finite, level 0 or not finite, log_scale with level <= 0);
 * *nfailed (may be NULL): failed evaluated points; *nevaluated (may be
 * NULL): points evaluated. */
cosa_status cosa_sweep_adaptive(const cosa_sweep_spec *spec, const cosa_adaptive_opts *opt,
                                double *values, cosa_status *status, unsigned char *exact,
                                size_t *nfailed, size_t *nevaluated);

/* How the rounds of an adaptive sweep evaluate their lists: a function with
 * cosa_sweep_run_list's contract (NULL: cosa_sweep_run_list itself), e.g.
 * one that spreads each list over the processes of a cluster and gathers
 * the values everywhere (the cosa command under mpirun). */
typedef cosa_status (*cosa_sweep_list_fn)(const cosa_sweep_spec *spec, const size_t *list,
                                          size_t n, double *values, cosa_status *status,
                                          size_t *nfailed, void *user_data);
cosa_status cosa_sweep_adaptive_with(const cosa_sweep_spec *spec, const cosa_adaptive_opts *opt,
                                     cosa_sweep_list_fn run, void *run_data, double *values,
                                     cosa_status *status, unsigned char *exact, size_t *nfailed,
                                     size_t *nevaluated);

#ifdef __cplusplus
}
#endif
#endif /* COSA_SWEEP_H */
