/* builtin.h -- the built-in model descriptors (models/), listed by the
 * registry (models/registry.c). */
#ifndef COSA_MODELS_BUILTIN_H
#define COSA_MODELS_BUILTIN_H

#include "cosa.h"

/* Declared parameter ranges (cosa_range) of the built-in models */
#define RANGE_POSITIVE {COSA_RANGE_GT, 0.0, 0.0, NULL, NULL}    /* > 0  */
#define RANGE_NONNEGATIVE {COSA_RANGE_GE, 0.0, 0.0, NULL, NULL} /* >= 0 */

/* NAMES999S(p, s): the initializer p "1" s, p "2" s, ..., p "999" s of a
 * table of NAMED static names (indexed names without storage per call);
 * NAMES999(p) without a suffix. */
#define NAMES_U10(p, s)                                                                       \
    p "0" s, p "1" s, p "2" s, p "3" s, p "4" s, p "5" s, p "6" s, p "7" s, p "8" s, p "9" s
#define NAMES_H100(p, s)                                                                      \
    NAMES_U10(p "0", s), NAMES_U10(p "1", s), NAMES_U10(p "2", s), NAMES_U10(p "3", s),       \
        NAMES_U10(p "4", s), NAMES_U10(p "5", s), NAMES_U10(p "6", s), NAMES_U10(p "7", s),   \
        NAMES_U10(p "8", s), NAMES_U10(p "9", s)
#define NAMES999S(p, s)                                                                       \
    p "1" s, p "2" s, p "3" s, p "4" s, p "5" s, p "6" s, p "7" s, p "8" s, p "9" s,          \
        NAMES_U10(p "1", s), NAMES_U10(p "2", s), NAMES_U10(p "3", s), NAMES_U10(p "4", s),   \
        NAMES_U10(p "5", s), NAMES_U10(p "6", s), NAMES_U10(p "7", s), NAMES_U10(p "8", s),   \
        NAMES_U10(p "9", s), NAMES_H100(p "1", s), NAMES_H100(p "2", s), NAMES_H100(p "3", s), \
        NAMES_H100(p "4", s), NAMES_H100(p "5", s), NAMES_H100(p "6", s),                     \
        NAMES_H100(p "7", s), NAMES_H100(p "8", s), NAMES_H100(p "9", s)
#define NAMES999(p) NAMES999S(p, "")
#define NAMED 999

/* linear */
extern const cosa_model model_twomass;    /* MBCorr paper eq 27 */
extern const cosa_model model_twomass_fd; /* coupling on the mass-1 side */
extern const cosa_model model_rotational; /* two inertias, torque coupling */
extern const cosa_model model_rotational_defect; /* defect paper split */
extern const cosa_model model_chain;      /* n masses in r groups */
extern const cosa_model model_multi_fd;   /* energy paper section 4.1 */
extern const cosa_model model_oscillator; /* preCICE's oscillator tutorial */
/* nonlinear */
extern const cosa_model model_twomass_nl; /* MBCorr paper section 5, eq 43 */
extern const cosa_model model_twomass_fd_nl; /* energy paper section 4.2 */
extern const cosa_model model_pendula;    /* energy paper section 4.3 */
extern const cosa_model model_crane;      /* energy paper section 4.4 */
extern const cosa_model model_twomass_ff; /* variable-order paper section 6.1 */
extern const cosa_model model_chain_ff;   /* variable-order paper section 6.2 */

#endif
