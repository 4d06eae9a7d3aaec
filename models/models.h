/* models.h -- built-in model descriptors (models/). */
#ifndef COSA_MODELS_H
#define COSA_MODELS_H

#include "cosa.h"

extern const cosa_model cosa_model_twomass; /* MBCorr paper eq 27 */

#endif
