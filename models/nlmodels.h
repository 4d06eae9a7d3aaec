/* nlmodels.h -- built-in nonlinear model descriptors (models/). */
#ifndef COSA_NLMODELS_H
#define COSA_NLMODELS_H

#include "cosa.h"

extern const cosa_nlmodel model_twomass_nl; /* MBCorr paper section 5, eq 43 */

#endif
