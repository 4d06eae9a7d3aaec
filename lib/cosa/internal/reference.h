/* cosa/internal/reference.h -- the build tree's view of cosa/reference.h: declarations that
 * lib/, models/, api/, the command (analysis/) and the tests use, but that are
 * not part of the installed API.  Not installed, not a contract: they may
 * change without notice.  cosa/reference.h includes this file when COSA_INTERNAL is
 * defined (AM_CPPFLAGS of the build; doc/architecture.md "Public and internal
 * headers"). */
#ifndef COSA_INTERNAL_REFERENCE_H
#define COSA_INTERNAL_REFERENCE_H

#include "cosa/reference.h"

/* The same keeping only the states sel[0..nsel-1] (r->nx = nsel, no outputs:
 * r->ny = 0): long chains whose full trajectory would not fit in memory.
 * A unit set with bandwidths (cosa_unitset_set_band) is integrated with a
 * band matrix (all three variants). */
cosa_status cosa_reftraj_cvode_sel(cosa_unitset *set, const double *x0, size_t nsamples,
                                   const double *times, double rtol, size_t nsel,
                                   const size_t *sel, cosa_reftraj **out);

/* Global NRMSE (eq 33, doc/method.md) of N samples y (ny x N, ld ldy) against the
 * reference yref (ld ldr): per component k, RMS_n(y_kn - yref_kn) divided by
 * the population standard deviation of yref_k over the same samples, then the
 * RMS over the components; components with std_k <= COSA_NRMSE_STD_RTOL *
 * sqrt(mean_k^2 + std_k^2) are left out (as cosa_nrmse).  *e = +inf if a y
 * entry is not finite or the sums overflow.  ncomp (may be NULL) counts the
 * components used.  COSA_EINVAL (NULL, ny = 0, ld < ny), COSA_ERANGE (N = 0 or
 * every component constant), COSA_ENONFINITE (yref not finite). */
cosa_status cosa_traj_nrmse(size_t ny, size_t N, const double *y, size_t ldy,
                            const double *yref, size_t ldr, double *e, size_t *ncomp);

#endif /* COSA_INTERNAL_REFERENCE_H */
