/* reftraj_impl.h -- private declarations of the reference trajectories
 * (lib/td/reftraj*.c) that only lib/td uses. */
#ifndef COSA_TD_REFTRAJ_IMPL_H
#define COSA_TD_REFTRAJ_IMPL_H

#include "cosa/td.h"

/* from cosa/reference.h: used only inside lib/ (not part of the installed API) */
/* The same at the given times (nsamples, strictly increasing, times[0] = 0;
 * else COSA_ERANGE); the result's H is 0 (not equidistant). */
cosa_status cosa_reftraj_cvode_at(cosa_unitset *set, const double *x0, size_t nsamples,
                                  const double *times, double rtol, cosa_reftraj **out);

#endif /* COSA_TD_REFTRAJ_IMPL_H */
