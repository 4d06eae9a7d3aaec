/* builtin.h -- the built-in model descriptors (models/), listed by the
 * registry (models/registry.c). */
#ifndef COSA_MODELS_BUILTIN_H
#define COSA_MODELS_BUILTIN_H

#include "cosa.h"

/* Declared parameter ranges (cosa_range) of the built-in models */
#define RANGE_POSITIVE {COSA_RANGE_GT, 0.0, 0.0, NULL, NULL}    /* > 0  */
#define RANGE_NONNEGATIVE {COSA_RANGE_GE, 0.0, 0.0, NULL, NULL} /* >= 0 */

/* linear */
extern const cosa_model model_twomass;    /* MBCorr paper eq 27 */
extern const cosa_model model_twomass_fd; /* coupling on the mass-1 side */
extern const cosa_model model_rotational; /* two inertias, torque coupling */
extern const cosa_model model_rotational_defect; /* defect paper split */
extern const cosa_model model_chain;      /* n masses in r groups */
/* nonlinear */
extern const cosa_model model_twomass_nl; /* MBCorr paper section 5, eq 43 */

#endif
