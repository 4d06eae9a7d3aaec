/* cosa/internal/phi.h -- the build tree's view of cosa/phi.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/phi.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_PHI_H
#define COSA_INTERNAL_PHI_H

#include "cosa/phi.h"

/* Reference basis T (layout.dim x nx, column-major, leading dimension
 * ldt >= dim): the information vector of the reference at state q is T q,
 *   T = [ A*_d^p ; C* A*_d^p ; C* A*_d^(p-1) ; ... ; C* ; 0 (du rows) ],
 * A*_d = exp(A* dt), so z0 = T x0 (cosa_z0_build), z*_n = T (A*_d)^n x0 and
 * Phi* T = T A*_d (up to rounding).  A*_d is the leading nx x nx block of
 * Phi* (cosa_phi_ref_build).  Errors as cosa_phi_ref_build, COSA_EINVAL for
 * T NULL or ldt < dim, COSA_ENOTCONVERGED if T overflows. */
cosa_status cosa_phi_ref_basis(const cosa_system *sys, const cosa_scheme *s, double dt,
                                 double *T, size_t ldt, cosa_phi_workspace *w);

/* Discrete-time pieces of subsystem-stacked system for order p, step dt:
 * Ad = exp(A dt) (nx x nx) and Q_m = int_0^dt exp(A(dt-t)) B (t/dt)^m dt
 * for m = 0..p, stored consecutively in Q (p+1 blocks of nx x nu, ld nx).
 * Block-diagonal per subsystem; computed through the Van Loan exponential. */
cosa_status cosa_discretize(const cosa_system *sys, int p, double dt, double *Ad, double *Q,
                            cosa_phi_workspace *w);

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

/* Progress of cosa_evaluate through this workspace (cosa_stage_fn). */
void cosa_eval_workspace_set_progress(cosa_eval_workspace *w, cosa_stage_fn fn, void *user_data);

/* The caller's cancellation flag (may be NULL: none), checked as every
 * cosa_evaluate through this workspace starts: once set, those return
 * COSA_ECANCELLED, and so do the scans built on them (cosa_dt_limit,
 * cosa_advise_iter) -- one evaluation after the request at most. */
void cosa_eval_workspace_set_cancel(cosa_eval_workspace *w, const cosa_cancel *cancel);

/* Order of z = [x | y_n | ... | y_{n-p}]: nx + (p + 1) ny. */
size_t cosa_mr_dim(const cosa_system *sys, int p);

/* W (nx x nx, symmetric) with E(x) = x' W x of a model whose energy is a
 * quadratic form (linear models; m->energy), by polarization: W_ii =
 * E(e_i), W_ij = (E(e_i + e_j) - E(e_i) - E(e_j)) / 2.  COSA_EUNSUPPORTED
 * for a model without energy. */
cosa_status cosa_model_energy_form(const struct cosa_model *m, const double *par, size_t nx,
                                   double *W);

/* Per-mode mu (issue 10 section 3): for each eigenpair (lambda, w) of Phi_p
 * with Im lambda > 0 and |lambda| > 0.5, omega = arg(lambda) / H and
 * mu = (|lambda|^2 - |e^{s* H}|^2) w^H W w / (H w^H Q w), s* the eigenvalue
 * of A* with Im > 0 nearest in frequency; decreasing omega.  *nmodes: in,
 * the room in omega and mu; out, the modes found (all of them, even if more
 * than the room). */
cosa_status cosa_mr_energy_modes(const cosa_system *sys, const cosa_mr_scheme *s, double H,
                                 const double *W, const cosa_energy_port *port, size_t *nmodes,
                                 double *omega, double *mu);

/* The stability threshold of a computed spectral radius rho of the n x n
 * matrix M (leading dimension lda; not modified): *tol = COSA_RHO_TOL, or
 * for rho in (1 + COSA_RHO_TOL, 1 + 1e-8] (cosa_rho_near_one) the rounding
 * bound of M's computed dominant eigenvalue (dgeevx's RCONDE), clamped to
 * [COSA_RHO_TOL, 1e-8]; rho <= 1 + *tol counts as stable
 * (cosa_point_result.rho_tol; lib/phi/rho_tol.c).  M may be NULL when
 * rho is not near 1.  Errors of the bound (COSA_ENOMEM, COSA_ELAPACK, ...). */
cosa_status cosa_rho_tol(size_t n, const double *M, size_t lda, double rho, double *tol);
/* 1 if rho is in (1 + COSA_RHO_TOL, 1 + 1e-8]: only there does the
 * threshold need M. */
int cosa_rho_near_one(double rho);

#endif /* COSA_INTERNAL_PHI_H */
