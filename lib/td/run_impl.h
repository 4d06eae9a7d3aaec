/* run_impl.h -- the validation of each run configuration (private): the
 * one check that the configuration's own entry point (cosa_cosim_run,
 * cosa_defect_run, cosa_vo_run) and the one entry point cosa_run share, so
 * a run description is judged the same way whichever way it comes in; and
 * the run behind the check, so that cosa_run checks once. */
#ifndef COSA_TD_RUN_IMPL_H
#define COSA_TD_RUN_IMPL_H

#include "cosa/td.h"

/* The fixed-step run: COSA_EINVAL (NULL, sizes), COSA_ERANGE (N, order,
 * the reference's length or macro step, observers, defect order). */
cosa_status td_cosim_check(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt);
/* The defect run: COSA_EINVAL (NULL, sizes), COSA_ERANGE (orders, H, tol,
 * h0, T, hmin, control). */
cosa_status td_defect_check(cosa_unitset *set, const double *x0, const cosa_system *exact,
                            const cosa_defect_opts *o);
/* The variable-order run: COSA_EINVAL, COSA_ERANGE, COSA_EUNSUPPORTED
 * (cosa_vo_run's). */
cosa_status td_vo_check(const cosa_unitset *set, cosa_vo_ref_fn ref, const cosa_vo_opts *o);

/* The runs themselves, on a description the check above accepted (not
 * checked again: cosa_run validates once, then calls these; the public
 * entry points are check + exec).  out must not be NULL. */
cosa_status td_cosim_exec(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                          const cosa_cosim_opts *opt, cosa_cosim_result **out);
cosa_status td_defect_exec(cosa_unitset *set, const double *x0, const cosa_system *exact,
                           const cosa_defect_opts *o, cosa_defect_result **out);
cosa_status td_vo_exec(cosa_unitset *set, cosa_vo_ref_fn ref, void *refctx,
                       const cosa_vo_opts *o, cosa_vo_result **out);

#endif
