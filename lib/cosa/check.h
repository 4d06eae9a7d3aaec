/* cosa/check.h -- independent cross-checks used by the tests (not an engine).
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_CHECK_H
#define COSA_CHECK_H

#include "cosa/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Independent time-domain co-simulation of linear schemes (lib/check/linear_run.c) */
/* ------------------------------------------------------------------------ */

/* Runs the scheme as a master algorithm would: each subsystem is advanced
 * exactly over the macro step with its polynomial input, outputs are
 * exchanged, corrected (output correction) and the offset du updated
 * (state correction), as in section 2.3 of the MBCorr paper.  It does not use
 * the Phi assembly and serves as its cross-check.
 * z0: initial information vector (layout of s); traj: (nsteps+1) x dim,
 * column k = z_k (column-major, ld = dim).  The workspace is internal. */
cosa_status cosa_check_linear_run(const cosa_system *sys, const cosa_scheme *s, double dt,
                                  const double *z0, size_t nsteps, double *traj);


#ifdef __cplusplus
}
#endif
#endif /* COSA_CHECK_H */
