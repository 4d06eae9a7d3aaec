/* cosa/internal/control.h -- the build tree's view of cosa/control.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/control.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_CONTROL_H
#define COSA_INTERNAL_CONTROL_H

#include "cosa/control.h"

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

int cosa_vo_estimator_implicit(const cosa_vo_estimator *e); /* 1: implicit coupling */

int cosa_vo_estimator_on_states(const cosa_vo_estimator *e); /* 1: states, 0: u     */

void cosa_vo_control_reset(cosa_vo_control_state *s);

/* One decision.  COSA_EINVAL (NULL), COSA_ERANGE (params or input out of
 * range: kmax, k > kmax, SF <= 0, rmin >= 1, rmax <= 1, H <= 0, norms < 0 or
 * NaN). */
cosa_status cosa_vo_control_decide(const cosa_vo_control_params *p, cosa_vo_control_state *s,
                                   const cosa_vo_control_input *in, const cosa_vo_history *hist,
                                   cosa_vo_decision *out);

/* p = the type's defaults with the given tol (grow = +inf unless the type sets it). */
cosa_status cosa_controller_defaults(const cosa_controller_type *type, double tol,
                                     cosa_controller_params *p);

/* COSA_EINVAL (NULL, a type without reset/next), COSA_ENONFINITE (tol, kp,
 * ki not finite or grow NaN), COSA_ERANGE (tol <= 0, grow <= 1). */
cosa_status cosa_controller_create(const cosa_controller_type *type,
                                   const cosa_controller_params *p, cosa_controller **out);

void cosa_controller_free(cosa_controller *c);

/* Start a run with the first step h0 > 0 (COSA_ERANGE otherwise). */
cosa_status cosa_controller_reset(cosa_controller *c, double h0);

/* The next step after a step h > 0 with error measure err > 0 (finite:
 * floor it, e.g. at 1e-16, before); accept may be NULL.  COSA_EINVAL before
 * reset; COSA_ERANGE if the law gives no positive finite step. */
cosa_status cosa_controller_next(cosa_controller *c, double h, double err, double *hnext,
                                 int *accept);

/* The type's state (nstate doubles; PI: the integral term I). */
cosa_status cosa_controller_state(const cosa_controller *c, double *state);

#endif /* COSA_INTERNAL_CONTROL_H */
