/* cosa.h -- public API of libcosa (co-simulation analysis).
 *
 * Conventions (see README and doc/method.md):
 *  - All matrices are dense, column-major, with an explicit leading dimension
 *    where the caller owns the storage.  Sizes are size_t.
 *  - Every entry point validates its arguments and returns a cosa_status;
 *    the library never prints, exits or aborts.  cosa_strerror() turns a
 *    status into a message.
 *  - Objects come in alloc/free pairs; every *_free accepts NULL.
 *  - Compute calls take a caller-owned workspace as their last argument and
 *    do not allocate.
 *  - Equation numbers "eq N" refer to the MBCorr paper
 *    (papers/model-based-corrector-mbcorr.txt).
 *
 * The API is split by module (README "Architecture"):
 *   cosa/core.h    status, expm, coupled linear systems, schemes, eigenvalues,
 *                  the model descriptor
 *   cosa/phi.h     propagation matrices, accuracy, limits; it includes
 *     cosa/sweep.h     sweeps, maps, contour lines, adaptive sweeps
 *   cosa/td.h      the time-domain layer; it includes its parts by concept:
 *     cosa/units.h      units (ODE systems, integrators, the unit type), unit sets
 *     cosa/reference.h  reference trajectories and their distance
 *     cosa/stepping.h   the run loop, the master (input builders), iteration
 *     cosa/control.h    error estimators and step controllers
 *     cosa/run.h        run statistics, ECCO, observers, the runs, cosa_run
 *     cosa/fmu.h        FMU import
 *   cosa/check.h   independent cross-checks used by the tests
 *   cosa/models.h  the registry of built-in models, model files, units of a model
 *   cosa/api.h     the one-call API: a model at parameter values, one call per
 *                  question (point, phi, limit, map, advise, simulate)
 */
#ifndef COSA_H
#define COSA_H

#include "cosa/core.h"
#include "cosa/phi.h"
#include "cosa/sweep.h"
#include "cosa/td.h"
#include "cosa/units.h"
#include "cosa/reference.h"
#include "cosa/stepping.h"
#include "cosa/control.h"
#include "cosa/run.h"
#include "cosa/fmu.h"
#include "cosa/check.h"
#include "cosa/models.h"
#include "cosa/api.h"

#endif /* COSA_H */
