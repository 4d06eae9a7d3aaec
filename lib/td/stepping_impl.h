/* td/stepping_impl.h -- declarations of the master and the iteration that
 * only the engine (lib/td/) uses, moved out of the public cosa/stepping.h. */
#ifndef COSA_TD_STEPPING_IMPL_H
#define COSA_TD_STEPPING_IMPL_H

#include "cosa/stepping.h"

/* The raw outputs y_{n+1} (ny) of the proposal waiting for commit (the
 * units' states are its states).  COSA_EINVAL without one. */
cosa_status cosa_master_proposal_outputs(const cosa_master *m, double *y);
/* With sample_mid = 2: the first unit whose mid-sample half step failed
 * since init (its message in *why, may be NULL), or the number of units if
 * none did.  The steps themselves went on unchanged. */
size_t cosa_master_mid_lost(const cosa_master *m, const char **why);
/* 1 when the master was created with opts.events. */
int cosa_master_has_events(const cosa_master *m);
/* Commit the proposal at time t (events: the run loop's clock, which is the
 * proposal's end to rounding); without events as cosa_master_commit. */
cosa_status cosa_master_commit_at(cosa_master *m, double t);
/* The unit that failed in the last step (or nunits). */
size_t cosa_iter_failed_unit(const cosa_iter *it);

#endif /* COSA_TD_STEPPING_IMPL_H */
