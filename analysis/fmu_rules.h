/* fmu_rules.h -- what a run of FMUs needs of the scheme and the macro step,
 * checked by cosa simulate before it runs (it refuses) and by the Phi
 * commands' runnable check (advise, the notes): one code for both, so that
 * advise recommends only what simulate runs (analysis/fmu_rules.c). */
#ifndef COSA_FMU_RULES_H
#define COSA_FMU_RULES_H

#include "cosa/td.h"

#include <stddef.h>

/* The event-point rule (README "Events"): event points are communication
 * points of every unit, which needs a plain Jacobi scheme without
 * corrections or iterations, one step per unit (nrate: no --rate), inputs
 * as polynomials (held 0) and no energy correction (energy 0).  NULL when
 * the run meets it, else what it needs ("a plain Jacobi scheme without
 * corrections", ...). */
const char *fmu_event_rule(const cosa_scheme *s, int nrate, int held, int energy);

/* Fixed internal steps (cosa_fmu_step_check): the index of the first of
 * caps[0..n) (NULL: not an FMU) that cannot take a communication step of h
 * (its reason in why, size > 0), or n when every one can. */
size_t fmu_step_refusal(const cosa_fmu_capability *const *caps, size_t n, double h, char *why,
                        size_t size);

/* Event points and fixed internal steps: an event point is a communication
 * point of every unit, and a fixed-step FMU stops on its own grid only.  The
 * events of an FMU with event mode (events[i] 1) lie on another FMU's grid
 * only when it has a fixed step itself that is a multiple of the other's;
 * else the run cannot reach them.  The index of the first fixed-step FMU
 * that cannot, with "FMU NAME takes fixed internal steps of H s and cannot
 * stop at the event points of FMU NAME2 ..." in why (names[i]: the
 * subsystems' names, may be NULL), or n. */
size_t fmu_event_grid_refusal(const cosa_fmu_capability *const *caps, const int *events, size_t n,
                              const char *const *names, char *why, size_t size);

/* The coarsest fixed internal step of caps[0..n) (0: none has one) and, in
 * *at, the index of the FMU that has it. */
double fmu_fixed_step_max(const cosa_fmu_capability *const *caps, size_t n, size_t *at);

#endif
