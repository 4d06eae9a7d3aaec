/* cosa/internal/run.h -- the build tree's view of cosa/run.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/run.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_RUN_H
#define COSA_INTERNAL_RUN_H

#include "cosa/run.h"

/* COSA_ERANGE unless 0 < hmin <= h0 <= hmax, 0 < rate_min <= rate_max,
 * safety, rtol, atol >= 0 with rtol + atol > 0, finite gains. */
cosa_status cosa_ecco_reset(const cosa_ecco_params *p, cosa_ecco_state *s);

/* After a step of s->h_ns from t_ns: the residuals |P_a - P_b| of the bonds
 * (n of them) turn into the scaled error estimate (*err; NaN when the step
 * is not adjusted: the first one, or no bonds) and the next step s->h_ns,
 * exactly as libcosim's ecco_algorithm::adjust_step_size. */
cosa_status cosa_ecco_adjust(const cosa_ecco_params *p, cosa_ecco_state *s, long long t_ns,
                             size_t n, const double *residual, double *err);

cosa_status cosa_ecco_run(cosa_unitset *set, const double *x0, const cosa_ecco_params *p,
                          const cosa_power_bond *bonds, size_t nbond, double tend,
                          cosa_ecco_result **out);

void cosa_ecco_result_free(cosa_ecco_result *r);

void cosa_cosim_result_free(cosa_cosim_result *r);

/* "ok", "failed", "max-steps", "hmin" (NULL past the end). */
const char *cosa_defect_end_name(cosa_defect_end e);

void cosa_defect_result_free(cosa_defect_result *r);

/* The error constants of a step T_N -> T_N + H with the extrapolation nodes
 * s_j = (T_{N-j} - T_N)/H, j = 0..k-1 (s_0 = 0): with
 * L^k(s) = prod_{j<k} (s - s_j)/(1 - s_j),
 *   C_vel^k = int_0^1 L^k ds (eq 20),  C_pos^k = int_0^1 (1 - s) L^k ds (eq 17)
 * (Gauss-Legendre, exact for k <= 14).  k = 0: 1 and 1/2. */
cosa_status cosa_vo_error_constants(int k, const double *s, double *cpos, double *cvel);

/* Defaults of the issue: k 0, kmax 5, rtol 1e-5, atol_x 1e-3 rtol, atol_v
 * rtol, atol_u 1e2 rtol, SF 6, rmin 0.5, rmax 2, hmin 1e-12, corr_tol 1e-10,
 * corr_max 10, explicit, control none, fd. */
void cosa_vo_opts_default(cosa_vo_opts *o);

/* "ok", "hmin", "diverged", "max-steps", "reference-failed" */
const char *cosa_vo_status_name(cosa_vo_status s);

void cosa_vo_result_free(cosa_vo_result *r);

cosa_status cosa_vo_estimate_step(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                                  const cosa_vo_opts *o, double t0, cosa_vo_estimate *out);

#endif /* COSA_INTERNAL_RUN_H */
