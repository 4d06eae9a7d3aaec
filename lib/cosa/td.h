/* cosa/td.h -- the time-domain layer, split by concept into:
 *   cosa/units.h      units (ODE systems, integrators, the unit type), unit sets
 *   cosa/reference.h  reference trajectories and their distance
 *   cosa/stepping.h   the run loop, the master (input builders), iteration
 *   cosa/control.h    error estimators and step controllers
 *   cosa/run.h        run statistics, ECCO, observers, the runs, cosa_run
 *   cosa/fmu.h        FMU import
 * This header includes them all, for code that includes it.
 * Part of the public API; include <cosa.h> (the umbrella header) or this file. */
#ifndef COSA_TD_H
#define COSA_TD_H

#include "cosa/core.h"
#include "cosa/units.h"
#include "cosa/reference.h"
#include "cosa/stepping.h"
#include "cosa/control.h"
#include "cosa/run.h"
#include "cosa/fmu.h"

#endif /* COSA_TD_H */
