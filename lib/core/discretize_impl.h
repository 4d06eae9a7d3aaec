/* discretize_impl.h -- the stacked Van Loan discretisation with its per-subsystem
 * cache (lib/core/discretize.c), private to the library (lib/phi, lib/td). */
#ifndef COSA_CORE_DISCRETIZE_IMPL_H
#define COSA_CORE_DISCRETIZE_IMPL_H

#include "cosa/core.h"

/* from cosa/core.h: used only inside lib/ (not part of the installed API) */
/* Workspace for systems with the subsystem split of sys, orders up to pmax. */
cosa_disc_workspace *cosa_disc_workspace_alloc(const cosa_system *sys, int pmax);

void cosa_disc_workspace_free(cosa_disc_workspace *w);

/* Compute A_d (nx x nx) and Q_0..Q_p (p+1 blocks nx x nu, ld nx) of the
 * stacked system for step dt into the workspace; read them with
 * cosa_disc_Ad / cosa_disc_Q (valid until the next call).  Off-diagonal
 * blocks are zero.  COSA_ERANGE (dt, p), COSA_EWORKSPACE (other split or
 * p > pmax), expm failures. */
cosa_status cosa_disc_compute(const cosa_system *sys, int p, double dt, cosa_disc_workspace *w);

const double *cosa_disc_Ad(const cosa_disc_workspace *w);

const double *cosa_disc_Q(const cosa_disc_workspace *w);

#endif /* COSA_CORE_DISCRETIZE_IMPL_H */
